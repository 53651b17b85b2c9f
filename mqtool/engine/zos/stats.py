"""Statistics of a z/OS queue manager, the engine's side: the traces (START TRACE(STAT)
CLASS(n) keeps them in the queue manager's status), which queues collect statistics
(class 5 and STATQ), the statistics interval (STATIME), what each open handle adds to
its queue's statistics and to the log (`Figures`, written in groups), and the interval's
end (a tick timer) that writes one record per queue with statistics on (SMF 115
subtype 216, QQST) and one of the log manager (QJST, class 1 or 3).

Counts written in groups: a handle adds up its log records and its queue's figures in
memory and writes them every GROUP messages, at the statistics interval's end (this
process's handles are written by the interval's timer itself; another process's at its
next put or get after the end) and at MQCLOSE. A process killed with a handle open
loses the counts it had not written, never a message.
"""

from __future__ import annotations

import json
import math
import weakref
from typing import TYPE_CHECKING, Any

from mqtool.engine.timers import TickContext, cancel, last_mark, schedule, timer
from mqtool.engine.zos import log as zlog
from mqtool.engine.zos import topicstats

if TYPE_CHECKING:
    from mqtool.engine.core.message import Message, PutResult, Resolved
    from mqtool.engine.core.model import Handle
    from mqtool.state import ObjectRecord, SystemRecord, Transaction

STATS_TIMER = "zos.stats"
GROUP = 32  # messages whose figures a handle writes in one statement
SMF_INTERVAL = 30  # minutes: STATIME(0) follows the SMF global interval (SMF's default INTVAL)
QUEUE_CLASS = 5  # TRACE(STAT) CLASS(5): queue statistics
LOG_CLASSES = (1, 3)  # the log manager's statistics (QJST in class 1; zHyperLink detail in class 3)
SMF_RETAIN = 7  # days of records kept when the system does not say (mqtool.complex.SMF_RETAIN)

# -- traces ---------------------------------------------------------------------------------

TRACE_TYPES = ("GLOBAL", "ACCTG", "CHINIT", "STAT")
TRACE_CLASSES = {"GLOBAL": (1, 2, 3, 4), "ACCTG": (1, 2, 3, 4), "CHINIT": (1, 2, 3, 4), "STAT": (1, 2, 3, 4, 5)}
TRACE_DEFAULT_CLASSES = {"GLOBAL": [1], "ACCTG": [1], "CHINIT": [1], "STAT": [1, 2]}
TRACE_DEFAULT_DEST = {"GLOBAL": ["RES"], "ACCTG": ["SMF"], "CHINIT": ["RES"], "STAT": ["SMF"]}
MAX_TRACES = 32
# The global trace that CSQ6SYSP TRACSTR=YES (IBM's default) starts with the queue manager.
STARTUP_TRACES: list[dict[str, Any]] = [
    {"tno": 1, "type": "GLOBAL", "classes": [1], "dest": ["RES"], "userid": "*", "rmid": "*", "comment": ""}
]


def traces(manager: ObjectRecord) -> list[dict[str, Any]]:
    """The active traces of a queue manager, by trace number."""
    found = manager.status.get("traces")
    return [dict(t) for t in (STARTUP_TRACES if found is None else found)]


def stat_classes(manager: ObjectRecord) -> set[int]:
    """The statistics classes active (the union of the STAT traces')."""
    if manager.status.get("state", "STARTED") == "STOPPED":
        return set()
    return {int(c) for t in traces(manager) if t["type"] == "STAT" for c in t["classes"]}


def kinds(classes: set[int]) -> tuple[bool, bool]:
    """(queue statistics, log statistics) collected with these STAT classes."""
    return QUEUE_CLASS in classes, any(c in classes for c in LOG_CLASSES)


def queue_statistics(manager: ObjectRecord, local: ObjectRecord) -> bool:
    """Whether a local queue collects statistics: class 5 active, and its STATQ ON, or
    QMGR with the queue manager's STATQ ON (the queue manager's NONE: no queue does)."""
    return QUEUE_CLASS in stat_classes(manager) and statq_on(manager, local)


def statq_on(manager: ObjectRecord, local: ObjectRecord) -> bool:
    """The STATQ rule alone (whatever the traces)."""
    qmgr = str(manager.attrs.get("STATQ", "NONE")).upper()
    if qmgr == "NONE":
        return False
    own = str(local.attrs.get("STATQ", "QMGR")).upper()
    return own == "ON" or (own == "QMGR" and qmgr == "ON")


