"""Failed logins (issue 16, item 2): an unknown user costs the same hashing as a wrong
password (shown by counting the scrypt calls, not by timing), and repeated failures
from one client address are slowed down by a delay the code decides (a fake clock, a
recording sleep), per address, reset by a success, with console lines."""

from __future__ import annotations

import asyncio
import base64
import http.client
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqtool.clock import Clock
from mqtool.rest import config as rest_config
from mqtool.rest.config import RestConfig, RestUser, hash_password, write
from mqtool.rest.logins import FIRST_DELAY, FORGET_AFTER, FREE_FAILURES, MAX_DELAY, Throttle, delay_after
from mqtool.rest.server import Authenticator
from mqtool.rest.service import RestService
from mqtool.state import Store
from tests.conftest import FROZEN

ADMIN = ("admin", "admin-secret")
OPS = ("ops", "ops-secret")
QMGRS = "/ibmmq/rest/v2/admin/qmgr"


def basic(name: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{name}:{password}".encode()).decode()


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# ------------------------------------------------------------- equal work
def test_an_unknown_user_costs_one_scrypt_of_the_same_cost_as_a_wrong_password(monkeypatch: pytest.MonkeyPatch) -> None:
    users = (RestUser("admin", ("MQWebAdmin",), hash_password("right")),)
    auth = Authenticator(users)
    calls: list[tuple[int, int, int, int]] = []
    real = rest_config.hashlib.scrypt

    def counted(password: bytes, *, salt: bytes, n: int, r: int, p: int, dklen: int = 64) -> bytes:
        calls.append((n, r, p, dklen))
        return real(password, salt=salt, n=n, r=r, p=p, dklen=dklen)

    monkeypatch.setattr(rest_config.hashlib, "scrypt", counted)
    work = {}
    for name, password in (("nobody", "x"), ("admin", "wrong"), ("admin", "right"), ("", ""), ("nobody", "")):
        calls.clear()
        user = auth.verify(basic(name, password))
        assert (user is not None) == (password == "right")
        work[(name, password)] = list(calls)
    assert len({tuple(calls) for calls in work.values()}) == 1  # the same work for each
    assert len(work[("nobody", "x")]) == 1
    # Without a colon the name is checked all the same (and never matches).
    calls.clear()
    assert auth.verify("Basic " + base64.b64encode(b"admin").decode()) is None and len(calls) == 1


def test_a_config_without_users_still_hashes() -> None:
    auth = Authenticator(())
    assert auth.verify(basic("a", "b")) is None


# ---------------------------------------------------------------- throttle
def test_the_wait_grows_with_failures_in_a_row_up_to_the_cap() -> None:
    """A client that tries again as soon as it may: no wait for the first failures,
    then FIRST_DELAY doubling with each failure, never more than MAX_DELAY."""
    clock = FakeClock()
    throttle = Throttle(clock)
    waits = []
    for _ in range(FREE_FAILURES + 8):
        wait = throttle.wait("10.0.0.1")
        clock.now += wait
        waits.append(wait)
        throttle.failed("10.0.0.1")
    assert waits == [0.0] * FREE_FAILURES + [FIRST_DELAY * 2**k for k in range(6)] + [MAX_DELAY, MAX_DELAY]
    assert throttle.wait("10.0.0.2") == 0.0  # another address is not delayed
    throttle.succeeded("10.0.0.1")
    assert throttle.wait("10.0.0.1") == 0.0  # a success ends the run


def test_waits_of_attempts_sent_at_once_follow_each_other_and_time_heals() -> None:
    clock = FakeClock()
    throttle = Throttle(clock)
    for _ in range(FREE_FAILURES):
        throttle.failed("a")
    step = delay_after(FREE_FAILURES)
    assert [throttle.wait("a") for _ in range(3)] == [step, 2 * step, 3 * step]
    clock.now += 3 * step + 1
    assert throttle.wait("a") == 0.0  # its turn came long ago
    clock.now += FORGET_AFTER + 1
    assert throttle.failed("a") == 1  # forgotten: a new run


def test_memory_for_addresses_is_bounded() -> None:
    throttle = Throttle(FakeClock(), limit=3)
    for address in ("a", "b", "c", "d", "e"):
        throttle.failed(address)
    assert len(throttle) == 3
    assert throttle.failed("a") == 1 and throttle.failed("e") == 2


def test_the_console_is_told_at_1_2_4_8_and_when_throttling_starts_and_no_more_than_the_bound() -> None:
    clock = FakeClock()
    throttle = Throttle(clock)
    reports = {n: throttle.report(n) for n in range(1, 17)}
    assert {n for n, msg in reports.items() if msg == "MQT0354W"} == {1, 2, 4, 8, 16}
    assert [n for n, msg in reports.items() if msg == "MQT0355W"] == [FREE_FAILURES]
    flood = [throttle.report(1) for _ in range(100)]
    assert sum(1 for msg in flood if msg) < 20
    clock.now += 61
    assert throttle.report(1) == "MQT0354W"


# ------------------------------------------------------------ the listener
class Listener:
    def __init__(self, service: RestService) -> None:
        assert service.server is not None and service.port is not None
        self.service = service
        self.port = service.port
        self.context = service.server.rest
        self.clock = FakeClock()
        self.context.throttle = Throttle(self.clock)
        self.slept: list[float] = []
        self.gate = threading.Event()
        self.gate.set()

        async def sleep(seconds: float) -> None:
            self.slept.append(seconds)
            while not self.gate.is_set():  # held by a test: other clients go on meanwhile
                await asyncio.sleep(0.01)

        self.context.sleep = sleep

    def get(self, user: tuple[str, str], source: str = "127.0.0.1") -> int:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30, source_address=(source, 0))
        try:
            connection.request("GET", QMGRS, headers={"Authorization": basic(*user)})
            response = connection.getresponse()
            response.read()
            return response.status
        finally:
            connection.close()


