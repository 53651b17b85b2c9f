"""z/TPF MQ puts and gets on an open queue (`QueueHandle`): resolution through QA and QR,
the checks and reason codes, queue compression, SWBs, the sweeper trigger and the
statistics counters.

Callers own the transactions (one per persistent message, batches for non-persistent
ones); `put_stream` and `get_stream` implement that policy for the CLI and directives.
A handle reads the definitions it needs once and again only when `engine_config.version`
says a definition, a queue manager's state or a system changed. A message's row id
places it in its queue's run of the messages table in get order (state/messages.py), so
a put is one INSERT and a get one SELECT and one DELETE; triggers keep the queue's head
row (depth, SWBs, compressed messages, next sequence number) exact for every process.
The STAT counters of puts and plain gets are written in groups: every 32 messages, when
the statistics interval ends, and at MQCLOSE (`close`), so a handle must be closed.

For a channel engine: a message on a transmission queue carries its transmission
header as JSON in `messages.header` (`{"rname": ..., "rqmname": ..., "qmgr": ...}`);
messages of a batch in flight are listed by row id in the XMITQ's status field
`inflight` (see `set_inflight`), which the sweeper never sweeps; a message is on file
(swept) when `messages.swept` is 1 or its sequence number (`state.messages.seq_of`) is
at most its queue's `sweep_mark`; a message moves to another queue by a DELETE and an
INSERT with an id of that queue (`state.messages.next_id`); `inflate()` turns a stored
row back into the original bytes.
"""

from __future__ import annotations

import functools
import json
import queue as queue_module
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from mqtool.clock import Clock
from mqtool.engine import codecs
from mqtool.engine.figures import SWB_HEADER, SwbSettings, qdepthhi_threshold, swb_settings
from mqtool.engine.reasons import (
    GET_INHIBITED,
    MSG_TOO_BIG_FOR_Q,
    MSG_TOO_BIG_FOR_Q_MGR,
    OPTION_NOT_VALID_FOR_TYPE,
    PUT_INHIBITED,
    Q_FULL,
    Q_MGR_NOT_AVAILABLE,
    UNEXPECTED_ERROR,
    UNKNOWN_ALIAS_BASE_Q,
    UNKNOWN_OBJECT_NAME,
    UNKNOWN_XMIT_Q,
    XMIT_Q_USAGE_ERROR,
    MQError,
)
from mqtool.state import ObjectRecord, Store, SystemRecord, Transaction
from mqtool.state import messages as runs

QUEUE_CODEC = "QUEUE"  # the codec row of z/TPF queue compression
QUEUE_TYPES = ("QL", "QA", "QR")  # queue names are unique across the types
ID_LENGTH = 24
NO_ID = bytes(ID_LENGTH)  # MQMI_NONE / MQCI_NONE
MSGID_PREFIX = b"TPF "
FILE_BLOCK = 4096  # bytes per file I/O (sweeper, read back, checkpoint)
MONITOR_TIMER = "ztpf-mq-monitor"
CHECKPOINT_TIMER = "ztpf-mq-checkpoint"
INTERVAL = 5.0  # seconds: the MQ monitor and the checkpoint