def statime(system: SystemRecord, manager: ObjectRecord) -> int | str:
    """STATIME: SET SYSTEM's value, else the system's (CSQ6SYSP): minutes, or minutes
    and seconds as "mm:ss" (IBM MQ 9.4 takes a time in minutes and seconds)."""
    value = dict(manager.status.get("system_set") or {}).get("STATIME", system.attrs.get("statime", 1))
    return value if isinstance(value, str) and ":" in value else int(value)


def interval_seconds(system: SystemRecord, manager: ObjectRecord) -> float:
    """The statistics interval in seconds; STATIME 0 is the SMF global interval."""
    minutes, _, seconds = str(statime(system, manager)).partition(":")
    return (int(minutes) * 60.0 + (int(seconds) if seconds else 0)) or float(SMF_INTERVAL * 60)


# -- what a handle adds up ---------------------------------------------------------------------

Q_COLUMNS = (
    "puts", "puts_p", "put_bytes", "put_bytes_p", "put1s", "put1s_p", "put1_bytes", "put1_bytes_p", "gets",
    "gets_p", "get_bytes", "get_bytes_p", "browses", "browses_p", "browse_bytes", "browse_bytes_p", "streamed",
    "expired", "opens", "closes", "rolled_puts", "rolled_gets",
)  # fmt: skip
(PUTS, PUTS_P, PUT_BYTES, PUT_BYTES_P, PUT1S, PUT1S_P, PUT1_BYTES, PUT1_BYTES_P, GETS, GETS_P, GET_BYTES,
 GET_BYTES_P, BROWSES, BROWSES_P, BROWSE_BYTES, BROWSE_BYTES_P, STREAMED, EXPIRED, OPENS, CLOSES, ROLLED_PUTS,
 ROLLED_GETS) = range(len(Q_COLUMNS))  # fmt: skip
_N = len(Q_COLUMNS)


def _add_queue_sql() -> str:
    """The statement that adds a handle's counts to its queue's row: the counters, then
    the extremes (a NULL on either side leaves the other: SQLite's min() of NULL is NULL),
    then the system and queue."""
    adds = ", ".join(f"{column} = {column} + ?{number}" for number, column in enumerate(Q_COLUMNS, 1))
    low, high, deep, shallow, system, queue = (f"?{_N + k}" for k in range(1, 7))

    def extreme(function: str, column: str, value: str) -> str:
        return f"{column} = {function}(coalesce({column}, {value}), coalesce({value}, {column}))"

    return (
        f"UPDATE zos_queue_stats SET {adds}, {extreme('min', 'size_min', low)}, {extreme('max', 'size_max', high)}, "
        f"{extreme('max', 'depth_hi', deep)}, {extreme('min', 'depth_lo', shallow)} "
        f"WHERE system = {system} AND queue = {queue}"
    )


_ADD_QUEUE = _add_queue_sql()
FAIL_COLUMNS = {"put": "put_fails", "put1": "put1_fails", "get": "get_fails", "browse": "browse_fails"}
# A queue's row has counted something in the interval (its depth extremes are gauges).
_COUNTED = " OR ".join([f"{column} != 0" for column in Q_COLUMNS] + [f"{c} != '{{}}'" for c in FAIL_COLUMNS.values()])

_LIVE: weakref.WeakSet[Figures] = weakref.WeakSet()  # this process's handles with counts not written