@pytest.fixture
def listener(state_dir: Path) -> Iterator[Listener]:
    users = tuple(RestUser(name, ("MQWebAdmin",), hash_password(password)) for name, password in (ADMIN, OPS))
    write(state_dir, RestConfig(port=0, users=users))
    with RestService(state_dir, Clock.from_setting(FROZEN)) as service:
        yield Listener(service)


def console(state_dir: Path) -> list[str]:
    store = Store.open(state_dir)
    try:
        with store.transaction(write=False) as tx:
            return [text for _id, _system, _time, text in tx.console_since(None) if text.startswith("MQT035")]
    finally:
        store.close()


def test_failures_from_one_address_are_slowed_others_are_not(listener: Listener, state_dir: Path) -> None:
    for _ in range(FREE_FAILURES):
        assert listener.get(("admin", "guess")) == 401
    assert listener.slept == []
    assert listener.get(("nobody", "guess")) == 401
    assert listener.slept == [delay_after(FREE_FAILURES)]
    # A right password from another address is not delayed ...
    assert listener.get(OPS, source="127.0.0.2") == 200
    assert listener.slept == [delay_after(FREE_FAILURES)]
    # ... from the throttled one it waits its turn, then ends the run.
    assert listener.get(ADMIN) == 200
    assert len(listener.slept) == 2
    assert listener.get(("admin", "guess")) == 401 and len(listener.slept) == 2
    lines = console(state_dir)
    assert (
        lines[0] == "MQT0354W -CSQ1 REST API login failed for user admin from 127.0.0.1 (1 in a row from that address)"
    )
    assert any(
        line.startswith("MQT0355W -CSQ1 REST API slows logins from 127.0.0.1: 5 failures in a row") for line in lines
    )
    assert any("user nobody from 127.0.0.1 (6 in a row" in line for line in lines) is False  # 6 is not reported
    assert "guess" not in "".join(lines)


def test_a_throttled_attempt_does_not_hold_up_other_clients(listener: Listener) -> None:
    for _ in range(FREE_FAILURES):
        listener.get(("admin", "guess"))
    listener.gate.clear()
    outcome: dict[str, Any] = {}
    waiting = threading.Thread(target=lambda: outcome.setdefault("status", listener.get(("admin", "guess"))))
    waiting.start()
    deadline = time.monotonic() + 30
    while not listener.slept and time.monotonic() < deadline:
        time.sleep(0.01)
    assert listener.slept, "the throttled attempt never started to wait"
    # While it waits, the event loop serves others (the same address with known
    # credentials, and another address).
    assert listener.get(OPS, source="127.0.0.2") == 200
    assert "status" not in outcome
    listener.gate.set()
    waiting.join(30)
    assert outcome["status"] == 401
