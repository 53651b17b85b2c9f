"""The HTTP servers of z/TPF systems as the store keeps them (objects of type
HTTPSERVER) and where their NAME.conf files live; shared by ZHTPS, `.http`,
`mqtool http` and the serving loop, which may all be different processes.

One record per server: `attrs` hold the options in force (read by the last START or
REFRESH), `status` the run state, generation counters, the statistics and the
serving process that owns the listener. Every change is one read-modify-write in a
store transaction, so ZHTPS commands and a serving process never lose each
other's updates.
"""

from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqtool import processes
from mqtool.engine.http.config import ServerOptions
from mqtool.engine.http.stats import HttpStats
from mqtool.state import ObjectRecord, Transaction

__all__ = [
    "HTTPSERVER",
    "STARTED",
    "STOPPED",
    "Owner",
    "ServerStatus",
    "absorb_delta",
    "conf_folder",
    "conf_path",
    "config_names",
    "options_from_attrs",
    "options_to_attrs",
    "owner_alive",
    "register_service",
    "service_alive",
    "shown_path",
    "system_folder",
    "unregister_service",
]

HTTPSERVER = "HTTPSERVER"
STARTED = "STARTED"
STOPPED = "STOPPED"
_SERVICES_KEY = "http.services"
# Tokens of the serving loops alive in this process: a record owned by this pid
# but by a loop that has ended is free to take.
_LIVE_TOKENS: set[str] = set()


# ------------------------------------------------------------------ files
def system_folder(state_dir: Path, system: str) -> Path:
    """The folder of one system in the state directory: its z/TPF file system."""
    return Path(state_dir) / "systems" / system


def conf_folder(state_dir: Path, system: str) -> Path:
    """`etc/tpf_httpserver` of the system, where NAME.conf files live."""
    return system_folder(state_dir, system) / "etc" / "tpf_httpserver"


def conf_path(state_dir: Path, system: str, name: str) -> Path:
    return conf_folder(state_dir, system) / f"{name}.conf"


def shown_path(state_dir: Path, system: str, path: Path | str) -> str:
    """A path as the z/TPF system sees it: `/etc/tpf_httpserver/W.conf` inside the
    system's folder (so transcripts do not depend on the state directory), the
    real path outside it."""
    real = Path(path)
    try:
        inside = real.relative_to(system_folder(state_dir, system))
    except ValueError:
        return str(real)
    return "/" + inside.as_posix()


def config_names(state_dir: Path, system: str) -> list[str]:
    """The server names that have a NAME.conf in the system's folder, sorted."""
    folder = conf_folder(state_dir, system)
    try:
        entries = list(folder.iterdir())
    except OSError:
        return []
    return sorted(entry.stem for entry in entries if entry.suffix == ".conf" and entry.is_file())


# ---------------------------------------------------------------- options
def options_to_attrs(options: ServerOptions) -> dict[str, Any]:
    """The options in force as record attributes (keyword names of NAME.conf)."""
    return {
        "FILE": str(options.path),
        "PORT": options.port,
        "IP": options.ip,
        "DOCROOT": str(options.docroot),
        "MAXCONN": options.maxconn,
        "TIMEOUT": options.timeout,
        "COMP": list(options.comp),
        "COMPSIZEHW": options.compsizehw,
        "COMPSIZESW": options.compsizesw,
    }


def options_from_attrs(name: str, attrs: dict[str, Any]) -> ServerOptions:
    return ServerOptions(
        name=name,
        port=int(attrs["PORT"]),
        ip=str(attrs["IP"]),
        docroot=Path(str(attrs["DOCROOT"])),
        maxconn=int(attrs["MAXCONN"]),
        timeout=float(attrs["TIMEOUT"]),
        comp=tuple(str(c) for c in attrs.get("COMP", ())),
        compsizehw=int(attrs["COMPSIZEHW"]),
        compsizesw=int(attrs["COMPSIZESW"]),
        path=Path(str(attrs["FILE"])),
    )


# ---------------------------------------------------------------- owners
@dataclass
class Owner:
    """The serving loop that holds a server's listener (or is about to)."""

    pid: int
    host: str
    token: str
    ip: str = ""
    port: int | None = None  # None while binding
    options_generation: int = 0  # the refresh the listener has applied
    reset_generation: int = 0  # the statistics reset the listener has seen
    drained: int = 0  # the last drain request answered

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Owner | None:
        if not data:
            return None
        try:
            return cls(
                pid=int(data["pid"]),
                host=str(data["host"]),
                token=str(data["token"]),
                ip=str(data.get("ip", "")),
                port=None if data.get("port") is None else int(data["port"]),
                options_generation=int(data.get("options_generation", 0)),
                reset_generation=int(data.get("reset_generation", 0)),
                drained=int(data.get("drained", 0)),
            )
        except (KeyError, TypeError, ValueError):
            return None  # unreadable: treated as no owner, so a loop can take over