class Figures:
    """What one open z/OS queue handle adds to its queue manager's log and to its
    queue's statistics, kept in memory and written in groups. A transaction that rolls
    back takes its counts back (they are counted as rolled-back puts and gets)."""

    def __init__(self, handle: Handle) -> None:
        self.handle = handle
        self.system_name = handle.system_name
        self.internal = False  # the queue manager's own handle (a streaming copy): no MQOPEN or MQCLOSE counted
        self.log = [0] * zlog.GROUP_FIELDS
        self.queue = [0] * _N
        self.size_min: int | None = None
        self.size_max: int | None = None
        self.rose = False  # messages came (the depth when written is a high)
        self.fell = False  # messages went (the depth when written is a low)
        self.fails: dict[str, dict[int, int]] | None = None
        self.tx_fails: list[tuple[str, int]] = []  # failures counted in transaction `tx` (a rollback keeps them)
        self.counted = 0  # events since the last write
        self.queue_name = ""  # the local queue `queue` counts for
        self.settings: zlog.LogSettings | None = None
        self.system: SystemRecord | None = None
        self.resolved: Resolved | None = None  # the resolution of the last event
        self.flush_due = -math.inf  # the statistics interval's end (-inf: not read yet)
        self.tx: Transaction | None = None
        self.undo: tuple[Any, ...] | None = None

    # -- events -------------------------------------------------------------------------------
    def opened(self, tx: Transaction, resolved: Resolved) -> None:
        self.resolved = resolved
        if resolved.space.stats and not self.internal and not self.handle.put1:  # MQPUT1 opens no handle
            self._begin_event(tx, resolved)[OPENS] += 1
            self._counted(tx, self.handle.clock.timestamp())

    def put(
        self, tx: Transaction, resolved: Resolved, result: PutResult, data: bytes, now: float, copied: bool
    ) -> None:
        """A message put (and its streaming copy put, when `copied`)."""
        space = resolved.space
        persistent = result.persistent
        if not persistent and not space.stats:
            return
        if tx is not self.tx:
            self._begin(tx)
        self.settings, self.system, self.resolved = space.log, resolved.system, resolved
        if persistent:
            zlog.add_put(self.log, data, space.log)
        if space.stats:
            queue = self._queue_of(tx, resolved)
            length = result.length
            base = PUT1S if self.handle.put1 else PUTS  # PUTS, PUTS_P, PUT_BYTES, PUT_BYTES_P as for PUT1S
            queue[base] += 1
            queue[base + 2] += length
            if persistent:
                queue[base + 1] += 1
                queue[base + 3] += length
            if copied:
                queue[STREAMED] += 1
            if self.size_min is None or length < self.size_min:
                self.size_min = length
            if self.size_max is None or length > self.size_max:
                self.size_max = length
            self.rose = True
        self._counted(tx, now)

    def got(self, tx: Transaction, resolved: Resolved, message: Message, browse: bool) -> None:
        space = resolved.space
        persistent = message.persistent
        logged = persistent and not browse
        if not logged and not space.stats:
            return
        if tx is not self.tx:
            self._begin(tx)
        self.settings, self.system, self.resolved = space.log, resolved.system, resolved
        if logged:
            zlog.add_get(self.log)
        if space.stats:
            queue = self._queue_of(tx, resolved)
            length = message.length
            base = BROWSES if browse else GETS
            queue[base] += 1
            queue[base + 2] += length
            if persistent:
                queue[base + 1] += 1
                queue[base + 3] += length
            if not browse:
                self.fell = True
        self._counted(tx, self.handle.clock.timestamp())

    def expired(self, tx: Transaction, resolved: Resolved) -> None:
        """A get passed over an expired message and removed it."""
        if resolved.space.stats:
            self._begin_event(tx, resolved)[EXPIRED] += 1
            self.fell = True
            self._counted(tx, self.handle.clock.timestamp())

    def refused(self, tx: Transaction, resolved: Resolved | None, operation: str, reason: int) -> None:
        """A put, get or browse failed with MQRC `reason` (2033: no message)."""
        if resolved is None or not resolved.space.stats:
            return
        self._begin_event(tx, resolved)
        if self.fails is None:
            self.fails = {}
        if operation == "put" and self.handle.put1:
            operation = "put1"
        reasons = self.fails.setdefault(operation, {})
        reasons[reason] = reasons.get(reason, 0) + 1
        self.tx_fails.append((operation, reason))
        self._counted(tx, self.handle.clock.timestamp())

    def restored(self, tx: Transaction, messages: list[Message]) -> None:
        """Got messages were put back: their gets did not happen; putting them back
        writes the log records of a put."""
        resolved = self.resolved
        if resolved is None:
            return
        if tx is not self.tx:
            self._begin(tx)
        space = resolved.space
        self.settings, self.system = space.log, resolved.system
        for message in messages:
            if message.persistent:
                zlog.add_put(self.log, message.stored_payload, space.log)
            if space.stats:
                queue = self._queue_of(tx, resolved)
                queue[GETS] -= 1
                queue[GET_BYTES] -= message.length
                if message.persistent:
                    queue[GETS_P] -= 1
                    queue[GET_BYTES_P] -= message.length
        self._counted(tx, self.handle.clock.timestamp())

    def closed(self, tx: Transaction, resolved: Resolved | None) -> None:
        """MQCLOSE (none for the MQPUT1s of a put1 handle); whatever is not written yet
        is written now. A handle that put one message is an MQPUT's, as MQSMF counts an
        MQOPEN, MQPUT and MQCLOSE: only MQPUT1 is an MQPUT1."""
        if resolved is not None and resolved.space.stats and not self.internal and not self.handle.put1:
            self._begin_event(tx, resolved)[CLOSES] += 1
            self.counted += 1
        if self.counted:
            self.write(tx, self.handle.clock.timestamp())

    def rolled_back(self, tx: Transaction) -> None:
        if tx is not self.tx or self.undo is None:
            return
        log, queue, size_min, size_max, rose, fell, fails, counted = self.undo
        puts_undone = self.queue[PUTS] + self.queue[PUT1S] - queue[PUTS] - queue[PUT1S]
        gets_undone = self.queue[GETS] - queue[GETS]
        self.log, self.queue = log[:], queue[:]
        self.size_min, self.size_max, self.rose, self.fell = size_min, size_max, rose, fell
        self.fails = None if fails is None else {k: dict(v) for k, v in fails.items()}
        self.counted = counted
        for operation, reason in self.tx_fails:  # a failed call happened, whatever became of its unit of work
            reasons = (self.fails if self.fails is not None else self._no_fails()).setdefault(operation, {})
            reasons[reason] = reasons.get(reason, 0) + 1
            self.counted += 1
            _LIVE.add(self)
        self.tx_fails = []
        if puts_undone or gets_undone:
            self.queue[ROLLED_PUTS] += puts_undone
            self.queue[ROLLED_GETS] += gets_undone
            self.counted += 1
            _LIVE.add(self)
        self.tx = self.undo = None

    # -- bookkeeping --------------------------------------------------------------------------
    def _begin(self, tx: Transaction) -> None:
        """The first count in transaction `tx`: what to go back to should it roll back
        (a transaction other than the last one counted in has committed)."""
        fails = None if self.fails is None else {k: dict(v) for k, v in self.fails.items()}
        self.undo = (self.log[:], self.queue[:], self.size_min, self.size_max, self.rose, self.fell, fails,
                     self.counted)  # fmt: skip
        self.tx = tx
        self.tx_fails = []

    def _no_fails(self) -> dict[str, dict[int, int]]:
        self.fails = {}
        return self.fails

    def _begin_event(self, tx: Transaction, resolved: Resolved) -> list[int]:
        if tx is not self.tx:
            self._begin(tx)
        self.settings, self.system = resolved.space.log, resolved.system
        return self._queue_of(tx, resolved)

    def _queue_of(self, tx: Transaction, resolved: Resolved) -> list[int]:
        local = resolved.local_name
        if local != self.queue_name:
            if self.counted:
                self.write(tx, self.handle.clock.timestamp())
            self.queue_name = local
        return self.queue

    def _counted(self, tx: Transaction, now: float) -> None:
        self.counted = counted = self.counted + 1
        if counted == 1:
            _LIVE.add(self)
            if self.flush_due == -math.inf:
                self.flush_due = _interval_end(tx, self.system_name)
        if counted >= GROUP or now >= self.flush_due:
            self.write(tx, now)

    def write(self, tx: Transaction, now: float) -> None:
        """Writes what is counted and not written yet, in `tx`."""
        if tx is not self.tx:
            self._begin(tx)
        log = self.log
        if log[zlog.RECORDS] and self.system is not None and self.settings is not None:
            zlog.write(tx, self.system, self.settings, log, now)
            self.log = [0] * zlog.GROUP_FIELDS
        if self.queue_name and (any(self.queue) or self.fails):
            self._write_queue(tx)
        self.counted = 0
        _LIVE.discard(self)
        self.flush_due = _interval_end(tx, self.system_name)

    def _write_queue(self, tx: Transaction) -> None:
        conn = tx.conn
        key = (self.system_name, self.queue_name)
        conn.execute("INSERT OR IGNORE INTO zos_queue_stats (system, queue) VALUES (?, ?)", key)
        hi = lo = None
        if self.rose or self.fell:
            # The depth now is the group's high (messages came) or low (they went): a
            # getter's own count of the depth is not kept, a putter's only per put.
            row = conn.execute("SELECT depth FROM queue_figures WHERE system = ? AND queue = ?", key).fetchone()
            depth = int(row[0]) if row is not None else 0
            hi = depth if self.rose else None
            lo = depth if self.fell else None
        conn.execute(_ADD_QUEUE, (*self.queue, self.size_min, self.size_max, hi, lo, *key))
        if self.fails:
            columns = [FAIL_COLUMNS[operation] for operation in self.fails]
            row = conn.execute(
                f"SELECT {', '.join(columns)} FROM zos_queue_stats WHERE system = ? AND queue = ?", key
            ).fetchone()
            merged = []
            for reasons, stored in zip(self.fails.values(), row, strict=True):
                figures = {int(k): int(v) for k, v in json.loads(stored).items()}
                for reason, count in reasons.items():
                    figures[reason] = figures.get(reason, 0) + count
                merged.append(json.dumps({str(k): figures[k] for k in sorted(figures)}))
            conn.execute(
                f"UPDATE zos_queue_stats SET {', '.join(f'{c} = ?' for c in columns)} WHERE system = ? AND queue = ?",
                (*merged, *key),
            )
        self.queue = [0] * _N
        self.size_min = self.size_max = None
        self.rose = self.fell = False
        self.fails = None


