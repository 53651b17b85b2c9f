"""The TCP sessions this process runs, by (system, channel): so that a new connection
for a receiver whose session is stale (its sender's process ended and a new one came
back) can take it over (MQ's ADOPTMCA), and so that STOP and STOP CHINIT can end a
session at once."""

from __future__ import annotations

import threading
from collections.abc import Callable

_LOCK = threading.Lock()
_SESSIONS: dict[tuple[str, str], tuple[str, Callable[[str], None]]] = {}


def register(system: str, channel: str, session: str, abort: Callable[[str], None]) -> None:
    with _LOCK:
        _SESSIONS[(system, channel)] = (session, abort)


def forget(system: str, channel: str, session: str) -> None:
    with _LOCK:
        found = _SESSIONS.get((system, channel))
        if found is not None and found[0] == session:
            del _SESSIONS[(system, channel)]


def adopt(system: str, channel: str, session: str) -> None:
    """Ends the session `session` of the channel if this process runs it."""
    with _LOCK:
        found = _SESSIONS.get((system, channel))
    if found is not None and found[0] == session:
        found[1]("adopted by a new connection of the same queue manager")


def abort(system: str, channel: str, reason: str) -> bool:
    """Ends whatever session of the channel this process runs; False when none."""
    with _LOCK:
        found = _SESSIONS.get((system, channel))
    if found is None:
        return False
    found[1](reason)
    return True


def running() -> dict[tuple[str, str], str]:
    with _LOCK:
        return {key: value[0] for key, value in _SESSIONS.items()}
