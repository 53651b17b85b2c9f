"""The registry of the engine's periodic tasks: each platform registers its timer
functions here by name (`@timer`), and `schedule` makes a timer of a system due.

A timer is a row of the `timers` table: (system, name, due). `tick` (tick.py) runs the
due ones; a timer function does its work in the transaction it is given and returns
when it is next due (None drops the timer). Timer functions see a `TickContext`, never
the language layer's session."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mqtool.clock import Clock
    from mqtool.state import Store, SystemRecord, Transaction


@dataclass(frozen=True)
class TickContext:
    """What a timer function may use: the store, the clock, and `now`, the instant the
    tick is catching up to (a timer due earlier can skip idle intervals up to it)."""

    store: Store
    clock: Clock
    now: float


# name -> function(context, tx, system, due) -> next due time (or None to drop the timer)
TimerFunction = Callable[[TickContext, "Transaction", "SystemRecord", float], "float | None"]
TIMERS: dict[str, TimerFunction] = {}


def timer(name: str) -> Callable[[TimerFunction], TimerFunction]:
    """Registers a periodic task of the engine under `name`."""

    def register(function: TimerFunction) -> TimerFunction:
        TIMERS[name] = function
        return function

    return register


def schedule(tx: Transaction, system: str, name: str, due: float) -> None:
    """Makes sure timer `name` of `system` exists; keeps an earlier due time."""
    tx.conn.execute(
        "INSERT INTO timers (system, name, due) VALUES (?, ?, ?) "
        "ON CONFLICT(system, name) DO UPDATE SET due = min(due, excluded.due)",
        (system, name, due),
    )


def cancel(tx: Transaction, system: str, name: str) -> None:
    """Drops timer `name` of `system`."""
    tx.conn.execute("DELETE FROM timers WHERE system = ? AND name = ?", (system, name))
