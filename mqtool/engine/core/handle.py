"""An open queue (`QueueHandle`) of any platform: MQOPEN, MQPUT, MQGET (and browse),
MQCLOSE inside the caller's transactions, with the checks every queue manager makes
(reason codes 2051, 2016, 2030, 2031, 2053, 2033, 2085 ...), priority and FIFO order,
msgid/correlid selection, expiry, and persistence. What a message costs to store and
which figures move are the platform's: the handle calls its storage model's `Ledger`
at fixed points (core/model.py).

Callers own the transactions (one per persistent message, batches for non-persistent
ones); `streams.put_stream` and `streams.get_stream` implement that policy for the CLI
and directives. A handle reads the definitions it needs once and again only when
`engine_config.version` says a definition, a queue manager's state or a system changed.
A message's row id places it in its queue's run of the messages table in get order
(state/messages.py), so a put is one INSERT and a get one SELECT and one DELETE;
triggers keep the queue's head row (depth, storage units held, compressed messages,
next sequence number) exact for every process.

For a channel engine: a message on a transmission queue carries its transmission
header as JSON in `messages.header` (`{"rname": ..., "rqmname": ..., "qmgr": ...}`); a
message is on file (swept, z/TPF) when `messages.swept` is 1 or its sequence number
(`state.messages.seq_of`) is at most its queue's `sweep_mark`; a message moves to
another queue by a DELETE and an INSERT with an id of that queue
(`state.messages.next_id`); `message.inflate()` turns a stored row back into the
original bytes.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from mqtool.clock import Clock
from mqtool.engine.core import dynamic, triggers
from mqtool.engine.core.message import ANY as _ANY
from mqtool.engine.core.message import (
    Message,
    PutOptions,
    PutResult,
    Resolved,
    Selector,
    check_length,
    crc32,
    damage,
    id_text,
    inflate,
)
from mqtool.engine.core.model import Ledger, StorageModel
from mqtool.engine.core.reasons import (
    OPTION_NOT_VALID_FOR_TYPE,
    Q_FULL,
    Q_MGR_NOT_AVAILABLE,
    UNEXPECTED_ERROR,
    UNKNOWN_OBJECT_NAME,
    MQError,
)
from mqtool.engine.core.resolve import resolve, why_not
from mqtool.state import ObjectRecord, Store, Transaction
from mqtool.state import messages as runs

_INSERT = (
    "INSERT INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time, expiry, "
    "original_length, stored_length, codec, header, payload, swbs, checksum) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
# The definitions' version and the local queue's live figures from its head row (and the
# ledger's).
_SYNC = "SELECT c.version, f.depth, f.next_seq{} FROM engine_config c LEFT JOIN messages f ON f.id = :qkey << 44"
_MAX_COUNT = 0xFFFFFFFF
# Python's sqlite3 binds int, float, str and bytearray parameters directly, but passes a
# bytes parameter through its adapter registry first (a lookup that raises and clears an
# AttributeError): about 1 us per bytes value, three per put. A bytearray copy of a small
# blob costs less than that; a large one is bound as it is (its copy would cost more).
_COPY_BELOW = 16384
_MAX_SEQ, _SEQ_MASK, _PRIORITY_SHIFT = runs.MAX_SEQ, runs.SEQ_MASK, runs.PRIORITY_SHIFT
_VERSION = "SELECT version FROM engine_config"
_COLUMNS = (
    "id, priority, msgid, correlid, persistent, put_time, expiry, original_length, stored_length, codec, swept, "
    "header, payload, swbs, checksum"
)
# A get reads a message in 11 columns, not 17: Python's sqlite3 builds a description and
# converts a value for every result column (about 2,000 instructions each), while SQL
# arithmetic costs a few. SQLite also checks the row as `message.damage` would (all but
# its checksum and a header other than "{}", which Python checks): `flags` is -1 for a
# row that fails, which the get then reads whole and lets `damage` name what is wrong.
# flags: priority | persistent << 4 | on file << 5 (swept, or at most the sweep mark; in
# SQL, << and | bind alike, hence the parentheses);
# ids: msgid then correlid (24 bytes each); lengths: original << 32 | stored;
# units: units << 33 | checksum (1 << 32 for none).
_SOUND = (
    # Comparisons stand in for typeof(), which would cost a function call and a string:
    # numbers sort before text ('' is the least text) and text before blobs (x'' the least
    # blob); `x = x & mask` holds only for an integer (a REAL has its fraction cut off).
    "payload >= x'' AND stored_length = length(payload) AND original_length BETWEEN 0 AND 4294967295 "
    "AND original_length = original_length & 4294967295 AND codec >= '' AND codec < x'' "
    "AND (codec != '' OR original_length = stored_length) AND msgid >= x'' AND length(msgid) = 24 "
    "AND correlid >= x'' AND length(correlid) = 24 AND priority BETWEEN 0 AND 9 AND priority = priority & 15 "
    "AND persistent BETWEEN 0 AND 1 AND persistent = persistent & 1 AND put_time < '' "
    "AND (expiry IS NULL OR expiry < '') AND swbs BETWEEN 0 AND 1073741823 AND swbs = swbs & 1073741823 "
    "AND header >= '' AND header < x'' AND swept BETWEEN 0 AND 1 AND swept = swept & 1 "
    "AND (checksum IS NULL OR checksum BETWEEN 0 AND 4294967295 AND checksum = checksum & 4294967295)"
)
_PACKED = (
    f"id, CASE WHEN {_SOUND} THEN priority | (persistent << 4) | ((swept OR (id & {runs.SEQ_MASK}) "
    "<= coalesce((SELECT sweep_mark FROM messages WHERE id = ?), -1)) << 5) ELSE -1 END AS f, "
    "CAST(msgid || correlid AS BLOB) AS i, put_time, expiry, (original_length << 32) | stored_length AS l, codec, "
    "header, payload, (swbs << 33) | coalesce(checksum, 4294967296) AS u"
)
_NO_CRC = 1 << 32
_WHOLE = (
    "SELECT (SELECT version FROM engine_config), (SELECT sweep_mark FROM messages WHERE id = ?), "
    f"{_COLUMNS} FROM messages WHERE id = ?"
)
# A message the caller holds, without its payload: the sweep mark, then what a get counts.
_REMOVED = (
    "SELECT (SELECT sweep_mark FROM messages WHERE id = ?), priority, msgid, correlid, persistent, put_time, expiry, "
    "original_length, stored_length, swept, header, swbs FROM messages WHERE id = ?"
)
_RESTORE = (
    "INSERT INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time, expiry, "
    "original_length, stored_length, codec, swept, header, payload, swbs, checksum) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


def _json_object(header: str) -> dict[str, str] | None:
    """A header other than "{}" as the JSON object it is; None when it is not one (as
    `message.damage` asks)."""
    try:
        fields = json.loads(header)
    except ValueError:
        return None
    return fields if type(fields) is dict else None


def msgid_prefix(model: StorageModel, qmgr: str, handle: int) -> bytes:
    """The first 20 bytes of the message ids a queue handle makes: the platform's 4-byte
    mark (`TPF `, `CSQ `), the queue manager name (12 bytes) and the handle's number in
    the store (4 bytes)."""
    name = qmgr.encode("ascii", "replace")[:12].ljust(12, b" ")
    return model.msgid_prefix + name + (handle & 0xFFFFFFFF).to_bytes(4, "big")


class QueueHandle:
    """An open queue (MQOPEN) of one system, for putting or getting."""

    def __init__(self, store: Store, clock: Clock, system: str, queue: str, model: StorageModel) -> None:
        self.store = store
        self.clock = clock
        self.system_name = system
        self.queue_name = queue
        self.model = model
        self.resolved: Resolved | None = None
        self._version = -1
        self._tx: Transaction | None = None
        self._depth = 0
        self._next_seq = 1
        self._prefix: bytes | None = None
        self.number = 0  # the handle's number in the store (engine_config.handles), once opened
        self.syncpoint = False  # puts and gets are in a unit of work (its limits apply)
        # Each put is an MQPUT1 (the queue opened, the message put and the queue closed in
        # one call: the REST API's, `put --put1`); statistics count MQPUT1s apart.
        self.put1 = False
        self.is_open = False  # between open() and close()
        self.purpose = "put"  # what it was opened for: put, or get (browse too)
        # MQOPEN of a model queue: the DynamicQName (None: a model queue is not opened, as
        # by the REST messaging API), and the dynamic queue the open made.
        self.dynamic_name: str | None = None
        self.created: ObjectRecord | None = None
        self._dropped = False  # the temporary dynamic queue it made is deleted
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
        self._get_sql: dict[tuple[bool, bool], str] = {}
        self._sync_query: tuple[str, dict[str, Any]] = ("", {})
        self.ledger: Ledger = model.ledger(self)

    @property
    def depth(self) -> int:
        """The local queue's depth as this handle last saw it."""
        return self._depth

    @property
    def cursor(self) -> sqlite3.Cursor:
        """The handle's cursor, for its ledger's statements on the one-message paths."""
        return self._cursor

    # -- open / close -------------------------------------------------------------
    def open(self, tx: Transaction, purpose: str = "put") -> Resolved:
        """MQOPEN for `put` or `get` (browse too): resolves the name (MQError when it
        cannot be). A remote queue cannot be opened to get from. With `dynamic_name` set, a
        model queue's name opens a new dynamic queue made from it (core/dynamic.py)."""
        if self.dynamic_name is not None and self.created is None and self.model.model_type:
            template = tx.get_object(self.system_name, self.model.model_type, self.queue_name)
            if template is not None:
                self._number(tx, None)
                self.created = dynamic.create(
                    tx, self.model, self.system_name, template, self.dynamic_name, self.clock, self.number
                )
                self.queue_name = self.created.name
        resolved = self._resolve(tx)
        if resolved.put_error == Q_MGR_NOT_AVAILABLE:
            raise MQError(Q_MGR_NOT_AVAILABLE, f"queue manager {resolved.qmgr.name} is stopped")
        if purpose != "put" and resolved.get_error == OPTION_NOT_VALID_FOR_TYPE:
            raise MQError(OPTION_NOT_VALID_FOR_TYPE, why_not(self.model, resolved, self.queue_name, "get"))
        self._number(tx, resolved)
        self.ledger.opened(tx, resolved, purpose)
        self.is_open = True
        self.purpose = purpose
        # A trigger monitor opening its initiation queue: the queues it serves that meet
        # their conditions trigger now.
        if purpose != "put" and not self.ledger.internal and triggers.initq_opened(tx, self, resolved.local_name):
            self._figures = False
        return resolved

    def _number(self, tx: Transaction, resolved: Resolved | None) -> None:
        """Gives the handle its number in the store (the middle of its message ids)."""
        tx.conn.execute("UPDATE engine_config SET handles = handles + 1")
        self.number = number = int(tx.conn.execute("SELECT handles FROM engine_config").fetchone()[0])
        if resolved is not None:
            self._prefix = msgid_prefix(self.model, resolved.qmgr.name, number)
            self._count = 0

    def close(self, tx: Transaction) -> None:
        """MQCLOSE (the ledger writes what it has not written yet)."""
        self.ledger.closed(tx, self.resolved)
        self.is_open = False
        resolved = self.resolved
        if self.purpose != "put" and resolved is not None and resolved.trigger is not None:
            # The last input handle of a FIRST or DEPTH queue closing with messages left.
            triggers.look_again(tx, self, resolved.local_name)
        if self.created is not None and dynamic.temporary(self.created) and not self._dropped:
            # A temporary dynamic queue goes with the handle that made it.
            dynamic.delete(tx, self.model, self.system_name, self.created.name)
            self._dropped = True

    # -- what triggering uses (core/triggers.py) ------------------------------------
    def sibling(self, queue: str) -> QueueHandle:
        """A new handle (not yet opened) on another queue of the same system."""
        return QueueHandle(self.store, self.clock, self.system_name, queue, self.model)

    def resolve_queue(self, tx: Transaction, queue: str) -> Resolved:
        """The resolution of a queue name of the system, in `tx`."""
        return resolve(tx, self.system_name, queue, self.model)

    def rearm(self, tx: Transaction) -> bool:
        """An operator changed this queue's trigger attributes or GET: it triggers now
        when its messages meet the conditions (the handle need not be open)."""
        return triggers.look_again(tx, self, self.queue_name)

    def _resolve(self, tx: Transaction) -> Resolved:
        self._version = int(tx.conn.execute(_VERSION).fetchone()[0])
        self.resolved = resolved = resolve(tx, self.system_name, self.queue_name, self.model)
        columns, params = self.ledger.sync_columns(resolved)
        self._sync_query = (_SYNC.format(columns), {"qkey": resolved.qkey, **params})
        return resolved

    def _sync(self, tx: Transaction) -> Resolved:
        """Once per transaction (and after another handle wrote in it): the definitions
        (if changed) and the queue's live figures. When nothing was written since this
        handle's last statement, neither on its own connection (total_changes) nor by
        another one (data_version), what it knows is still true and costs one PRAGMA to
        confirm."""
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
            if resolved is None:
                resolved = self._resolve(tx)
            row = cursor.execute(*self._sync_query).fetchone()
            if row[0] != self._version or row[1] is None:
                resolved = self._resolve(tx)
                continue
            self._depth, self._next_seq = row[1], row[2]
            if len(row) > 3:
                self.ledger.synced(row[3:])
            self._data_version = cursor.execute("PRAGMA data_version").fetchone()[0]
            self._figures = True
            self._tx = tx
            return resolved
        raise MQError(UNKNOWN_OBJECT_NAME, f"queue {self.queue_name} was deleted")

    # -- put ----------------------------------------------------------------------
    def put(self, tx: Transaction, payload: bytes, options: PutOptions) -> PutResult:
        """MQPUT in the caller's transaction; MQError when the queue manager refuses (the
        ledger hears of it)."""
        try:
            return self._put(tx, payload, options)
        except MQError as error:
            self.ledger.refused(tx, self.resolved, "put", error.reason)
            raise

    def _put(self, tx: Transaction, payload: bytes, options: PutOptions) -> PutResult:
        resolved = self.resolved
        changes = tx.conn.total_changes
        if tx is not self._tx or resolved is None or changes != self._changes:
            resolved = self._sync(tx)
        if resolved.put_error:
            raise MQError(resolved.put_error, why_not(self.model, resolved, self.queue_name, "put"))
        length = len(payload)
        if length > resolved.maxmsgl or length > resolved.qmgr_maxmsgl:
            check_length(resolved, length)
        if resolved.maxdepth is not None and self._depth >= resolved.maxdepth:
            raise MQError(Q_FULL, f"{resolved.local_name} holds MAXDEPTH {resolved.maxdepth} messages")
        seq = self._next_seq
        if seq > _MAX_SEQ:
            raise MQError(Q_FULL, f"{resolved.local_name} has used every message sequence number")
        ledger = self.ledger
        persistent = resolved.default_persistent if options.persistent is None else options.persistent
        if persistent and resolved.temporary:
            raise MQError(dynamic.PERSISTENT_NOT_ALLOWED, f"{resolved.local_name} is a temporary dynamic queue")
        stored, codec, units = ledger.pack(tx, resolved, payload, persistent)
        stored_length = len(stored)
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
        now = self.clock.timestamp()
        expiry = options.expiry
        cap = resolved.capexpry
        if cap is not None and (expiry is None or expiry > cap):
            expiry = cap
        expires = None if expiry is None else now + expiry
        priority = resolved.default_priority if options.priority is None else options.priority
        row_id = resolved.low | (9 - priority) << _PRIORITY_SHIFT | seq  # runs.row_id, inlined
        correlid = options.correlid
        result = PutResult(row_id, msgid, length, stored_length, codec, persistent, units, expires, priority, correlid)
        cursor = self._cursor
        cursor.execute(
            _INSERT,
            (row_id, self.system_name, resolved.local_name, priority, bytearray(msgid), bytearray(correlid),
             1 if persistent else 0, now, expires, length, stored_length, codec,
             resolved.header if options.header is None else options.header,
             bytearray(stored) if stored_length < _COPY_BELOW else stored, units, crc32(stored)),
        )  # fmt: skip
        self._next_seq = seq + 1
        self._depth += 1
        try:
            ledger.put_done(tx, resolved, result, now)
        except MQError:
            # The platform refused after the message was stored (a copy that had to
            # succeed did not): the message is taken back; the transaction goes on.
            cursor.execute("DELETE FROM messages WHERE id = ?", (row_id,))
            self._depth -= 1
            self._figures = False
            raise
        if resolved.trigger is not None and triggers.after_put(tx, self, resolved, priority, self._depth - 1):
            self._figures = False  # DEPTH turned TRIGGER off: the definitions changed
        self._changes = tx.conn.total_changes
        return result

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
        ledger = self.ledger
        while True:
            if resolved.get_error:
                # A refusal resolved earlier may be out of date (GET enabled again, the
                # queue manager's status changed): a definitions version that moved
                # resolves the queue again before anything is refused.
                if cursor.execute(_VERSION).fetchone()[0] != self._version:
                    resolved = self._resolve(tx)
                    continue
                ledger.refused(tx, resolved, "browse" if browse else "get", resolved.get_error)
                raise MQError(resolved.get_error, why_not(self.model, resolved, self.queue_name, "get"))
            plain = self._plain_select.get(resolved.low) if selector is None and not after else None
            sql, params = plain if plain is not None else self._select(resolved, selector, after)
            row = cursor.execute(sql, params).fetchone()
            version = row[0] if row is not None else cursor.execute(_VERSION).fetchone()[0]
            if version != self._version:
                resolved = self._resolve(tx)
                continue
            if row is None:
                ledger.missed(tx, resolved, browse)
                return None
            _, row_id, flags, ids, put_time, expiry, lengths, codec, header, stored, units = row
            crc: int | None = units & 0x1FFFFFFFF
            if crc == _NO_CRC:
                crc = None
            fields = {} if header == "{}" else _json_object(header)
            if flags < 0 or (crc is not None and crc32(stored) != crc) or fields is None:
                # A damaged row is refused (2195) and stays where it is, like one that
                # does not inflate; its checksum finds a changed byte. A row SQLite
                # doubted that `damage` finds sound is delivered as it is.
                (_, mark, row_id, priority, msgid, correlid, persistent, put_time, expiry, length, stored_length,
                 codec, swept, header, stored, units, crc) = whole = cursor.execute(
                    _WHOLE, (resolved.low, row_id)).fetchone()  # fmt: skip
                reason = damage(whole)
                if reason:
                    raise MQError(
                        UNEXPECTED_ERROR, f"message {id_text(msgid)} on {resolved.local_name} is damaged: {reason}"
                    )
                # On file: swept past the queue's sweep mark, or marked alone.
                swept = bool(swept or (mark is not None and row_id & _SEQ_MASK <= mark))
                fields = json.loads(header) if header != "{}" else {}
            else:
                priority, persistent, swept = flags & 15, flags >> 4 & 1, flags > 31
                msgid, correlid, length, stored_length, units = (
                    ids[:24],
                    ids[24:],
                    lengths >> 32,
                    lengths & 0xFFFFFFFF,
                    units >> 33,
                )
            if expiry is not None and expiry <= self.clock.timestamp():
                cursor.execute("DELETE FROM messages WHERE id = ?", (row_id,))
                self._depth -= 1
                ledger.expired(tx, resolved, units, swept)
                continue
            payload = inflate(codec, stored, length, msgid) if codec else stored
            if not browse:
                cursor.execute("DELETE FROM messages WHERE id = ?", (row_id,))
                self._depth -= 1
            message = Message(
                row_id, msgid, correlid, priority, bool(persistent), put_time, expiry, length, stored_length, codec,
                swept, fields, payload, "", resolved.local_name, stored, header,
                units, crc,
            )  # fmt: skip
            ledger.got(tx, resolved, message, browse)
            self._changes = tx.conn.total_changes
            return message

    def remove(self, tx: Transaction, row_id: int) -> bool:
        """A destructive get of the message `row_id`, whose data the caller read before (a
        channel removing a batch its partner has committed): the queue's figures and its
        platform's statistics move as for any get of the message as stored, but its payload
        is not read (nor checked) again. False when the message is no longer there."""
        resolved = self.resolved if self.resolved is not None else self._resolve(tx)
        if not resolved.low < row_id < resolved.high:
            return False
        cursor = self._cursor
        row = cursor.execute(_REMOVED, (resolved.low, row_id)).fetchone()
        if row is None:
            return False
        mark, priority, msgid, correlid, persistent, put_time, expiry, length, stored_length, swept, header, units = row
        cursor.execute("DELETE FROM messages WHERE id = ?", (row_id,))
        self._depth -= 1
        message = Message(
            row_id, msgid, correlid, priority, bool(persistent), put_time, expiry, length, stored_length, "",
            bool(swept or (mark is not None and row_id & _SEQ_MASK <= mark)), {}, b"", "", resolved.local_name,
            b"", header, units,
        )  # fmt: skip
        self.ledger.got(tx, resolved, message, False)
        self._changes = tx.conn.total_changes
        return True

    def rolled_back(self, tx: Transaction) -> None:
        """Transaction `tx` rolled back: what the handle did in it did not happen."""
        self._figures = False
        self.ledger.rolled_back(tx)

    def restore(self, tx: Transaction, messages: list[Message]) -> None:
        """Puts got messages back where they were (same row, so the same place in the
        queue) when they could not be handed on; their gets are not counted."""
        self._figures = False
        for message in messages:
            tx.conn.execute(
                _RESTORE,
                (message.row_id, self.system_name, message.queue, message.priority, message.msgid,
                 message.correlid, int(message.persistent), message.put_time, message.expiry, message.length,
                 message.stored, message.codec, int(message.swept), message.header_text, message.stored_payload,
                 message.swbs, message.checksum),
            )  # fmt: skip
        self.ledger.restored(tx, messages)

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
                f"SELECT (SELECT version FROM engine_config) AS v, {_PACKED} "
                f"FROM messages WHERE {where} ORDER BY id LIMIT 1"
            )
            self._get_sql[key] = sql
        return sql
