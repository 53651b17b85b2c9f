"""Requests answered at once (mqtool/rest/server.py, RestConnection.answer_now): a plain
request that comes while its connection's task is idle, and needs nothing waited for,
is answered in the transport's data_received with the same bytes the task would send;
pipelined requests keep their order when one of them needs the store thread; and the
listener's time-out of an idle connection counts from the last answer given at once
(a connection kept busy this way is not closed, an idle one still is)."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest

from mqtool.clock import Clock
from mqtool.rest.config import RestConfig, RestUser, hash_password, load, write
from mqtool.rest.server import RestConnection, RestServer
from mqtool.rest.service import RestService
from tests.conftest import FROZEN
from tests.test_rest_api import ADMIN, read_response
from tests.test_rest_wire import DISPLAY, _request

QUEUE_DISPLAY = b'{"type": "runCommandJSON", "command": "DISPLAY", "qualifier": "QLOCAL", "name": "NOW.Q"}'
QUEUE_DEFINE = b'{"type": "runCommandJSON", "command": "DEFINE", "qualifier": "QLOCAL", "name": "NOW.Q"}'


def _configure(state_dir: Path, timeout: float) -> None:
    user = RestUser(ADMIN[0], ("MQWebAdmin",), hash_password(ADMIN[1]))
    write(state_dir, RestConfig(port=0, maxbody=4096, timeout=timeout, users=(user,)))


# While false, no request is answered at once (the task answers every one).
AT_ONCE = [True]


@pytest.fixture
def answered(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The status of every reply given at once, as the listener gives them."""
    given: list[int] = []
    original = RestConnection._reply_now
    AT_ONCE[0] = True

    def recorded(self: RestConnection, *args: Any) -> Any:
        reply = original(self, *args) if AT_ONCE[0] else None
        if reply is not None:
            given.append(reply.status)
        return reply

    monkeypatch.setattr(RestConnection, "_reply_now", recorded)
    return given


@pytest.fixture
def port(state_dir: Path) -> Iterator[int]:
    _configure(state_dir, 30)
    with RestService(state_dir, Clock.from_setting(FROZEN)) as service:
        assert service.port
        yield service.port


def _ask(port: int, raw: bytes, answers: int = 1, at_once: bool = True) -> list[bytes]:
    """Sends `raw` and reads `answers` whole responses; `at_once` False: with nothing
    answered at once (the task answers)."""
    AT_ONCE[0] = at_once
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(raw)
            reader = sock.makefile("rb")
            return [b"".join(read_response(reader)) for _ in range(answers)]
    finally:
        AT_ONCE[0] = True


def test_a_request_that_comes_while_idle_is_answered_at_once_as_the_task_answers_it(
    port: int, answered: list[int]
) -> None:
    _ask(port, _request())  # the first request opens the store in the store thread
    assert answered == []
    at_once = _ask(port, _request(body=DISPLAY + b" "))
    assert answered == [200]
    by_task = _ask(port, _request(body=DISPLAY + b"  "), at_once=False)
    assert answered == [200]
    assert at_once == by_task and at_once[0].startswith(b"HTTP/1.1 200 OK\r\n")
    # A refusal before anything runs is answered at once too, with the task's bytes.
    no_csrf = _request().replace(b"ibm-mq-rest-csrf-token: x\r\n", b"")
    assert _ask(port, no_csrf) == _ask(port, no_csrf, at_once=False)
    assert answered == [200, 403]


def test_pipelined_requests_keep_their_order_around_one_for_the_store_thread(port: int, answered: list[int]) -> None:
    _ask(port, _request())
    raw = _request(QUEUE_DISPLAY) + _request(QUEUE_DEFINE) + _request(QUEUE_DISPLAY + b" ") + _request(DISPLAY)
    first, defined, second, other = (json.loads(answer.partition(b"\r\n\r\n")[2]) for answer in _ask(port, raw, 4))
    assert first["commandResponse"] == []  # answered at once, before the DEFINE
    assert defined["overallCompletionCode"] == 0
    assert second["commandResponse"][0]["parameters"]["queue"] == "NOW.Q"
    assert other["commandResponse"][0]["parameters"]["queue"] == "SYSTEM.DEFAULT.LOCAL.QUEUE"
    assert answered == [200]  # the DEFINE and what came after it went to the task


class _ShiftedLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock the test moves forward: timers fall due when it says,
    not when real time passes."""

    shift = 0.0

    def time(self) -> float:
        return super().time() + self.shift


class _Counting(RestConnection):
    """Counts the waits for a request (each _exchange) of the connection."""

    made: ClassVar[list[_Counting]] = []

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.exchanges = 0
        _Counting.made.append(self)

    async def _exchange(self) -> bool:
        self.exchanges += 1
        return await super()._exchange()


async def _until(condition: Any) -> None:
    for _ in range(6000):  # a generous bound: 60 s
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the condition never came true")


def test_the_time_out_counts_from_the_last_answer_given_at_once(state_dir: Path, answered: list[int]) -> None:
    _configure(state_dir, 1000)
    _Counting.made = []

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        assert isinstance(loop, _ShiftedLoop)
        server = RestServer(state_dir, Clock.from_setting(FROZEN), load(state_dir))
        server._connection = _Counting
        await server.start()
        try:
            assert server.port is not None
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)

            async def ask(body: bytes) -> bytes:
                writer.write(_request(body))
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
                return head + await reader.readexactly(length)

            assert (await ask(DISPLAY)).startswith(b"HTTP/1.1 200 ")  # by the task (the store thread)
            (connection,) = _Counting.made
            await _until(lambda: connection.idle and connection.exchanges == 2)
            # The wait began at T; at T+500 a request is answered at once.
            loop.shift += 500
            assert (await ask(DISPLAY + b" ")).startswith(b"HTTP/1.1 200 ")
            assert answered == [200]
            # At T+1000.5 the wait's time-out falls due: the connection was not idle, so
            # the task waits again, until T+1500 (the time-out after that answer).
            loop.shift += 500.5
            await _until(lambda: connection.exchanges == 3 and connection.idle)
            assert server.stats.timed_out == 0
            # At T+1300.5 another is answered at once; then a request comes in pieces:
            # its time runs from that answer (to T+2300.5), not from T+500.
            loop.shift += 300
            assert (await ask(DISPLAY + b"  ")).startswith(b"HTTP/1.1 200 ")
            assert answered == [200, 200]
            raw = _request(DISPLAY + b"   ")
            writer.write(raw[:20])
            await _until(lambda: not connection.idle)
            loop.shift += 300  # T+1600.5: past T+1500
            for _ in range(10):
                await asyncio.sleep(0.01)  # the loop runs whatever timers fall due
            writer.write(raw[20:])
            head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 ") and server.stats.timed_out == 0
            await reader.readexactly(int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0]))
            # Idle from then on (T+1600.5): closed at the time-out after that answer.
            loop.shift += 1001
            assert await reader.read(1) == b""
            await _until(lambda: server.stats.timed_out == 1)
            writer.close()
        finally:
            await server.stop()
            await server.rest.close()

    with asyncio.Runner(loop_factory=_ShiftedLoop) as runner:
        runner.run(scenario())
