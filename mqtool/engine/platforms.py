"""The platforms the engine knows, each a package that registers its storage model with
the message core and its timers with tick when imported, and `open_queue`, which opens
a queue of any system with its platform's model. The edge (CLI, directives, channels)
opens queues here; the core itself never imports a platform."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from mqtool.engine.core.handle import QueueHandle
from mqtool.engine.core.model import StorageModel, model_for
from mqtool.engine.core.pubsub import TopicHandle
from mqtool.engine.core.reasons import Q_MGR_NOT_AVAILABLE, UNKNOWN_OBJECT_NAME, MQError

if TYPE_CHECKING:
    from mqtool.clock import Clock
    from mqtool.state import Store

# platform (as in SystemRecord.platform) -> the module that registers it
PLATFORMS: dict[str, str] = {
    "ztpf": "mqtool.engine.ztpf.platform",
    "zos": "mqtool.engine.zos.platform",
}
# Services of the engine that run on every platform and register timers too.
SERVICES: tuple[str, ...] = ("mqtool.engine.channels.mca", "mqtool.engine.core.subscriptions")
_LOADED: list[bool] = []
_PLATFORMS_LOADED: list[bool] = []


def load_platforms() -> None:
    """Imports every platform once: their models register, and their timers, among them
    every observer (timers.OBSERVERS, which quiet_until reads). The services' timers
    act, so a tick that runs a platform's timer need not import them (tick.py)."""
    if _PLATFORMS_LOADED:
        return
    for module in PLATFORMS.values():
        importlib.import_module(module)
    _PLATFORMS_LOADED.append(True)


def load() -> None:
    """Imports every platform once (their models and timers register), then the
    services around them (the channel agents' timer, the subscriptions' expiry)."""
    if _LOADED:
        return
    load_platforms()
    for module in SERVICES:
        importlib.import_module(module)
    _LOADED.append(True)


def model(platform: str) -> StorageModel:
    """The storage model of a platform."""
    load()
    return model_for(platform)


class NoPubSub(MQError):
    """A topic opened on a platform without publish/subscribe (z/TPF MQ)."""


def open_topic(store: Store, clock: Clock, system: str, topic: str, platform: str, retain: bool = False) -> TopicHandle:
    """A handle on topic string `topic` of `system` for publishing (not yet opened). NoPubSub
    (MQRC 2085) when the system's platform has no publish/subscribe."""
    chosen = model(platform)
    if not chosen.pubsub:
        raise NoPubSub(
            UNKNOWN_OBJECT_NAME, f"{system} is a {platform} system: z/TPF MQ has no publish/subscribe (no topics)"
        )
    return TopicHandle(store, clock, system, topic, chosen, retain)


def open_queue(store: Store, clock: Clock, system: str, queue: str, platform: str | None = None) -> QueueHandle:
    """A handle on `queue` of `system` (not yet opened: call `open(tx)`), with the model
    of the system's platform (read from the store when not given). MQError 2059 when
    the system has no platform the engine runs."""
    if platform is None:
        # A single read, valid inside the caller's transaction or outside any.
        row = store.conn.execute("SELECT platform FROM systems WHERE name = ?", (system,)).fetchone()
        if row is None:
            raise MQError(Q_MGR_NOT_AVAILABLE, f"system {system} does not exist")
        platform = str(row[0])
    try:
        chosen = model(platform)
    except LookupError:
        raise MQError(Q_MGR_NOT_AVAILABLE, f"system {system} ({platform}) has no message engine") from None
    return QueueHandle(store, clock, system, queue, chosen)