def _interval_end(tx: Transaction, system: str) -> float:
    """When the statistics interval running now ends (infinity when none runs)."""
    row = tx.conn.execute("SELECT due FROM timers WHERE system = ? AND name = ?", (system, STATS_TIMER)).fetchone()
    return float(row[0]) if row is not None else math.inf


def flush(tx: Transaction, system: str, now: float) -> None:
    """Writes what this process's open handles on `system` of this store have counted
    and not written (their transactions have ended: a tick and a command run between
    them, never inside one)."""
    for figures in list(_LIVE):
        if figures.counted and figures.system_name == system and figures.handle.store is tx.store:
            figures.write(tx, now)


def count_expired(tx: Transaction, system: str, removed: dict[str, int]) -> None:
    """The expiry task removed messages: counted on the queues with statistics on."""
    manager = tx.get_object(system, "QMGR", system)
    if manager is None or QUEUE_CLASS not in stat_classes(manager):
        return
    for queue, count in removed.items():
        local = tx.get_object(system, "QLOCAL", queue)
        if local is not None and queue_statistics(manager, local):
            tx.conn.execute("INSERT OR IGNORE INTO zos_queue_stats (system, queue) VALUES (?, ?)", (system, queue))
            tx.conn.execute(
                "UPDATE zos_queue_stats SET expired = expired + ? WHERE system = ? AND queue = ?",
                (count, system, queue),
            )


