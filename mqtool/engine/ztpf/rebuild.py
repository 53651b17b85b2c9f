"""ZMQSC DBREBUILD: the queue manager's database rebuilt from what it holds. Each local
queue's directory entry (the head row of its run of messages: depth, SWBs its
in-memory messages hold, compressed messages, next sequence number) is computed again
from the queue's messages and corrected where it differs; directory entries and
messages of queues that are no longer defined are removed; every message is checked
against its checksum and the damaged ones are counted (they stay: a get refuses them
with MQRC 2195). All in the caller's transaction."""

from __future__ import annotations

from dataclasses import dataclass, field

from mqtool.engine.core.message import damage
from mqtool.state import Transaction
from mqtool.state import messages as runs

_MESSAGES = (
    "SELECT 0, 0, id, priority, msgid, correlid, persistent, put_time, expiry, original_length, stored_length, "
    "codec, swept, header, payload, swbs, checksum FROM messages WHERE id > ? AND id < ? AND system != ''"
)
_HEAD = "SELECT depth, held_swbs, compressed, next_seq, sweep_mark FROM messages WHERE id = ?"
_FIGURES = ("DEPTH", "SWBS", "COMPRESSED", "NEXT SEQUENCE")


@dataclass
class Repair:
    """A queue whose directory entry was wrong: (figure, was, is) for each figure corrected."""

    queue: str
    changes: list[tuple[str, int, int]]


@dataclass
class Rebuilt:
    queues: int = 0
    messages: int = 0
    repairs: list[Repair] = field(default_factory=list)
    orphan_queues: int = 0
    orphan_messages: int = 0
    damaged: dict[str, int] = field(default_factory=dict)


_ORPHAN_HEADS = (
    "SELECT id >> 44, queue FROM messages WHERE system = '' AND id & ? = 0 "
    "AND id >> 44 NOT IN (SELECT qkey FROM objects WHERE qkey IS NOT NULL)"
)


def rebuild(tx: Transaction, system: str, queues: list[str]) -> Rebuilt:
    """Rebuilds the directory of `system`, whose defined local queues are `queues`."""
    out = Rebuilt()
    conn = tx.conn
    defined = set(queues)
    # Head rows (a queue's directory entry) whose queue is no longer defined: the queue's
    # number is kept by its definition (objects.qkey, migration 0017).
    for qkey, queue in conn.execute(_ORPHAN_HEADS, (runs.SPAN_MASK,)).fetchall():
        if queue in defined:
            continue  # defined without its number: a damage the loop below cannot mend either
        low, high = runs.span(int(qkey))
        out.orphan_messages += conn.execute(
            "DELETE FROM messages WHERE id > ? AND id < ? AND system = ?", (low, high, system)
        ).rowcount
        if conn.execute("SELECT count(*) FROM messages WHERE id > ? AND id < ?", (low, high)).fetchone()[0] == 0:
            conn.execute("DELETE FROM messages WHERE id = ?", (low,))  # no other system's messages in its run
        conn.execute("DELETE FROM queue_stats WHERE system = ? AND queue = ?", (system, queue))
        out.orphan_queues += 1
    # Messages of the system outside every run of its queues (no directory entry at all).
    out.orphan_messages += conn.execute(
        "DELETE FROM messages WHERE system = ? AND (id >> 44) NOT IN (SELECT qkey FROM queue_marks)", (system,)
    ).rowcount
    for queue in sorted(defined):
        qkey = runs.queue_key(conn, system, queue)
        if qkey is None:
            continue  # a queue the store has no directory entry for cannot hold messages
        out.queues += 1
        head = conn.execute(_HEAD, (runs.head_id(qkey),)).fetchone()
        if head is None:
            continue
        depth, held, compressed, next_seq, mark = (int(value or 0) for value in head)
        actual = [0, 0, 0, 0]
        damaged = 0
        for row in conn.execute(_MESSAGES, runs.span(qkey)).fetchall():
            row_id, codec, swept, units = row[2], row[11], row[12], row[15]
            seq = runs.seq_of(row_id)
            actual[0] += 1
            if not swept and seq > mark and isinstance(units, int):
                actual[1] += units
            actual[2] += 1 if codec else 0
            actual[3] = max(actual[3], seq)
            if damage(row):
                damaged += 1
        out.messages += actual[0]
        wanted = [actual[0], actual[1], actual[2], max(next_seq, actual[3] + 1)]
        stored = [depth, held, compressed, next_seq]
        if wanted != stored:
            conn.execute(
                "UPDATE messages SET depth = ?, held_swbs = ?, compressed = ?, next_seq = ? WHERE id = ?",
                (*wanted, runs.head_id(qkey)),
            )
            changes = [(name, was, now) for name, was, now in zip(_FIGURES, stored, wanted, strict=True) if was != now]
            out.repairs.append(Repair(queue, changes))
        if damaged:
            out.damaged[queue] = damaged
    return out
