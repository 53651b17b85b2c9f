"""The TCP listeners of the channel initiator, as kept in the store.

A system's listeners are one setting, `listener` in its attributes: the addresses it
listens on, `host(port)` each, comma-separated. `mqtool system add|alter --listener`
sets the whole list; `START LISTENER` (z/OS) and `ZMQSC START LISTENER` (z/TPF) add an
address, `STOP LISTENER` removes the ones it names. So the in-store lookup of a
sender's CONNAME (`listening`) and the sockets a serving loop opens are the same
thing: an address on the list is listened on by `mqtool serve` (or a shell) and is
where the store's own senders find the system; a stopped listener is neither.

A listener is kept across restarts of the queue manager and of the channel initiator
(as if its START LISTENER were in the channel initiator's CSQINPX): mqtool's choice.

The run-time status of each address (which loop owns its socket, the port it got,
LISTENING or RETRYING, the counts) is in the table `listener_status`, written by the
serving loop (tcp/service.py) and read by the displays.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from mqtool.engine.channels import conname
from mqtool.engine.channels.conname import Address, ConnameError
from mqtool.state import SystemRecord, Transaction

LISTENER_ATTR = "listener"
DEFAULT_HOST = "127.0.0.1"  # START LISTENER without IPADDR binds here (mqtool's choice)
LISTENING = "LISTENING"
RETRYING = "RETRYING"


class ListenerRefused(Exception):
    """START or STOP LISTENER that cannot be done: `kind` is `started` (the address
    overlaps one this system listens on), `in_use` (another system of the store listens
    there; `other` names it) or `not_started` (STOP named no listener)."""

    def __init__(self, kind: str, address: str, other: str = "") -> None:
        super().__init__(kind, address, other)
        self.kind = kind
        self.address = address
        self.other = other


def configured(system: SystemRecord) -> list[Address]:
    """The addresses a system listens on (an unreadable entry is skipped: the setting is
    checked when it is made, so only a hand-edited store has one)."""
    text = str(system.attrs.get(LISTENER_ATTR) or "")
    found: list[Address] = []
    for part in text.split(","):
        if part.strip():
            try:
                found.append(conname.parse_one(part, listener=True))
            except ConnameError:
                continue
    return found


def _save(tx: Transaction, system: SystemRecord, addresses: list[Address]) -> None:
    system.attrs[LISTENER_ATTR] = conname.format_list(addresses)
    tx.put_system(system)


def overlapping(tx: Transaction, system_name: str, wanted: Address) -> tuple[str, Address] | None:
    """The (system, address) of a listener of the store that overlaps `wanted` (the same
    address twice on one system too; PORT(0) on two systems does not: each gets a port)."""
    for other in tx.systems():
        for address in configured(other):
            if address.covers(wanted) or (address == wanted and other.name == system_name):
                return other.name, address
    return None


def start(tx: Transaction, system: SystemRecord, address: Address) -> None:
    """Adds a listener address to the system (START LISTENER)."""
    clash = overlapping(tx, system.name, address)
    if clash is not None:
        owner, found = clash
        raise ListenerRefused("started" if owner == system.name else "in_use", str(found), owner)
    _save(tx, system, [*configured(system), address])


def stop(tx: Transaction, system: SystemRecord, port: int | None, host: str | None) -> list[Address]:
    """Removes the listeners STOP LISTENER names: those on `port` and/or `host` (IBM:
    only the combinations with the address or port given; neither: all of them). A
    stop for one address of a port listened on for every address stops nothing."""
    kept: list[Address] = []
    stopped: list[Address] = []
    wanted_host = host.lower() if host else None
    for address in configured(system):
        bound = _bound_port(tx, system.name, address)
        port_ok = port is None or port in (address.port, bound)
        host_ok = wanted_host is None or wanted_host == address.host
        (stopped if port_ok and host_ok else kept).append(address)
    if not stopped:
        shown = f"{host or '*'}({'*' if port is None else port})"
        raise ListenerRefused("not_started", shown)
    _save(tx, system, kept)
    for address in stopped:
        tx.conn.execute("DELETE FROM listener_status WHERE system = ? AND address = ?", (system.name, str(address)))
    return stopped


def named(port: Any, host: Any, start: bool) -> Address:
    """The address START LISTENER (start) or STOP LISTENER names with PORT and IPADDR:
    1414 without a port on START, DEFAULT_HOST without an address on START, `*` (every
    address) on STOP. ConnameError when IPADDR is not a host."""
    shown = str(host or (DEFAULT_HOST if start else "*"))
    return conname.parse_one(f"{shown}({1414 if port is None else port})", listener=True)


def listening(tx: Transaction, text: str) -> SystemRecord | None:
    """The system of this store that listens at a CONNAME (any address of a list; the
    host compared without case, port 1414 when none is given; a `*` listener takes the
    loopback names; a PORT(0) listener the port its loop got); None when none does, and
    the sender then connects over TCP."""
    try:
        wanted = conname.parse_list(text)
    except ConnameError:
        return None
    if not wanted:
        return None
    for system in tx.systems():
        for address in configured(system):
            port = address.port or _bound_port(tx, system.name, address)
            for target in wanted:
                if port != target.port:
                    continue
                if address.key[0] == target.key[0] or (address.any and conname.is_local(target.host)):
                    return system
    return None


# -- run-time status -----------------------------------------------------------------


@dataclass
class ListenerStatus:
    """What the serving loop that owns a listener's socket found and counted."""

    address: str  # the configured address, host(port)
    state: str = ""  # LISTENING, RETRYING, "" (no loop has it)
    port: int = 0  # the port bound (the configured one, or the system's choice for PORT 0)
    owner: dict[str, Any] | None = None  # the loop that holds the socket (http.records.Owner)
    error: str = ""  # why it retries
    since: float = 0.0
    connections: int = 0  # connections accepted
    channels: int = 0  # channels started through it
    refused: int = 0  # channels refused (not defined, stopped, busy, a version or TLS failure ...)
    blocked: int = 0  # refused by channel authentication records
    dropped: int = 0  # closed before a channel started (garbage, idle, too many waiting)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, address: str, text: str | None) -> ListenerStatus:
        try:
            data = json.loads(text) if text else {}
        except ValueError:
            data = {}
        known = {item.name for item in fields(cls)}
        values = {key: value for key, value in (data if isinstance(data, dict) else {}).items() if key in known}
        values["address"] = address
        try:
            return cls(**values)
        except TypeError:
            return cls(address)

    def dump(self) -> str:
        data = asdict(self)
        data.pop("address")
        return json.dumps(data, sort_keys=True)


