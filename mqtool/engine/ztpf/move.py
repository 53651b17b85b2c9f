"""ZMQSC MOVEMSGS: the messages of a normal local memory queue of a deactivated
processor move to the same queue on the processor where the command is entered, all in
the caller's transaction (one unit of work: a process killed during the move leaves
every message where it was).

A processor of the loosely coupled complex is a z/TPF system of mqtool's complex; the
deactivated one's queue manager is stopped, so its messages are read as its checkpoint
holds them (the rows of its queue), not through an MQOPEN that a stopped queue manager
would refuse. Each message is put on this processor's queue through a queue handle, so
the queue's limits, compression, SWBs, statistics and trigger apply as for any put; it
keeps its message and correlation ids, priority, persistence, put time and expiry.
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from typing import Any

from mqtool.clock import Clock
from mqtool.engine.core.handle import QueueHandle
from mqtool.engine.core.message import PutOptions, damage, id_text, inflate
from mqtool.engine.core.reasons import (
    PUT_INHIBITED,
    Q_FULL,
    Q_MGR_NOT_AVAILABLE,
    UNEXPECTED_ERROR,
    UNKNOWN_OBJECT_NAME,
    MQError,
    describe,
)
from mqtool.engine.ztpf.model import MODEL
from mqtool.state import Store, Transaction
from mqtool.state import messages as runs

CRASH_VARIABLE = "MQTOOL_TEST_MOVE_CRASH"  # tests only: kill the process after this many messages moved
_CRASH_AFTER = int(os.environ.get(CRASH_VARIABLE, "0") or 0)

_ROWS = (
    "SELECT 0, 0, id, priority, msgid, correlid, persistent, put_time, expiry, original_length, stored_length, "
    "codec, swept, header, payload, swbs, checksum FROM messages WHERE id > ? AND id < ? ORDER BY id LIMIT 256"
)
_LATER = "SELECT count(*) FROM messages WHERE id > ? AND id < ?"
# Reasons after which no later message can be put either: the move stops there.
_QUEUE_WIDE = (Q_FULL, PUT_INHIBITED, Q_MGR_NOT_AVAILABLE, UNKNOWN_OBJECT_NAME)


class NotMoved(Exception):
    """A move without FORCE met a message that cannot move: nothing may move."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Moved:
    """What a move did: messages moved, messages left on the source queue and why the
    first of them could not move ("" when none was left)."""

    moved: int = 0
    left: int = 0
    reason: str = ""


def move_messages(
    store: Store, clock: Clock, tx: Transaction, source: str, target: str, queue: str, force: bool
) -> Moved:
    """Moves every message of local queue `queue` of system `source` to the queue of
    the same name of system `target`, in `tx`, in get order. Without `force` the first
    message that cannot move (MQRC of the put, or damage) raises NotMoved and the caller
    rolls the transaction back; with `force` it stays where it is and the move goes on
    (or stops, when no later message could be put either)."""
    qkey = runs.queue_key(tx.conn, source, queue)
    outcome = Moved()
    if qkey is None:
        return outcome
    low, high = runs.span(qkey)
    handle = QueueHandle(store, clock, target, queue, MODEL)
    try:
        handle.open(tx, "put")
    except MQError as error:
        raise NotMoved(f"Q-{queue} {describe(error.reason)}: {error.detail.upper()}") from error
    now = clock.timestamp()
    after = low
    try:
        while True:
            # A chunk at a time (in get order), so a deep queue is never all in memory.
            rows = tx.conn.execute(_ROWS, (after, high)).fetchall()
            if not rows:
                break
            for row in rows:
                after = row[2]
                if not _move_one(tx, handle, row, now, force, outcome):
                    # Queue-wide: nothing after it could be put either.
                    outcome.left += tx.conn.execute(_LATER, (after, high)).fetchone()[0]
                    return outcome
    finally:
        handle.close(tx)
    return outcome


def _move_one(
    tx: Transaction, handle: QueueHandle, row: tuple[Any, ...], now: float, force: bool, outcome: Moved
) -> bool:
    """Moves one message row; False when the move must stop (FORCE and a reason that
    holds for every later message too)."""
    (_, _, row_id, priority, msgid, correlid, persistent, put_time, expiry, length, _, codec, _, _, stored, _,
     _) = row  # fmt: skip
    problem = damage(row)
    try:
        if problem:
            raise MQError(UNEXPECTED_ERROR, f"message {id_text(msgid)} is damaged: {problem}")
        payload = inflate(codec, stored, length, msgid) if codec else stored
        options = PutOptions(
            persistent=bool(persistent),
            priority=priority,
            msgid=msgid,
            correlid=correlid,
            expiry=None if expiry is None else max(0.0, float(expiry) - now),
        )
        result = handle.put(tx, payload, options)
    except MQError as error:
        if not force:
            raise NotMoved(_why(error, msgid)) from error
        outcome.left += 1
        if not outcome.reason:
            outcome.reason = _why(error, msgid)
        return error.reason not in _QUEUE_WIDE
    # The message keeps the time it was put on the deactivated processor.
    tx.conn.execute("UPDATE messages SET put_time = ? WHERE id = ?", (put_time, result.row_id))
    tx.conn.execute("DELETE FROM messages WHERE id = ?", (row_id,))
    outcome.moved += 1
    if outcome.moved == _CRASH_AFTER:
        os.kill(os.getpid(), signal.SIGKILL)
    return True


def _why(error: MQError, msgid: object) -> str:
    """Why a message could not move, as the console says it."""
    return f"MESSAGE {id_text(msgid)} {describe(error.reason)}: {error.detail.upper()}"
