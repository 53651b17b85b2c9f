"""The IBM MQ for z/OS storage model: every message holds pages of its queue's page set
(STGCLASS to PSID; `pages.pages_for`), a put that does not fit expands the page set
(EXPAND USER or SYSTEM, with a console message) or fails with 2192 MQRC_PAGESET_FULL
(EXPAND NONE); streaming queues (STREAMQ, STRMQOS BESTEF or MUSTDUP) get a copy of every
message put in the same unit of work; the queue's last put and get times and the
handles open on it feed DISPLAY QSTATUS.

Pages are exact across processes: the pages a queue holds are its head row's
`held_swbs` (kept by triggers; a z/OS message stores its pages in `messages.swbs`), and
a handle reads its page set's total once per transaction (and again after another
handle wrote in it)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mqtool.engine.console import console
from mqtool.engine.core.handle import QueueHandle
from mqtool.engine.core.message import Message, PutOptions, PutResult, Resolved
from mqtool.engine.core.model import Handle, Ledger, StorageModel, TopicEvent
from mqtool.engine.core.reasons import (
    NAMES,
    NO_MSG_AVAILABLE,
    PAGESET_ERROR,
    PAGESET_FULL,
    SYNCPOINT_LIMIT_REACHED,
    UNEXPECTED_ERROR,
    MQError,
)
from mqtool.engine.zos import connections, logsuspend, topicstats
from mqtool.engine.zos.log import LogSettings, log_settings
from mqtool.engine.zos.pages import (
    DEFINITIONS,
    OBJECT_PAGES,
    DamagedPageSet,
    pages_for,
    pageset_pages,
    pageset_qkeys,
    pageset_used,
    queue_psid,
)
from mqtool.engine.zos.qstats import removed as qstats_removed
from mqtool.engine.zos.stats import Figures, queue_statistics, stat_classes
from mqtool.processes import alive
from mqtool.state.messages import heads

if TYPE_CHECKING:
    from mqtool.state import ObjectRecord, SystemRecord, Transaction

MAX_EXTENTS = 119  # extents a page set may have (IBM: "A page set can have 119 extents")
QTIME_SHORT_WEIGHT = 0.25  # the short-term QTIME average follows the last few messages ...
QTIME_LONG_WEIGHT = 1 / 32  # ... the long-term one a larger sample (mqtool's weights)
# The statements a put and a get make on the queue's head row.
PUT_MARKS = "UPDATE messages SET last_put = ?, hi_depth = max(coalesce(hi_depth, 0), depth) WHERE id = ?"
_GET_MARKS = (
    "UPDATE messages SET last_get = ?1, "
    f"qtime_short = coalesce(qtime_short + (?2 - qtime_short) * {QTIME_SHORT_WEIGHT}, ?2), "
    f"qtime_long = coalesce(qtime_long + (?2 - qtime_long) * {QTIME_LONG_WEIGHT}, ?2) WHERE id = ?3"
)
EXPANSION_PERCENT = 10  # a secondary extent: 10% of the page set (IBM: EXPAND(SYSTEM))


@dataclass
class ZosSpace:
    """The z/OS settings of a resolution: the page set and the streaming queue."""

    psid: int | None  # None: the storage class or its page set is not defined
    pageset_qkeys: tuple[int, ...]  # the local queues on the same page set
    objects: bool  # page set 0: it holds the object definitions too
    streamq: str
    strmqos: str
    maxumsgs: int  # messages one unit of work may put or get (the queue manager's MAXUMSGS)
    log: LogSettings  # the log parameters in effect (log.py)
    stats: bool  # the queue collects statistics (stats.py)
    suspended: bool = False  # SUSPEND QMGR LOG: updates are refused (logsuspend.py)


def _pages_or_2195(record: ObjectRecord) -> int:
    try:
        return pageset_pages(record)
    except DamagedPageSet as damage:
        raise MQError(UNEXPECTED_ERROR, str(damage)) from None


class ZosModel(StorageModel):
    platform = "zos"
    pubsub = True
    local_type = "QLOCAL"
    alias_type = "QALIAS"
    remote_type = "QREMOTE"
    alias_target = "TARGET"
    process_type = "PROCESS"
    model_type = "QMODEL"
    msgid_prefix = b"CSQ "

    def queue_manager(self, tx: Transaction, system: SystemRecord) -> ObjectRecord | None:
        return tx.get_object(system.name, "QMGR", system.name)

    def space(self, tx: Transaction, system: SystemRecord, qmgr: ObjectRecord, local: ObjectRecord) -> ZosSpace:
        psid = queue_psid(tx, system.name, local)
        return ZosSpace(
            psid=psid,
            pageset_qkeys=pageset_qkeys(tx, system.name, psid) if psid is not None else (),
            objects=psid == 0,
            streamq=str(local.attrs.get("STREAMQ", "") or ""),
            strmqos=str(local.attrs.get("STRMQOS", "BESTEF")),
            maxumsgs=int(qmgr.attrs.get("MAXUMSGS", 10000)),
            log=log_settings(system, qmgr),
            stats=queue_statistics(qmgr, local),
            suspended=logsuspend.KEY in qmgr.status,
        )

    def ledger(self, handle: Handle) -> ZosLedger:
        return ZosLedger(handle)

    def topic_event(self, tx: Transaction, system: str, qmgr: ObjectRecord, event: TopicEvent) -> None:
        topicstats.event(tx, system, stat_classes(qmgr), event)

    def updates_held(self, qmgr: ObjectRecord, what: str) -> Exception | None:
        return logsuspend.refusal(qmgr.name, what) if logsuspend.KEY in qmgr.status else None


class ZosLedger(Ledger):
    """Page-set pages, streaming copies and queue status of one open z/OS queue."""

    def __init__(self, handle: Handle) -> None:
        super().__init__(handle)
        self.system_name = handle.system_name
        self.number = 0  # the handle's row in open_handles
        self._pages_used = 0
        self._capacity = -1  # the page set's pages as last read (-1: read at the next put)
        self._payload = b""
        self._stream: QueueHandle | None = None
        self._stream_opened = False
        self._stream_warned = 0  # the reason CSQM587E was last given for (once per handle)
        self._uow_tx: Transaction | None = None  # the unit of work counted in ...
        self._uow = 0  # ... and its messages so far
        self.figures = Figures(handle)  # its log records and statistics, written in groups
        self._removes = False  # opened to get (not browse): its gets are refused while the log is suspended

    def make_internal(self) -> None:
        """The queue manager's own handle: neither an open handle nor in the statistics."""
        self.internal = self.figures.internal = True

    # -- figures --------------------------------------------------------------------
    def sync_columns(self, resolved: Resolved) -> tuple[str, dict[str, Any]]:
        space: ZosSpace = resolved.space
        self._capacity = -1
        if self._removes:
            self._hold_gets(resolved)
        used = f"(SELECT coalesce(sum(held_swbs), 0) FROM messages WHERE id IN ({heads(space.pageset_qkeys)}))"
        if space.objects:
            used += f" + {OBJECT_PAGES} * {DEFINITIONS.format(':system')}"
        return f", {used}", {"system": self.system_name}

    def synced(self, row: tuple[Any, ...]) -> None:
        self._pages_used = int(row[0])
        self._capacity = -1

    # -- open / close -------------------------------------------------------------------
    def opened(self, tx: Transaction, resolved: Resolved, purpose: str) -> None:
        self._removes = purpose == "get"
        if self._removes:
            self._hold_gets(resolved)
        self.figures.opened(tx, resolved)
        if self.internal:
            return
        conn = tx.conn
        # Handles left by processes that died with them open are no longer counted.
        stale = [
            (self.system_name, int(handle))
            for handle, pid in conn.execute(
                "SELECT handle, pid FROM open_handles WHERE system = ? AND queue = ?",
                (self.system_name, resolved.local_name),
            )
            if not alive(int(pid))
        ]
        if stale:
            conn.executemany("DELETE FROM open_handles WHERE system = ? AND handle = ?", stale)
        connections.opened(tx, self.system_name, self.handle.clock.timestamp())  # DISPLAY CONN shows the process
        self.number = self.handle.number
        conn.execute(
            "INSERT OR REPLACE INTO open_handles (system, queue, handle, pid, input, output, opened) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (self.system_name, resolved.local_name, self.number, os.getpid(), int(purpose == "get"),
             int(purpose == "put"), self.handle.clock.timestamp()),
        )  # fmt: skip

    @staticmethod
    def _hold_gets(resolved: Resolved) -> None:
        """While the log is suspended a get that removes is refused before it removes
        anything (the core checks `get_error` first; `refused` gives the reason's words);
        a resolution is made again when the queue manager's status changes."""
        if resolved.space.suspended and not resolved.get_error:
            resolved.get_error = logsuspend.REASON

    def closed(self, tx: Transaction, resolved: Resolved | None) -> None:
        if self._stream is not None and self._stream_opened:
            self._stream.close(tx)
            self._stream_opened = False
        if not self.internal and self.number:
            tx.conn.execute("DELETE FROM open_handles WHERE system = ? AND handle = ?", (self.system_name, self.number))
            self.number = 0
        self.figures.closed(tx, resolved)

    # -- put ------------------------------------------------------------------------------
    def pack(self, tx: Transaction, resolved: Resolved, payload: bytes, persistent: bool) -> tuple[bytes, str, int]:
        """The message's pages of its page set; expands the page set or refuses with
        2192 when they do not fit, 2193 when the queue has no page set."""
        space: ZosSpace = resolved.space
        if space.suspended:
            raise logsuspend.refusal(resolved.qmgr.name, "MQPUT")
        if space.psid is None:
            raise MQError(
                PAGESET_ERROR,
                f"storage class {resolved.local.attrs.get('STGCLASS', 'DEFAULT')} of {resolved.local_name} "
                "names no defined page set",
            )
        if self.handle.syncpoint and not self.internal:
            self._count_in_unit(tx, space)
        pages = pages_for(len(payload))
        if self._capacity < 0:
            record = tx.get_object(self.system_name, "PSID", str(space.psid))
            self._capacity = _pages_or_2195(record) if record is not None else 0
        if self._pages_used + pages > self._capacity:
            self._make_room(tx, resolved, space.psid, pages)
        self._payload = payload
        return payload, "", pages

    def _count_in_unit(self, tx: Transaction, space: ZosSpace) -> None:
        """One more message in the unit of work: 2024 past MAXUMSGS (streamed copies
        do not count, IBM says)."""
        if tx is not self._uow_tx:
            self._uow_tx, self._uow = tx, 0
        self._uow += 1
        if self._uow > space.maxumsgs:
            raise MQError(
                SYNCPOINT_LIMIT_REACHED,
                f"a unit of work may put or get {space.maxumsgs} messages (MAXUMSGS of {self.system_name})",
            )

    def make_room(self, tx: Transaction, resolved: Resolved, pages: int) -> None:
        """Room for `pages` more pages of the queue's page set, as a put needs it (the page
        set expands as its EXPAND says, or MQError 2192; 2193 without a page set), for
        a writer that stores messages itself (MOVE QLOCAL)."""
        space: ZosSpace = resolved.space
        if space.psid is None:
            raise MQError(PAGESET_ERROR, f"the storage class of {resolved.local_name} names no defined page set")
        self._make_room(tx, resolved, space.psid, pages)

    def _make_room(self, tx: Transaction, resolved: Resolved, psid: int, pages: int) -> None:
        """The put does not fit by what this handle knows: look again, then expand the
        page set as its EXPAND says, or refuse with 2192."""
        record = tx.get_object(self.system_name, "PSID", str(psid))
        if record is None:
            raise MQError(PAGESET_ERROR, f"page set {psid:02d} is not defined")
        self._pages_used = used = pageset_used(tx, self.system_name, psid)
        self._capacity = total = _pages_or_2195(record)
        if used + pages <= total:
            return
        expand = str(record.attrs.get("EXPAND", "USER"))
        expansions = int(record.status.get("expansions", 0))
        full = f"page set {psid:02d} of {self.system_name} is full ({used} of {total} pages used, {pages} needed)"
        if expand == "NONE":
            raise MQError(PAGESET_FULL, full + ", EXPAND(NONE)")
        now = self.handle.clock.timestamp()
        system = resolved.system
        if expansions + 1 >= MAX_EXTENTS:
            if not record.status.get("extents_reached"):
                record.status["extents_reached"] = True
                tx.put_status(record)
                console(tx, system, now, "CSQP016E", csect="CSQPEXT1", psid=f"{psid:02d}")
            raise MQError(PAGESET_FULL, full + f", {MAX_EXTENTS} extents reached")
        # USER: the secondary extent of the allocation (PAGES / 10 here); SYSTEM: 10% of
        # the page set's current size. At least what the put needs.
        base = int(record.attrs.get("PAGES", total)) if expand == "USER" else total
        step = max(-(-base * EXPANSION_PERCENT // 100), used + pages - total)
        record.status["pages"] = total + step
        record.status["expansions"] = expansions + 1
        tx.put_status(record)
        self._capacity = total + step
        console(tx, system, now, "CSQP013I", csect="CSQPEXT1", psid=f"{psid:02d}")

    def put_done(self, tx: Transaction, resolved: Resolved, result: PutResult, now: float) -> None:
        space: ZosSpace = resolved.space
        copied = space.streamq != "" and not self.internal and self._stream_copy(tx, resolved, result)
        self._pages_used += result.units
        # The head row's depth counts this message already (a trigger): the highest
        # depth since RESET QSTATS (qstats.py) rises with the put's own statement.
        self.handle.cursor.execute(PUT_MARKS, (now, resolved.low))
        self.figures.put(tx, resolved, result, self._payload, now, copied)

    def _stream_copy(self, tx: Transaction, resolved: Resolved, result: PutResult) -> bool:
        """Puts the copy of a message to the streaming queue, in the same unit of work:
        same payload, MsgId, CorrelId, priority and persistence; the expiry only the
        streaming queue's CAPEXPRY (spec zos-mq.md section 4). BESTEF: a failed copy is
        reported on the console (once per handle unless the reason changes) and the put
        stands; MUSTDUP: the put fails with the copy's reason."""
        space: ZosSpace = resolved.space
        handle = self._stream
        if handle is None or handle.queue_name != space.streamq:
            handle = QueueHandle(self.handle.store, self.handle.clock, self.system_name, space.streamq, ZOS)
            handle.ledger.make_internal()
            self._stream, self._stream_opened = handle, False
        options = PutOptions(
            persistent=result.persistent,
            priority=result.priority,
            msgid=result.msgid,
            correlid=result.correlid,
            expiry=None,
        )
        try:
            if not self._stream_opened:
                handle.open(tx)
                self._stream_opened = True
            copy = handle.put(tx, self._payload, options)
        except MQError as error:
            if self._stream_warned != error.reason:
                self._stream_warned = error.reason
                console(
                    tx,
                    resolved.system,
                    self.handle.clock.timestamp(),
                    "CSQM587E",
                    csect="CSQMPUT",
                    streamq=space.streamq,
                    queue=resolved.local_name,
                    mqrc=error.reason,
                    name=NAMES.get(error.reason, "MQRC_UNKNOWN"),
                )
            if space.strmqos == "MUSTDUP":
                raise MQError(
                    error.reason, f"MUSTDUP copy to streaming queue {space.streamq} failed: {error.detail}"
                ) from None
            return False
        copied = handle.resolved
        if copied is not None and copied.space.psid == space.psid:
            self._pages_used += copy.units  # the copy's pages are on this page set too
        return True

    # -- get ------------------------------------------------------------------------------
    def got(self, tx: Transaction, resolved: Resolved, message: Message, browse: bool) -> None:
        if not browse:
            self._pages_used -= message.swbs
            now = self.handle.clock.timestamp()
            # QTIME (microseconds on the queue), averaged short and long term (mqtool's
            # weights: IBM does not publish its own), with the get's own statement.
            qtime = max(0.0, (now - message.put_time) * 1_000_000)
            self.handle.cursor.execute(_GET_MARKS, (now, qtime, resolved.low))
        self.figures.got(tx, resolved, message, browse)

    def expired(self, tx: Transaction, resolved: Resolved, units: int, swept: bool) -> None:
        self._pages_used -= units
        qstats_removed(tx, self.system_name, resolved.local_name, 1)
        self.figures.expired(tx, resolved)

    def missed(self, tx: Transaction, resolved: Resolved, browse: bool) -> None:
        self.figures.refused(tx, resolved, "browse" if browse else "get", NO_MSG_AVAILABLE)

    def refused(self, tx: Transaction, resolved: Resolved | None, operation: str, reason: int) -> None:
        self.figures.refused(tx, resolved, operation, reason)
        if operation == "get" and reason == logsuspend.REASON and resolved is not None and resolved.space.suspended:
            # Held by _hold_gets (the core resolves again first when the status moved).
            raise logsuspend.refusal(resolved.qmgr.name, "MQGET")

    def restored(self, tx: Transaction, messages: list[Message]) -> None:
        self.figures.restored(tx, messages)

    def rolled_back(self, tx: Transaction) -> None:
        self._capacity = -1
        self.figures.rolled_back(tx)
        if self._stream is not None:
            self._stream.rolled_back(tx)
            self._stream_opened = False


ZOS = ZosModel()
