"""The z/OS expiry task: `ALTER QMGR EXPRYINT(n)` scans every local queue of the queue
manager every n seconds of clock time and removes the messages whose expiry has passed
(spec zos-mq.md section 5). Run by tick; a get removes the expired messages it passes
over as well, whether the task runs or not."""

from __future__ import annotations

import math

from mqtool.engine.timers import TickContext, next_mark, timer
from mqtool.engine.zos.qstats import removed as qstats_removed
from mqtool.engine.zos.stats import count_expired
from mqtool.state import SystemRecord, Transaction
from mqtool.state import messages as runs

EXPIRY_TIMER = "zos.expiry"


def remove_expired(tx: Transaction, system: str, now: float, queues: list[str] | None = None) -> dict[str, int]:
    """Removes every expired message of a system's local queues (or of those named);
    how many per queue."""
    removed: dict[str, int] = {}
    for queue, qkey in _queues(tx, system):
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


def next_expiry(tx: Transaction, system: str) -> float:
    """When the first message of a system's local queues expires (infinity: none will)."""
    earliest = math.inf
    for _queue, qkey in _queues(tx, system):
        low, high = runs.span(int(qkey))
        found = tx.conn.execute(
            "SELECT min(expiry) FROM messages WHERE id > ? AND id < ? AND expiry IS NOT NULL", (low, high)
        ).fetchone()[0]
        if found is not None:
            earliest = min(earliest, float(found))
    return earliest


def _queues(tx: Transaction, system: str) -> list[tuple[str, int]]:
    return tx.conn.execute("SELECT queue, qkey FROM queue_marks WHERE system = ? ORDER BY queue", (system,)).fetchall()


@timer(EXPIRY_TIMER)
def run_expiry(context: TickContext, tx: Transaction, system: SystemRecord, due: float) -> float | None:
    """One scan at `due`; the next one EXPRYINT seconds later (dropped when EXPRYINT is
    OFF). A stopped queue manager scans nothing until it starts again.

    Catching up costs the scans that can find something: after a scan, the next one is
    the first EXPRYINT mark at or after the first message's expiry, or after another
    timer that could put one (a channel) runs, and at the latest the first mark after
    the time the tick catches up to (a command may put a message then); the scans in
    between would remove nothing, as the empty intervals mqtool(1) skips."""
    manager = tx.get_object(system.name, "QMGR", system.name)
    if system.platform != "zos" or manager is None:
        return None
    interval = str(manager.attrs.get("EXPRYINT", "OFF"))
    if interval == "OFF":
        return None
    seconds = float(int(interval))
    if manager.status.get("state", "STARTED") != "STARTED":
        return next_mark(due, seconds, context.now)  # nothing to scan until it starts: one mark after now
    scan(tx, system.name, due)
    if due + seconds > context.now:
        return due + seconds  # in real time: the next mark (no second look at the messages)
    work = min(next_expiry(tx, system.name), context.quiet_until(tx, system.name, EXPIRY_TIMER))
    # The first mark at or after `work` (a message expiring at a mark is removed at it).
    return next_mark(due, seconds, math.nextafter(work, -math.inf))


def scan(tx: Transaction, system: str, now: float, queues: list[str] | None = None) -> dict[str, int]:
    """One expiry scan now (the timer's, or REFRESH QMGR TYPE(EXPIRY)'s), counted in the
    queue statistics; how many messages it removed per queue."""
    removed = remove_expired(tx, system, now, queues)
    count_expired(tx, system, removed)
    return removed