# -- intervals and records ---------------------------------------------------------------------


def _starts(tx: Transaction, system: str) -> tuple[float | None, float | None]:
    row = tx.conn.execute("SELECT queue_start, log_start FROM zos_stats_interval WHERE system = ?", (system,))
    found = row.fetchone()
    return (None, None) if found is None else (found[0], found[1])


def _set_starts(tx: Transaction, system: str, queue_start: float | None, log_start: float | None) -> None:
    tx.conn.execute(
        "INSERT INTO zos_stats_interval (system, queue_start, log_start) VALUES (?, ?, ?) "
        "ON CONFLICT(system) DO UPDATE SET queue_start = excluded.queue_start, log_start = excluded.log_start",
        (system, queue_start, log_start),
    )


def collection_changed(
    tx: Transaction, system: SystemRecord, manager: ObjectRecord, before: set[int], now: float
) -> None:
    """The STAT classes went from `before` to the manager's: a kind that stops writes its
    partial interval's records; a kind that starts begins an interval now; the interval
    timer runs while any kind is collected."""
    name = system.name
    after = stat_classes(manager)
    queue_before, log_before = kinds(before)
    queue_after, log_after = kinds(after)
    queue_start, log_start = _starts(tx, name)
    if queue_before or log_before:
        flush(tx, name, now)
    if queue_before and not queue_after:
        write_queue_records(tx, system, manager, queue_start or now, now)
        queue_start = None
    if log_before and not log_after:
        write_log_record(tx, system, manager, log_start or now, now)
        log_start = None
    if queue_after and not queue_before:
        queue_start = now
        _reset_queues(tx, system, manager)
    if log_after and not log_before:
        zlog.take_interval(tx, name)
        log_start = now
    _set_starts(tx, name, queue_start, log_start)
    topicstats.collection_changed(tx, name, before, after, now)
    if not (queue_after or log_after):
        cancel(tx, name, STATS_TIMER)
    elif not (queue_before or log_before):
        cancel(tx, name, STATS_TIMER)
        schedule(tx, name, STATS_TIMER, now + interval_seconds(system, manager))


def statime_changed(tx: Transaction, system: SystemRecord, manager: ObjectRecord, now: float) -> None:
    """SET SYSTEM STATIME: the new interval starts when the current one ends, unless it is
    shorter than what is left of the current one: then statistics are gathered now and
    the new interval runs from now (IBM's rule)."""
    due = tx.conn.execute("SELECT due FROM timers WHERE system = ? AND name = ?", (system.name, STATS_TIMER)).fetchone()
    if due is None:
        return
    interval = interval_seconds(system, manager)
    if interval < float(due[0]) - now:
        end_interval(tx, system, manager, now)
        cancel(tx, system.name, STATS_TIMER)
        schedule(tx, system.name, STATS_TIMER, now + interval)


def end_interval(tx: Transaction, system: SystemRecord, manager: ObjectRecord, end: float) -> None:
    """The interval ends at `end`: this process's counts are written, then the records
    of each kind collected, and a new interval begins."""
    name = system.name
    queue_on, log_on = kinds(stat_classes(manager))
    flush(tx, name, end)
    queue_start, log_start = _starts(tx, name)
    if queue_on:
        write_queue_records(tx, system, manager, queue_start if queue_start is not None else end, end)
    if log_on:
        write_log_record(tx, system, manager, log_start if log_start is not None else end, end)
    _set_starts(tx, name, end if queue_on else None, end if log_on else None)
    topicstats.end_interval(tx, name, stat_classes(manager), end)
    _retain(tx, "zos_topic_records", system, end)


