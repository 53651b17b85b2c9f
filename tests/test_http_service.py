"""The z/TPF HTTP server through the full stack: NAME.conf, ZHTPS commands in one
store connection, the serving loop (HttpService) in another, real clients on
127.0.0.1 (http.client, raw sockets, curl), and ZHTPS STATS reading what happened.
"""

from __future__ import annotations

import contextlib
import errno
import gzip
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import pytest
from click.testing import CliRunner

from mqtool.cli.main import main_group
from mqtool.clock import Clock, parse_instant, to_tod
from mqtool.engine.http.records import HTTPSERVER, ServerStatus, conf_path
from mqtool.engine.http.server import HEAD_LIMIT
from mqtool.engine.http.service import HttpService
from mqtool.engine.http.stats import HttpStats
from mqtool.engine.payload import generate
from mqtool.state import Store

# Only a safety net so that a broken loop fails a test instead of hanging it; no
# assertion depends on how long anything takes.
SAFETY = 20.0
FROZEN = "2021-03-09T15:41:22Z"


def wait_for(condition: Callable[[], Any], what: str = "the state") -> Any:
    deadline = time.monotonic() + SAFETY
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"never reached {what}"
        time.sleep(0.01)


class Stack:
    """A state directory, a serving loop on it, and ZHTPS commands run in-process
    through the CLI (each with its own store connection, like another process)."""

    def __init__(self, state: Path) -> None:
        self.state = state
        self.runner = CliRunner()
        self.cmd("ZHTPS DISPLAY ALL")  # creates the default complex
        self.store = Store.open(state)
        self.service: HttpService | None = None

    def cli(self, *args: str) -> str:
        result = self.runner.invoke(
            main_group, ["--state", str(self.state), "--clock", FROZEN, *args], catch_exceptions=False
        )
        return result.output

    def cmd(self, *commands: str) -> str:
        return self.cli("cmd", *commands)

    def serve(self) -> HttpService:
        # Polls more often than the default, only to keep the tests short.
        self.service = HttpService(self.state, Clock(), poll_seconds=0.05, retry_polls=2)
        self.service.start()
        return self.service

    def conf(self, name: str, *lines: str, system: str = "TPF1") -> Path:
        path = conf_path(self.state, system, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.parent / "www" / name).mkdir(parents=True, exist_ok=True)
        # A 10 s TIMEOUT unless given: only a safety net for a client that hangs.
        timeout = () if any(line.startswith("TIMEOUT-") for line in lines) else ("TIMEOUT-10",)
        path.write_text("\n".join(("PORT-0", *timeout, *lines)) + "\n", encoding="utf-8")
        return path

    def status(self, name: str, system: str = "TPF1") -> ServerStatus:
        with self.store.transaction(write=False) as tx:
            record = tx.get_object(system, HTTPSERVER, name)
        assert record is not None, f"{name} has no record"
        return ServerStatus.of(record)

    def port(self, name: str, system: str = "TPF1") -> int:
        """Waits until a loop listens for the server; its OS-chosen port."""

        def listening() -> int | None:
            owner = self.status(name, system).live_owner()
            return owner.port if owner is not None else None

        port: int = wait_for(listening, f"{name} listening")
        return port

    def start(self, name: str, *lines: str, system: str = "TPF1") -> int:
        self.conf(name, *lines, system=system)
        out = self.cmd(f"ZHTPS START SERVER-{name}")
        assert "HTTPS0001I" in out, out
        return self.port(name, system)

    def stats(self, name: str) -> HttpStats:
        return self.status(name).statistics()

    def settled(self, name: str, **expected: int) -> HttpStats:
        """Waits until the stored statistics show `expected` (the loop stores them
        within a poll), then returns them."""

        def matches() -> HttpStats | None:
            stats = self.stats(name)
            return stats if all(getattr(stats, key) == value for key, value in expected.items()) else None

        found: HttpStats = wait_for(matches, f"statistics {expected}")
        return found

    def polls(self, count: int = 2) -> None:
        """Waits for `count` complete polls of the loop (each re-reads the store)."""
        assert self.service is not None
        target = self.service.polls + count
        wait_for(lambda: self.service is not None and self.service.polls >= target, "the next polls")

    def close(self) -> None:
        if self.service is not None:
            self.service.stop()
        self.store.close()


@contextlib.contextmanager
def stack_at(state: Path) -> Iterator[Stack]:
    """A Stack on `state`, closed (its loop stopped) at the end."""
    for name in ("MQTOOL_STATE", "MQTOOL_SYSTEM", "MQTOOL_CLOCK"):
        os.environ.pop(name, None)
    built = Stack(state)
    try:
        yield built
    finally:
        built.close()


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    with stack_at(tmp_path / "state") as built:
        yield built


