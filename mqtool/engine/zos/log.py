"""The log of a z/OS queue manager, the engine's side: the parameters in effect (the
system's CSQ6LOGP values overlaid by SET LOG), how log writes go (zHyperLink
synchronous, or asynchronous I/O), where the log stands (latest RBA, active data set),
what a group of log records does to it (the RBA advances, active data sets fill, switch
and wait for offload), the offload task (run from tick, MAXCNOFF at a time, making
numbered archive data sets), ARCHIVE LOG, restart, and the log manager's counters of
the statistics interval.

The position lives in `zos_log`, not in the queue manager's status: a status write
would make every open handle read its definitions again. Log records are added up by
each handle and written in groups (stats.Figures), so the store sees one write per
group, not one per message. Console messages (CSQJ001I, CSQJ002I, CSQJ003I, CSQJ111A,
CSQJ139I) are the IBM ones; the engine stores them, the command layer shows reports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mqtool.complex import ARCHIVE_DEFAULTS, LOG_DEFAULTS
from mqtool.engine.console import console
from mqtool.engine.timers import TickContext, schedule, timer
from mqtool.engine.zos.logrecords import COMPRESSING, GET_RECORD, PUT_HEADER, put_record
from mqtool.state.records import cpu_generation

if TYPE_CHECKING:
    from mqtool.state import ObjectRecord, SystemRecord, Transaction

WRITE_SESSIONS = 64  # zHyperLink write tokens a DS8000 storage subsystem offers (seed)
ZHYPERLINK_CPU = 14  # zHyperLink needs a z14 or later
PAGE = 4096  # a log control interval (CI)
OFFLOAD_RATE = 100 * 1024 * 1024  # bytes per second an offload task copies (mqtool's)
CHECKPOINT_RECORD = 512  # bytes a checkpoint writes (ARCHIVE LOG, every LOGLOAD records)
DEFAULT_LOGLOAD = 500_000  # CSQ6SYSP LOGLOAD: log records between checkpoints
OFFLOAD_TIMER = "zos.offload"
LOG_CSECT = "CSQJC001"  # the log manager module named on its console messages (mqtool's)


# -- parameters ---------------------------------------------------------------------------


def initial_log(system: SystemRecord) -> dict[str, Any]:
    """The CSQ6LOGP values the queue manager started with. ZHYLINK=YES overrides
    ZHYWRITE to YES (seed: zHyperLink requires zHyperWrite)."""
    values = dict(LOG_DEFAULTS) | dict(system.attrs.get("log") or {})
    if str(values.get("ZHYLINK")).upper() == "YES":
        values["ZHYWRITE"] = "YES"
    return values


def current_log(system: SystemRecord, manager: ObjectRecord) -> dict[str, Any]:
    """The values in effect: the initial ones overlaid by SET LOG."""
    return initial_log(system) | dict(manager.status.get("log_set") or {})


def initial_archive(system: SystemRecord) -> dict[str, Any]:
    return dict(ARCHIVE_DEFAULTS) | dict(system.attrs.get("archive") or {})


def current_archive(system: SystemRecord, manager: ObjectRecord) -> dict[str, Any]:
    return initial_archive(system) | dict(manager.status.get("archive_set") or {})


def copies(values: dict[str, Any]) -> int:
    return 2 if str(values.get("TWOACTV", "YES")).upper() == "YES" else 1


def write_sessions(values: dict[str, Any]) -> int:
    """zHyperLink write sessions the active logs need: copies x stripes, doubled with
    PPRC (Metro Mirror), as the seed counts them."""
    needed = copies(values) * int(values.get("STRIPES", 1))
    return needed * 2 if str(values.get("PPRC", "NO")).upper() == "YES" else needed


def free_sessions(values: dict[str, Any]) -> int:
    """Write sessions the storage subsystem has free for this queue manager (ZHLFREE)."""
    return min(WRITE_SESSIONS, int(values.get("ZHLFREE", WRITE_SESSIONS)))


def zhyperlink(system: SystemRecord, values: dict[str, Any]) -> str:
    """How log writes go: OFF (ZHYLINK NO), NOTCAPABLE (a CPU before z14), NOSESSIONS
    (more write sessions needed than are free) or SYNC."""
    if str(values.get("ZHYLINK", "NO")).upper() != "YES":
        return "OFF"
    if cpu_generation(system.cpu) < ZHYPERLINK_CPU:
        return "NOTCAPABLE"
    if write_sessions(values) > free_sessions(values):
        return "NOSESSIONS"
    return "SYNC"


def logload_value(system: SystemRecord, manager: ObjectRecord) -> int:
    """LOGLOAD in effect: SET SYSTEM's value, else the system's, else IBM's default."""
    value = dict(manager.status.get("system_set") or {}).get("LOGLOAD", system.attrs.get("logload"))
    return int(value) if value is not None else DEFAULT_LOGLOAD


