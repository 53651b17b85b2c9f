"""The REST listener's console lines (https that cannot start, failed logins and their
throttling): recorded in the store's console, where `mqtool console`, `mqtool serve`
and the shell show them, on the console of the complex's first z/OS system (mqweb runs
beside the z/OS queue manager), or its first system when it has no z/OS system."""

from __future__ import annotations

from typing import Any

from mqtool.clock import Clock
from mqtool.engine.console import console
from mqtool.state import Store


def record(store: Store, clock: Clock, msg_id: str, **fields: Any) -> str:
    """Records the message (one transaction); returns the line, or "" when the store
    has no system to show it."""
    with store.transaction() as tx:
        systems = tx.systems()
        system = next((s for s in systems if s.platform == "zos"), systems[0] if systems else None)
        if system is None:
            return ""
        return console(tx, system, clock.timestamp(), msg_id, **fields)
