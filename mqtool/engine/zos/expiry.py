"""The z/OS expiry task: `ALTER QMGR EXPRYINT(n)` scans every local queue of the queue
manager every n seconds of clock time and removes the messages whose expiry has passed
(spec zos-mq.md section 5). Run by tick; a get removes the expired messages it passes
over as well, whether the task runs or not."""

from __future__ import annotations

from mqtool.engine.timers import TickContext, timer
from mqtool.engine.zos.qstats import removed as qstats_removed
from mqtool.engine.zos.stats import count_expired
from mqtool.state import SystemRecord, Transaction
from mqtool.state import messages as runs

EXPIRY_TIMER = "zos.expiry"


def remove_expired(tx: Transaction, system: str, now: float, queues: list[str] | None = None) -> dict[str, int]:
    """Removes every expired message of a system's local queues (or of those named);
    how many per queue."""
    removed: dict[str, int] = {}
    for queue, qkey in tx.conn.execute(
        "SELECT queue, qkey FROM queue_marks WHERE system = ? ORDER BY queue", (system,)
    ).fetchall():
        if queues is not None and queue not in queues:
            continue
        low, high = runs.span(int(qkey))
        count = tx.conn.execute(
            "DELETE FROM messages WHERE id > ? AND id < ? AND expiry IS NOT NULL AND expiry <= ?", (low, high, now)
        ).rowcount
        if count:
            removed[str(queue)] = count
            qstats_removed(tx, system, str(queue), count)
    return removed


@timer(EXPIRY_TIMER)
def run_expiry(context: TickContext, tx: Transaction, system: SystemRecord, due: float) -> float | None:
    """One scan at `due`; the next one EXPRYINT seconds later (dropped when EXPRYINT is
    OFF). A stopped queue manager scans nothing until it starts again."""
    manager = tx.get_object(system.name, "QMGR", system.name)
    if system.platform != "zos" or manager is None:
        return None
    interval = str(manager.attrs.get("EXPRYINT", "OFF"))
    if interval == "OFF":
        return None
    if manager.status.get("state", "STARTED") == "STARTED":
        scan(tx, system.name, due)
    return due + int(interval)


def scan(tx: Transaction, system: str, now: float, queues: list[str] | None = None) -> dict[str, int]:
    """One expiry scan now (the timer's, or REFRESH QMGR TYPE(EXPIRY)'s), counted in the
    queue statistics; how many messages it removed per queue."""
    removed = remove_expired(tx, system, now, queues)
    count_expired(tx, system, removed)
    return removed
