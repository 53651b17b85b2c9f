"""Where a queue's messages are in the store: the row ids of `messages`.

Each local queue (z/TPF QL, z/OS QLOCAL) has a number, `queue_figures.qkey`, given when
it is defined. A message's row id is made of that number, its priority and the queue's
put sequence:

    id = qkey << 44 | (9 - priority) << 40 | seq        (seq 1, 2, 3 ... per queue)

so one queue's messages are one run of the table's B-tree, already in get order
(priority, then first in first out), and the table needs no index: a get reads the
first row of the run, a put appends inside it, and each touches one page of messages
plus its queue's row of `queue_figures`. `seq` is never given twice in a queue (the
queue's `next_seq` only grows), so it is the queue's put order across priorities: the
sweeper's and the checkpoint's marks are sequence numbers. Within one priority, row id
order is put order; across priorities, compare `seq_of(id)`.

Every INSERT into `messages` must give the id (`row_id`); an id SQLite chose would
land in some other queue's run.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

KEY_SHIFT = 44
PRIORITY_SHIFT = 40
SEQ_MASK = (1 << PRIORITY_SHIFT) - 1
SPAN_MASK = (1 << KEY_SHIFT) - 1  # the bits of an id below its queue's number (0 in a head row)
MAX_SEQ = SEQ_MASK
PRIORITIES = range(9, -1, -1)  # get order


def row_id(qkey: int, priority: int, seq: int) -> int:
    return qkey << KEY_SHIFT | (9 - priority) << PRIORITY_SHIFT | seq


def head_id(qkey: int) -> int:
    """The row id of the queue's head row (state/migrations/0003_queue_runs.sql)."""
    return qkey << KEY_SHIFT


def seq_of(row_id: int) -> int:
    return row_id & SEQ_MASK


def heads(qkeys: Iterable[int]) -> str:
    """The head rows' ids of queues `qkeys`, as an SQL list (`NULL` for none)."""
    return ",".join(str(qkey << KEY_SHIFT) for qkey in qkeys) or "NULL"


def span(qkey: int) -> tuple[int, int]:
    """(low, high): a queue's messages have low < id < high."""
    return qkey << KEY_SHIFT, (qkey + 1) << KEY_SHIFT


def bands(qkey: int, after_seq: int = 0) -> list[tuple[int, int]]:
    """(low, high) per priority, highest first: the queue's messages of that priority
    put after sequence number `after_seq` have low < id < high."""
    base = qkey << KEY_SHIFT
    return [
        (base | (9 - priority) << PRIORITY_SHIFT | after_seq, base | (10 - priority) << PRIORITY_SHIFT)
        for priority in PRIORITIES
    ]


def queue_key(conn: sqlite3.Connection, system: str, queue: str) -> int | None:
    row = conn.execute("SELECT qkey FROM queue_figures WHERE system = ? AND queue = ?", (system, queue)).fetchone()
    return None if row is None else int(row[0])


def depth(conn: sqlite3.Connection, system: str, queue: str) -> int:
    """Messages on a local queue (0 for a name that is not one)."""
    row = conn.execute("SELECT depth FROM queue_figures WHERE system = ? AND queue = ?", (system, queue)).fetchone()
    return 0 if row is None else int(row[0])


def clear(conn: sqlite3.Connection, system: str, queue: str) -> int:
    """Deletes every message of a local queue; how many there were."""
    qkey = queue_key(conn, system, queue)
    if qkey is None:
        return 0
    return conn.execute("DELETE FROM messages WHERE id > ? AND id < ?", span(qkey)).rowcount


def oldest_put_time(conn: sqlite3.Connection, system: str, queue: str) -> float | None:
    qkey = queue_key(conn, system, queue)
    if qkey is None:
        return None
    row = conn.execute("SELECT min(put_time) FROM messages WHERE id > ? AND id < ?", span(qkey)).fetchone()
    return None if row[0] is None else float(row[0])


def last_put_get(conn: sqlite3.Connection, system: str, queue: str) -> tuple[float | None, float | None]:
    """When a local queue was last put to and got from (destructively), from its head
    row; None for never."""
    qkey = queue_key(conn, system, queue)
    if qkey is None:
        return None, None
    row = conn.execute("SELECT last_put, last_get FROM messages WHERE id = ?", (head_id(qkey),)).fetchone()
    if row is None:
        return None, None
    return (None if row[0] is None else float(row[0]), None if row[1] is None else float(row[1]))


def next_id(conn: sqlite3.Connection, system: str, queue: str, priority: int) -> int:
    """The id the next message put on a local queue gets (for writers outside the engine,
    such as tests and future channel receivers, inside their write transaction)."""
    row = conn.execute(
        "SELECT qkey, next_seq FROM queue_figures WHERE system = ? AND queue = ?", (system, queue)
    ).fetchone()
    if row is None:
        raise LookupError(f"{queue} is not a local queue of {system}")
    return row_id(int(row[0]), priority, int(row[1]))