def statuses(tx: Transaction, system: str) -> dict[str, ListenerStatus]:
    rows = tx.conn.execute("SELECT address, status FROM listener_status WHERE system = ?", (system,)).fetchall()
    return {str(address): ListenerStatus.load(str(address), text) for address, text in rows}


def status_of(tx: Transaction, system: str, address: Address) -> ListenerStatus:
    row = tx.conn.execute(
        "SELECT status FROM listener_status WHERE system = ? AND address = ?", (system, str(address))
    ).fetchone()
    return ListenerStatus.load(str(address), row[0] if row else None)


def put_status(tx: Transaction, system: str, status: ListenerStatus) -> None:
    tx.conn.execute(
        "INSERT INTO listener_status (system, address, status) VALUES (?, ?, ?) "
        "ON CONFLICT(system, address) DO UPDATE SET status = excluded.status",
        (system, status.address, status.dump()),
    )


def _bound_port(tx: Transaction, system: str, address: Address) -> int:
    """The port a PORT(0) listener got from its loop (0 when no loop listens)."""
    if address.port:
        return address.port
    from mqtool.engine.http.records import Owner, owner_alive

    status = status_of(tx, system, address)
    live = status.state == LISTENING and owner_alive(Owner.from_dict(status.owner))
    return status.port if live else 0
