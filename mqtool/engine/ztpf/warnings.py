"""The z/TPF MQ console warnings a put or the monitor raises: a queue at its QDEPTHHI
threshold (once, until it falls below), and an exhausted SWB pool (once, until it has
room again)."""

from __future__ import annotations

from mqtool.engine.console import console
from mqtool.engine.ztpf.figures import SwbSettings
from mqtool.state import SystemRecord, Transaction


def warn_qdepthhi(
    tx: Transaction, system: SystemRecord, queue: str, depth: int, maxdepth: int, percent: int, when: float
) -> None:
    """The queue's depth reached its QDEPTHHI threshold (by a put, or as the monitor
    found it): warned once until it falls below again."""
    tx.conn.execute(
        "UPDATE messages SET hi_warned = 1 "
        "WHERE id = (SELECT qkey << 44 FROM queue_marks WHERE system = ? AND queue = ?)",
        (system.name, queue),
    )
    console(tx, system, when, "MQSC0204W", queue=queue, depth=depth, percent=percent, maxdepth=maxdepth)


def swb_shortage(
    tx: Transaction, system: SystemRecord, queue: str, in_use: int, settings: SwbSettings, when: float
) -> None:
    """A put refused because the SWB pool is exhausted: one console warning until the
    pool has room again."""
    row = tx.conn.execute("SELECT swb_short FROM engine_state WHERE system = ?", (system.name,)).fetchone()
    if row is not None and row[0]:
        return
    tx.conn.execute("INSERT OR IGNORE INTO engine_state (system) VALUES (?)", (system.name,))
    tx.conn.execute("UPDATE engine_state SET swb_short = 1 WHERE system = ?", (system.name,))
    console(tx, system, when, "MQSC0203W", in_use=in_use, pool=settings.pool, queue=queue)