@timer(STATS_TIMER, observer=True)
def run_statistics(context: TickContext, tx: Transaction, system: SystemRecord, due: float) -> float | None:
    """The statistics interval's end at `due`; the next one STATIME later. Dropped when
    no statistics class is active (or the queue manager is gone or stopped).

    An idle gap (the tick catching up over intervals in which nothing was counted)
    costs one run, not one per interval: an interval that counted nothing is not ended
    at `due` but goes on to the last interval end before anything else can act (the
    time the tick catches up to, or an earlier channel or expiry run), and that one
    record per queue covers the whole stretch, with zero counts and the depths and
    ages at its end. In real time (serve, the shell) every interval is written."""
    manager = tx.get_object(system.name, "QMGR", system.name)
    if system.platform != "zos" or manager is None:
        return None
    queue_on, log_on = kinds(stat_classes(manager))
    if not (queue_on or log_on):
        return None
    interval = interval_seconds(system, manager)
    flush(tx, system.name, due)
    # Only a catch-up (the next interval ends before the time caught up to) can extend one.
    if due + interval <= context.now and not counted(tx, system.name, queue_on, log_on):
        end = last_mark(due, interval, context.quiet_until(tx, system.name, STATS_TIMER))
        if end > due:
            return end  # the interval runs on: nothing can be counted before `end`
    end_interval(tx, system, manager, due)
    return due + interval


def counted(tx: Transaction, system: str, queue_on: bool, log_on: bool) -> bool:
    """Whether the interval running now has counted anything (this process's handles
    written first): a queue's counter or failure, or a log manager's counter."""
    if queue_on:
        row = tx.conn.execute(
            f"SELECT 1 FROM zos_queue_stats WHERE system = ? AND ({_COUNTED}) LIMIT 1", (system,)
        ).fetchone()
        if row is not None:
            return True
    return log_on and zlog.interval_counted(tx, system)


def _stats_queues(tx: Transaction, system: SystemRecord, manager: ObjectRecord) -> list[ObjectRecord]:
    """The queues whose STATQ says they collect (the caller knows class 5 runs, or ran
    until now)."""
    return [q for q in tx.objects(system.name, "QLOCAL") if statq_on(manager, q)]


def _reset_queues(tx: Transaction, system: SystemRecord, manager: ObjectRecord) -> None:
    """A new interval: each queue's counters start from nothing, its high and low depth
    from its depth now."""
    from mqtool.state import messages as runs

    name = system.name
    tx.conn.execute("DELETE FROM zos_queue_stats WHERE system = ?", (name,))
    for queue in _stats_queues(tx, system, manager):
        depth = runs.depth(tx.conn, name, queue.name)
        tx.conn.execute(
            "INSERT INTO zos_queue_stats (system, queue, depth_hi, depth_lo) VALUES (?, ?, ?, ?)",
            (name, queue.name, depth, depth),
        )


def _fails(text: str) -> dict[str, int]:
    figures = {int(k): int(v) for k, v in json.loads(text).items()}
    return {str(k): figures[k] for k in sorted(figures)}


def queue_times(tx: Transaction, system: str, queue: str) -> tuple[int, int]:
    """QTIME: the short- and long-term averages of the microseconds messages spent on a
    queue before a destructive get (the engine's model.py keeps them)."""
    qtime = tx.conn.execute(
        "SELECT h.qtime_short, h.qtime_long FROM queue_figures f JOIN messages h ON h.id = f.qkey << 44 "
        "WHERE f.system = ? AND f.queue = ?",
        (system, queue),
    ).fetchone()
    if qtime is None:
        return 0, 0
    return round(qtime[0] or 0), round(qtime[1] or 0)


