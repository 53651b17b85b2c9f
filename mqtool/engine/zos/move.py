"""MOVE QLOCAL's engine side: every message of one local queue moved to another inside
the caller's transaction (one unit of work: a process killed part way moves nothing,
and nothing is ever on both queues).

A message keeps its identity: message and correlation ids, priority, persistence, put
time (its context), expiry (an expired message is moved, not removed, as IBM says) and
payload; it takes the target queue's next place in its priority, so the target's order
is its own messages, then the moved ones in their order. The target's page set must
hold the pages (it expands as its EXPAND says, or the move fails with 2192), each
message must fit the target's MAXMSGL (2030, 2031), and the target must not be
put-inhibited nor the source get-inhibited (2051, 2016), as for the MQGET and MQPUT
calls IBM likens the command to."""

from __future__ import annotations

import os
import signal
from typing import TYPE_CHECKING

from mqtool.engine.core.handle import QueueHandle
from mqtool.engine.core.message import check_length
from mqtool.engine.core.reasons import MQError
from mqtool.engine.zos.model import ZOS, ZosLedger
from mqtool.engine.zos.pages import pages_for
from mqtool.state import messages as runs

if TYPE_CHECKING:
    from mqtool.clock import Clock
    from mqtool.state import Store, Transaction

CRASH_VARIABLE = "MQTOOL_TEST_MOVE_CRASH"  # tests only: kill the process after this many messages moved
_CRASH_AFTER = int(os.environ.get(CRASH_VARIABLE, "0") or 0)
_COLUMNS = (
    "priority, msgid, correlid, persistent, put_time, expiry, original_length, stored_length, codec, header, payload, "
    "checksum"
)
_INSERT = (
    "INSERT INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time, expiry, "
    "original_length, stored_length, codec, header, payload, checksum, swbs) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class MoveFailed(Exception):
    """A message could not be moved: its number (from 1) and the MQ reason."""

    def __init__(self, number: int, error: MQError) -> None:
        super().__init__(f"message {number}: {error}")
        self.number = number
        self.error = error


def move_messages(store: Store, clock: Clock, tx: Transaction, system: str, source: str, target: str) -> int:
    """Moves every message of local queue `source` to local queue `target` in `tx`;
    how many. MQError when a queue cannot be used at all; MoveFailed naming the message
    that cannot be put (the caller rolls the transaction back)."""
    giving = QueueHandle(store, clock, system, source, ZOS)
    taking = QueueHandle(store, clock, system, target, ZOS)
    for handle in (giving, taking):
        ledger = handle.ledger
        assert isinstance(ledger, ZosLedger)
        ledger.internal = ledger.figures.internal = True  # the queue manager's own: no MQOPEN counted
    got = giving.open(tx, "get")
    if got.get_error:
        raise MQError(got.get_error, f"{source} cannot be got from")
    put = taking.open(tx)
    if put.put_error:
        raise MQError(put.put_error, f"{target} cannot be put to")
    ledger = taking.ledger
    assert isinstance(ledger, ZosLedger)
    low, high = runs.span(got.qkey)
    rows = tx.conn.execute(f"SELECT id, {_COLUMNS} FROM messages WHERE id > ? AND id < ? ORDER BY id", (low, high))
    head = (runs.head_id(put.qkey),)
    next_seq = int(tx.conn.execute("SELECT next_seq FROM messages WHERE id = ?", head).fetchone()[0])
    moved = 0
    for row in rows.fetchall():
        row_id, priority, *rest = row
        length = int(rest[5])
        try:
            check_length(put, length)
            tx.conn.execute("DELETE FROM messages WHERE id = ?", (row_id,))
            pages = pages_for(length)
            ledger.make_room(tx, put, pages)  # after the delete: a move within one page set frees first
        except MQError as error:
            raise MoveFailed(moved + 1, error) from None
        tx.conn.execute(
            _INSERT, (runs.row_id(put.qkey, int(priority), next_seq), system, target, priority, *rest, pages)
        )
        next_seq += 1
        moved += 1
        if moved == _CRASH_AFTER:
            os.kill(os.getpid(), signal.SIGKILL)  # tests only: a kill inside the unit of work
    now = clock.timestamp()
    if moved:
        tx.conn.execute(
            "UPDATE messages SET last_put = ?, hi_depth = max(coalesce(hi_depth, 0), depth) WHERE id = ?",
            (now, put.low),
        )
        tx.conn.execute("UPDATE messages SET last_get = ? WHERE id = ?", (now, got.low))
    giving.close(tx)
    taking.close(tx)
    return moved
