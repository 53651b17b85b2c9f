"""Failed logins: the same work for an unknown user as for a wrong password (one scrypt
against a dummy hash of the same cost), and a delay per client address that grows with
its consecutive failures, so that guessing passwords is slow while other clients and a
right password from another address are not delayed.

`Throttle` is data and arithmetic (an injected monotonic clock, no sleeping): the
connection asks it how long to wait before verifying (and waits with asyncio, so
nothing else waits), and tells it how each attempt went.
"""

from __future__ import annotations

import base64
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from .config import _SCRYPT_N, _SCRYPT_P, _SCRYPT_R

#: Failures in a row from one address before its attempts are delayed.
FREE_FAILURES = 5
#: The delay after FREE_FAILURES failures; it doubles with each further one, up to MAX_DELAY.
FIRST_DELAY = 0.5
MAX_DELAY = 30.0
#: An address without a failure for this long starts again from nothing.
FORGET_AFTER = 15 * 60.0
#: Addresses remembered at once (the least recently failed are forgotten first).
MAX_ADDRESSES = 4096
#: Console lines about failed logins, at most this many per CONSOLE_WINDOW seconds.
CONSOLE_LINES = 20
CONSOLE_WINDOW = 60.0


def dummy_hash(like: str | None) -> str:
    """A stored-password form that no password matches, with the cost parameters of
    `like` (a user's hash; the defaults without one): an unknown user's check costs
    what a known user's does."""
    n, r, p = _SCRYPT_N, _SCRYPT_R, _SCRYPT_P
    if like is not None:
        parts = like.split("$")
        if len(parts) == 6 and all(part.isdigit() for part in parts[1:4]):
            n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
    salt, digest = (base64.b64encode(secrets.token_bytes(size)).decode("ascii") for size in (16, 64))
    return f"scrypt${n}${r}${p}${salt}${digest}"


def delay_after(failures: int) -> float:
    """The wait that `failures` failures in a row earn an address's next attempt."""
    if failures < FREE_FAILURES:
        return 0.0
    return min(MAX_DELAY, FIRST_DELAY * 2.0 ** min(failures - FREE_FAILURES, 32))


@dataclass
class _Run:
    failures: int = 0
    last: float = 0.0  # when the last failure was told
    ready: float = 0.0  # the earliest time the next attempt is verified


class Throttle:
    """Consecutive failed logins per client address and the waits they earn."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, limit: int = MAX_ADDRESSES) -> None:
        self.clock = clock
        self.limit = limit
        self._runs: OrderedDict[str, _Run] = OrderedDict()
        self._window_start = -CONSOLE_WINDOW
        self._window_lines = 0

    def __len__(self) -> int:
        return len(self._runs)

    def _run(self, address: str, now: float) -> _Run | None:
        run = self._runs.get(address)
        if run is not None and now - run.last > FORGET_AFTER:
            del self._runs[address]
            return None
        return run

    def wait(self, address: str) -> float:
        """Seconds an attempt from `address` waits before its credentials are checked
        (0: none). Each attempt reserves its turn: attempts sent at once from one
        address wait one after another, a step apart."""
        now = self.clock()
        run = self._run(address, now)
        step = 0.0 if run is None else delay_after(run.failures)
        if run is None or step == 0.0:
            return 0.0
        start = max(now, run.ready)
        run.ready = start + step
        return start - now

    def failed(self, address: str) -> int:
        """Counts a failed login from `address`; returns the failures in a row."""
        now = self.clock()
        run = self._run(address, now) or _Run()
        run.failures += 1
        run.last = now
        run.ready = max(run.ready, now + delay_after(run.failures))
        self._runs[address] = run
        self._runs.move_to_end(address)
        while len(self._runs) > self.limit:
            self._runs.popitem(last=False)
        return run.failures

    def succeeded(self, address: str) -> None:
        """A right password from `address`: its run of failures ends."""
        self._runs.pop(address, None)

    def report(self, failures: int) -> str | None:
        """The console message a failure count calls for: MQT0355W when throttling
        starts, MQT0354W at 1, 2, 4, 8 ... failures; None otherwise, and None beyond
        CONSOLE_LINES lines a CONSOLE_WINDOW (an attack from many addresses does not
        flood the console)."""
        if failures == FREE_FAILURES:
            msg_id = "MQT0355W"
        elif failures & (failures - 1) == 0:
            msg_id = "MQT0354W"
        else:
            return None
        now = self.clock()
        if now - self._window_start >= CONSOLE_WINDOW:
            self._window_start, self._window_lines = now, 0
        if self._window_lines >= CONSOLE_LINES:
            return None
        self._window_lines += 1
        return msg_id
