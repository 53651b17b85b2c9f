"""The registry of the engine's periodic tasks: each platform registers its timer
functions here by name (`@timer`), and `schedule` makes a timer of a system due; and the
shared rule of catching up over idle time (`quiet_until`, `last_mark`, `next_mark`).

A timer is a row of the `timers` table: (system, name, due). `tick` (tick.py) runs the
due ones; a timer function does its work in the transaction it is given and returns
when it is next due (None drops the timer). Timer functions see a `TickContext`, never
the language layer's session."""

from __future__ import annotations

import math
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

    def quiet_until(self, tx: Transaction, system: str, name: str) -> float:
        """Until when nothing but timer `name` of `system` can change what a timer sees:
        `now`, or earlier when another acting timer (a channel moving messages, the
        expiry task removing them, an offload ending) is due before it. Observers
        (statistics, the z/TPF monitor and checkpoint) change nothing others see, so
        they never shorten it, nor do passive timers (a channel retrying for a reason
        only such work can change). Commands cannot run while a tick catches up."""
        observers = sorted(OBSERVERS)
        marks = ", ".join("?" for _ in observers) or "''"
        row = tx.conn.execute(
            f"SELECT min(due) FROM timers WHERE passive = 0 AND name NOT IN ({marks}) "
            "AND NOT (system = ? AND name = ?)",
            (*observers, system, name),
        ).fetchone()
        return self.now if row is None or row[0] is None else min(self.now, float(row[0]))


@dataclass(frozen=True)
class Wake:
    """What a timer function may return instead of a bare due time: its next run is
    passive, it can only repeat what this run found (see quiet_until)."""

    due: float
    passive: bool = True


# name -> function(context, tx, system, due) -> next due time (or None to drop the timer)
TimerFunction = Callable[[TickContext, "Transaction", "SystemRecord", float], "float | Wake | None"]
TIMERS: dict[str, TimerFunction] = {}
OBSERVERS: set[str] = set()  # timers whose runs change nothing another timer sees


def timer(name: str, observer: bool = False) -> Callable[[TimerFunction], TimerFunction]:
    """Registers a periodic task of the engine under `name`; `observer`: its runs only
    read what others do and write their own records (they never move a message)."""

    def register(function: TimerFunction) -> TimerFunction:
        TIMERS[name] = function
        if observer:
            OBSERVERS.add(name)
        return function

    return register


# -- catching up over idle time -------------------------------------------------------------
#
# A timer runs every `interval` seconds on its own grid of marks (due, due + interval,
# ...). Catching up over a gap must cost what falls due, not the number of marks: a run
# that finds nothing to do says so, and its next run is the mark where work can fall due
# again (the first mark after the time the tick catches up to, at the latest).


def last_mark(due: float, interval: float, until: float) -> float:
    """The last mark of the grid through `due` at or before `until` (`due` itself when
    `until` is earlier than the next one)."""
    if until <= due:
        return due
    return due + interval * math.floor((until - due) / interval)


def next_mark(due: float, interval: float, after: float) -> float:
    """The first mark of the grid through `due` later than `due` and than `after`."""
    if after < due + interval:
        return due + interval
    return due + interval * (math.floor((after - due) / interval) + 1)


def schedule(tx: Transaction, system: str, name: str, due: float) -> None:
    """Makes sure timer `name` of `system` exists; keeps an earlier due time. Something
    new happened: the timer is active."""
    tx.conn.execute(
        "INSERT INTO timers (system, name, due) VALUES (?, ?, ?) "
        "ON CONFLICT(system, name) DO UPDATE SET due = min(due, excluded.due), passive = 0",
        (system, name, due),
    )


def cancel(tx: Transaction, system: str, name: str) -> None:
    """Drops timer `name` of `system`."""
    tx.conn.execute("DELETE FROM timers WHERE system = ? AND name = ?", (system, name))
