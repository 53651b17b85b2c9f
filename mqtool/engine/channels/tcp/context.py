"""What a channel thread of the TCP service may ask of the service that started it: the
store's folder, the clock, an owner record for the rows it holds, counting, and saying
that an inbound session ended. The service (service.py) provides it; the threads
(inbound.py, outbound.py) use only this, so that neither imports the service."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from mqtool.clock import Clock
from mqtool.engine.channels.tcp.listener import Key


class Context(Protocol):
    state_dir: Path
    clock: Clock
    token: str

    def owner(self, kind: str) -> dict[str, Any]:
        """The owner record of what a thread holds in the store (the loop's token)."""
        ...

    def count(self, key: Key, what: str) -> None:
        """Counts an event of a listener (connections, refusals ...)."""
        ...

    def session_ended(self, inbound: Any) -> None:
        """An inbound session's thread ends: the service forgets it."""
        ...
