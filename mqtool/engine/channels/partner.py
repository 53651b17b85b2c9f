"""Where a channel's other end is: each queue manager of the complex listens at the
addresses of its `listener` setting (listeners.py: `mqtool system add|alter --listener`
and START LISTENER); a sender's CONNAME names one, and the other end is the channel of
the same name on that queue manager (a CONNAME no system of the store listens at is
reached over TCP: tcp/). Also how each platform names the objects a channel deals with
(channel and local queue types, the default dead-letter queue)."""

from __future__ import annotations

from dataclasses import dataclass

from mqtool.engine.channels.listeners import listening
from mqtool.state import ObjectRecord, SystemRecord, Transaction

__all__ = ["PLATFORMS", "Platform", "chinit_active", "deadq", "listening", "platform_of", "queue_manager", "started"]


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
