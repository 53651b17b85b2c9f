"""`tick(store, clock, now)`: runs every timer due up to `now`, in time order, each
inside a store transaction. Called at the start of every command, by `.advance`, and by
the real-time loop of `mqtool serve` and the shell (SPEC section 8).

The timer functions are registered by the platforms (timers.py); `platforms.load()`
imports them all once, so a timer of any platform is found whatever was imported. Only
a tick with a timer due imports them (a command with none due does not), and the
services (channels, subscriptions) only for a timer that no platform registers."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mqtool.clock import Clock
    from mqtool.engine.timers import TickContext
    from mqtool.state import Store


# Per store: the data version when nobody held a subscription (nothing to look at until
# the store changes).
_NOBODY: weakref.WeakKeyDictionary[Store, tuple[int, int]] = weakref.WeakKeyDictionary()


def reap_subscribers(store: Store, generation: tuple[int, int] | None = None) -> int:
    """The queue manager's clean-up after connections that failed: subscriptions held by
    processes that have ended (core/subscriptions.py). Run before every command and by
    every tick: one read while some process holds a subscription, none while nobody does
    and the store is unchanged (and the module of subscriptions is not even imported).
    `generation`: the store's generation when the caller has just read it."""
    if generation is None:
        generation = store.generation()
    if _NOBODY.get(store) == generation:
        return 0
    with store.transaction(write=False) as tx:
        held = tx.conn.execute("SELECT 1 FROM sub_owners LIMIT 1").fetchone()
    if held is None:
        _NOBODY[store] = generation
        return 0
    from mqtool.engine import platforms
    from mqtool.engine.core.subscriptions import reap

    return reap(store, platforms.model)


def nobody_subscribed(store: Store, generation: tuple[int, int]) -> bool:
    """Whether reap_subscribers found nobody holding a subscription at `generation`
    (so that, while the store stays at it, it would read nothing and reap nothing)."""
    return _NOBODY.get(store) == generation


def tick(store: Store, clock: Clock, now: float) -> int:
    """Runs every due timer up to `now`, oldest first; returns how many runs happened.
    Subscriptions whose holders have ended are cleaned up first."""
    reap_subscribers(store)
    runs = 0
    context: TickContext | None = None
    while True:
        with store.transaction(write=False) as tx:
            row = tx.conn.execute(
                "SELECT system, name, due FROM timers WHERE due <= ? ORDER BY due, system, name LIMIT 1",
                (now,),
            ).fetchone()
        if row is None:
            return runs
        # The platforms register their timers when imported: only a tick that has a
        # timer to run imports them (a command that finds none starts faster), and the
        # services (channels, subscriptions) only for a timer of theirs: the z/TPF MQ
        # monitor, due every 5 seconds, does not load the channel agents.
        from mqtool.engine import platforms
        from mqtool.engine.timers import TIMERS, TickContext, Wake

        platforms.load_platforms()
        if row[1] not in TIMERS:
            platforms.load()
        if context is None:
            context = TickContext(store, clock, now)
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