def file_ios(stored_length: int) -> int:
    """I/Os to write a message to file or read it back: 1 + ceil(stored / 4096)."""
    return 1 + -(-stored_length // FILE_BLOCK)


def msgid_prefix(qmgr: str, handle: int) -> bytes:
    """The first 20 bytes of the message ids a queue handle makes: `TPF `, the queue
    manager name (12 bytes) and the handle's number in the store (4 bytes)."""
    name = qmgr.encode("ascii", "replace")[:12].ljust(12, b" ")
    return MSGID_PREFIX + name + (handle & 0xFFFFFFFF).to_bytes(4, "big")


def parse_id(text: str) -> bytes:
    """A message or correlation id as typed: 48 hex digits, or text of up to 24 bytes
    padded with nulls (as MQ pads a short id). ValueError when it does not fit."""
    value = text.strip()
    if len(value) == 2 * ID_LENGTH:
        try:
            return bytes.fromhex(value)
        except ValueError:
            pass
    raw = text.encode("utf-8")
    if len(raw) > ID_LENGTH:
        raise ValueError(f"{text!r} is longer than {ID_LENGTH} bytes (give 48 hex digits or up to 24 characters)")
    return raw.ljust(ID_LENGTH, b"\0")


def format_id(value: bytes) -> str:
    return value.hex().upper()


@dataclass
class PutOptions:
    """The message descriptor fields a putter chooses."""

    persistent: bool | None = None  # None: the queue's DEFPSIST
    priority: int = 0
    msgid: bytes | None = None  # None: the queue manager makes one
    correlid: bytes = NO_ID
    expiry: float | None = None  # seconds from the put; None: unlimited


@dataclass(slots=True)
class PutResult:
    row_id: int
    msgid: bytes
    length: int
    stored: int
    codec: str
    persistent: bool
    swbs: int


@dataclass(slots=True)
class Message:
    """A message got or browsed, inflated to its original bytes."""

    row_id: int
    msgid: bytes
    correlid: bytes
    priority: int
    persistent: bool
    put_time: float
    expiry: float | None
    length: int
    stored: int
    codec: str
    swept: bool
    header: dict[str, str]
    payload: bytes
    inflated: str  # "", "hardware" or "software"
    queue: str = ""  # the local queue it was on
    stored_payload: bytes = b""  # as stored (compressed or not), to put it back
    header_text: str = "{}"
    swbs: int = 0
    checksum: int | None = None  # CRC-32 of stored_payload (None: a row written without one)


@dataclass(frozen=True)
class Selector:
    msgid: bytes | None = None
    correlid: bytes | None = None


_ANY = Selector()


@dataclass
class Resolved:
    """What a handle knows about its queue between definition changes."""

    system: SystemRecord
    qmgr: ObjectRecord
    opened: ObjectRecord
    local: ObjectRecord
    header: str
    put_error: int
    get_error: int
    default_persistent: bool
    maxmsgl: int
    qmgr_maxmsgl: int
    maxdepth: int
    compsize: int
    memory: bool
    qdepthhi: int
    hi_depth: int
    accelerator: bool
    swb: SwbSettings
    # Derived once per resolution, so a put does no arithmetic on the settings.
    local_name: str = ""
    swb_block: int = 1  # data bytes per SWB (SWBSIZE less the chain header)
    swb_pool: int = 0
    sweep_high: int = 0  # SWBs in use that start the sweeper
    qkey: int = 0  # the local queue's number: its messages' row ids (state/messages.py)
    low: int = 0  # its run of row ids: low (the head row) < message ids < high
    high: int = 0

    def __post_init__(self) -> None:
        self.local_name = self.local.name
        self.swb_block = max(1, self.swb.swbsize - SWB_HEADER)
        self.swb_pool = self.swb.pool
        self.sweep_high = self.swb.high
        self.low, self.high = runs.span(self.qkey)


def qmgr_of(tx: Transaction, system: str) -> ObjectRecord | None:
    found = tx.objects(system, "QMGR")
    return found[0] if found else None


def resolve(tx: Transaction, system_name: str, queue: str) -> Resolved:
    """Resolves a queue name to the local queue that holds its messages (QA to its
    target, QR to its transmission queue with a transmission header)."""
    system = tx.get_system(system_name)
    manager = qmgr_of(tx, system_name) if system is not None else None
    if system is None or manager is None:
        raise MQError(Q_MGR_NOT_AVAILABLE, f"system {system_name} has no queue manager")
    opened = tx.find_object(system_name, QUEUE_TYPES, queue)
    if opened is None:
        raise MQError(UNKNOWN_OBJECT_NAME, f"no queue named {queue}")
    path = [opened]
    target = opened
    if target.type == "QA":
        base = tx.find_object(system_name, QUEUE_TYPES, str(target.attrs.get("TARGQ", "")))
        if base is None:
            raise MQError(UNKNOWN_ALIAS_BASE_Q, f"QA-{queue} resolves to {target.attrs.get('TARGQ')}, not defined")
        path.append(base)
        target = base
    header = "{}"
    get_error = 0
    if target.type == "QR":
        xmitq_name = str(target.attrs.get("XMITQ") or target.attrs.get("RQMNAME") or "")
        xmitq = tx.get_object(system_name, "QL", xmitq_name)
        if xmitq is None:
            raise MQError(UNKNOWN_XMIT_Q, f"transmission queue {xmitq_name or '(blank)'} of QR-{target.name}")
        if xmitq.attrs.get("USAGE") != "XMITQ":
            raise MQError(XMIT_Q_USAGE_ERROR, f"QL-{xmitq_name} is not USAGE-XMITQ")
        header = json.dumps(
            {
                "rname": str(target.attrs.get("RNAME", "")),
                "rqmname": str(target.attrs.get("RQMNAME", "")),
                "qmgr": manager.name,
            },
            sort_keys=True,
            separators=(",", ":"),
        )
        # A remote queue is for putting only.
        get_error = OPTION_NOT_VALID_FOR_TYPE
        path.append(xmitq)
        target = xmitq
    local = target
    put_error = 0
    for record in path:
        if record.type in ("QL", "QA") and record.attrs.get("PUT", "ENABLED") == "DISABLED":
            put_error = put_error or PUT_INHIBITED
        if record.type in ("QL", "QA") and record.attrs.get("GET", "ENABLED") == "DISABLED" and record.type != "QR":
            get_error = get_error or GET_INHIBITED
    if manager.status.get("state", "STARTED") != "STARTED":
        put_error = get_error = Q_MGR_NOT_AVAILABLE
    attrs = local.attrs
    maxdepth = int(attrs.get("MAXDEPTH", 0))
    qdepthhi = int(attrs.get("QDEPTHHI", 0))
    memory = attrs.get("COMMON", "NO") != "YES"
    hi_depth = qdepthhi_threshold(maxdepth, qdepthhi) if memory else 0
    qkey = runs.queue_key(tx.conn, system_name, local.name)
    if qkey is None:
        raise MQError(UNEXPECTED_ERROR, f"local queue {local.name} has no row in queue_figures")
    return Resolved(
        system=system,
        qmgr=manager,
        opened=opened,
        local=local,
        header=header,
        put_error=put_error,
        get_error=get_error,
        default_persistent=opened.attrs.get("DEFPSIST", "NO") == "YES",
        maxmsgl=int(attrs.get("MAXMSGL", manager.attrs.get("MAXMSGL", 4194304))),
        qmgr_maxmsgl=int(manager.attrs.get("MAXMSGL", 4194304)),
        maxdepth=maxdepth,
        compsize=int(attrs.get("COMPSIZE", 0)),
        memory=memory,
        qdepthhi=qdepthhi,
        hi_depth=hi_depth,
        accelerator=system.has_accelerator,
        swb=swb_settings(system),
        qkey=qkey,
    )


def check_length(resolved: Resolved, length: int) -> None:
    """MQError 2030 or 2031 when a message of `length` bytes is longer than its queue's
    or its queue manager's MAXMSGL (a putter may ask before it makes the message)."""
    if length > resolved.maxmsgl:
        raise MQError(MSG_TOO_BIG_FOR_Q, f"{length} bytes, MAXMSGL of {resolved.local_name} is {resolved.maxmsgl}")
    if length > resolved.qmgr_maxmsgl:
        raise MQError(MSG_TOO_BIG_FOR_Q_MGR, f"{length} bytes, queue manager MAXMSGL is {resolved.qmgr_maxmsgl}")


def inflate(codec: str, stored: bytes, length: int, msgid: bytes) -> bytes:
    """The original bytes of a stored message; MQError 2195 when they cannot be had."""
    if not codec:
        return stored
    try:
        data = codecs.decompress(codec, stored, max_length=length)
    except codecs.CodecError as exc:
        raise MQError(
            UNEXPECTED_ERROR, f"stored compressed data of message {format_id(msgid)} does not inflate ({exc})"
        ) from None
    if len(data) != length:
        raise MQError(
            UNEXPECTED_ERROR,
            f"message {format_id(msgid)} inflates to {len(data)} bytes, not its original {length}",
        )
    return data


_SQL_TYPES = {str: "TEXT", int: "INTEGER", float: "REAL", type(None): "NULL", bytes: "BLOB"}


def damage(row: tuple[object, ...]) -> str:
    """What is wrong with a message row as the get statement reads it (version, sweep
    mark, then `_COLUMNS`); "" when it can be delivered. Rows are written only by the
    engine, so anything else is damage: a changed byte, a value of the wrong type or
    range, a header that is not JSON."""
    (_, _, _, priority, msgid, correlid, persistent, put_time, expiry, length, stored_length, codec, _, header,
     stored, swbs, checksum) = row  # fmt: skip
    if type(stored) is not bytes:
        return f"its payload is stored as {_SQL_TYPES.get(type(stored), '?')}, not as a BLOB"
    if checksum is not None and zlib.crc32(stored) != checksum:
        recorded = f"{checksum:08X}" if type(checksum) is int else repr(checksum)
        return f"its payload does not match its checksum (CRC-32 {zlib.crc32(stored):08X}, recorded {recorded})"
    if type(length) is not int or length < 0:
        return f"its length {length!r} is not a length"
    if stored_length != len(stored):
        return f"its stored length {stored_length!r} is not the {len(stored)} bytes stored"
    if type(codec) is not str:
        return f"its codec is stored as {_SQL_TYPES.get(type(codec), '?')}, not as text"
    if not codec and length != len(stored):
        return f"its length {length} is not the {len(stored)} bytes stored"
    for name, value in (("message", msgid), ("correlation", correlid)):
        if type(value) is not bytes or len(value) != ID_LENGTH:
            return f"its {name} id is not {ID_LENGTH} bytes"
    if type(priority) is not int or not 0 <= priority <= 9:
        return f"its priority {priority!r} is not 0-9"
    if persistent not in (0, 1) or type(persistent) is not int:
        return f"its persistence {persistent!r} is not 0 or 1"
    if type(put_time) not in (int, float) or (expiry is not None and type(expiry) not in (int, float)):
        return "its put time or expiry is not a time"
    if type(swbs) is not int or swbs < 0:
        return f"its SWB count {swbs!r} is not a count"
    if type(header) is not str:
        return f"its header is stored as {_SQL_TYPES.get(type(header), '?')}, not as JSON text"
    if header != "{}":
        try:
            fields = json.loads(header)
        except ValueError:
            return "its header is not JSON"
        if type(fields) is not dict:
            return "its header is not a JSON object"
    return ""


def _id_text(value: object) -> str:
    return format_id(value) if isinstance(value, bytes) else "(unreadable id)"


def set_inflight(tx: Transaction, system: str, xmitq: str, row_ids: list[int]) -> None:
    """Marks the messages of a channel batch in flight on a transmission queue (never
    swept); an empty list ends the batch. For the channel engine."""
    record = tx.get_object(system, "QL", xmitq)
    if record is None:
        return
    if row_ids:
        record.status["inflight"] = list(row_ids)
    else:
        record.status.pop("inflight", None)
    tx.put_status(record)


_INSERT = (
    "INSERT INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time, expiry, "
    "original_length, stored_length, codec, header, payload, swbs, checksum) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
# The definitions' version and the local queue's live figures (and the system's SWBs).
_SYNC = (
    "SELECT c.version, f.depth, f.hi_warned, f.next_seq, "
    "(SELECT coalesce(sum(swbs), 0) FROM queue_figures WHERE system = ?1) "
    "FROM engine_config c LEFT JOIN queue_figures f ON f.qkey = ?2"
)
_MAX_COUNT = 0xFFFFFFFF
_MAX_SEQ, _SEQ_MASK, _PRIORITY_SHIFT = runs.MAX_SEQ, runs.SEQ_MASK, runs.PRIORITY_SHIFT
COUNT_GROUP = 32  # puts and plain gets counted in the store per statement
_VERSION = "SELECT version FROM engine_config"
_COLUMNS = (
    "id, priority, msgid, correlid, persistent, put_time, expiry, original_length, stored_length, codec, swept, "
    "header, payload, swbs, checksum"
)
_RESTORE = (
    "INSERT INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time, expiry, "
    "original_length, stored_length, codec, swept, header, payload, swbs, checksum) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
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


class QueueHandle:
    """An open queue (MQOPEN) of one z/TPF system, for putting or getting."""

    def __init__(self, store: Store, clock: Clock, system: str, queue: str) -> None:
        self.store = store
        self.clock = clock
        self.system_name = system
        self.queue_name = queue
        self.resolved: Resolved | None = None
        self._version = -1
        self._tx: Transaction | None = None
        self._depth = 0
        self._hi_warned = 0
        self._system_swbs = 0
        self._next_seq = 1
        self._prefix: bytes | None = None
        self._count = _MAX_COUNT
        # What the handle knows of the queue's figures holds while nothing else writes.
        self._figures = False
        self._changes = -1
        self._data_version = -1
        self._plain_select: dict[int, tuple[str, tuple[object, ...]]] = {}
        # The handle's own cursor on the store's connection: re-executing one cursor costs
        # less than a new cursor per statement, which counts on the one-message paths.
        # Only statements that end (single rows, writes) run on it, so it never holds a
        # read snapshot open between transactions.
        self._cursor = store.conn.cursor()
        # The STAT counters of puts and plain gets are written in groups (one statement
        # per group, not per message). `_pending` holds those not written yet, all on
        # queue `_counts_queue`, `_counted` how many puts and gets they are; `_undo` is
        # what the two were when transaction `_counts_tx` began, for its rollback.
        self._pending = [0] * _COUNTERS
        self._counted = 0
        self._counts_queue = ""
        self._counts_tx: Transaction | None = None
        self._undo: tuple[list[int], int] = (self._pending, 0)
        self._flush_due = 0.0
        self._get_sql: dict[tuple[bool, bool], str] = {}
        self.is_open = False  # between open() and close()

    # -- open / close -------------------------------------------------------------
    def open(self, tx: Transaction, purpose: str = "put") -> Resolved:
        """MQOPEN for `put` or `get` (browse too): resolves the name (MQError when it
        cannot be) and counts the open. A remote queue cannot be opened to get from."""
        resolved = self._resolve(tx)
        if resolved.put_error == Q_MGR_NOT_AVAILABLE:
            raise MQError(Q_MGR_NOT_AVAILABLE, f"queue manager {resolved.qmgr.name} is stopped")
        if purpose != "put" and resolved.get_error == OPTION_NOT_VALID_FOR_TYPE:
            raise MQError(OPTION_NOT_VALID_FOR_TYPE, self._why_not(resolved, "get"))
        tx.conn.execute(
            "UPDATE queue_stats SET opens = opens + 1 WHERE system = ? AND queue = ?",
            (self.system_name, resolved.local.name),
        )
        self._number(tx, resolved)
        now = self.clock.timestamp()
        schedule_timers(tx, self.system_name, now)
        self.is_open = True
        return resolved

    def _number(self, tx: Transaction, resolved: Resolved) -> None:
        """Gives the handle its number in the store (the middle of its message ids)."""
        tx.conn.execute("UPDATE engine_config SET handles = handles + 1")
        number = int(tx.conn.execute("SELECT handles FROM engine_config").fetchone()[0])
        self._prefix = msgid_prefix(resolved.qmgr.name, number)
        self._count = 0

    def close(self, tx: Transaction) -> None:
        """MQCLOSE (writes the counts not written yet)."""
        if self._counted:
            self._write_counts(tx)
        if self.resolved is not None:
            tx.conn.execute(
                "UPDATE queue_stats SET closes = closes + 1 WHERE system = ? AND queue = ?",
                (self.system_name, self.resolved.local.name),
            )
        self.is_open = False

    def _resolve(self, tx: Transaction) -> Resolved:
        self._version = int(tx.conn.execute(_VERSION).fetchone()[0])
        self.resolved = resolve(tx, self.system_name, self.queue_name)
        return self.resolved

    def _sync(self, tx: Transaction) -> Resolved:
        """Once per transaction: the definitions (if changed) and the queue's live figures.
        When nothing was written since this handle's last statement, neither on its own
        connection (total_changes) nor by another one (data_version), what it knows is
        still true and costs one PRAGMA to confirm."""
        cursor = self._cursor
        resolved = self.resolved
        if (
            resolved is not None
            and self._figures
            and self._changes == tx.conn.total_changes
            and cursor.execute("PRAGMA data_version").fetchone()[0] == self._data_version
        ):
            self._tx = tx
            return resolved
        for _ in range(2):
            qkey = resolved.qkey if resolved is not None else 0
            row = cursor.execute(_SYNC, (self.system_name, qkey)).fetchone()
            if resolved is None or row[0] != self._version or row[1] is None:
                resolved = self._resolve(tx)
                continue
            self._depth, self._hi_warned, self._next_seq, self._system_swbs = row[1], row[2], row[3], row[4]
            self._data_version = cursor.execute("PRAGMA data_version").fetchone()[0]
            self._figures = True
            self._tx = tx
            return resolved
        raise MQError(UNKNOWN_OBJECT_NAME, f"queue {self.queue_name} was deleted")

    # -- put ----------------------------------------------------------------------
    def put(self, tx: Transaction, payload: bytes, options: PutOptions) -> PutResult:
        """MQPUT in the caller's transaction; MQError when the queue manager refuses."""
        resolved = self.resolved
        if tx is not self._tx or resolved is None:
            resolved = self._sync(tx)
        if resolved.put_error:
            raise MQError(resolved.put_error, self._why_not(resolved, "put"))
        length = len(payload)
        if length > resolved.maxmsgl or length > resolved.qmgr_maxmsgl:
            check_length(resolved, length)
        if resolved.maxdepth and self._depth >= resolved.maxdepth:
            raise MQError(Q_FULL, f"{resolved.local_name} holds MAXDEPTH {resolved.maxdepth} messages")
        seq = self._next_seq
        if seq > _MAX_SEQ:
            raise MQError(Q_FULL, f"{resolved.local_name} has used every message sequence number")
        stored, codec, micros = payload, "", 0
        if resolved.compsize and length >= resolved.compsize and resolved.accelerator:
            clock = self.clock
            started = clock.perf()
            packed = codecs.compress(QUEUE_CODEC, payload)
            micros = int((clock.perf() - started) * 1_000_000)
            # Kept only when smaller; otherwise the message counts as not compressed.
            if len(packed) < length:
                stored, codec = packed, QUEUE_CODEC
            else:
                micros = 0
        stored_length = len(stored)
        swbs = 0
        if resolved.memory:
            swbs = -(-stored_length // resolved.swb_block) or 1  # figures.swbs_for, inlined
            if self._system_swbs + swbs > resolved.swb_pool:
                self._swb_shortage(tx, resolved)
                raise MQError(Q_FULL, f"SWB pool exhausted ({self._system_swbs} of {resolved.swb_pool} in use)")
        count = self._count + 1
        if count > _MAX_COUNT or self._prefix is None:
            self._number(tx, resolved)
            count = 1
        self._count = count
        msgid = options.msgid
        if msgid is None:
            # The handle's prefix and the message's count within the handle (4 bytes):
            # unique in the store, and the same on every run with a frozen clock.
            msgid = self._prefix + count.to_bytes(4, "big")  # type: ignore[operator]
        persistent = resolved.default_persistent if options.persistent is None else options.persistent
        now = self.clock.timestamp()
        local = resolved.local_name
        expiry = options.expiry
        row_id = resolved.low | (9 - options.priority) << _PRIORITY_SHIFT | seq  # runs.row_id, inlined
        cursor = self._cursor
        cursor.execute(
            _INSERT,
            (row_id, self.system_name, local, options.priority, msgid, options.correlid, 1 if persistent else 0, now,
             None if expiry is None else now + expiry, length, stored_length, codec, resolved.header, stored, swbs,
             zlib.crc32(stored)),
        )  # fmt: skip
        self._next_seq = seq + 1
        self._depth = depth = self._depth + 1
        counts = self._pending if tx is self._counts_tx and local == self._counts_queue else self._counts(tx, local)
        if persistent:
            counts[PUT_P] += 1
            counts[PUT_P_BYTES] += length
        else:
            counts[PUT_NP] += 1
            counts[PUT_NP_BYTES] += length
        counts[STORED] += stored_length
        if codec:
            counts[COMP] += 1
            counts[COMP_ORIG] += length
            counts[COMP_STORED] += stored_length
            counts[COMP_US] += micros
        self._counted = counted = self._counted + 1
        if counted >= COUNT_GROUP or now >= self._flush_due:
            self._write_counts(tx)
        if resolved.hi_depth and not self._hi_warned and depth >= resolved.hi_depth:
            self._hi_warned = 1
            from mqtool.engine.monitor import qdepthhi_reached

            qdepthhi_reached(tx, resolved.system, local, depth, resolved, now)
        if swbs:
            self._system_swbs = in_use = self._system_swbs + swbs
            if in_use >= resolved.sweep_high:
                self._sweep(tx, resolved, now)
        self._changes = tx.conn.total_changes
        return PutResult(row_id, msgid, length, stored_length, codec, persistent, swbs)

    def put_committed(self, payload: bytes, options: PutOptions) -> PutResult:
        """One put in a transaction of its own, committed (durable, with synchronous=FULL)
        before it returns: the path of a persistent message, without the generality of
        `store.transaction()`. MQError leaves nothing behind."""
        cursor = self._cursor
        cursor.execute("BEGIN IMMEDIATE")
        tx = Transaction(self.store)
        try:
            result = self.put(tx, payload, options)
            cursor.execute("COMMIT")
        except BaseException as exc:
            self._failed(tx, exc)
            raise
        return result

    def get_committed(self, selector: Selector | None = None) -> Message | None:
        """One destructive get in a transaction of its own (BEGIN IMMEDIATE), committed
        before it returns."""
        cursor = self._cursor
        cursor.execute("BEGIN IMMEDIATE")
        tx = Transaction(self.store)
        try:
            message = self.get(tx, selector)
            cursor.execute("COMMIT")
        except BaseException as exc:
            self._failed(tx, exc)
            raise
        return message

    def _failed(self, tx: Transaction, exc: BaseException) -> None:
        """A transaction of `put_committed` or `get_committed` failed: roll it back (unless
        SQLite did) and raise a failure of the state file as StoreError."""
        self.store.rollback()
        self.rolled_back(tx)
        if isinstance(exc, sqlite3.DatabaseError):
            problem = self.store.error(exc)
            if problem is not None:
                raise problem from exc

    def _why_not(self, resolved: Resolved, what: str) -> str:
        if resolved.put_error == Q_MGR_NOT_AVAILABLE:
            return f"queue manager {resolved.qmgr.name} is stopped"
        if what == "get" and resolved.get_error == OPTION_NOT_VALID_FOR_TYPE:
            return f"{self.queue_name} is a remote queue definition (QR): messages cannot be got from it"
        return f"{what.upper()}-DISABLED on {self.queue_name}"

    def _sweep(self, tx: Transaction, resolved: Resolved, now: float) -> None:
        from mqtool.engine import sweeper

        held = tx.conn.execute("SELECT sweep_held FROM engine_state WHERE system = ?", (self.system_name,)).fetchone()
        if held is not None and held[0]:
            return  # the last sweep could not reach SWEEPLO; the monitor retries
        outcome = sweeper.sweep(tx, resolved.system, now, resolved.swb)
        self._system_swbs = outcome.after

    def _swb_shortage(self, tx: Transaction, resolved: Resolved) -> None:
        from mqtool.engine.monitor import swb_shortage

        swb_shortage(tx, resolved.system, resolved.local.name, self._system_swbs, resolved.swb, self.clock.timestamp())

    # -- get / browse -------------------------------------------------------------
    def get(
        self,
        tx: Transaction,
        selector: Selector | None = None,
        browse: bool = False,
        after: int = 0,
    ) -> Message | None:
        """MQGET (or a browse of the next message after row id `after`); None when no
        message matches (MQRC 2033). Expired messages passed over are removed. MQError
        when the queue cannot be got from or a stored message cannot be inflated (it
        stays)."""
        resolved = self.resolved if self.resolved is not None else self._resolve(tx)
        cursor = self._cursor
        while True:
            if resolved.get_error:
                raise MQError(resolved.get_error, self._why_not(resolved, "get"))
            local = resolved.local_name
            sql, params = self._select(resolved, selector, after)
            row = cursor.execute(sql, params).fetchone()
            version = row[0] if row is not None else cursor.execute(_VERSION).fetchone()[0]
            if version != self._version:
                resolved = self._resolve(tx)
                continue
            if row is None:
                return None
            (_, mark, row_id, priority, msgid, correlid, persistent, put_time, expiry, length, stored_length, codec,
             swept, header, stored, swbs, checksum) = row  # fmt: skip
            # A damaged row is refused (2195) and stays where it is, like one that does
            # not inflate; its checksum finds a changed byte.
            reason = damage(row)
            if reason:
                raise MQError(UNEXPECTED_ERROR, f"message {_id_text(msgid)} on {local} is damaged: {reason}")
            # On file: swept past the queue's sweep mark, or marked alone.
            swept = bool(swept or (mark is not None and row_id & _SEQ_MASK <= mark))
            if expiry is not None and expiry <= self.clock.timestamp():
                cursor.execute("DELETE FROM messages WHERE id = ?", (row_id,))
                cursor.execute(_GET_STATS, (0, 0, 0, 0, 0, 0, 0, 0, 0, 1, self.system_name, local))
                self._depth -= 1
                if not swept and resolved.memory:
                    self._system_swbs -= swbs
                continue
            if codec:
                payload = inflate(codec, stored, length, msgid)
                inflated = "hardware" if resolved.accelerator else "software"
            else:
                payload, inflated = stored, ""
            if not browse:
                cursor.execute("DELETE FROM messages WHERE id = ?", (row_id,))
                self._depth -= 1
                if not swept and resolved.memory:
                    self._system_swbs -= swbs
                if not codec and not swept:
                    self._count_get(tx, local)
            if codec or swept:
                read_ios = file_ios(stored_length) if swept else 0
                got = 0 if browse else 1
                decomp = 1 if codec else 0
                hardware = 1 if inflated == "hardware" else 0
                search = 1 if swept else 0
                cursor.execute(
                    _GET_STATS,
                    (got, got, decomp, decomp, hardware, decomp - hardware, search, search, read_ios, 0,
                     self.system_name, local),
                )  # fmt: skip
                if read_ios:
                    cursor.execute(
                        "UPDATE engine_state SET read_ios = read_ios + ? WHERE system = ?", (read_ios, self.system_name)
                    )
            self._changes = tx.conn.total_changes
            return Message(
                row_id, msgid, correlid, priority, bool(persistent), put_time, expiry, length, stored_length, codec,
                swept, json.loads(header) if header != "{}" else {}, payload, inflated, local, stored, header, swbs,
                checksum,
            )  # fmt: skip

    # -- the STAT counters written in groups ----------------------------------------
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
        self._counts(tx, local)[GETS] += 1
        self._counted = counted = self._counted + 1
        # The clock is asked every 8th get: the group is written by the interval's end.
        if counted >= COUNT_GROUP or (not counted & 7 and self.clock.timestamp() >= self._flush_due):
            self._write_counts(tx)

    def _write_counts(self, tx: Transaction) -> None:
        """Writes the counts not written yet in `tx` (the monitor's next interval sees
        them); should `tx` roll back, they are pending again."""
        if tx is not self._counts_tx:
            self._undo = (self._pending[:], self._counted)
            self._counts_tx = tx
        if self._counted:
            tx.conn.execute(_WRITE_COUNTS, (*self._pending, self.system_name, self._counts_queue))
        self._pending = [0] * _COUNTERS
        self._counted = 0
        row = tx.conn.execute(
            "SELECT due FROM timers WHERE system = ? AND name = ?", (self.system_name, MONITOR_TIMER)
        ).fetchone()
        self._flush_due = float(row[0]) if row is not None else self.clock.timestamp() + INTERVAL

    def rolled_back(self, tx: Transaction) -> None:
        """Transaction `tx` rolled back: what the handle did in it did not happen."""
        self._figures = False
        if tx is self._counts_tx:
            pending, counted = self._undo
            self._pending, self._counted = pending[:], counted
            self._counts_tx = None

    def restore(self, tx: Transaction, messages: list[Message]) -> None:
        """Puts got messages back where they were (same row, so the same place in the
        queue) when they could not be handed on; their gets are not counted."""
        self._figures = False
        by_queue: dict[str, int] = {}
        for message in messages:
            tx.conn.execute(
                _RESTORE,
                (message.row_id, self.system_name, message.queue, message.priority, message.msgid,
                 message.correlid, int(message.persistent), message.put_time, message.expiry, message.length,
                 message.stored, message.codec, int(message.swept), message.header_text, message.stored_payload,
                 message.swbs, message.checksum),
            )  # fmt: skip
            by_queue[message.queue] = by_queue.get(message.queue, 0) + 1
        for queue, written in by_queue.items():
            # Gets not yet written to the store are taken off the count instead.
            if queue == self._counts_queue:
                unwritten = min(written, self._pending[GETS])
                self._pending[GETS] -= unwritten
                self._counted -= unwritten
                written -= unwritten
            if written:
                tx.conn.execute(_UNCOUNT, (written, self.system_name, queue))

    def _select(self, resolved: Resolved, selector: Selector | None, after: int) -> tuple[str, tuple[object, ...]]:
        low = resolved.low
        if (selector is None or selector == _ANY) and not after:
            plain = self._plain_select.get(low)
            if plain is None:
                plain = self._plain_select[low] = (self._get_statement(False, False), (low, low, resolved.high))
            return plain
        if selector is None:
            selector = _ANY
        sql = self._get_statement(selector.msgid is not None, selector.correlid is not None)
        params: list[object] = [low, max(low, after), resolved.high]
        if selector.msgid is not None:
            params.append(selector.msgid)
        if selector.correlid is not None:
            params.append(selector.correlid)
        return sql, tuple(params)

    def _get_statement(self, by_msgid: bool, by_correlid: bool) -> str:
        key = (by_msgid, by_correlid)
        sql = self._get_sql.get(key)
        if sql is None:
            # Row id order is get order (state/messages.py).
            where = "id > ? AND id < ?"
            if by_msgid:
                where += " AND msgid = ?"
            if by_correlid:
                where += " AND correlid = ?"
            sql = (
                "SELECT (SELECT version FROM engine_config), (SELECT sweep_mark FROM messages WHERE id = ?), "
                f"{_COLUMNS} FROM messages WHERE {where} ORDER BY id LIMIT 1"
            )
            self._get_sql[key] = sql
        return sql


def schedule_timers(tx: Transaction, system: str, now: float) -> None:
    """The MQ monitor and the checkpoint run every 5 s while a queue manager exists."""
    from mqtool.engine.tick import schedule

    tx.conn.execute("INSERT OR IGNORE INTO engine_state (system) VALUES (?)", (system,))
    schedule(tx, system, MONITOR_TIMER, now + INTERVAL)
    schedule(tx, system, CHECKPOINT_TIMER, now + INTERVAL)


# -- streams: the commit policy ----------------------------------------------------
BATCH_MESSAGES = 1000  # non-persistent messages per commit
BATCH_BYTES = 8 * 1024 * 1024


@dataclass
class StreamResult:
    count: int = 0
    error: MQError | None = None


class _Source:
    """The items of a put stream. A source that may block (standard input) is read by a
    thread, so the stream can take what is ready without waiting while it holds the
    store's lock, and wait for more only between transactions."""

    PENDING = object()

    def __init__(self, items: Iterable[tuple[bytes, PutOptions]], blocking: bool) -> None:
        self._items = iter(items)
        self._ended = False
        self._queue: queue_module.Queue[tuple[str, object]] | None = None
        if blocking:
            self._queue = queue_module.Queue(maxsize=256)
            threading.Thread(target=self._fill, name="mqtool-put-source", daemon=True).start()

    def _fill(self) -> None:
        assert self._queue is not None
        try:
            for item in self._items:
                self._queue.put(("item", item))
            self._queue.put(("end", None))
        except BaseException as exc:  # handed to the stream, which raises it
            self._queue.put(("error", exc))

    def next(self, wait: bool) -> object:
        """The next item; None at the end; PENDING when not ready and `wait` is false."""
        if self._ended:
            return None
        if self._queue is None:
            item = next(self._items, None)
            self._ended = item is None
            return item
        try:
            kind, value = self._queue.get(block=wait)
        except queue_module.Empty:
            return self.PENDING
        if kind == "error":
            self._ended = True
            raise value  # type: ignore[misc]
        if kind == "end":
            self._ended = True
            return None
        return value


def _close_quietly(handle: QueueHandle) -> None:
    """MQCLOSE after a stream was interrupted or failed, if the queue is open, so its
    counts are written and its opens match its closes; a failure here (the store itself
    failed, say on a full disk) must not hide the error that ended the stream."""
    if not handle.is_open:
        return
    try:
        with handle.store.transaction() as tx:
            handle.close(tx)
    except Exception:
        pass


_Stream = TypeVar("_Stream", bound=Callable[..., StreamResult])


def _closes_on_failure(stream: _Stream) -> _Stream:
    """A stream that fails or is interrupted (Ctrl-C, a closed pipe, a full disk) still
    closes its queue (MQCLOSE), so the counts are written and opens match closes."""

    @functools.wraps(stream)
    def run(*args: Any, **kwargs: Any) -> StreamResult:
        try:
            return stream(*args, **kwargs)
        except BaseException:
            _close_quietly(args[0] if args else kwargs["handle"])
            raise

    return cast("_Stream", run)


@_closes_on_failure
def put_stream(
    handle: QueueHandle,
    items: Iterable[tuple[bytes, PutOptions]],
    on_commit: Callable[[list[PutResult]], None],
    between: Callable[[], None] | None = None,
    batch_messages: int = BATCH_MESSAGES,
    pace: Callable[[Transaction], bool] | None = None,
    blocking: bool = False,
) -> StreamResult:
    """Puts every item; a persistent message commits on its own, non-persistent ones in
    batches. `on_commit` hears of each message only after its commit (so an
    acknowledgement means it is stored); `between` runs between transactions (timers).
    `pace(tx)` runs after each put (it may move the clock) and says whether the batch
    must end there (a timer falls due). With `blocking` (items from standard input) the
    stream never waits for input while it holds the store's lock. Stops at the first
    refusal, which it returns; the messages before it stay put. Interrupted or failed,
    it still closes the queue (MQCLOSE), so the counts are written."""
    store = handle.store
    result = StreamResult()
    source = _Source(items, blocking)
    opened = False
    done = False
    while not done:
        item = source.next(wait=True)  # waiting for input happens outside any transaction
        committed: list[PutResult] = []
        with store.transaction() as tx:
            if not opened:
                try:
                    handle.open(tx)
                except MQError as error:
                    result.error = error
                    return result
                opened = True
            try:
                size = 0
                while True:
                    if item is None:
                        done = True
                        break
                    if item is _Source.PENDING:
                        break
                    payload, options = cast("tuple[bytes, PutOptions]", item)
                    try:
                        put = handle.put(tx, payload, options)
                    except MQError as error:
                        result.error = error
                        done = True
                        break
                    committed.append(put)
                    size += put.length
                    paced = pace(tx) if pace is not None else False
                    if put.persistent or paced or len(committed) >= batch_messages or size >= BATCH_BYTES:
                        break
                    item = source.next(wait=False)
            except BaseException:
                handle.rolled_back(tx)  # the transaction rolls back: its puts did not happen
                raise
            if done:
                handle.close(tx)
        result.count += len(committed)
        if committed:
            on_commit(committed)
        if between is not None and not done:
            between()
    return result


HOLD_SECONDS = 0.1  # a get's batch under syncpoint ends once its delivery has held the lock this long


class Undelivered(Exception):
    """Raised by a `deliver` callback that will not take a message (it stays on the
    queue, uncounted): the stream stops and raises it to its caller."""


@_closes_on_failure
def get_stream(
    handle: QueueHandle,
    deliver: Callable[[Message], None],
    count: int | None = 1,
    selector: Selector | None = None,
    browse: bool = False,
    wait: float = 0.0,
    between: Callable[[], None] | None = None,
    batch_messages: int = 64,
    batch_bytes: int = 4 * 1024 * 1024,
    *,
    syncpoint: bool = True,
    flush: Callable[[], None] | None = None,
    committed: Callable[[list[Message]], None] | None = None,
) -> StreamResult:
    """Gets (or browses) up to `count` messages (None: all) and hands each to `deliver`.

    Under syncpoint (the default) a get is a unit of work: each message is handed to
    `deliver` inside the transaction that removes it, `flush` makes the batch's delivery
    durable (flush the pipe, sync the folder), and only then does the removal commit. A
    process killed at any moment so loses no message: one delivered but not yet
    committed is delivered again by the next get (at least once; exactly once for a
    sink that recognises it, as `mqtool get --out` does). A persistent message commits
    on its own, non-persistent ones in batches (`batch_messages`, `batch_bytes`, or
    HOLD_SECONDS of delivery, so a slow reader holds the store's write lock for one
    short batch at a time; a reader that stops reading holds it until it reads again).
    `committed` hears of each batch after its commit.

    Without syncpoint (and for a browse, which removes nothing) `deliver` runs after the
    commit, so the reader never holds the lock, and a process killed between the two
    loses the batch (at most once).

    When `deliver` or `flush` fails (a closed pipe, a full disk, `Undelivered`), the
    messages not delivered are put back in their places, uncounted, what was delivered
    stays got, the queue is closed (MQCLOSE, counts written) and the error is raised.
    With `wait`, an empty queue is polled for up to that many seconds."""
    store = handle.store
    result = StreamResult()
    opened = False
    after = 0  # the row id of the last message browsed
    deadline: float | None = None
    pause = 0.01
    under_syncpoint = syncpoint and not browse
    failure: BaseException | None = None
    while count is None or result.count < count:
        batch: list[Message] = []
        with store.transaction() as tx:
            if not opened:
                try:
                    handle.open(tx, "get")
                except MQError as error:
                    result.error = error
                    return result
                opened = True
            size = 0
            started = time.monotonic()
            try:
                while count is None or result.count + len(batch) < count:
                    try:
                        message = handle.get(tx, selector, browse, after)
                    except MQError as error:
                        result.error = error
                        break
                    if message is None:
                        break
                    if under_syncpoint:
                        try:
                            deliver(message)
                        except BaseException as exc:
                            failure = exc
                            handle.restore(tx, [message])
                            break
                    batch.append(message)
                    size += message.length
                    if browse:
                        after = message.row_id
                    if (
                        (message.persistent and not browse)
                        or len(batch) >= batch_messages
                        or size >= batch_bytes
                        or (under_syncpoint and time.monotonic() - started >= HOLD_SECONDS)
                    ):
                        break
                if under_syncpoint and batch and flush is not None:
                    try:
                        flush()
                    except BaseException as exc:
                        # Not known to be delivered: all of the batch stays.
                        failure = failure or exc
                        handle.restore(tx, batch)
                        batch = []
            except BaseException:
                handle.rolled_back(tx)  # the transaction rolls back: its gets did not happen
                raise
        if under_syncpoint:
            result.count += len(batch)
        else:
            for index, message in enumerate(batch):
                try:
                    deliver(message)
                except BaseException as exc:
                    failure = exc
                    if not browse:
                        with store.transaction() as tx:
                            handle.restore(tx, batch[index:])
                    batch = batch[:index]
                    break
                result.count += 1
            if failure is None and batch and flush is not None:
                flush()
        if committed is not None and batch:
            committed(batch)
        if failure is not None:
            raise failure
        if result.error is not None:
            break
        if batch:
            deadline = None
            pause = 0.01
            if between is not None:
                between()
            continue
        if wait <= 0:
            break
        if deadline is None:
            deadline = time.monotonic() + wait
        if time.monotonic() >= deadline:
            break
        time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(pause * 2, 0.2)
        if between is not None:
            between()
    if opened:
        with store.transaction() as tx:
            handle.close(tx)
    return result
