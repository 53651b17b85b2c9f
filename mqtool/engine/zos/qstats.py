"""A z/OS local queue's performance data, as RESET QSTATS reports and resets it:
RESETINT (seconds since the last reset), HIQDEPTH (the highest depth since), MSGSIN
(messages put since) and MSGSOUT (messages removed by destructive gets since).

Nothing is counted per message for them: the queue's head row already carries its put
sequence (`next_seq`) and depth, and the z/OS engine raises its `hi_depth` in the
statement each put makes on the head row anyway. A reset stores the baseline in
`zos_qstats` (the time, the put sequence and the depth then; a queue never reset has
no row there and counts from its definition); messages that leave a
queue without a get (CLEAR QLOCAL, the expiry scan, a get passing over an expired
message) are counted there so that MSGSOUT leaves them out. A queue manager restart
resets every queue, as on z/OS. The counts are of committed work: mqtool's units of
work end with each command, so none is in flight when RESET QSTATS runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mqtool.state import Transaction

CAP = 999_999_999  # z/OS returns larger counts as 999999999 (IBM)

# A queue never reset has no row in zos_qstats (none is written when it is defined,
# state/migrations/0017): its baseline is its definition (reset then, nothing put, empty).
_FIGURES = (
    "SELECT coalesce(s.reset_time, o.created), coalesce(s.seq_base, 0), coalesce(s.depth_base, 0), "
    "coalesce(s.removed, 0), h.next_seq, h.depth, h.hi_depth "
    "FROM objects o JOIN messages h ON h.id = o.qkey << 44 "
    "LEFT JOIN zos_qstats s ON s.system = o.system AND s.queue = o.name "
    "WHERE o.system = ? AND o.type = 'QLOCAL' AND o.name = ?"
)


@dataclass(frozen=True)
class QueueStats:
    """One queue's performance data since its last reset."""

    queue: str
    resetint: int
    hiqdepth: int
    msgsin: int
    msgsout: int


def figures(tx: Transaction, system: str, queue: str, now: float) -> QueueStats | None:
    """The performance data of a local queue (None when it has no head row: not a
    local queue)."""
    row = tx.conn.execute(_FIGURES, (system, queue)).fetchone()
    if row is None:
        return None
    reset_time, seq_base, depth_base, removed, next_seq, depth, hi_depth = row
    msgsin = max(0, int(next_seq) - 1 - int(seq_base))
    msgsout = max(0, msgsin - (int(depth) - int(depth_base)) - int(removed))
    high = max(int(depth), int(hi_depth) if hi_depth is not None else int(depth_base))
    return QueueStats(
        queue=queue,
        resetint=max(0, int(now - float(reset_time))),
        hiqdepth=min(CAP, high),
        msgsin=min(CAP, msgsin),
        msgsout=min(CAP, msgsout),
    )


def reset(tx: Transaction, system: str, queue: str, now: float) -> None:
    """Starts a queue's performance data again from now: the baseline is the put
    sequence and depth now; the highest depth is the depth now."""
    row = tx.conn.execute(
        "SELECT qkey, next_seq, depth FROM queue_figures WHERE system = ? AND queue = ?", (system, queue)
    ).fetchone()
    if row is None:
        return
    qkey, next_seq, depth = (int(value) for value in row)
    tx.conn.execute(
        "INSERT INTO zos_qstats (system, queue, reset_time, seq_base, depth_base, removed) VALUES (?, ?, ?, ?, ?, 0) "
        "ON CONFLICT(system, queue) DO UPDATE SET reset_time = excluded.reset_time, seq_base = excluded.seq_base, "
        "depth_base = excluded.depth_base, removed = 0",
        (system, queue, now, next_seq - 1, depth),
    )
    tx.conn.execute("UPDATE messages SET hi_depth = ? WHERE id = ?", (depth, qkey << 44))


def restart(tx: Transaction, system: str, now: float) -> None:
    """START QMGR: every local queue's performance data starts again."""
    queues = [row[0] for row in tx.conn.execute("SELECT queue FROM queue_marks WHERE system = ?", (system,))]
    for queue in queues:
        reset(tx, system, queue, now)


def removed(tx: Transaction, system: str, queue: str, count: int) -> None:
    """`count` messages left the queue without a get (CLEAR QLOCAL, expiry): they are
    not MSGSOUT."""
    if count:
        tx.conn.execute(
            "INSERT INTO zos_qstats (system, queue, reset_time, seq_base, depth_base, removed) "
            "SELECT system, name, created, 0, 0, ? FROM objects WHERE system = ? AND type = 'QLOCAL' AND name = ? "
            "ON CONFLICT(system, queue) DO UPDATE SET removed = removed + excluded.removed",
            (count, system, queue),
        )
