"""Commands that change nothing, answered on the listener's event loop: `ReadingApi` is a
RestApi over a second, read-only connection to the store (SQLite WAL: a reader sees
the last commit and never waits for a writer), so that a DISPLAY does not pay the
hand-off to the store thread and back. It answers a request only when the store
thread would have given the same answer at the same moment:

- the command is a short reading one: a runCommandJSON of one named object (no
  generic name, which could list thousands while every other connection waits), whose
  verb changes nothing and whose handler has no work to do before its transaction; by
  a user whose session with the queue manager the
  store thread has already recorded (DISPLAY CONN's row is a write);
- no timer is due and no subscription waits to be cleaned up, so the tick that starts
  every command (which may write) would do nothing;
- no other connection committed anything between the first read and the last (the
  store's generation is the same before and after), so every read saw one state.

Anything else raises `NeedsWriter`, and the request goes to the store thread as every
request did before; so does a request that meets any store error here (the writer
meets it again, or does not). The connection is opened with `PRAGMA query_only` and
no busy wait, so a handler that tried to write, or a reader that would have to wait,
fails here instead of writing or blocking the event loop.
"""

from __future__ import annotations

import math
import sqlite3
from typing import TYPE_CHECKING, Any

from mqtool import tables
from mqtool.session import Session
from mqtool.state import Store, StoreError

from .api import RestApi

if TYPE_CHECKING:
    from .config import RestUser
    from .reply import Reply


class NeedsWriter(Exception):
    """The request must run in the store thread (see the module docstring)."""


class ReadingSession(Session):
    """A session whose tick never runs anything: when a timer is due or a subscription
    needs cleaning up, it raises NeedsWriter instead (the store thread's tick runs them).
    `generation`: the store's, read once at the start of the request (ReadingApi checks
    at its end that it has not changed, so nothing needs to read it in between)."""

    def __init__(self, store: Store, clock: Any) -> None:
        super().__init__(store, clock)
        self.generation: tuple[int, int] = (-1, -1)
        self._owners = False  # whether some process held a subscription, as last read

    def _tick(self) -> tuple[int, tuple[int, int] | None]:
        generation = self.generation
        if generation != self._quiet_generation:
            with self.store.transaction(write=False) as tx:
                due = tx.conn.execute("SELECT min(due) FROM timers").fetchone()[0]
                owners = tx.conn.execute("SELECT 1 FROM sub_owners LIMIT 1").fetchone()
            self._quiet_until = math.inf if due is None else float(due)
            self._quiet_generation = generation
            self._owners = owners is not None
        if self._owners or not self.quiet():
            raise NeedsWriter("a timer is due, or subscriptions wait to be cleaned up")
        return 0, generation

    def next_timer_due(self) -> float | None:
        return self._quiet_until if self._quiet_generation == self.generation else None

    def quiet(self) -> bool:
        """Whether no timer has fallen due by now (as the last look at the timers found)."""
        return self.clock.timestamp() < self._quiet_until


class ReadingApi(RestApi):
    """RestApi.mqsc for reading commands on the event loop (see the module docstring).
    `connections`: the store thread's record of the REST users' sessions (its
    RestApi._connections), read here, written only there."""

    def __init__(self, writer: RestApi) -> None:
        super().__init__(writer.state_dir, writer.clock, writer.host)
        self._writer_connections = writer._connections

    @property
    def session(self) -> Any:
        if self._session is None:
            store = Store.open(self.state_dir)
            store.conn.execute("PRAGMA busy_timeout = 0")
            store.conn.execute("PRAGMA query_only = ON")
            session = ReadingSession(store, self.clock)
            session.pinned = True
            session.via_command_server = True
            self._session = session
        return self._session

    def close(self) -> None:
        if self._session is not None:
            self._session.store.close()
            self._session = None

    def connected(self, system: Any, user: str) -> None:
        if system.platform == "zos" and (system.name, user) not in self._writer_connections:
            raise NeedsWriter("the user's connection is not recorded yet")

    def _reads_only(self, verb: Any, name: str | None) -> None:
        if verb.name is None or verb.writes:
            raise NeedsWriter("the command may change something")
        if name is None or "*" in name:
            # A typed line, a display of every object or of a generic name may take long:
            # on the event loop it would hold every other connection meanwhile.
            raise NeedsWriter("not one named object of a built command")
        spec = tables.load(verb.dialect).verb(verb.name)
        if spec is None or getattr(_handler(verb.dialect, spec.module), "before_transaction", None) is not None:
            raise NeedsWriter("the command has work to do outside its transaction")

    def _generation(self) -> tuple[int, int]:
        return self.session.generation

    def generation(self) -> tuple[int, int]:
        """The store's generation as this connection sees it now."""
        return self.session.store.generation()

    def mqsc(self, qmgr: str, body: bytes, user: RestUser, generation: tuple[int, int] | None = None) -> Reply:
        """RestApi.mqsc, or NeedsWriter; a RestError is the store thread's answer too
        (it comes from reads made before the command would run). `generation`: the
        store's, as generation() read it just before this call (else read here)."""
        try:
            session = self.session
            store = session.store
            session.generation = store.generation() if generation is None else generation
            reply = super().mqsc(qmgr, body, user)
            if store.generation() != session.generation or not session.quiet():
                raise NeedsWriter("the store changed, or a timer fell due, while the command ran")
        except (StoreError, sqlite3.Error) as exc:
            raise NeedsWriter(str(exc)) from exc
        return reply


def _handler(dialect: str, module: str) -> Any:
    from mqtool.session import _module

    return _module(f"mqtool.commands.{dialect}.{module}")
