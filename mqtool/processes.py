"""Whether a process that left its id in the store still runs: the one check behind
open handles, subscriptions' owners, dynamic queues' owners and z/OS connections.

A process id alone is not enough: after a kill -9 the id may be used again by another
process. Where the kernel says when a process started (Linux: /proc/PID/stat, clock
ticks since boot), that start is kept beside the id and compared; where it cannot be
read, the id alone decides. A zombie (ended, not yet waited for) has ended."""

from __future__ import annotations

import os
from pathlib import Path

_MY_START: dict[int, str] = {}


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name ([] where it cannot be read)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return []
    return text[text.rfind(")") + 2 :].split()


def start(pid: int) -> str:
    """When the process started, as the kernel counts it; "" where that cannot be read."""
    fields = _stat(pid)
    return fields[19] if len(fields) > 19 else ""


def my_start() -> str:
    """This process's start (read once per process)."""
    pid = os.getpid()
    if pid not in _MY_START:
        _MY_START[pid] = start(pid)
    return _MY_START[pid]


def alive(pid: int, started: str = "") -> bool:
    """Whether process `pid` runs, and is the one that started at `started` when that is
    given (and the kernel tells)."""
    if pid <= 0:
        return False
    if pid == os.getpid():
        return not started or started == my_start()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # it exists, and belongs to another user
    except OSError:
        return False
    fields = _stat(pid)
    if fields and fields[0] in ("Z", "X"):
        return False
    return not started or not fields or len(fields) <= 19 or fields[19] == started
