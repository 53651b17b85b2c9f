"""`tick(store, clock, now)`: runs every timer due up to `now`, in time order, each
inside a store transaction. Called at the start of every command, by `.advance`, and by
the real-time loop of `mqtool serve` and the shell (SPEC section 8).

The timer functions are registered by the platforms (timers.py); `platforms.load()`
imports them all once, so a timer of any platform is found whatever was imported."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqtool.engine import platforms
from mqtool.engine.timers import TIMERS, TickContext, Wake

if TYPE_CHECKING:
    from mqtool.clock import Clock
    from mqtool.state import Store


def tick(store: Store, clock: Clock, now: float) -> int:
    """Runs every due timer up to `now`, oldest first; returns how many runs happened."""
    runs = 0
    context = TickContext(store, clock, now)
    while True:
        with store.transaction(write=False) as tx:
            row = tx.conn.execute(
                "SELECT system, name, due FROM timers WHERE due <= ? ORDER BY due, system, name LIMIT 1",
                (now,),
            ).fetchone()
        if row is None:
            return runs
        platforms.load()
        system_name, name, due = row
        with store.transaction() as tx:
            # Another process may have run it meanwhile: re-read under the write lock.
            current = tx.conn.execute(
                "SELECT due FROM timers WHERE system = ? AND name = ?",
                (system_name, name),
            ).fetchone()
            if current is None or current[0] != due:
                continue
            system = tx.get_system(system_name)
            function = TIMERS.get(name)
            wake = None if system is None or function is None else function(context, tx, system, due)
            if wake is None:
                tx.conn.execute(
                    "DELETE FROM timers WHERE system = ? AND name = ?",
                    (system_name, name),
                )
            else:
                next_due, passive = (wake.due, wake.passive) if isinstance(wake, Wake) else (wake, False)
                tx.conn.execute(
                    "UPDATE timers SET due = ?, passive = ? WHERE system = ? AND name = ?",
                    (max(next_due, due + 1e-6), int(passive), system_name, name),
                )
        runs += 1
