"""The channel initiator of a serving loop (`mqtool serve`, a shell): listens on the
listeners of every system of its store and runs the store's TCP channels.

Each poll of the loop (several a second):

- opens the sockets of the listeners the store lists (listeners.py) for queue managers
  that run (and, on z/OS, whose channel initiator is active), closes those no longer
  listed; a listener is held by one loop only (its owner in `listener_status`), so two
  loops on one store never fight over a port, and a loop whose process ended (even by
  kill -9) is replaced at the next poll of another;
- starts a thread for each initiating channel over TCP (outbound.py) that no live loop
  runs; a channel that was running in a loop that ended is taken over, and its batch in
  doubt resolved with its partner;
- ends the inbound sessions of channels stopped meanwhile, and marks INACTIVE the
  receivers whose session died with its process;
- writes the listeners' counts, and one console line a minute at most per listener for
  the connections closed before a channel started (garbage, silence, too many).

Sockets, sessions and their threads live in this process; everything another process
must know is in the store.
"""

from __future__ import annotations

import itertools
import logging
import os
import socket
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from mqtool.clock import Clock
from mqtool.engine.channels import conname
from mqtool.engine.channels import listeners as listener_store
from mqtool.engine.channels.conname import Address
from mqtool.engine.channels.ends import End
from mqtool.engine.channels.mca import initiates, over_tcp
from mqtool.engine.channels.partner import chinit_active, platform_of, queue_manager
from mqtool.engine.channels.status import ACTIVE_STATES, BINDING, INACTIVE, RUNNING, STOPPED
from mqtool.engine.channels.tcp import access, frames, sessions
from mqtool.engine.channels.tcp.inbound import Inbound
from mqtool.engine.channels.tcp.listener import Key, Listeners
from mqtool.engine.channels.tcp.outbound import Outbound
from mqtool.engine.console import console
from mqtool.engine.http.records import (
    Owner,
    forget_token,
    new_owner,
    owner_alive,
    register_service,
    unregister_service,
)
from mqtool.engine.security import chlauth
from mqtool.state import Store, SystemRecord, Transaction

logger = logging.getLogger(__name__)
RETRY_SECONDS = 5.0  # a listener that could not be opened is tried again after this
LINE_SECONDS = 60.0  # at most one console line of closed connections a minute per listener
QUIET_SECONDS = 1.0  # ... written once no connection closed for this long
MAX_BLOCKED_LINES = 20  # CSQX782E lines a minute per listener (mqtool's bound)
MAX_SESSIONS = 200  # inbound channels at once (z/OS MAXCHL's default)
JOIN_SECONDS = 10.0
_TOKENS = itertools.count(1)
CSECT = "CSQXTCPL"  # the TCP listener's module on the z/OS console (mqtool's choice)


class Context:
    """What the threads of one service share (the tcp/context.py protocol): the store's
    folder, the clock, the loop's token, and the service for counting and ending sessions."""

    def __init__(self, service: ChannelService) -> None:
        self.service = service
        self.state_dir = service.state_dir
        self.clock = service.clock
        self.token = service.token

    def owner(self, kind: str) -> dict[str, Any]:
        return new_owner(self.token).to_dict() | {"kind": kind}

    def count(self, key: Key, what: str) -> None:
        self.service.tally(key, what)

    def session_ended(self, inbound: Inbound) -> None:
        self.service.forget(inbound)


