"""Where a channel's other end is: each queue manager of the complex has a listener
address (`mqtool system add|alter --listener host(port)`), a sender's CONNAME names one,
and the other end is the channel of the same name on that queue manager. Also how each
platform names the objects a channel deals with (channel and local queue types, the
default dead-letter queue, the console's csect)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mqtool.state import ObjectRecord, SystemRecord, Transaction

DEFAULT_PORT = 1414  # MQ's port when a CONNAME gives none
_ADDRESS = re.compile(r"^\s*([A-Za-z0-9.\-:]+)\s*(?:\(\s*(\d{1,5})\s*\))?\s*$")


@dataclass(frozen=True)
class Platform:
    """How a platform's commands name the objects of a channel."""

    name: str  # "ztpf" or "zos"
    channel_type: str  # the channel object type in the store
    local_type: str  # the local queue type in the store
    default_deadq: str


PLATFORMS: dict[str, Platform] = {
    "ztpf": Platform("ztpf", "CHL", "QL", "DEAD.LETTER.QUEUE"),
    "zos": Platform("zos", "CHANNEL", "QLOCAL", "SYSTEM.DEAD.QUEUE"),
}


def platform_of(system: SystemRecord) -> Platform:
    return PLATFORMS[system.platform]


def address(text: str) -> tuple[str, int] | None:
    """A CONNAME or listener as (host in lower case, port); None when it is not one."""
    match = _ADDRESS.match(text or "")
    if match is None:
        return None
    port = int(match.group(2)) if match.group(2) else DEFAULT_PORT
    return match.group(1).lower(), port


def listening(tx: Transaction, conname: str) -> SystemRecord | None:
    """The system whose listener is at `conname` (host compared without case, the port
    1414 when CONNAME gives none); None when no system listens there."""
    wanted = address(conname)
    if wanted is None:
        return None
    for system in tx.systems():
        listener = str(system.attrs.get("listener") or "")
        if listener and address(listener) == wanted:
            return system
    return None


def queue_manager(tx: Transaction, system: SystemRecord) -> ObjectRecord | None:
    found = tx.objects(system.name, "QMGR")
    return found[0] if found else None


def channel(tx: Transaction, system: SystemRecord, name: str) -> ObjectRecord | None:
    return tx.get_object(system.name, platform_of(system).channel_type, name)


def started(manager: ObjectRecord | None) -> bool:
    return manager is not None and manager.status.get("state", "STARTED") == "STARTED"


def chinit_active(system: SystemRecord, manager: ObjectRecord | None) -> bool:
    """Whether a queue manager's channels can run: z/OS needs its channel initiator
    (started with the queue manager unless STOP CHINIT stopped it, mqtool's choice);
    a z/TPF queue manager runs its channels itself."""
    if not started(manager):
        return False
    assert manager is not None
    return system.platform != "zos" or manager.status.get("chinit", "ACTIVE") == "ACTIVE"


def deadq(system: SystemRecord, manager: ObjectRecord) -> str:
    """The queue manager's dead-letter queue (DEADQ); blank means none."""
    return str(manager.attrs.get("DEADQ", platform_of(system).default_deadq) or "").strip()