@pytest.fixture
def served(stack: Stack) -> Stack:
    stack.serve()
    return stack


def get(port: int, path: str, headers: dict[str, str] | None = None, method: str = "GET") -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=SAFETY)
    conn.request(method, path, headers=headers or {})
    response = conn.getresponse()
    response.read()  # cached on the object; the connection may close
    conn.close()
    return response


def fetch(port: int, path: str, accept: str | None = None) -> tuple[int, str | None, bytes, str | None]:
    """(status, Content-Encoding, body as sent, Vary) of one GET."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=SAFETY)
    try:
        conn.request("GET", path, headers={} if accept is None else {"Accept-Encoding": accept})
        response = conn.getresponse()
        body = response.read()
        return response.status, response.getheader("Content-Encoding"), body, response.getheader("Vary")
    finally:
        conn.close()


def decoded(coding: str | None, body: bytes) -> bytes:
    if coding is None:
        return body
    if coding == "gzip":
        return gzip.decompress(body)
    assert coding == "deflate"
    return zlib.decompress(body)  # the zlib format, as RFC 9110 defines deflate


def connect(port: int) -> tuple[socket.socket, BinaryIO]:
    sock = socket.create_connection(("127.0.0.1", port), timeout=SAFETY)
    return sock, sock.makefile("rb")


def read_status(stream: BinaryIO) -> tuple[int, dict[str, str], bytes]:
    line = stream.readline()
    assert line, "closed instead of answering"
    status = int(line.split(b" ", 2)[1])
    headers: dict[str, str] = {}
    while True:
        raw = stream.readline()
        if raw in (b"\r\n", b""):
            break
        key, _, value = raw.decode("latin-1").partition(":")
        headers[key.strip().lower()] = value.strip()
    return status, headers, stream.read(int(headers.get("content-length", "0")))


def closed(stream: BinaryIO) -> bool:
    try:
        return stream.read() == b""
    except ConnectionResetError:
        return True


def stats_lines(output: str) -> list[str]:
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("HTTPS0011I"))
    return lines[start + 1 : start + 11]


# ---------------------------------------------------------------- lifecycle
def test_start_listens_and_stop_closes_connections(served: Stack) -> None:
    port = served.start("WEB1")
    display = served.cmd("ZHTPS DISPLAY SERVER-WEB1")
    assert "LISTENING YES" in display
    assert f"LISTENER 127.0.0.1 PORT {port} PID {os.getpid()}" in display
    listed = json.loads(served.cli("http", "list", "--format", "json"))
    assert [(row["server"], row["state"], row["listening"]) for row in listed] == [("WEB1", "STARTED", port)]
    sock, stream = connect(port)
    with sock, stream:
        sock.sendall(b"GET /sample/10 HTTP/1.1\r\nHost: t\r\n\r\n")
        assert read_status(stream)[0] == 200
        assert "HTTPS0002I" in served.cmd("ZHTPS STOP SERVER-WEB1")
        assert closed(stream)  # the open connection is closed by the loop
    wait_for(lambda: served.status("WEB1").owner is None, "the listener released")
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=SAFETY).close()
    assert "LISTENING NO" in served.cmd("ZHTPS DISPLAY S-WEB1")
    # started again: a new listener, statistics from zero
    port = served.start("WEB1")
    assert fetch(port, "/sample/10")[0] == 200
    stats = served.settled("WEB1", none_count=1)
    assert stats.reused == 0


def test_start_before_the_loop_runs_and_console_messages(stack: Stack) -> None:
    stack.conf("WEB1")
    out = stack.cmd("ZHTPS START S-WEB1")
    assert "HTTPS0006I" in out  # nothing listens yet
    assert "LISTENING NO" in stack.cmd("ZHTPS DISPLAY S-WEB1")
    stack.serve()
    port = stack.port("WEB1")
    assert fetch(port, "/sample/5")[2] == generate("xml", 5)
    assert "HTTPS0006I" not in stack.cmd("ZHTPS REFRESH S-WEB1")  # a loop runs now
    with stack.store.transaction(write=False) as tx:
        texts = [text for _, _, _, text in tx.console_since("TPF1")]
    texts = [text for text in texts if text.startswith("HTTPS")]
    assert len(texts) == 1 and texts[0].startswith("HTTPS0020I ")
    assert texts[0].endswith(f" HTTP SERVER WEB1 LISTENING ON 127.0.0.1 PORT {port}")


def test_port_in_use_is_reported_and_retried(served: Stack) -> None:
    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    taken = blocker.getsockname()[1]
    served.conf("WEB1")
    conf_path(served.state, "TPF1", "WEB1").write_text(f"PORT-{taken}\n", encoding="utf-8")
    served.cmd("ZHTPS START S-WEB1")
    error = wait_for(lambda: served.status("WEB1").listen_error, "the listen error")
    assert error == "Address already in use"  # no Python tuple of the address (issue 8)
    assert "LISTEN ERROR" in served.cmd("ZHTPS DISPLAY S-WEB1")
    with served.store.transaction(write=False) as tx:
        texts = [text for _, _, _, text in tx.console_since("TPF1")]
    assert any(
        text.startswith("HTTPS0021E ")
        and text.endswith(f"WEB1 CANNOT LISTEN ON 127.0.0.1 PORT {taken} - Address already in use")
        for text in texts
    )
    blocker.close()
    assert served.port("WEB1") == taken  # retried once the port was free


def test_a_shortage_of_descriptors_is_one_console_message(served: Stack) -> None:
    served.start("WEB1")
    assert served.service is not None
    server = served.service._served[("TPF1", "WEB1")].server
    shortage = OSError(errno.EMFILE, "Too many open files")
    for now in (100.0, 100.5, 130.0):  # failed accepts within a minute: one shortage
        server._accept_failed(shortage, now)
    served.polls()

    def notices() -> list[str]:
        with served.store.transaction(write=False) as tx:
            return [text for _, _, _, text in tx.console_since("TPF1") if text.startswith("HTTPS0301W")]

    found = wait_for(notices, "the console message")
    assert found[0].endswith(" HTTP SERVER WEB1 CANNOT ACCEPT CONNECTIONS - Too many open files - NEW CONNECTIONS WAIT")
    server._accept_failed(shortage, 170.0)  # a minute after the first: reported again
    served.polls()
    assert len(wait_for(lambda: len(notices()) == 2 and notices(), "the second message")) == 2
    assert server.accept_errors == 4


def test_two_loops_never_both_listen_and_a_killed_owner_is_replaced(stack: Stack) -> None:
    stack.conf("WEB1")
    stack.cmd("ZHTPS START S-WEB1")
    code = (
        "import sys, time\n"
        "from mqtool.clock import Clock\n"
        "from mqtool.engine.http.service import HttpService\n"
        "HttpService(sys.argv[1], Clock()).start()\n"
        "time.sleep(600)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code, str(stack.state)])
    try:
        owner = wait_for(lambda: stack.status("WEB1").live_owner(), "the child owning WEB1")
        assert owner.pid == child.pid
        port = stack.port("WEB1")
        stack.serve()  # a second loop on the same store leaves WEB1 to its owner
        stack.polls()
        assert stack.service is not None and stack.service.serving == {}
        assert fetch(port, "/sample/7")[0] == 200
        child.send_signal(signal.SIGKILL)
        child.wait(SAFETY)
        taken = wait_for(lambda: stack.service is not None and stack.service.serving, "the takeover")
        new_port = taken[("TPF1", "WEB1")]
        assert stack.port("WEB1") == new_port
        assert fetch(new_port, "/sample/7")[0] == 200
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(SAFETY)


def test_the_engine_loop_runs_the_http_service(stack: Stack) -> None:
    from mqtool.cli.loop import EngineLoop, default_services

    stack.conf("WEB1", "COMP-gzip", "COMPSIZESW-1")
    stack.cmd("ZHTPS START S-WEB1")
    loop = EngineLoop(stack.state, Clock(), interval=0.05)  # what the shell runs in the background
    for service in default_services(loop):
        loop.add_service(service)
    loop.start()
    try:
        port = stack.port("WEB1")
        _, coding, body, _ = fetch(port, "/sample/700", "gzip")
        assert decoded(coding, body) == generate("xml", 700) and coding == "gzip"
        stack.settled("WEB1", software_count=1)
    finally:
        loop.stop()
    assert stack.status("WEB1").owner is None  # released when the loop ended
    assert "ACTIVE - 0 HWMARK - 1" in stack.cmd("ZHTPS STATS S-WEB1")


def test_mqtool_serve_serves_and_stops_cleanly(stack: Stack) -> None:
    stack.conf("WEB1", "COMP-deflate", "COMPSIZESW-1")
    stack.cmd("ZHTPS START S-WEB1")
    env = {key: value for key, value in os.environ.items() if not key.startswith("MQTOOL_")}
    child = subprocess.Popen(
        [sys.executable, "-m", "mqtool", "--state", str(stack.state), "serve"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port = stack.port("WEB1")
        _, coding, body, _ = fetch(port, "/sample/900", "deflate, gzip")
        assert coding == "deflate" and decoded(coding, body) == generate("xml", 900)
        child.send_signal(signal.SIGTERM)
        out, _ = child.communicate(timeout=SAFETY)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(SAFETY)
    assert child.returncode == 0
    assert "HTTPS0020I" in out and "HTTP SERVER WEB1 LISTENING ON 127.0.0.1 PORT" in out
    assert stack.status("WEB1").owner is None
    assert stack.stats("WEB1").software_count == 1  # persisted before it stopped


def test_commands_from_another_process(served: Stack) -> None:
    served.conf("WEB1", "COMP-gzip", "COMPSIZESW-1")

    def mqtool(*commands: str) -> str:
        env = {key: value for key, value in os.environ.items() if not key.startswith("MQTOOL_")}
        result = subprocess.run(
            [sys.executable, "-m", "mqtool", "--state", str(served.state), "cmd", *commands],
            capture_output=True,
            text=True,
            timeout=SAFETY * 3,
            env=env,
        )
        return result.stdout

    assert "HTTPS0001I" in mqtool("ZHTPS START S-WEB1")
    port = served.port("WEB1")
    assert fetch(port, "/sample/2000", "gzip")[1] == "gzip"
    served.settled("WEB1", software_count=1)
    out = mqtool("ZHTPS STATS S-WEB1")
    assert "SOFTWARE COMPRESSION COUNT - 1" in out
    assert "HTTPS0012I" in mqtool("ZHTPS STATS S-WEB1 RESET")
    assert "SOFTWARE COMPRESSION COUNT - 0" in mqtool("ZHTPS STATS S-WEB1")
    mqtool("ZHTPS STOP S-WEB1")
    wait_for(lambda: served.service is not None and not served.service.serving, "the stop")


def test_http_directive_goes_to_the_listening_loop(served: Stack) -> None:
    served.start("WEB1", "COMP-gzip", "COMPSIZESW-1")
    out = served.cmd(".http WEB1 /sample/1000 accept-encoding=gzip", "ZHTPS STATS S-WEB1")
    assert "MQT0201I WEB1 GET /sample/1000 HTTP/1.1: 200 OK, Content-Encoding: gzip," in out
    assert "1000 bytes decoded" in out
    # the loop stored its counts before .http returned, so STATS already shows them
    assert "SOFTWARE COMPRESSION COUNT - 1" in out
    owner = served.status("WEB1").live_owner()
    # answered by the loop, not in-process: once for .http, once for STATS
    assert owner is not None and owner.drained == 2


# ------------------------------------------------------------ negotiation
SEED_CASES = [
    ("deflate; q=1.0, gzip; q=0.5", "deflate"),
    ("deflate; q=1.0, gzip; q=1.0", "gzip"),
    ("deflate; q=0.5, gzip; q=0.5, identity; q=1.0", None),
]
# With COMP-gzip,deflate: RFC 9110 plus the z/TPF rules (tie -> COMP order,
# identity strictly above the best -> none); mqtool's choices are marked.
FURTHER_CASES = [
    (None, None),  # no header
    ("", None),  # empty: the client wants no coding
    ("gzip", "gzip"),
    ("deflate", "deflate"),
    ("GZIP", "gzip"),  # case-insensitive
    ("DeFlAtE", "deflate"),
    (" gzip ;q=0.8 ", "gzip"),
    ("gzip;q=0", None),
    ("gzip;q=0, deflate", "deflate"),
    ("gzip;q=0.5, deflate;q=0.5", "gzip"),  # tie: COMP order
    ("deflate;q=0.5, gzip;q=0.5", "gzip"),  # the client's order does not matter
    ("deflate;q=0.501, gzip;q=0.5", "deflate"),
    ("identity;q=1.0, gzip;q=0.8", None),
    ("identity;q=0.5, gzip;q=0.5", "gzip"),  # identity must be strictly higher
    ("*", "gzip"),  # first in COMP
    ("*;q=0.5, deflate;q=0.9", "deflate"),
    ("*;q=0.9, deflate;q=0.5", "gzip"),  # gzip takes the * weight
    ("*;q=0", None),  # nothing acceptable: identity is sent, never 406
    ("*;q=0, identity", None),
    ("gzip;q=1.0001", None),  # malformed weight: unacceptable
    ("gzip;q=0.0001", None),  # four decimals
    ("gzip;q=abc, deflate", "deflate"),  # mqtool: a malformed q only kills its entry
    ("gzip;level=9", None),  # mqtool: a parameter other than q makes it unacceptable
    ("x-gzip", "gzip"),  # alias
    ("notgzip", None),
    ("br", None),
    ("br, deflate;q=0.1", "deflate"),
    ("gzip;q=0, gzip", None),  # listed twice: the lowest weight
    ("gzip, gzip;q=0.2, deflate;q=0.3", "deflate"),
    ("gzip;Q=0.7, deflate;q=0.6", "gzip"),  # Q is case-insensitive
    ("gzip;q=1., deflate", "gzip"),  # "1." is a legal qvalue; tie -> COMP order
    (",gzip,,", "gzip"),  # empty list elements are legal
]


@pytest.fixture(scope="module")
def negotiation_port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    for name in ("MQTOOL_STATE", "MQTOOL_SYSTEM", "MQTOOL_CLOCK"):
        os.environ.pop(name, None)
    built = Stack(tmp_path_factory.mktemp("negotiation") / "state")
    built.serve()
    try:
        yield built.start("NEG", "COMP-gzip,deflate", "COMPSIZESW-1")
    finally:
        built.close()


@pytest.mark.parametrize(("header", "expected"), SEED_CASES + FURTHER_CASES)
def test_negotiation_through_the_stack(negotiation_port: int, header: str | None, expected: str | None) -> None:
    status, coding, body, vary = fetch(negotiation_port, "/sample/3000", header)
    assert status == 200
    assert coding == expected
    assert vary == "Accept-Encoding"  # COMP is set: every response may vary
    assert decoded(coding, body) == generate("xml", 3000)


def test_further_cases_are_at_least_twenty() -> None:
    assert len(FURTHER_CASES) >= 20
    assert len({header for header, _ in FURTHER_CASES}) == len(FURTHER_CASES)


def test_http10_is_never_compressed_through_the_stack(negotiation_port: int) -> None:
    sock, stream = connect(negotiation_port)
    with sock, stream:
        sock.sendall(b"GET /sample/3000 HTTP/1.0\r\nAccept-Encoding: gzip\r\n\r\n")
        status, headers, body = read_status(stream)
    assert (status, "content-encoding" in headers, body) == (200, False, generate("xml", 3000))


# -------------------------------------------------------- size thresholds
def _set_cpu(stack: Stack, model: str) -> None:
    stack.cli("system", "alter", "TPF1", "--cpu", model)
    with stack.store.transaction(write=False) as tx:
        system = tx.get_system("TPF1")
    assert system is not None and system.cpu == model
    stack.polls()  # the loop has re-read the CPU model


@pytest.mark.parametrize(
    ("cpu", "hw", "sw", "cases"),
    [
        ("z15", 5000, 10000, [(4999, None), (5000, "hw"), (9999, "hw"), (10000, "hw"), (20000, "hw")]),
        ("z14", 5000, 10000, [(4999, None), (5000, None), (9999, None), (10000, "sw"), (20000, "sw")]),
        # issue 8: with the accelerator COMPSIZEHW alone decides, COMPSIZESW is for
        # "when hardware is not available" (ztpf-http.md section 4 step 5)
        ("z15", 20000, 1000, [(999, None), (1000, None), (5000, None), (19999, None), (20000, "hw")]),
        ("z14", 20000, 1000, [(999, None), (1000, "sw"), (5000, "sw"), (20000, "sw")]),
    ],
)
def test_size_thresholds_by_cpu(served: Stack, cpu: str, hw: int, sw: int, cases: list[tuple[int, str | None]]) -> None:
    port = served.start("WEB1", "COMP-deflate,gzip", f"COMPSIZEHW-{hw}", f"COMPSIZESW-{sw}")
    _set_cpu(served, cpu)
    expected = {"hw": 0, "sw": 0, None: 0}
    for size, path in cases:
        _, coding, body, _ = fetch(port, f"/sample/{size}", "gzip, deflate")
        assert coding == (None if path is None else "deflate"), size  # COMP order: deflate first
        assert decoded(coding, body) == generate("xml", size)
        expected[path] += 1
    served.settled("WEB1", hardware_count=expected["hw"], software_count=expected["sw"], none_count=expected[None])
    out = served.cmd("ZHTPS STATS S-WEB1")
    assert f"HARDWARE COMPRESSION COUNT - {expected['hw']}" in out
    assert f"SOFTWARE COMPRESSION COUNT - {expected['sw']}" in out
    assert f"NO COMPRESSION COUNT - {expected[None]}" in out
    assert f"ACCELERATOR {'YES' if cpu == 'z15' else 'NO'} ({cpu.upper()})" in served.cmd("ZHTPS DIS S-WEB1")


def test_cpu_fallback_takes_effect_without_a_restart(served: Stack) -> None:
    port = served.start("WEB1", "COMP-gzip", "COMPSIZEHW-1000", "COMPSIZESW-0")
    assert fetch(port, "/sample/2000", "gzip")[1] == "gzip"  # z15: hardware
    _set_cpu(served, "z14")
    assert fetch(port, "/sample/2000", "gzip")[1] is None  # z14: no software path
    _set_cpu(served, "z16")
    assert fetch(port, "/sample/2000", "gzip")[1] == "gzip"
    served.settled("WEB1", hardware_count=2, none_count=1)


# --------------------------------------------------------------- REFRESH
def test_refresh_applies_to_new_connections_only(served: Stack) -> None:
    port = served.start("WEB1")
    ask = b"GET /sample/3000 HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n"
    before, before_stream = connect(port)
    with before, before_stream:
        before.sendall(ask)
        assert "content-encoding" not in read_status(before_stream)[1]  # no COMP yet
        served.conf("WEB1", "COMP-gzip", "COMPSIZESW-1")
        out = served.cmd("ZHTPS REFRESH SERVER-WEB1")
        assert "HTTPS0003I" in out
        wanted = served.status("WEB1").options_generation
        wait_for(lambda: served.status("WEB1").live_owner().options_generation == wanted, "the refresh applied")
        after, after_stream = connect(port)
        with after, after_stream:
            before.sendall(ask)  # kept alive across the REFRESH: old options
            after.sendall(ask)  # opened after it: new options
            _, old_headers, old_body = read_status(before_stream)
            _, new_headers, new_body = read_status(after_stream)
    assert "content-encoding" not in old_headers
    assert "vary" not in old_headers
    assert new_headers["content-encoding"] == "gzip"
    assert new_headers["vary"] == "Accept-Encoding"
    assert gzip.decompress(new_body) == old_body == generate("xml", 3000)
    served.settled("WEB1", software_count=1, none_count=2, reused=1)


def test_refresh_with_a_bad_file_keeps_the_options_in_force(served: Stack) -> None:
    port = served.start("WEB1", "COMP-gzip", "COMPSIZESW-1")
    path = conf_path(served.state, "TPF1", "WEB1")
    path.write_text("PORT-0\nCOMP-br\n", encoding="utf-8")
    out = served.cmd("ZHTPS REFRESH S-WEB1")
    assert "HTTPS0105E" in out
    assert "/etc/tpf_httpserver/WEB1.conf:2: COMP-br" in out
    assert fetch(port, "/sample/500", "gzip")[1] == "gzip"


# ------------------------------------------------------------ statistics
def test_every_statistic_through_zhtps_stats(served: Stack) -> None:
    # TIMEOUT-2: long enough that the idle connections are still open when the
    # three are counted, short enough to see them closed by it afterwards.
    port = served.start("WEB1", "MAXCONN-3", "TIMEOUT-2", "COMP-gzip", "COMPSIZEHW-4000", "COMPSIZESW-1000")
    # two compressed in hardware (z15), then on a z14 one in software, one too
    # small, one 404
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=SAFETY)
    sizes = []
    for path in ("/sample/8000", "/sample/20000", "/sample/2000", "/sample/500", "/missing"):
        if path == "/sample/2000":
            _set_cpu(served, "z14")
        conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
        response = conn.getresponse()
        body = response.read()
        if response.getheader("Content-Encoding") == "gzip":
            sizes.append((int(path.rsplit("/", 1)[1]), len(body)))
    # ACTIVE and HWMARK: three open at once (this one and two more)
    extra = [connect(port), connect(port)]
    for sock, stream in extra:
        sock.sendall(b"GET /sample/1 HTTP/1.1\r\nHost: t\r\n\r\n")
        assert read_status(stream)[0] == 200
    refused_sock, refused_stream = connect(port)  # the fourth is over MAXCONN-3
    with refused_sock, refused_stream:
        assert closed(refused_stream)
    served.settled("WEB1", active=3, hwmark=3, refused=1)
    assert "ACTIVE - 3 HWMARK - 3" in served.cmd("ZHTPS STATS S-WEB1")
    conn.close()
    for sock, stream in extra:  # left idle: closed by TIMEOUT-2
        with sock, stream:
            assert closed(stream)
    stats = served.settled("WEB1", active=0, timed_out=2, reused=4)
    assert (stats.hardware_count, stats.software_count, stats.none_count, stats.url_errors) == (2, 1, 4, 1)
    ratios = [100.0 * (before - after) / before for before, after in sizes]
    lines = stats_lines(served.cmd("ZHTPS STATS SERVER-WEB1"))
    assert lines[:3] == ["ACTIVE - 0 HWMARK - 3", "REFUSED - 1 REUSED - 4", "TIMED OUT - 2 URL ERRORS - 1"]
    assert lines[3] == f"AVG COMPRESSION RATIO - {sum(ratios) / 3:.3f}"
    assert lines[4].startswith("AVG TIME TO COMPRESS - ") and lines[4].endswith(" MILS")
    assert float(lines[4].split(" - ")[1].split()[0]) > 0  # the loop runs on the wall clock
    assert lines[5] == f"AVG SIZE (BEFORE COMPRESSION) - {(8000 + 20000 + 2000) // 3}"
    assert lines[6:9] == [
        "HARDWARE COMPRESSION COUNT - 2",
        "SOFTWARE COMPRESSION COUNT - 1",
        "NO COMPRESSION COUNT - 4",
    ]
    # the START's TOD (frozen at 15:41:22 UTC), shown at TPF1's offset -05:00
    assert lines[9] == f"LAST STATS RESET TOD - {to_tod(parse_instant(FROZEN)):016X} (2021-03-09 10:41:22)"


def test_reset_from_another_connection_clears_what_came_before(served: Stack) -> None:
    port = served.start("WEB1", "COMP-gzip", "COMPSIZESW-1")
    for _ in range(3):
        assert fetch(port, "/sample/100", "gzip")[1] == "gzip"
    served.settled("WEB1", software_count=3)
    out = served.runner.invoke(
        main_group, ["--state", str(served.state), "--clock", "2021-03-09T16:00:00Z", "cmd", "ZHTPS STATS S-WEB1 RESET"]
    ).output
    assert "SOFTWARE COMPRESSION COUNT - 3" in out  # shown, then cleared
    assert "HTTPS0012I" in out
    wanted = served.status("WEB1").reset_generation
    wait_for(lambda: served.status("WEB1").live_owner().reset_generation == wanted, "the loop seeing the reset")
    assert fetch(port, "/sample/100")[1] is None
    served.settled("WEB1", software_count=0, none_count=1)
    out = served.cmd("ZHTPS STATS S-WEB1")
    assert "SOFTWARE COMPRESSION COUNT - 0" in out
    assert "NO COMPRESSION COUNT - 1" in out
    assert "(2021-03-09 11:00:00)" in out  # the reset's TOD


# ------------------------------------------------- bad input and security
def test_bad_requests_are_answered_and_counted(served: Stack, tmp_path: Path) -> None:
    port = served.start("WEB1")
    secret = served.state / "systems" / "TPF1" / "etc" / "tpf_httpserver" / "secret.txt"
    secret.write_text("SECRET\n")
    www = secret.parent / "www" / "WEB1"
    (www / "page.txt").write_text("a page\n")
    (www / "escape").symlink_to(secret)
    answers: list[int] = []
    for raw in (
        b"GET /page.txt HTTP/1.1\r\nHost: t\r\n\r\n",
        b"NOT A REQUEST\r\n\r\n",
        b"GET /x HTTP/1.1\r\nHost: t\r\nBad Header\r\n\r\n",
        b"POST /page.txt HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n",
        b"DELETE /page.txt HTTP/1.1\r\nHost: t\r\n\r\n",
        b"GET /../secret.txt HTTP/1.1\r\nHost: t\r\n\r\n",
        b"GET /%2e%2e/secret.txt HTTP/1.1\r\nHost: t\r\n\r\n",
        b"GET /%2E%2E%2Fsecret.txt HTTP/1.1\r\nHost: t\r\n\r\n",
        b"GET /escape HTTP/1.1\r\nHost: t\r\n\r\n",
        b"GET /page.txt HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * HEAD_LIMIT + b"\r\n\r\n",
    ):
        sock, stream = connect(port)
        with sock, stream:
            sock.sendall(raw)
            status, _, body = read_status(stream)
            assert b"SECRET" not in body
            answers.append(status)
    assert answers == [200, 400, 400, 405, 405, 404, 404, 404, 404, 431]
    stats = served.settled("WEB1", url_errors=4, none_count=10)
    assert stats.hardware_count == stats.software_count == 0
    out = served.cmd("ZHTPS STATS S-WEB1")
    assert "TIMED OUT - 0 URL ERRORS - 4" in out
    assert "NO COMPRESSION COUNT - 10" in out


def test_maxconn_refuses_and_serving_continues(served: Stack) -> None:
    port = served.start("WEB1", "MAXCONN-2")
    held = [connect(port) for _ in range(2)]
    for sock, stream in held:
        sock.sendall(b"GET /sample/3 HTTP/1.1\r\nHost: t\r\n\r\n")
        assert read_status(stream)[0] == 200
    for _ in range(3):
        sock, stream = connect(port)
        with sock, stream:
            assert closed(stream)
    for sock, stream in held:  # the held ones still serve
        sock.sendall(b"GET /sample/4 HTTP/1.1\r\nHost: t\r\n\r\n")
        assert read_status(stream)[2] == generate("xml", 4)
    sock, stream = held.pop()
    sock.close()
    stream.close()
    served.settled("WEB1", active=1)
    assert fetch(port, "/sample/5")[0] == 200  # room again
    for sock, stream in held:
        sock.close()
        stream.close()
    stats = served.settled("WEB1", refused=3, active=0)
    assert stats.hwmark == 2
    assert "REFUSED - 3 REUSED - 2" in served.cmd("ZHTPS STATS S-WEB1")


def test_idle_and_slow_clients_are_closed_by_timeout(served: Stack) -> None:
    port = served.start("WEB1", "TIMEOUT-0.3")
    idle, idle_stream = connect(port)
    slow, slow_stream = connect(port)
    with idle, idle_stream, slow, slow_stream:
        slow.sendall(b"GET /sample/10 HTTP/1.1\r\nHost: t\r\n")  # never finishes its head
        assert read_status(slow_stream)[0] == 408
        assert closed(slow_stream)
        assert closed(idle_stream)
    served.settled("WEB1", timed_out=2, active=0)
    assert "TIMED OUT - 2 URL ERRORS - 0" in served.cmd("ZHTPS STATS S-WEB1")


def _rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


# 500 keep-alive clients in a child process, so neither process needs more than
# about 520 file descriptors (the usual limit is 1024).
_CLIENTS = """
import gzip, socket, sys
from mqtool.engine.payload import generate
port, count = int(sys.argv[1]), int(sys.argv[2])
request = b"GET /sample/2000 HTTP/1.1\\r\\nHost: t\\r\\nAccept-Encoding: gzip\\r\\n\\r\\n"
clients = [socket.create_connection(("127.0.0.1", port), timeout=60) for _ in range(count)]
for sock in clients:
    sock.sendall(request)