def owner_alive(owner: Owner | None) -> bool:
    """Whether the owning loop still runs. A process that died (even by kill -9)
    no longer holds its servers; an owner on another host is taken on trust."""
    if owner is None:
        return False
    if owner.host != socket.gethostname():
        return True
    if owner.pid == os.getpid():
        return owner.token in _LIVE_TOKENS
    return processes.alive(owner.pid)


def new_owner(token: str) -> Owner:
    return Owner(pid=os.getpid(), host=socket.gethostname(), token=token)


def register_service(tx: Transaction, token: str) -> None:
    """Records a serving loop as running (START reports whether one is)."""
    _LIVE_TOKENS.add(token)
    services = _services(tx)
    services[token] = {"pid": os.getpid(), "host": socket.gethostname()}
    tx.set_meta(_SERVICES_KEY, json.dumps(services, sort_keys=True))


def unregister_service(tx: Transaction, token: str) -> None:
    _LIVE_TOKENS.discard(token)
    services = _services(tx)
    if services.pop(token, None) is not None:
        tx.set_meta(_SERVICES_KEY, json.dumps(services, sort_keys=True))


def forget_token(token: str) -> None:
    """Marks a loop of this process as ended even when the store could not be told."""
    _LIVE_TOKENS.discard(token)


def service_alive(tx: Transaction) -> bool:
    """True when some serving loop (`mqtool serve`, a shell) runs on this store."""
    for token, data in _services(tx).items():
        owner = Owner.from_dict({"token": token, **data})
        if owner_alive(owner):
            return True
    return False


def _services(tx: Transaction) -> dict[str, dict[str, Any]]:
    raw = tx.get_meta(_SERVICES_KEY)
    try:
        value = json.loads(raw) if raw else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


# ---------------------------------------------------------------- status
@dataclass
class ServerStatus:
    """The run-time part of an HTTPSERVER record.

    Generations let other processes see what changed without comparing values:
    START bumps `start_generation` (a listener of an older one is restarted),
    START and REFRESH bump `options_generation` (new connections get the new
    options), START and STATS RESET bump `reset_generation` (counts a loop
    gathered before the reset are dropped instead of being added after it).
    """

    state: str = STOPPED
    start_generation: int = 0
    options_generation: int = 0
    reset_generation: int = 0
    started: float | None = None
    stopped: float | None = None
    refreshed: float | None = None
    reset_tod: int = 0  # TOD clock value of the last reset (or start)
    stats: dict[str, Any] = field(default_factory=dict)
    owner: dict[str, Any] | None = None
    listen_error: str = ""  # why the listener could not be opened (this start)
    drain_request: int = 0  # bumped by `.http` to have the owner persist at once

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ServerStatus:
        known = {name for name in cls.__dataclass_fields__}
        return cls(**{key: value for key, value in data.items() if key in known})

    @classmethod
    def of(cls, record: ObjectRecord | None) -> ServerStatus:
        return cls() if record is None else cls.from_dict(record.status)

    @property
    def started_now(self) -> bool:
        return self.state == STARTED

    def live_owner(self) -> Owner | None:
        owner = Owner.from_dict(self.owner)
        return owner if owner_alive(owner) else None

    def statistics(self) -> HttpStats:
        """The stored counters; an unreadable record counts as zero."""
        try:
            return HttpStats.from_dict(self.stats)
        except (TypeError, ValueError):
            return HttpStats()

    def reset_statistics(self, tod: int) -> None:
        """Zeroes the counters (ACTIVE stays), records the reset TOD, and tells the
        owning loop to drop what it counted before."""
        stats = self.statistics()
        stats.reset()
        self.stats = stats.to_dict()
        self.reset_tod = tod
        self.reset_generation += 1

    def absorb(self, delta: HttpStats, reset_generation: int) -> None:
        """Adds counts a server gathered under `reset_generation` into the stored
        statistics; after a newer reset (ZHTPS STATS RESET, a new START) only the
        ACTIVE gauge is kept, so what was counted before it does not reappear."""
        if self.reset_generation != reset_generation:
            delta = HttpStats(active=delta.active, hwmark=delta.active)
        stored = self.statistics()
        stored.absorb(delta)
        self.stats = stored.to_dict()


def absorb_delta(
    tx: Transaction,
    system: str,
    name: str,
    delta: HttpStats,
    reset_generation: int,
) -> int | None:
    """Adds counts gathered by a server into its stored statistics.

    `reset_generation` is the reset the counts were gathered under: after a newer
    reset only the ACTIVE gauge is kept. Returns the stored reset generation (the
    caller's new one), or None when the server has no record any more.
    """
    record = tx.get_object(system, HTTPSERVER, name)
    if record is None:
        return None
    status = ServerStatus.of(record)
    status.absorb(delta, reset_generation)
    record.status = status.to_dict()
    tx.put_status(record)
    return status.reset_generation
