"""`tick(now)`: runs every timer due up to `now`, in time order, each inside a store
transaction. Called at the start of every command, by `.advance`, and by the
real-time loop of `mqtool serve` and the shell (SPEC section 8).

Timers are rows of the `timers` table: (system, name, due). Each timer name maps to a
function in `TIMERS` that does its work and returns when it is next due.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mqtool.session import Session
    from mqtool.state import SystemRecord, Transaction

# name -> function(session, tx, system, due) -> next due time (or None to drop the timer)
TimerFunction = Callable[["Session", "Transaction", "SystemRecord", float], "float | None"]
TIMERS: dict[str, TimerFunction] = {}


def timer(name: str) -> Callable[[TimerFunction], TimerFunction]:
    """Registers a periodic task of the engine under `name`."""

    def register(function: TimerFunction) -> TimerFunction:
        TIMERS[name] = function
        return function

    return register


_LOADED: list[bool] = []


def _load_timer_modules() -> None:
    # Timer functions live with the engine parts that own them; importing registers them.
    # Once per process, whatever TIMERS already holds: a timer module imported for
    # another reason must not hide the others (their timers would be dropped).
    if _LOADED:
        return
    _LOADED.append(True)
    import importlib

    for module in ("mqtool.engine.monitor",):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


def tick(session: Session, now: float) -> int:
    """Runs every due timer up to `now`, oldest first; returns how many runs happened."""
    store = session.store
    runs = 0
    # Timers that can skip idle intervals need the `now` they are catching up to.
    session.state["tick_now"] = now
    while True:
        with store.transaction(write=False) as tx:
            row = tx.conn.execute(
                "SELECT system, name, due FROM timers WHERE due <= ? ORDER BY due, system, name LIMIT 1",
                (now,),
            ).fetchone()
        if row is None:
            return runs
        _load_timer_modules()
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
            next_due = None if system is None or function is None else function(session, tx, system, due)
            if next_due is None:
                tx.conn.execute(
                    "DELETE FROM timers WHERE system = ? AND name = ?",
                    (system_name, name),
                )
            else:
                tx.conn.execute(
                    "UPDATE timers SET due = ? WHERE system = ? AND name = ?",
                    (max(next_due, due + 1e-6), system_name, name),
                )
        runs += 1


def schedule(tx: Transaction, system: str, name: str, due: float) -> None:
    """Makes sure timer `name` of `system` exists; keeps an earlier due time."""
    tx.conn.execute(
        "INSERT INTO timers (system, name, due) VALUES (?, ?, ?) "
        "ON CONFLICT(system, name) DO UPDATE SET due = min(due, excluded.due)",
        (system, name, due),
    )