class ChannelService:
    """The loop service (see the module docstring): start(), poll() each iteration,
    stop()."""

    name = "channels"

    def __init__(self, state_dir: Path, clock: Clock) -> None:
        self.state_dir = Path(state_dir)
        self.clock = clock
        self.token = f"{os.getpid()}.ch{next(_TOKENS)}"
        self.context = Context(self)
        self._store: Store | None = None
        self._registered = False
        self._listeners: Listeners | None = None
        self._open: dict[Key, int] = {}  # listener -> port
        self._retry_at: dict[Key, float] = {}
        self._outbound: dict[tuple[str, str], Outbound] = {}
        self._inbound: set[Inbound] = set()
        self._lock = threading.Lock()
        self._tallies: dict[Key, Counter[str]] = {}
        self._drops: dict[Key, Counter[str]] = {}
        self._last_drop: dict[Key, float] = {}
        self._last_line: dict[Key, float] = {}
        self._blockaddr: dict[str, chlauth.Record | None] = {}  # system -> its BLOCKADDR record (CHLAUTH)
        self._blocked_lines: dict[tuple[Key, str], float] = {}  # (listener, address) -> its last CSQX782E
        self._over_limit: dict[Key, tuple[str, str]] = {}  # listener -> (channel, peer) refused at MAX_SESSIONS
        self._limit_lines: dict[Key, float] = {}  # listener -> its last MQT0549W / MQSC0364W
        self.errors: list[str] = []

    # -- the loop's interface ---------------------------------------------------------
    def start(self, loop: Any = None) -> None:
        if self._listeners is None:
            self._listeners = Listeners(self._hello, blocked=self._blocked)

    def poll(self) -> None:
        self.step()

    def stop(self) -> None:
        """Closes the listeners, ends the sessions and channel threads, and releases in
        the store what this loop held (another loop takes it over)."""
        if self._listeners is not None:
            self._listeners.stop()
        for outbound in list(self._outbound.values()):
            outbound.abort()
        with self._lock:
            inbound = list(self._inbound)
        for session in inbound:
            session.abort("the serving loop ended")
        threads: list[threading.Thread] = [*self._outbound.values(), *inbound]
        for thread in threads:
            thread.join(JOIN_SECONDS)
        try:
            self._release()
        except Exception as exc:  # the store may be gone; the sockets are closed anyway
            self._note(f"releasing: {exc}")
        forget_token(self.token)
        if self._store is not None:
            self._store.close()
            self._store = None
        self._listeners = None

    # -- one poll ---------------------------------------------------------------------
    def step(self) -> None:
        self.start()
        store = self._open_store()
        if not self._registered:
            with store.transaction() as tx:
                register_service(tx, self.token)
            self._registered = True
        with store.transaction(write=False) as tx:
            wanted = self._wanted_listeners(tx)
            self._blockaddr = {name: access.address_record(tx, system) for name, system in
                               ((key[0], tx.get_system(key[0])) for key in wanted) if system is not None}  # fmt: skip
            channels = self._tcp_channels(tx)
            stale = self._stale_sessions(tx)
        self._listen(wanted)
        self._report()
        self._run_channels(channels)
        self._end_sessions(stale)
        self._outbound = {key: thread for key, thread in self._outbound.items() if thread.is_alive()}

    def _open_store(self) -> Store:
        if self._store is None:
            self._store = Store.open(self.state_dir)
        return self._store

    def _note(self, text: str) -> None:
        logger.warning("channel service: %s", text)
        self.errors = [*self.errors[-19:], text]

    # -- listeners --------------------------------------------------------------------
    def _wanted_listeners(self, tx: Transaction) -> dict[Key, Address]:
        wanted: dict[Key, Address] = {}
        for system in tx.systems():
            manager = queue_manager(tx, system)
            if not chinit_active(system, manager):
                continue
            held = listener_store.statuses(tx, system.name)
            for address in listener_store.configured(system):
                status = held.get(str(address))
                owner = Owner.from_dict(status.owner) if status is not None else None
                if owner is not None and owner.token != self.token and owner_alive(owner):
                    continue  # another loop listens there
                wanted[(system.name, str(address))] = address
        return wanted

    def _listen(self, wanted: dict[Key, Address]) -> None:
        assert self._listeners is not None
        for key in [key for key in self._open if key not in wanted]:
            self._close_listener(key)
        now = time.monotonic()
        for key, address in wanted.items():
            if key in self._open or self._retry_at.get(key, 0.0) > now:
                continue
            self._open_listener(key, address)

    def _open_listener(self, key: Key, address: Address) -> None:
        assert self._listeners is not None
        store = self._open_store()
        system_name = key[0]
        with store.transaction() as tx:
            status = listener_store.status_of(tx, system_name, address)
            owner = Owner.from_dict(status.owner)
            if owner is not None and owner.token != self.token and owner_alive(owner):
                return
            status.owner = new_owner(self.token).to_dict()
            listener_store.put_status(tx, system_name, status)
        try:
            port = self._listeners.open(key, address)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            self._retry_at[key] = time.monotonic() + RETRY_SECONDS
            with store.transaction() as tx:
                status = listener_store.status_of(tx, system_name, address)
                first = status.state != listener_store.RETRYING or status.error != reason
                status.state, status.error, status.port = listener_store.RETRYING, reason, address.port
                listener_store.put_status(tx, system_name, status)
                system = tx.get_system(system_name)
                if first and system is not None:
                    self._say(tx, system, "bind_failed", address, address.port, reason=reason)
            return
        self._open[key] = port
        self._retry_at.pop(key, None)
        with store.transaction() as tx:
            status = listener_store.status_of(tx, system_name, address)
            status.state, status.error, status.port = listener_store.LISTENING, "", port
            status.since = self.clock.timestamp()
            listener_store.put_status(tx, system_name, status)
            system = tx.get_system(system_name)
            if system is not None:
                self._say(tx, system, "listening", address, port)

    def _close_listener(self, key: Key, release: bool = False) -> None:
        assert self._listeners is not None
        port = self._open.pop(key)
        self._listeners.close(key)
        system_name, text = key
        store = self._open_store()
        with store.transaction() as tx:
            system = tx.get_system(system_name)
            row = tx.conn.execute(
                "SELECT status FROM listener_status WHERE system = ? AND address = ?", (system_name, text)
            ).fetchone()
            if row is not None:
                status = listener_store.ListenerStatus.load(text, row[0])
                status.state, status.owner = "", None
                listener_store.put_status(tx, system_name, status)
            if system is not None:
                self._say(tx, system, "closed", conname.parse_one(text, listener=True), port)

    def _say(
        self, tx: Transaction, system: SystemRecord, event: str, address: Address, port: int, **fields: Any
    ) -> None:
        """A listener's console message in its system's style."""
        now = self.clock.timestamp()
        host = address.host
        if system.platform == "zos":
            msg_id = {"listening": "CSQX023I", "closed": "CSQX024I", "bind_failed": "CSQX219E"}[event]
            console(tx, system, now, msg_id, CSECT, port=port, address=host, **fields)
        else:
            msg_id = {"listening": "MQSC0360I", "closed": "MQSC0361I", "bind_failed": "MQSC0362W"}[event]
            console(tx, system, now, msg_id, address=str(address), port=port, **fields)

    # -- connections that came in -----------------------------------------------------
    def _blocked(self, key: Key, host: str) -> bool:
        """Whether the system's BLOCKADDR record refuses an address (the listeners'
        thread asks as it accepts; the record is the one the last poll read)."""
        return access.address_blocked(self._blockaddr.get(key[0]), host)

    def _hello(self, key: Key, sock: socket.socket, peer: str, hello: tuple[str, str, str, bool], left: bytes) -> None:
        """A connection sent its HELLO (called in the listeners' thread): its channel
        runs in a thread of its own, unless MAX_SESSIONS run already."""
        with self._lock:
            busy = len(self._inbound) >= MAX_SESSIONS
        if busy:
            try:
                sock.setblocking(True)
                sock.settimeout(1.0)
                sock.sendall(
                    frames.preamble()
                    + frames.control(
                        "REFUSE", cause="remote_busy", fields={"other": f"{MAX_SESSIONS} channels at the listener"}
                    )
                )
            except OSError:
                pass
            sock.close()
            self.tally(key, "session limit")
            with self._lock:
                self._over_limit[key] = (hello[0], peer)
            return
        session = Inbound(self.context, key, sock, peer, hello, left)
        with self._lock:
            self._inbound.add(session)
        self.tally(key, "connection")
        session.start()

    def tally(self, key: Key, what: str) -> None:
        with self._lock:
            self._tallies.setdefault(key, Counter())[what] += 1

    def forget(self, inbound: Inbound) -> None:
        with self._lock:
            self._inbound.discard(inbound)

    def _report(self) -> None:
        """The listeners' counts into the store, and their console lines."""
        assert self._listeners is not None
        drained = self._listeners.drain()
        with self._lock:
            tallies, self._tallies = self._tallies, {}
            over_limit, self._over_limit = self._over_limit, {}
        now = time.monotonic()
        for key, counts in drained.items():
            if counts.dropped:
                self._drops.setdefault(key, Counter()).update(counts.dropped)
                self._last_drop[key] = now
        keys = set(drained) | set(tallies) | {key for key, found in self._drops.items() if found}
        if not keys:
            return
        store = self._open_store()
        with store.transaction() as tx:
            for key in keys:
                system_name, text = key
                system = tx.get_system(system_name)
                if system is None:
                    continue
                try:
                    address = conname.parse_one(text, listener=True)
                except conname.ConnameError:
                    continue
                status = listener_store.status_of(tx, system_name, address)
                found = drained.get(key)
                tally = tallies.get(key, Counter())
                status.connections += found.connections if found is not None else 0
                status.dropped += sum(found.dropped.values()) if found is not None else 0
                status.channels += tally["channels"]
                status.refused += tally["refused"] + tally["session limit"]
                status.blocked += tally["blocked"] + (sum(found.blocked.values()) if found is not None else 0)
                status.dropped += tally["lost"]
                listener_store.put_status(tx, system_name, status)
                self._line(tx, system, key, address, now)
                if key in over_limit and now - self._limit_lines.get(key, -LINE_SECONDS) >= LINE_SECONDS:
                    self._limit_lines[key] = now
                    self._limit_line(tx, system, address, key, over_limit[key])
                if found is not None and found.blocked:
                    self._blocked_line(tx, system, key, found.blocked, now)

    def _blocked_line(self, tx: Transaction, system: SystemRecord, key: Key, hosts: Counter[str], now: float) -> None:
        """CSQX782E for the addresses the listener refused: once a minute at most for
        each, MAX_BLOCKED_LINES a minute at most for the listener (every one is counted
        in its BLOCKED count)."""
        record = self._blockaddr.get(system.name)
        if record is None:
            return
        self._blocked_lines = {k: t for k, t in self._blocked_lines.items() if now - t < LINE_SECONDS}
        written = sum(1 for (listener, _) in self._blocked_lines if listener == key)
        for host in hosts:
            if (key, host) in self._blocked_lines:
                continue
            if written >= MAX_BLOCKED_LINES:
                return
            written += 1
            self._blocked_lines[(key, host)] = now
            access.blocked_line(tx, system, self.clock.timestamp(), record, host or "other addresses")

    def _limit_line(
        self, tx: Transaction, system: SystemRecord, address: Address, key: Key, refused: tuple[str, str]
    ) -> None:  # fmt: skip
        """MQT0549W / MQSC0364W: a channel refused because MAX_SESSIONS run (one line a
        minute at most per listener)."""
        name, peer = refused
        port = self._open.get(key, address.port)
        if system.platform == "zos":
            console(tx, system, self.clock.timestamp(), "MQT0549W", CSECT, port=port, address=address.host, name=name,
                    address_from=peer, count=MAX_SESSIONS)  # fmt: skip
        else:
            console(tx, system, self.clock.timestamp(), "MQSC0364W", address=str(address), name=name,
                    address_from=peer, count=MAX_SESSIONS)  # fmt: skip

    def _line(self, tx: Transaction, system: SystemRecord, key: Key, address: Address, now: float) -> None:
        drops = self._drops.get(key)
        if not drops:
            return
        if now - self._last_drop.get(key, now) < QUIET_SECONDS:
            return
        if now - self._last_line.get(key, -LINE_SECONDS) < LINE_SECONDS:
            return
        count = sum(drops.values())
        reasons = ", ".join(f"{reason} {number}" for reason, number in sorted(drops.items()))
        port = self._open.get(key, address.port)
        if system.platform == "zos":
            console(tx, system, self.clock.timestamp(), "MQT0548W", CSECT, port=port, address=address.host,
                    count=count, reasons=reasons)  # fmt: skip
        else:
            console(tx, system, self.clock.timestamp(), "MQSC0363W", address=str(address), count=count,
                    reasons=reasons)  # fmt: skip
        self._drops[key] = Counter()
        self._last_line[key] = now

    # -- channels ---------------------------------------------------------------------
    def _tcp_channels(self, tx: Transaction) -> list[tuple[str, str, dict[str, Any] | None]]:
        """(system, channel, owner) of every initiating channel that runs over TCP."""
        found = []
        for system in tx.systems():
            for record in tx.objects(system.name, platform_of(system).channel_type):
                if not initiates(record):
                    continue
                end = End.of(system, record)
                if end.status.state not in ACTIVE_STATES or not over_tcp(tx, end):
                    continue
                found.append((system.name, record.name, end.status.owner))
        return found

    def _run_channels(self, channels: list[tuple[str, str, dict[str, Any] | None]]) -> None:
        wanted = set()
        for system_name, name, owner_data in channels:
            key = (system_name, name)
            wanted.add(key)
            owner = Owner.from_dict(owner_data)
            thread = self._outbound.get(key)
            if owner is not None and owner.token == self.token:
                if (owner_data or {}).get("kind") != "outbound":
                    continue  # an inbound session of this loop runs it
                if thread is None or not thread.is_alive():
                    self._start_outbound(key)
                continue
            if owner is not None and owner_alive(owner):
                continue
            if self._claim(key, owner_data):
                self._start_outbound(key)
        for key, thread in self._outbound.items():
            if key not in wanted:
                thread.stop()

    def _claim(self, key: tuple[str, str], seen: dict[str, Any] | None) -> bool:
        system_name, name = key
        with self._open_store().transaction() as tx:
            system = tx.get_system(system_name)
            if system is None:
                return False
            record = tx.get_object(system_name, platform_of(system).channel_type, name)
            if record is None:
                return False
            end = End.of(system, record)
            if end.status.owner != seen or end.status.state not in ACTIVE_STATES:
                return False
            end.status.owner = self.context.owner("outbound")
            if end.status.state == RUNNING:
                # Its loop ended: it binds again (and resolves its batch in doubt).
                end.status.state = BINDING
            end.save(tx)
        return True

    def _start_outbound(self, key: tuple[str, str]) -> None:
        thread = Outbound(self.context, *key)
        self._outbound[key] = thread
        thread.start()

    def _stale_sessions(self, tx: Transaction) -> list[tuple[str, str, str]]:
        """Sessions to end: inbound ones of this loop whose channel was stopped (or its
        channel initiator), and TCP ends whose loop died (system, channel, how)."""
        found = []
        mine = sessions.running()
        for system in tx.systems():
            manager = queue_manager(tx, system)
            active = chinit_active(system, manager)
            for record in tx.objects(system.name, platform_of(system).channel_type):
                status = End.of(system, record).status
                if status.transport != "TCP":
                    continue
                key = (system.name, record.name)
                if key in mine and (status.state == STOPPED or not active) and mine[key] == status.bound:
                    found.append((system.name, record.name, "abort"))
                elif (
                    status.state == RUNNING
                    and status.owner is not None
                    and not initiates(record)
                    and not owner_alive(Owner.from_dict(status.owner))
                ):
                    found.append((system.name, record.name, "dead"))
        return found

    def _end_sessions(self, stale: list[tuple[str, str, str]]) -> None:
        for system_name, name, how in stale:
            if how == "abort":
                sessions.abort(system_name, name, "the channel was stopped")
                continue
            with self._open_store().transaction() as tx:
                system = tx.get_system(system_name)
                if system is None:
                    continue
                record = tx.get_object(system_name, platform_of(system).channel_type, name)
                if record is None:
                    continue
                end = End.of(system, record)
                if end.status.state != RUNNING or owner_alive(Owner.from_dict(end.status.owner)):
                    continue
                end.status.state = INACTIVE
                end.status.bound = ""
                end.status.owner = None
                end.save(tx)
                end.say(tx, self.clock.timestamp(), "ended", qmgr=end.status.rqmname)

    def _release(self) -> None:
        """What this loop held, released in the store."""
        store = self._open_store()
        with store.transaction() as tx:
            for system in tx.systems():
                for text, status in listener_store.statuses(tx, system.name).items():
                    owner = Owner.from_dict(status.owner)
                    if owner is not None and owner.token == self.token:
                        status.owner, status.state = None, ""
                        listener_store.put_status(tx, system.name, status)
                        address = conname.parse_one(text, listener=True)
                        self._say(tx, system, "closed", address, status.port)
                for record in tx.objects(system.name, platform_of(system).channel_type):
                    end = End.of(system, record)
                    if (end.status.owner or {}).get("token") == self.token:
                        end.status.owner = None
                        end.save(tx)
            if self._registered:
                unregister_service(tx, self.token)
        self._open.clear()


def loop_service(loop: Any) -> ChannelService:
    """The factory named in mqtool.cli.loop.SERVICES."""
    return ChannelService(loop.state_dir, loop.clock)