@dataclass(frozen=True)
class LogSettings:
    """What the engine needs of the log parameters, derived once per resolution."""

    copies: int
    datasets: int  # active log data sets per copy (LOGDS)
    size: int  # bytes per active data set (LOGSIZE)
    complog: str
    compress: bool  # COMPLOG RLE or ANY
    offload: bool  # OFFLOAD YES
    maxcnoff: int
    mode: str  # zhyperlink(): OFF, SYNC, NOSESSIONS, NOTCAPABLE
    zhywrite: bool
    zhw_capable: bool  # ZHYWRITE NO on mirrored (PPRC) logs: could use zHyperWrite
    zhl_capable: bool  # the CPU can do zHyperLink (z14 or later)
    logload: int
    outbuff_pages: int  # the output buffer (OUTBUFF KB) in log pages: a longer write waits for buffers
    wrthrsh: int  # buffers filled that start a write (WRTHRSH)
    # Data sets DEFINE LOG added to each copy's ring, after the LOGDS ones (copy 1 first).
    added: tuple[tuple[str, ...], ...] = ()

    def name(self, system: str, copy: int, dataset: int) -> str:
        """The data set at a place in a copy's ring: SSID.LOGCOPYn.DSnn, or one DEFINE LOG added."""
        base = self.datasets - self.extra
        if dataset > base and copy <= len(self.added) and dataset - base <= len(self.added[copy - 1]):
            return self.added[copy - 1][dataset - base - 1]
        return dsname(system, copy, dataset)

    @property
    def extra(self) -> int:
        """Places DEFINE LOG added to the ring: those every copy has a data set for."""
        return min((len(names) for names in self.added[: self.copies]), default=0)


def added_logs(manager: ObjectRecord) -> dict[str, list[str]]:
    """The data sets DEFINE LOG added, by copy ("1", "2"), in the queue manager's status
    (kept over a restart, as the BSDS keeps them)."""
    stored = manager.status.get("active_logs") or {}
    return {copy: [str(name) for name in stored.get(copy) or []] for copy in ("1", "2")}


