"""The z/TPF MQ storage model: queue compression (COMPSIZE, with the accelerator), SWBs
held by messages of memory queues and the pool they come from (2053 when it is
exhausted), the sweeper started by a put that reaches SWEEPHI, QDEPTHHI warnings, and
the counters of the queue STAT display.

The STAT counters of puts and plain gets are written in groups: every 32 messages, when
the statistics interval ends, and at MQCLOSE, so a handle must be closed. Gets of
compressed or swept messages and expiries are written at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mqtool.engine import codecs
from mqtool.engine.core.model import Handle, Ledger, StorageModel
from mqtool.engine.core.reasons import Q_FULL, MQError
from mqtool.engine.timers import schedule
from mqtool.engine.ztpf import sweeper
from mqtool.engine.ztpf.figures import (
    CHECKPOINT_TIMER,
    INTERVAL,
    MONITOR_TIMER,
    SWB_HEADER,
    SwbSettings,
    file_ios,
    qdepthhi_threshold,
    swb_settings,
)
from mqtool.engine.ztpf.stats import count
from mqtool.engine.ztpf.trigger import activate, first_trigger
from mqtool.engine.ztpf.warnings import swb_shortage, warn_qdepthhi

if TYPE_CHECKING:
    from mqtool.engine.core.message import Message, PutResult, Resolved
    from mqtool.state import ObjectRecord, SystemRecord, Transaction

QUEUE_CODEC = "QUEUE"  # the codec row of z/TPF queue compression
COUNT_GROUP = 32  # puts and plain gets counted in the store per statement

# The STAT counters a handle adds up and writes to queue_stats in groups, by index. Each
# feeds the t_ column (since the reset) and the i_ column (the interval running now).
PUT_P, PUT_P_BYTES, PUT_NP, PUT_NP_BYTES, STORED, COMP, COMP_ORIG, COMP_STORED, COMP_US, GETS = range(10)
_COUNTERS = 10
_WRITE_COUNTS = (
    "UPDATE queue_stats SET t_put_p = t_put_p + ?1, t_put_p_bytes = t_put_p_bytes + ?2, t_put_np = t_put_np + ?3, "
    "t_put_np_bytes = t_put_np_bytes + ?4, i_puts = i_puts + ?1 + ?3, t_stored = t_stored + ?5, "
    "i_stored = i_stored + ?5, t_comp = t_comp + ?6, i_comp = i_comp + ?6, t_comp_orig = t_comp_orig + ?7, "
    "i_comp_orig = i_comp_orig + ?7, t_comp_stored = t_comp_stored + ?8, i_comp_stored = i_comp_stored + ?8, "
    "t_comp_us = t_comp_us + ?9, i_comp_us = i_comp_us + ?9, t_gets = t_gets + ?10, i_gets = i_gets + ?10 "
    "WHERE system = ?11 AND queue = ?12"
)
# Takes back gets already written when got messages are put back.
_UNCOUNT = (
    "UPDATE queue_stats SET t_gets = max(0, t_gets - ?1), i_gets = max(0, i_gets - ?1) WHERE system = ?2 AND queue = ?3"
)
# Written at once: gets of compressed or swept messages, expiries.
_GET_STATS = (
    "UPDATE queue_stats SET t_gets = t_gets + ?, i_gets = i_gets + ?, t_decomp = t_decomp + ?, "
    "i_decomp = i_decomp + ?, t_decomp_hw = t_decomp_hw + ?, t_decomp_sw = t_decomp_sw + ?, "
    "t_swept_search = t_swept_search + ?, i_swept_search = i_swept_search + ?, read_ios = read_ios + ?, "
    "expired = expired + ? WHERE system = ? AND queue = ?"
)
_EXPIRED = (0, 0, 0, 0, 0, 0, 0, 0, 0, 1)


@dataclass
class ZtpfSpace:
    """The z/TPF settings of a resolution, derived once so a put does no arithmetic."""

    compsize: int
    memory: bool  # a memory queue (COMMON-NO): its messages hold SWBs
    qdepthhi: int
    hi_depth: int  # the depth that raises the QDEPTHHI warning (0: none)
    accelerator: bool
    swb: SwbSettings
    swb_block: int  # data bytes per SWB (SWBSIZE less the chain header)
    sweep_high: int  # SWBs in use that start the sweeper
    trigger: str = ""  # TRIGTYPE-FIRST: the program a first message activates (PROCESS, or CUIR); "" for none


def schedule_timers(tx: Transaction, system: str, now: float) -> None:
    """The MQ monitor and the checkpoint run every 5 s while a queue manager exists."""
    tx.conn.execute("INSERT OR IGNORE INTO engine_state (system) VALUES (?)", (system,))
    schedule(tx, system, MONITOR_TIMER, now + INTERVAL)
    schedule(tx, system, CHECKPOINT_TIMER, now + INTERVAL)


class ZtpfModel(StorageModel):
    platform = "ztpf"
    local_type = "QL"
    alias_type = "QA"
    remote_type = "QR"
    alias_target = "TARGQ"
    msgid_prefix = b"TPF "
    unlimited_depth = 0  # MAXDEPTH-0: no limit (z/TPF MQ)

    def object_name(self, type_: str, name: str) -> str:
        return f"{type_}-{name}"

    def keyword_value(self, keyword: str, value: str) -> str:
        return f"{keyword}-{value}"

    def space(self, tx: Transaction, system: SystemRecord, qmgr: ObjectRecord, local: ObjectRecord) -> ZtpfSpace:
        attrs = local.attrs
        memory = attrs.get("COMMON", "NO") != "YES"
        qdepthhi = int(attrs.get("QDEPTHHI", 0))
        swb = swb_settings(system)
        return ZtpfSpace(
            compsize=int(attrs.get("COMPSIZE", 0)),
            memory=memory,
            qdepthhi=qdepthhi,
            hi_depth=qdepthhi_threshold(int(attrs.get("MAXDEPTH", 0)), qdepthhi) if memory else 0,
            accelerator=system.has_accelerator,
            swb=swb,
            swb_block=max(1, swb.swbsize - SWB_HEADER),
            sweep_high=swb.high,
            trigger=first_trigger(attrs),
        )

    def ledger(self, handle: Handle) -> ZtpfLedger:
        return ZtpfLedger(handle)


class ZtpfLedger(Ledger):
    """SWBs, compression and the STAT counters of one open z/TPF queue."""

    def __init__(self, handle: Handle) -> None:
        super().__init__(handle)
        self.system_name = handle.system_name
        self._hi_warned = 0
        self._system_swbs = 0
        self._micros = 0
        # `_pending` holds the counts not written yet, all on queue `_counts_queue`,
        # `_counted` how many puts and gets they are; `_undo` is what the two were when
        # transaction `_counts_tx` began, for its rollback.
        self._pending = [0] * _COUNTERS
        self._counted = 0
        self._counts_queue = ""
        self._counts_tx: Transaction | None = None
        self._undo: tuple[list[int], int] = (self._pending, 0)
        self._flush_due = 0.0

    # -- figures --------------------------------------------------------------------
    def sync_columns(self, resolved: Resolved) -> tuple[str, dict[str, Any]]:
        return (
            ", coalesce(f.hi_warned, 0), (SELECT coalesce(sum(swbs), 0) FROM queue_figures WHERE system = :system)",
            {"system": self.system_name},
        )

    def synced(self, row: tuple[Any, ...]) -> None:
        self._hi_warned, self._system_swbs = row

    # -- open / close -------------------------------------------------------------------
    def opened(self, tx: Transaction, resolved: Resolved, purpose: str) -> None:
        count(
            tx.conn,
            "UPDATE queue_stats SET opens = opens + 1 WHERE system = ? AND queue = ?",
            (self.system_name, resolved.local_name),
            self.system_name,
            resolved.local_name,
        )
        schedule_timers(tx, self.system_name, self.handle.clock.timestamp())

    def closed(self, tx: Transaction, resolved: Resolved | None) -> None:
        if self._counted:
            self._write_counts(tx)
        if resolved is not None:
            count(
                tx.conn,
                "UPDATE queue_stats SET closes = closes + 1 WHERE system = ? AND queue = ?",
                (self.system_name, resolved.local_name),
                self.system_name,
                resolved.local_name,
            )

    # -- put ------------------------------------------------------------------------------
    def pack(self, tx: Transaction, resolved: Resolved, payload: bytes, persistent: bool) -> tuple[bytes, str, int]:
        """Queue compression: messages of COMPSIZE bytes or more, with the accelerator,
        kept compressed only when smaller (otherwise they count as not compressed).
        SWBs of a memory queue's message: ceil(stored / (SWBSIZE - 16)), at least 1;
        2053 when the pool has not that many free."""
        space: ZtpfSpace = resolved.space
        stored, codec = payload, ""
        length = len(payload)
        self._micros = 0
        if space.compsize and length >= space.compsize and space.accelerator:  # queue_stored's test, inline
            clock = self.handle.clock
            started = clock.perf()
            packed = codecs.compress(QUEUE_CODEC, payload)
            stored, codec = queue_stored(payload, space.compsize, space.accelerator, packed)
            if codec:
                self._micros = int((clock.perf() - started) * 1_000_000)
        if not space.memory:
            return stored, codec, 0
        swbs = -(-len(stored) // space.swb_block) or 1  # figures.swbs_for, inlined
        if self._system_swbs + swbs > space.swb.pool:
            swb_shortage(
                tx, resolved.system, resolved.local_name, self._system_swbs, space.swb, self.handle.clock.timestamp()
            )
            raise MQError(Q_FULL, f"SWB pool exhausted ({self._system_swbs} of {space.swb.pool} in use)")
        return stored, codec, swbs

    def put_done(self, tx: Transaction, resolved: Resolved, result: PutResult, now: float) -> None:
        local = resolved.local_name
        counts = self._pending if tx is self._counts_tx and local == self._counts_queue else self._counts(tx, local)
        length = result.length
        if result.persistent:
            counts[PUT_P] += 1
            counts[PUT_P_BYTES] += result.stored  # STAT shows the stored size (the seed: 24244 x 11934 bytes)
        else:
            counts[PUT_NP] += 1
            counts[PUT_NP_BYTES] += result.stored
        counts[STORED] += result.stored
        if result.codec:
            counts[COMP] += 1
            counts[COMP_ORIG] += length
            counts[COMP_STORED] += result.stored
            counts[COMP_US] += self._micros
        self._counted = counted = self._counted + 1
        if counted >= COUNT_GROUP or now >= self._flush_due:
            self._write_counts(tx)
        space: ZtpfSpace = resolved.space
        if space.hi_depth and not self._hi_warned:
            depth = self.handle.depth
            if depth >= space.hi_depth:
                self._hi_warned = 1
                warn_qdepthhi(tx, resolved.system, local, depth, resolved.maxdepth or 0, space.qdepthhi, now)
        if space.trigger and self.handle.depth == 1:
            activate(tx, resolved.system, local, space.trigger, now)
        swbs = result.units
        if swbs:
            self._system_swbs = in_use = self._system_swbs + swbs
            if in_use >= space.sweep_high:
                self._sweep(tx, resolved, now)

    def _sweep(self, tx: Transaction, resolved: Resolved, now: float) -> None:
        held = tx.conn.execute("SELECT sweep_held FROM engine_state WHERE system = ?", (self.system_name,)).fetchone()
        if held is not None and held[0]:
            return  # the last sweep could not reach SWEEPLO; the monitor retries
        outcome = sweeper.sweep(tx, resolved.system, now, resolved.space.swb)
        self._system_swbs = outcome.after

    # -- get ------------------------------------------------------------------------------
    def got(self, tx: Transaction, resolved: Resolved, message: Message, browse: bool) -> None:
        space: ZtpfSpace = resolved.space
        codec, swept = message.codec, message.swept
        if codec:
            message.inflated = "hardware" if space.accelerator else "software"
        if not browse:
            if not swept and space.memory:
                self._system_swbs -= message.swbs
            if not codec and not swept:
                self._count_get(tx, resolved.local_name)
                return
        if codec or swept:
            read_ios = file_ios(message.stored) if swept else 0
            got = 0 if browse else 1
            decomp = 1 if codec else 0
            hardware = 1 if space.accelerator and codec else 0
            search = 1 if swept else 0
            cursor = self.handle.cursor
            count(
                cursor, _GET_STATS,
                (got, got, decomp, decomp, hardware, decomp - hardware, search, search, read_ios, 0,
                 self.system_name, resolved.local_name),
                self.system_name, resolved.local_name,
            )  # fmt: skip
            if read_ios:
                cursor.execute(
                    "UPDATE engine_state SET read_ios = read_ios + ? WHERE system = ?", (read_ios, self.system_name)
                )

    def expired(self, tx: Transaction, resolved: Resolved, units: int, swept: bool) -> None:
        name = resolved.local_name
        count(self.handle.cursor, _GET_STATS, (*_EXPIRED, self.system_name, name), self.system_name, name)
        if not swept and resolved.space.memory:
            self._system_swbs -= units

    # -- the STAT counters written in groups ------------------------------------------
    def _counts(self, tx: Transaction, local: str) -> list[int]:
        """The counters to add to for a put or get on queue `local` in `tx`. A transaction
        other than the last one counted in means that one ended without a rollback
        report: committed."""
        if tx is not self._counts_tx:
            self._undo = (self._pending[:], self._counted)
            self._counts_tx = tx
        if local != self._counts_queue:
            if self._counted:
                self._write_counts(tx)
            self._counts_queue = local
        return self._pending

    def _count_get(self, tx: Transaction, local: str) -> None:
        counts = self._pending if tx is self._counts_tx and local == self._counts_queue else self._counts(tx, local)
        counts[GETS] += 1
        self._counted = counted = self._counted + 1
        # The clock is asked every 8th get: the group is written by the interval's end.
        if counted >= COUNT_GROUP or (not counted & 7 and self.handle.clock.timestamp() >= self._flush_due):
            self._write_counts(tx)

    def _write_counts(self, tx: Transaction) -> None:
        """Writes the counts not written yet in `tx` (the monitor's next interval sees
        them); should `tx` roll back, they are pending again."""
        if tx is not self._counts_tx:
            self._undo = (self._pending[:], self._counted)
            self._counts_tx = tx
        if self._counted:
            queue = self._counts_queue
            count(tx.conn, _WRITE_COUNTS, (*self._pending, self.system_name, queue), self.system_name, queue)
        self._pending = [0] * _COUNTERS
        self._counted = 0
        row = tx.conn.execute(
            "SELECT due FROM timers WHERE system = ? AND name = ?", (self.system_name, MONITOR_TIMER)
        ).fetchone()
        self._flush_due = float(row[0]) if row is not None else self.handle.clock.timestamp() + INTERVAL

    def rolled_back(self, tx: Transaction) -> None:
        if tx is self._counts_tx:
            pending, counted = self._undo
            self._pending, self._counted = pending[:], counted
            self._counts_tx = None

    def restored(self, tx: Transaction, messages: list[Message]) -> None:
        by_queue: dict[str, int] = {}
        for message in messages:
            by_queue[message.queue] = by_queue.get(message.queue, 0) + 1
        for queue, written in by_queue.items():
            # Gets not yet written to the store are taken off the count instead.
            if queue == self._counts_queue:
                unwritten = min(written, self._pending[GETS])
                self._pending[GETS] -= unwritten
                self._counted -= unwritten
                written -= unwritten
            if written:
                count(tx.conn, _UNCOUNT, (written, self.system_name, queue), self.system_name, queue)


MODEL = ZtpfModel()


def queue_stored(payload: bytes, compsize: int, accelerator: bool, packed: bytes | None = None) -> tuple[bytes, str]:
    """What a put keeps of `payload` on a z/TPF queue, by the rule ZtpfLedger.pack applies:
    the QUEUE codec's output when COMPSIZE > 0, the message is at least COMPSIZE long,
    the CPU has the accelerator and the output is smaller; otherwise the original. Returns
    (stored bytes, codec). `packed` is the QUEUE codec's output when the caller has it
    already (mqtool estimate measures it for its own figures), so it is not made twice."""
    if compsize and len(payload) >= compsize and accelerator:
        if packed is None:
            packed = codecs.compress(QUEUE_CODEC, payload)
        if len(packed) < len(payload):
            return packed, QUEUE_CODEC
    return payload, ""