def queue_record(
    tx: Transaction, system: SystemRecord, queue: ObjectRecord, row: dict[str, Any] | None, end: float
) -> dict[str, Any]:
    """The figures of one queue's record at the interval's end `end` (QQST's data points
    that the engine knows)."""
    from mqtool.engine.zos.handles import live_handles
    from mqtool.engine.zos.pages import queue_psid
    from mqtool.state import messages as runs

    name = system.name
    conn = tx.conn
    counts: dict[str, Any] = {c: 0 for c in Q_COLUMNS} | (row or {})
    depth = runs.depth(conn, name, queue.name)
    psid = queue_psid(tx, name, queue)
    pageset = tx.get_object(name, "PSID", str(psid)) if psid is not None else None
    inputs, outputs = live_handles(tx, name, queue.name)
    last_put, last_get = runs.last_put_get(conn, name, queue.name)
    oldest = runs.oldest_put_time(conn, name, queue.name)
    qtime_short, qtime_long = queue_times(tx, name, queue.name)
    puts, put1s = int(counts["puts"]), int(counts["put1s"])
    put_bytes, put1_bytes = int(counts["put_bytes"]), int(counts["put1_bytes"])
    total = puts + put1s
    hi = counts.get("depth_hi")
    lo = counts.get("depth_lo")
    put_fails = _fails(counts.get("put_fails") or "{}")
    put1_fails = _fails(counts.get("put1_fails") or "{}")
    get_fails = _fails(counts.get("get_fails") or "{}")
    browse_fails = _fails(counts.get("browse_fails") or "{}")
    return {
        "queue": queue.name,
        "disposition": "Private",
        "psid": psid if psid is not None else -1,
        "bufferpool": int(pageset.attrs.get("BUFFPOOL", 0)) if pageset is not None else -1,
        "depth": depth,
        "output_handles": outputs,
        "input_handles": inputs,
        "qtime_short": qtime_short,  # microseconds on the queue, averaged (the engine's model.py)
        "qtime_long": qtime_long,
        "last_put": last_put,
        "last_get": last_get,
        "uncommitted": "No",
        "oldest_age": None if oldest is None else max(0, int(end - oldest)),
        "depth_high": max(depth, int(hi)) if hi is not None else depth,
        "depth_low": min(depth, int(lo)) if lo is not None else depth,
        "puts_total": total,
        "puts": puts,
        "puts_p": int(counts["puts_p"]),
        "puts_np": puts - int(counts["puts_p"]),
        "put1s": put1s,
        "put1s_p": int(counts["put1s_p"]),
        "put1s_np": put1s - int(counts["put1s_p"]),
        "put_bytes_total": put_bytes + put1_bytes,
        "put_bytes": put_bytes,
        "put_bytes_p": int(counts["put_bytes_p"]),
        "put_bytes_np": put_bytes - int(counts["put_bytes_p"]),
        "put1_bytes": put1_bytes,
        "put1_bytes_p": int(counts["put1_bytes_p"]),
        "put1_bytes_np": put1_bytes - int(counts["put1_bytes_p"]),
        "rolled_puts": int(counts["rolled_puts"]),
        "put_fails": sum(put_fails.values()),
        "put_fail_reasons": put_fails,
        "put1_fails": sum(put1_fails.values()),
        "put1_fail_reasons": put1_fails,
        "fast_puts": 0,  # mqtool never hands a message straight to a waiting getter
        "fast_put_bytes": 0,
        "streamed": int(counts["streamed"]),
        "size_min": int(counts.get("size_min") or 0),
        "size_max": int(counts.get("size_max") or 0),
        "size_avg": (put_bytes + put1_bytes) // total if total else 0,
        "gets": int(counts["gets"]),
        "gets_p": int(counts["gets_p"]),
        "gets_np": int(counts["gets"]) - int(counts["gets_p"]),
        "get_bytes": int(counts["get_bytes"]),
        "get_bytes_p": int(counts["get_bytes_p"]),
        "get_bytes_np": int(counts["get_bytes"]) - int(counts["get_bytes_p"]),
        "browses": int(counts["browses"]),
        "browses_p": int(counts["browses_p"]),
        "browses_np": int(counts["browses"]) - int(counts["browses_p"]),
        "browse_bytes": int(counts["browse_bytes"]),
        "browse_bytes_p": int(counts["browse_bytes_p"]),
        "browse_bytes_np": int(counts["browse_bytes"]) - int(counts["browse_bytes_p"]),
        "rolled_gets": int(counts["rolled_gets"]),
        "get_fails": sum(get_fails.values()),
        "get_fail_reasons": get_fails,
        "browse_fails": sum(browse_fails.values()),
        "browse_fail_reasons": browse_fails,
        "opens": int(counts["opens"]),
        "closes": int(counts["closes"]),
        "expired": int(counts["expired"]),
    }


def write_queue_records(tx: Transaction, system: SystemRecord, manager: ObjectRecord, start: float, end: float) -> None:
    """One record per queue with statistics on for the interval start..end; each queue's
    counters start again."""
    name = system.name
    conn = tx.conn
    cursor = conn.execute("SELECT * FROM zos_queue_stats WHERE system = ?", (name,))
    columns = [d[0] for d in cursor.description]
    rows = {row[1]: dict(zip(columns, row, strict=True)) for row in cursor.fetchall()}
    for queue in _stats_queues(tx, system, manager):
        data = queue_record(tx, system, queue, rows.get(queue.name), end)
        conn.execute(
            "INSERT INTO zos_queue_records (system, queue, start, end, data) VALUES (?, ?, ?, ?, ?)",
            (name, queue.name, start, end, json.dumps(data, separators=(",", ":"))),
        )
    _retain(tx, "zos_queue_records", system, end)
    _reset_queues(tx, system, manager)