def log_settings(system: SystemRecord, manager: ObjectRecord) -> LogSettings:
    values = current_log(system, manager)
    complog = str(values.get("COMPLOG", "NONE")).upper()
    zhywrite = str(values.get("ZHYWRITE", "NO")).upper() == "YES"
    added = added_logs(manager)
    count = copies(values)
    extra = min(len(added[str(copy)]) for copy in range(1, count + 1))
    return LogSettings(
        copies=count,
        datasets=int(values.get("LOGDS", LOG_DEFAULTS["LOGDS"])) + extra,
        size=max(PAGE, int(values.get("LOGSIZE", LOG_DEFAULTS["LOGSIZE"]))),
        complog=complog,
        compress=complog in COMPRESSING,
        offload=str(values.get("OFFLOAD", "YES")).upper() == "YES",
        maxcnoff=max(1, int(values.get("MAXCNOFF", LOG_DEFAULTS["MAXCNOFF"]))),
        mode=zhyperlink(system, values),
        zhywrite=zhywrite,
        zhw_capable=not zhywrite and str(values.get("PPRC", "NO")).upper() == "YES",
        zhl_capable=cpu_generation(system.cpu) >= ZHYPERLINK_CPU,
        logload=logload_value(system, manager),
        outbuff_pages=max(1, int(values.get("OUTBUFF", LOG_DEFAULTS["OUTBUFF"])) * 1024 // PAGE),
        wrthrsh=max(1, int(values.get("WRTHRSH", LOG_DEFAULTS["WRTHRSH"]))),
        added=(tuple(added["1"]), tuple(added["2"])),
    )


# -- a group of log records, added up by a handle -------------------------------------------

# Indexes of a group's counters (a list of ints, so a put adds to it without objects):
# records, write requests, pages, bytes before and after COMPLOG, compression; write
# requests of one page, waits for output buffers, writes the threshold started.
(RECORDS, WRITES, PAGES, ORIGINAL, WRITTEN, COMP_REQUESTS, COMP_ORIGINAL, COMP_WRITTEN, ONE_WRITES, BUFFER_WAITS,
 THRESHOLD_WRITES) = range(11)  # fmt: skip
GROUP_FIELDS = 11


def add_put(group: list[int], data: bytes, settings: LogSettings) -> None:
    """A persistent put (or streamed copy) of `data` as stored: one log record, one
    write request of its pages."""
    if settings.compress and data:
        record = put_record(data, settings.complog)
        original, written = record.original, record.written
        group[COMP_REQUESTS] += 1
        group[COMP_ORIGINAL] += original - PUT_HEADER
        group[COMP_WRITTEN] += written - PUT_HEADER
    else:
        original = written = PUT_HEADER + len(data)
    pages = -(-written // PAGE)
    group[RECORDS] += 1
    group[WRITES] += 1
    group[PAGES] += pages
    group[ORIGINAL] += original
    group[WRITTEN] += written
    if pages == 1:
        group[ONE_WRITES] += 1
    if pages > settings.outbuff_pages:
        group[BUFFER_WAITS] += 1  # the record does not fit the output buffer: it waits for buffers
    if pages >= settings.wrthrsh:
        group[THRESHOLD_WRITES] += 1  # it fills WRTHRSH buffers, which starts the write


def add_get(group: list[int]) -> None:
    """A destructive get of a persistent message: one record, one page."""
    group[RECORDS] += 1
    group[WRITES] += 1
    group[PAGES] += 1
    group[ONE_WRITES] += 1
    group[ORIGINAL] += GET_RECORD
    group[WRITTEN] += GET_RECORD


# -- where the log stands ---------------------------------------------------------------------


@dataclass
class Position:
    rba: int  # the latest RBA: bytes written since the log began
    restart_rba: int
    dataset: int  # the active data set (1 .. LOGDS) of each copy
    ds_start: int  # the RBA the active data set begins at
    archives: int  # archive data sets made by offloads
    full: int  # full active data sets waiting for (or in) offload
    offloading: int  # of which an offload task copies now

    @property
    def used(self) -> int:
        """Bytes written into the active data set."""
        return self.rba - self.ds_start


def rba_text(rba: int) -> str:
    return f"{rba:016X}"


def dsname(system: str, copy: int, dataset: int) -> str:
    return f"{system}.LOGCOPY{copy}.DS{dataset:02d}"


def stck(timestamp: float) -> str:
    """A time as the z/Architecture TOD clock (STCK) shows it: 16 hex digits, bit 51 one
    microsecond, counted from 1900-01-01 (the STARTTIME and ENDTIME of CSQJ003I)."""
    micros = round((timestamp + 2_208_988_800) * 1_000_000)
    return f"{(micros << 12) & 0xFFFFFFFFFFFFFFFF:016X}"


def _ensure(tx: Transaction, system: str) -> None:
    tx.conn.execute("INSERT OR IGNORE INTO zos_log (system) VALUES (?)", (system,))


def position(tx: Transaction, system: str) -> Position:
    row = tx.conn.execute(
        "SELECT rba, restart_rba, dataset, ds_start, archives FROM zos_log WHERE system = ?", (system,)
    ).fetchone()
    rba, restart, dataset, start, archives = row if row is not None else (0, 0, 1, 0, 0)
    full, offloading = tx.conn.execute(
        "SELECT count(*), count(started) FROM zos_offload WHERE system = ?", (system,)
    ).fetchone()
    return Position(int(rba), int(restart), int(dataset), int(start), int(archives), int(full), int(offloading))


def restart(tx: Transaction, system: str) -> int:
    """START QMGR: logging resumes at the latest RBA, in the same active data set.
    Returns the restart RBA."""
    _ensure(tx, system)
    tx.conn.execute("UPDATE zos_log SET restart_rba = rba WHERE system = ?", (system,))
    return position(tx, system).rba


# -- writing a group --------------------------------------------------------------------------


def write(tx: Transaction, system: SystemRecord, settings: LogSettings, group: list[int], now: float) -> None:
    """Writes a group of log records: the RBA advances by the bytes written, full
    active data sets switch (and go to offload), a checkpoint every LOGLOAD records,
    and the interval counters grow. zHyperLink writes are synchronous, but the first
    write after a switch goes asynchronously (the write token moves to the new data
    set, seed); with too few write sessions or a CPU before the z14 they all fall back
    to asynchronous I/O."""
    conn = tx.conn
    _ensure(tx, system.name)
    since = int(conn.execute("SELECT since_checkpoint FROM zos_log WHERE system = ?", (system.name,)).fetchone()[0])
    records = group[RECORDS]
    checkpoints, since = divmod(since + records, max(1, settings.logload))
    original = group[ORIGINAL] + checkpoints * CHECKPOINT_RECORD
    written = group[WRITTEN] + checkpoints * CHECKPOINT_RECORD
    switches = advance(tx, system, settings, written, now)
    writes = group[WRITES] + checkpoints
    pages = group[PAGES] + checkpoints
    one = group[ONE_WRITES] + checkpoints  # write requests of one page (a checkpoint is one)
    many, many_pages = writes - one, pages - one
    sync = asynchronous = switch_async = async_one = switch_one = 0
    if settings.mode == "SYNC":
        # The first write after a switch goes asynchronously (a large write fills the
        # data set more often, so the switches are counted on those first).
        switch_async = min(writes, switches)
        switch_one = max(0, switch_async - many)
        asynchronous, sync, async_one = switch_async, writes - switch_async, switch_one
    elif settings.mode != "OFF":
        asynchronous, async_one = writes, one
    async_pages = async_one + ((asynchronous - async_one) * many_pages // many if many else 0)
    conn.execute(
        "UPDATE zos_log SET since_checkpoint = ?, i_records = i_records + ?, i_writes = i_writes + ?, "
        "i_pages = i_pages + ?, i_original = i_original + ?, i_written = i_written + ?, "
        "i_comp_requests = i_comp_requests + ?, i_comp_original = i_comp_original + ?, "
        "i_comp_written = i_comp_written + ?, i_sync = i_sync + ?, i_async = i_async + ?, "
        "i_switch_async = i_switch_async + ?, i_checkpoints = i_checkpoints + ?, i_one_writes = i_one_writes + ?, "
        "i_buffer_waits = i_buffer_waits + ?, i_threshold_writes = i_threshold_writes + ?, "
        "i_sync_one = i_sync_one + ?, i_async_one = i_async_one + ?, i_switch_one = i_switch_one + ?, "
        "i_async_pages = i_async_pages + ?, i_bsds = i_bsds + ? WHERE system = ?",
        (since, records + checkpoints, writes, pages, original, written, group[COMP_REQUESTS],
         group[COMP_ORIGINAL], group[COMP_WRITTEN], sync, asynchronous, switch_async, checkpoints, one,
         group[BUFFER_WAITS], group[THRESHOLD_WRITES], one - async_one, async_one, switch_one, async_pages,
         checkpoints, system.name),
    )  # fmt: skip


def advance(tx: Transaction, system: SystemRecord, settings: LogSettings, nbytes: int, now: float) -> int:
    """Moves the RBA on by `nbytes`; switches each active data set that fills. Returns
    how many switches happened."""
    conn = tx.conn
    _ensure(tx, system.name)
    rba, dataset, start, opened = conn.execute(
        "SELECT rba, dataset, ds_start, coalesce(ds_opened, ?) FROM zos_log WHERE system = ?", (now, system.name)
    ).fetchone()
    rba += nbytes
    switches = 0
    while rba - start >= settings.size:
        dataset, start, opened = switch(tx, system, settings, dataset, start, start + settings.size - 1, opened, now)
        switches += 1
    conn.execute(
        "UPDATE zos_log SET rba = ?, dataset = ?, ds_start = ?, ds_opened = ? WHERE system = ?",
        (rba, dataset, start, opened, system.name),
    )
    return switches


def switch(
    tx: Transaction,
    system: SystemRecord,
    settings: LogSettings,
    dataset: int,
    start: int,
    end: int,
    opened: float,
    now: float,
) -> tuple[int, int, float]:
    """The active data set holding RBAs start..end is full (or truncated by ARCHIVE
    LOG): logging goes on in the next one, and the full one waits for offload. When the
    next one still waits for its own offload, every active data set is full: the writer
    waits while it is offloaded (CSQJ111A). Returns (dataset, start, opened) of the new
    active data set."""
    conn = tx.conn
    name = system.name
    for copy in range(1, settings.copies + 1):
        console(tx, system, now, "CSQJ002I", dsname=settings.name(name, copy, dataset), start=rba_text(start),
                end=rba_text(end))  # fmt: skip
    following = dataset % settings.datasets + 1
    capable = 1 if settings.zhl_capable else 0
    conn.execute(
        "UPDATE zos_log SET i_new_logs = i_new_logs + 1, i_zhw_capable = i_zhw_capable + ?, "
        "i_zhw_enabled = i_zhw_enabled + ?, i_zhl_capable = i_zhl_capable + ?, "
        "i_zhl_enabled = i_zhl_enabled + ?, i_bsds = i_bsds + 1 WHERE system = ?",  # the switch is recorded in the BSDS
        (int(settings.zhw_capable), int(settings.zhywrite), capable, int(settings.mode == "SYNC"), name),
    )
    if settings.offload:
        conn.execute(
            "INSERT INTO zos_offload (system, start_rba, end_rba, dataset, opened, filled) VALUES (?, ?, ?, ?, ?, ?)",
            (name, start, end, dataset, opened, now),
        )
        waiting = conn.execute(
            "SELECT start_rba FROM zos_offload WHERE system = ? AND dataset = ? AND start_rba < ? ORDER BY start_rba",
            (name, following, start),
        ).fetchall()
        if waiting:
            console(tx, system, now, "CSQJ111A", csect=LOG_CSECT)
            conn.execute("UPDATE zos_log SET i_full_waits = i_full_waits + 1 WHERE system = ?", (name,))
            # The writer waits for the offloads up to the one of the data set it needs.
            for (first,) in conn.execute(
                "SELECT start_rba FROM zos_offload WHERE system = ? AND start_rba <= ? ORDER BY start_rba",
                (name, waiting[-1][0]),
            ).fetchall():
                finish_offload(tx, system, first, now)
    begin = end + 1
    for copy in range(1, settings.copies + 1):
        console(tx, system, now, "CSQJ001I", copy=copy, dsname=settings.name(name, copy, following),
                start=rba_text(begin), end=rba_text(begin + settings.size - 1))  # fmt: skip
    if settings.offload:
        start_offloads(tx, system, settings, now)
    return following, begin, now


# -- the offload task -------------------------------------------------------------------------


def offload_seconds(start: int, end: int) -> float:
    """How long an offload of RBAs start..end takes: at OFFLOAD_RATE, whole seconds, at
    least one."""
    return float(max(1, math.ceil((end - start + 1) / OFFLOAD_RATE)))


def start_offloads(tx: Transaction, system: SystemRecord, settings: LogSettings, now: float) -> None:
    """Starts offload tasks for the full data sets that wait, oldest first, up to
    MAXCNOFF running at once, and makes the offload timer due when the first ends."""
    conn = tx.conn
    running = int(
        conn.execute(
            "SELECT count(*) FROM zos_offload WHERE system = ? AND started IS NOT NULL", (system.name,)
        ).fetchone()[0]
    )
    free = settings.maxcnoff - running
    if free > 0:
        conn.execute(
            "UPDATE zos_offload SET started = ? WHERE system = ? AND start_rba IN (SELECT start_rba FROM zos_offload "
            "WHERE system = ? AND started IS NULL ORDER BY start_rba LIMIT ?)",
            (now, system.name, system.name, free),
        )
    due = _next_end(tx, system.name)
    if due is not None:
        schedule(tx, system.name, OFFLOAD_TIMER, due)


def _next_end(tx: Transaction, system: str) -> float | None:
    ends = [
        float(started) + offload_seconds(int(start), int(end))
        for start, end, started in tx.conn.execute(
            "SELECT start_rba, end_rba, started FROM zos_offload WHERE system = ? AND started IS NOT NULL", (system,)
        )
    ]
    return min(ends) if ends else None


def archive_name(values: dict[str, Any], copy: int, number: int, when: float) -> str:
    """An archive data set: prefix.Annnnnnn, with TSTAMP(YES|EXT) prefix.Dyyddd.Thhmmsst.Annnnnnn."""
    from datetime import UTC, datetime

    prefix = str(values.get(f"ARCPFX{copy}") or f"CSQARC{copy}")
    if str(values.get("TSTAMP", "NO")).upper() in ("YES", "EXT"):
        moment = datetime.fromtimestamp(when, UTC)
        tenth = moment.microsecond // 100_000
        return f"{prefix}.D{moment:%y%j}.T{moment:%H%M%S}{tenth}.A{number:07d}"
    return f"{prefix}.A{number:07d}"


def finish_offload(tx: Transaction, system: SystemRecord, start_rba: int, now: float) -> None:
    """The offload of the data set starting at `start_rba` completes: an archive data
    set per archive copy (CSQJ003I each), numbered on from the last."""
    conn = tx.conn
    name = system.name
    row = conn.execute(
        "SELECT end_rba, opened, filled FROM zos_offload WHERE system = ? AND start_rba = ?", (name, start_rba)
    ).fetchone()
    if row is None:
        return
    end, opened, filled = int(row[0]), float(row[1]), float(row[2])
    manager = tx.get_object(name, "QMGR", name)
    values = current_archive(system, manager) if manager is not None else initial_archive(system)
    log_values = current_log(system, manager) if manager is not None else initial_log(system)
    number = int(conn.execute("SELECT archives FROM zos_log WHERE system = ?", (name,)).fetchone()[0]) + 1
    archive_copies = 2 if str(log_values.get("TWOARCH", "YES")).upper() == "YES" else 1
    for copy in range(1, archive_copies + 1):
        unit = str(values.get("UNIT2") or values.get("UNIT")) if copy == 2 else str(values.get("UNIT"))
        console(
            tx, system, now, "CSQJ003I",
            dsname=archive_name(values, copy, number, filled), start=rba_text(start_rba), end=rba_text(end),
            starttime=stck(opened), endtime=stck(filled), unit=unit or "TAPE", copy=copy,
            volume=f"{'AB'[copy - 1]}{number:05d}", volspan="NO",
            catlg="YES" if str(values.get("CATALOG", "NO")).upper() == "YES" else "NO",
        )  # fmt: skip
    conn.execute("DELETE FROM zos_offload WHERE system = ? AND start_rba = ?", (name, start_rba))
    conn.execute(
        "UPDATE zos_log SET archives = ?, i_offloads = i_offloads + 1, i_bsds = i_bsds + 1, "
        "i_cis_offloaded = i_cis_offloaded + ? WHERE system = ?",
        (number, -(-(end - start_rba + 1) // PAGE), name),
    )


@timer(OFFLOAD_TIMER)
def run_offload(context: TickContext, tx: Transaction, system: SystemRecord, due: float) -> float | None:
    """The offload task at `due`: the offloads that have run their time complete, the
    waiting ones start; CSQJ139I when none is left. Next due: the next one to end."""
    name = system.name
    manager = tx.get_object(name, "QMGR", name)
    if system.platform != "zos" or manager is None:
        return None
    finished = 0
    for start, end, started in tx.conn.execute(
        "SELECT start_rba, end_rba, started FROM zos_offload WHERE system = ? AND started IS NOT NULL "
        "ORDER BY start_rba",
        (name,),
    ).fetchall():
        if float(started) + offload_seconds(int(start), int(end)) <= due:
            finish_offload(tx, system, int(start), due)
            finished += 1
    settings = log_settings(system, manager)
    start_offloads(tx, system, settings, due)
    if finished and not tx.conn.execute("SELECT 1 FROM zos_offload WHERE system = ?", (name,)).fetchone():
        console(tx, system, due, "CSQJ139I", csect=LOG_CSECT)
    return _next_end(tx, name)


def archive_log(tx: Transaction, system: SystemRecord, manager: ObjectRecord, now: float) -> str | None:
    """ARCHIVE LOG: a checkpoint, then the active data set is truncated and switched
    (whatever it holds) and goes to offload with any other full ones. Returns why it
    cannot be done (None when done): OFFLOAD NO, or the next active data set still
    waits for its offload (the current one is the last available)."""
    settings = log_settings(system, manager)
    if not settings.offload:
        return "OFFLOAD"
    pos = position(tx, system.name)
    following = pos.dataset % settings.datasets + 1
    if tx.conn.execute(
        "SELECT 1 FROM zos_offload WHERE system = ? AND dataset = ?", (system.name, following)
    ).fetchone():
        return "LAST"
    # The checkpoint ARCHIVE LOG takes; when it filled the data set, that switch is the
    # truncation, else the data set is truncated after it.
    switched = checkpoint(tx, system, settings, now)
    if not switched:
        rba, dataset, start, opened = tx.conn.execute(
            "SELECT rba, dataset, ds_start, coalesce(ds_opened, ?) FROM zos_log WHERE system = ?", (now, system.name)
        ).fetchone()
        dataset, start, opened = switch(tx, system, settings, dataset, start, rba - 1, opened, now)
        tx.conn.execute(
            "UPDATE zos_log SET dataset = ?, ds_start = ?, ds_opened = ? WHERE system = ?",
            (dataset, start, opened, system.name),
        )
    return None


def checkpoint(tx: Transaction, system: SystemRecord, settings: LogSettings, now: float) -> int:
    """A system checkpoint written now (one record of one page, and the BSDS updated), as
    ARCHIVE LOG and SUSPEND QMGR LOG take one. Returns how many active data sets it
    filled and switched."""
    switched = advance(tx, system, settings, CHECKPOINT_RECORD, now)
    tx.conn.execute(
        "UPDATE zos_log SET i_records = i_records + 1, i_writes = i_writes + 1, i_pages = i_pages + 1, "
        "i_original = i_original + ?, i_written = i_written + ?, i_checkpoints = i_checkpoints + 1, "
        "i_one_writes = i_one_writes + 1, i_bsds = i_bsds + 1 WHERE system = ?",
        (CHECKPOINT_RECORD, CHECKPOINT_RECORD, system.name),
    )
    return switched


def cancel_offload(tx: Transaction, system: SystemRecord, manager: ObjectRecord, now: float) -> int:
    """ARCHIVE LOG CANCEL OFFLOAD: the offloads in progress start again from the oldest
    full data set. Returns how many data sets wait for offload."""
    tx.conn.execute("UPDATE zos_offload SET started = NULL WHERE system = ?", (system.name,))
    start_offloads(tx, system, log_settings(system, manager), now)
    return int(tx.conn.execute("SELECT count(*) FROM zos_offload WHERE system = ?", (system.name,)).fetchone()[0])


# -- the log manager's interval counters --------------------------------------------------------

INTERVAL_COLUMNS = (
    "i_records", "i_writes", "i_pages", "i_original", "i_written", "i_comp_requests", "i_comp_original",
    "i_comp_written", "i_sync", "i_async", "i_switch_async", "i_new_logs", "i_zhw_capable", "i_zhw_enabled",
    "i_zhl_capable", "i_zhl_enabled", "i_offloads", "i_full_waits", "i_checkpoints", "i_one_writes",
    "i_buffer_waits", "i_threshold_writes", "i_sync_one", "i_async_one", "i_switch_one", "i_async_pages", "i_bsds",
    "i_cis_offloaded",
)  # fmt: skip


def interval_counted(tx: Transaction, system: str) -> bool:
    """Whether the log manager has counted anything since its interval began."""
    row = tx.conn.execute(
        f"SELECT 1 FROM zos_log WHERE system = ? AND ({' OR '.join(f'{c} != 0' for c in INTERVAL_COLUMNS)})",
        (system,),
    ).fetchone()
    return row is not None


def take_interval(tx: Transaction, system: str) -> dict[str, int]:
    """The log manager's counters since the interval began (names without i_), zeroed
    for the next interval, with the RBA at its end."""
    _ensure(tx, system)
    row = tx.conn.execute(f"SELECT rba, {', '.join(INTERVAL_COLUMNS)} FROM zos_log WHERE system = ?", (system,))
    values = row.fetchone()
    figures = {"rba": int(values[0])}
    figures |= {column[2:]: int(value) for column, value in zip(INTERVAL_COLUMNS, values[1:], strict=True)}
    tx.conn.execute(f"UPDATE zos_log SET {', '.join(f'{c} = 0' for c in INTERVAL_COLUMNS)} WHERE system = ?", (system,))
    return figures