good = 0
for sock in clients:
    stream = sock.makefile("rb")
    head = b""
    while not head.endswith(b"\\r\\n\\r\\n"):
        head += stream.read(1)
    length = int(head.lower().split(b"content-length:")[1].split(b"\\r\\n")[0])
    good += gzip.decompress(stream.read(length)) == generate("xml", 2000)
print(good, flush=True)
sys.stdin.readline()
"""


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc to read the memory in use")
def test_500_concurrent_keep_alive_connections(served: Stack) -> None:
    port = served.start("WEB1", "MAXCONN-1000", "TIMEOUT-60", "COMP-gzip", "COMPSIZESW-1")
    before = _rss_bytes()
    child = subprocess.Popen(
        [sys.executable, "-c", _CLIENTS, str(port), "500"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdin is not None
        assert child.stdout.readline().strip() == "500"  # every body decoded to the original
        assert fetch(port, "/sample/10")[0] == 200  # the 501st still answered
        served.settled("WEB1", active=500, hwmark=501, software_count=500)
        assert "ACTIVE - 500 HWMARK - 501" in served.cmd("ZHTPS STATS S-WEB1")
        # bounded: far below what 500 unbounded buffers would take
        assert _rss_bytes() - before < 150 * 1024 * 1024
        child.stdin.write("done\n")
        child.stdin.flush()
        assert child.wait(SAFETY * 3) == 0
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(SAFETY)
    served.settled("WEB1", active=0)


# ------------------------------------------------------------------ curl
def test_curl_through_the_stack(served: Stack, curl: str, tmp_path: Path) -> None:
    port = served.start("WEB1", "COMP-gzip,deflate", "COMPSIZEHW-1000")
    www = served.state / "systems" / "TPF1" / "etc" / "tpf_httpserver" / "www" / "WEB1"
    (www / "index.html").write_text("<html><body>z/TPF</body></html>\n")
    base = f"http://127.0.0.1:{port}"
    out1, out2 = tmp_path / "one.xml", tmp_path / "index.html"
    result = subprocess.run(
        [curl, "-sS", "--compressed", "-D", "-", "-o", str(out1), f"{base}/sample/20000", "-o", str(out2), f"{base}/"],
        capture_output=True,
        timeout=SAFETY * 3,
        check=True,
    )
    headers = result.stdout.decode("latin-1").lower()
    assert "content-encoding: gzip" in headers  # curl's equal weights: COMP order decides
    assert out1.read_bytes() == generate("xml", 20000)
    assert out2.read_text() == "<html><body>z/TPF</body></html>\n"
    head = (
        subprocess.run(
            [curl, "-sS", "-I", "-H", "Accept-Encoding: deflate;q=1, gzip;q=0.5", f"{base}/sample/20000"],
            capture_output=True,
            timeout=SAFETY * 3,
            check=True,
        )
        .stdout.decode("latin-1")
        .lower()
    )
    assert "content-encoding: deflate" in head
    stats = served.settled("WEB1", hardware_count=2, reused=1)
    assert stats.none_count == 1  # index.html is below COMPSIZEHW
