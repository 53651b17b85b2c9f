"""The real-time loop: one step ticks the timers, polls the services and reports new
console messages; the background thread starts and stops cleanly; `mqtool serve` and
`mqtool console --follow` as whole processes (SIGTERM, Ctrl-C)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from mqtool.cli.loop import ConsoleEntry, EngineLoop
from mqtool.clock import Clock
from tests.test_engine_queue import FROZEN, Engine


class Recorder:
    """A service that notes what the loop asks of it; poll fails when told to."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.fail = False

    def start(self, loop: EngineLoop) -> None:
        assert loop.store is not None and loop.clock is not None
        self.calls.append("start")

    def poll(self) -> None:
        self.calls.append("poll")
        if self.fail:
            raise RuntimeError("poll failed")

    def stop(self) -> None:
        self.calls.append("stop")


def until(condition: Callable[[], bool], seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_a_step_ticks_polls_and_reports_new_console_messages(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "state")
    engine.cmd("ZMQSC DEFINE QL-Q1 MAXDEPTH-4 QDEPTHHI-50")
    engine.put("Q1", b"old", b"old")  # a warning before the loop starts: not reported
    clock = Clock.from_setting(FROZEN)
    entries: list[ConsoleEntry] = []
    lines: list[str] = []
    errors: list[str] = []
    service = Recorder()
    loop = EngineLoop(
        tmp_path / "state", clock, on_console=lines.append, on_entry=entries.append, on_error=errors.append
    )
    loop.add_service(service)
    loop.step()
    assert service.calls == ["start", "poll"] and entries == []
    engine.get("Q1", None)
    # Five seconds later the loop's monitor sees the queue below QDEPTHHI again ...
    clock.advance(5)
    loop.step()
    # ... so the next put that reaches it warns again.
    engine.clock.advance(5)
    engine.put("Q1", b"a", b"b")
    loop.step()
    assert [entry.text for entry in entries] == [
        "MQSC0205I 10.41.27 QL-Q1 DEPTH 0 BELOW QDEPTHHI 50% OF MAXDEPTH 4",
        "MQSC0204W 10.41.27 QL-Q1 DEPTH 2 REACHED QDEPTHHI 50% OF MAXDEPTH 4",
    ]
    assert lines == [entry.text for entry in entries] and entries[0].system == "TPF1"
    service.fail = True
    loop.step()
    assert errors == ["poll: RuntimeError: poll failed"]
    loop.close()
    assert service.calls[-1] == "stop"
    engine.store.close()


def test_timers_run_from_the_loop(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "state")
    engine.cmd("ZMQSC DEFINE QL-Q1")
    engine.put("Q1", b"x", persistent=True)
    clock = Clock.from_setting(FROZEN)
    loop = EngineLoop(tmp_path / "state", clock)
    loop.step()
    clock.advance(5)
    loop.step()
    with engine.store.transaction(write=False) as tx:
        assert tx.conn.execute("SELECT checkpoints, ckpt_ios FROM engine_state").fetchone() == (1, 1)
    loop.close()
    engine.store.close()


def test_background_thread_starts_and_stops(tmp_path: Path) -> None:
    Engine(tmp_path / "state").store.close()
    service = Recorder()
    loop = EngineLoop(tmp_path / "state", Clock(), interval=0.01, services=[service])
    loop.start()
    assert until(lambda: loop.iterations >= 3)
    assert loop.running
    loop.stop()
    assert not loop.running
    assert service.calls[0] == "start" and service.calls[-1] == "stop" and "poll" in service.calls


def environment(state: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    env["MQTOOL_STATE"] = str(state)
    return env


@pytest.mark.slow
def test_serve_prints_console_messages_and_stops_on_sigterm(tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = environment(state)
    subprocess.run(
        [sys.executable, "-m", "mqtool", "cmd", "ZMQSC DEFINE QL-Q1 MAXDEPTH-2 QDEPTHHI-50"], env=env, check=True
    )
    serve = subprocess.Popen(
        [sys.executable, "-m", "mqtool", "serve", "--interval", "0.05"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert serve.stderr is not None and serve.stdout is not None
        assert serve.stderr.readline().startswith("MQT0140I Serving TPF1, CSQ1 in real time")
        subprocess.run([sys.executable, "-m", "mqtool", "put", "Q1", "--data", "x", "-q"], env=env, check=True)
        line = serve.stdout.readline()
        assert line.startswith("TPF1 MQSC0204W ") and line.endswith(
            "QL-Q1 DEPTH 1 REACHED QDEPTHHI 50% OF MAXDEPTH 2\n"
        )
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=30) == 0
        assert serve.stderr.read().startswith("MQT0141I Stopped serving after ")
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()


@pytest.mark.slow
def test_console_follow_shows_new_messages_until_interrupted(tmp_path: Path) -> None:
    state = tmp_path / "state"
    env = environment(state)
    subprocess.run(
        [sys.executable, "-m", "mqtool", "cmd", "ZMQSC DEFINE QL-Q1 MAXDEPTH-2 QDEPTHHI-50"], env=env, check=True
    )
    follow = subprocess.Popen(
        [sys.executable, "-m", "mqtool", "console", "--follow", "--format", "json"],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        # SIGINT stops it: not ignored even when the test run inherited it ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert follow.stdout is not None
        time.sleep(0.5)  # let it start following (the message may come before or after)
        subprocess.run([sys.executable, "-m", "mqtool", "put", "Q1", "--data", "x", "-q"], env=env, check=True)
        line = follow.stdout.readline()
        assert '"text": "MQSC0204W ' in line and '"system": "TPF1"' in line
        follow.send_signal(signal.SIGINT)
        assert follow.wait(timeout=30) == 0
    finally:
        if follow.poll() is None:
            follow.kill()
            follow.wait()