def write_log_record(tx: Transaction, system: SystemRecord, manager: ObjectRecord, start: float, end: float) -> None:
    """The log manager's record for the interval start..end."""
    settings = zlog.log_settings(system, manager)
    figures: dict[str, Any] = zlog.take_interval(tx, system.name)
    figures |= {"copies": settings.copies, "zhyperlink": settings.mode}
    tx.conn.execute(
        "INSERT INTO zos_log_records (system, start, end, data) VALUES (?, ?, ?, ?)",
        (system.name, start, end, json.dumps(figures, separators=(",", ":"))),
    )
    _retain(tx, "zos_log_records", system, end)


def retention_days(system: SystemRecord) -> int:
    """Days of records kept (the system's smfretain setting; 0: until mqtool smf purge)."""
    return int(system.attrs.get("smfretain", SMF_RETAIN))


def _retain(tx: Transaction, table: str, system: SystemRecord, end: float) -> None:
    """Removes the system's records of intervals that ended more than its retention
    before `end` (the interval written now), as SMF data sets are offloaded."""
    days = retention_days(system)
    if days:
        tx.conn.execute(f"DELETE FROM {table} WHERE system = ? AND end < ?", (system.name, end - days * 86400))


RECORD_TABLES = ("zos_queue_records", "zos_log_records", "zos_topic_records")


def purge(tx: Transaction, system: str, before: float | None, dry_run: bool = False) -> tuple[int, int, int]:
    """Removes (or with `dry_run` counts) the system's queue, log and topic manager
    records of intervals that ended before `before` (None: every record); (queue
    records, log records, topic records)."""
    counts = []
    for table in RECORD_TABLES:
        where, args = ("system = ?", [system]) if before is None else ("system = ? AND end < ?", [system, before])
        if dry_run:
            counts.append(int(tx.conn.execute(f"SELECT count(*) FROM {table} WHERE {where}", args).fetchone()[0]))
        else:
            counts.append(tx.conn.execute(f"DELETE FROM {table} WHERE {where}", args).rowcount)
    return counts[0], counts[1], counts[2]


# -- reading records -------------------------------------------------------------------------


def _figures(system: str, kind: str, row_id: int, data: str) -> dict[str, Any]:
    """A record's figures; StoreError naming the queue manager when they cannot be read."""
    from mqtool.state.store import StoreError

    try:
        figures = json.loads(data)
    except ValueError:
        figures = None
    if not isinstance(figures, dict):
        raise StoreError(f"{kind} statistics record {row_id} of queue manager {system} in the store is damaged")
    return figures


Record = tuple[float, float, dict[str, Any]]  # (interval start, interval end, figures)


def queue_records(tx: Transaction, system: str, pattern: str | None = None) -> list[Record]:
    """(start, end, figures) of a system's queue records, oldest interval first, queues
    in name order; `pattern` a queue name or a generic one (PAY*)."""
    sql = "SELECT id, start, end, data FROM zos_queue_records WHERE system = ?"
    args: list[Any] = [system]
    if pattern and pattern != "*":
        if pattern.endswith("*"):
            sql += " AND substr(queue, 1, ?) = ?"
            args += [len(pattern) - 1, pattern[:-1]]
        else:
            sql += " AND queue = ?"
            args.append(pattern)
    rows = tx.conn.execute(sql + " ORDER BY end, queue, id", args).fetchall()
    return [(float(start), float(end), _figures(system, "queue", row, data)) for row, start, end, data in rows]


def topic_records(tx: Transaction, system: str) -> list[Record]:
    """(start, end, figures) of a system's topic manager records (topicstats.py), oldest
    first."""
    rows = tx.conn.execute(
        "SELECT id, start, end, data FROM zos_topic_records WHERE system = ? ORDER BY end, id", (system,)
    ).fetchall()
    return [(float(start), float(end), _figures(system, "topic", row, data)) for row, start, end, data in rows]


def log_records(tx: Transaction, system: str) -> list[Record]:
    rows = tx.conn.execute(
        "SELECT id, start, end, data FROM zos_log_records WHERE system = ? ORDER BY end, id", (system,)
    ).fetchall()
    return [(float(start), float(end), _figures(system, "log", row, data)) for row, start, end, data in rows]
