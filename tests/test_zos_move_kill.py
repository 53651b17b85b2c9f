"""Whole processes: MOVE QLOCAL killed with SIGKILL moves nothing twice and loses
nothing (its one unit of work is all or nothing), and a `mqtool get --wait` in progress
is a connection that DISPLAY CONN and DISPLAY THREAD show, with its open queue, until it
ends. Nothing here depends on timing: a kill lands at a point the test chooses (the
engine's test hook) or at a random moment, and the checks hold for either outcome."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.core.message import PutOptions
from mqtool.engine.platforms import open_queue
from mqtool.engine.zos.move import CRASH_VARIABLE
from mqtool.session import Session
from mqtool.state import Store

pytestmark = pytest.mark.slow

PATIENCE = 60.0  # seconds: the most a condition is waited for
COUNT = 4000


def env(state: Path, **extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    return clean | {"MQTOOL_STATE": str(state)} | extra


def fill(state: Path, count: int) -> set[bytes]:
    """`count` messages on CSQ1's queue FROM (every third persistent); their ids."""
    clock = Clock()
    store = Store.open(state)
    try:
        ensure_complex(store, clock.timestamp())
        session = Session(store, clock, "CSQ1")
        for line in ("DEFINE QLOCAL(FROM)", "DEFINE QLOCAL(TO)"):
            assert session.execute(line).status == "ok"
        handle = open_queue(store, clock, "CSQ1", "FROM", "zos")
        ids = set()
        with store.transaction() as tx:
            handle.open(tx)
            for number in range(count):
                options = PutOptions(persistent=number % 3 == 0, priority=number % 10)
                ids.add(handle.put(tx, f"message {number}".encode(), options).msgid)
            handle.close(tx)
        return ids
    finally:
        store.close()


def queues(state: Path) -> dict[str, list[bytes]]:
    """The message ids on FROM and TO, read straight from the store."""
    conn = sqlite3.connect(str(state / "mqtool.db"))
    try:
        found: dict[str, list[bytes]] = {"FROM": [], "TO": []}
        for queue, msgid in conn.execute("SELECT queue, msgid FROM messages WHERE system = 'CSQ1'"):
            if queue in found:
                found[queue].append(bytes(msgid))
        return found
    finally:
        conn.close()


def move(state: Path, **extra: str) -> subprocess.Popen[bytes]:
    args = [sys.executable, "-m", "mqtool", "cmd", "-CSQ1 MOVE QLOCAL(FROM) TOQLOCAL(TO) TYPE(ADD)"]
    return subprocess.Popen(args, env=env(state, **extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_move_killed_inside_its_unit_of_work_moves_nothing(tmp_path: Path) -> None:
    state = tmp_path / "state"
    ids = fill(state, COUNT)
    killed = move(state, **{CRASH_VARIABLE: str(COUNT // 2)})
    _, err = killed.communicate(timeout=PATIENCE)
    assert killed.returncode == -signal.SIGKILL and b"Traceback" not in err
    after = queues(state)
    assert (sorted(after["FROM"]), after["TO"]) == (sorted(ids), [])
    # Run again to the end: every message once, on the target.
    done = move(state)
    out, err = done.communicate(timeout=PATIENCE)
    assert done.returncode == 0, err
    assert f"MQT0456I -CSQ1 {COUNT} MESSAGES MOVED FROM QLOCAL(FROM) TO QLOCAL(TO)".encode() in out
    after = queues(state)
    assert (after["FROM"], sorted(after["TO"])) == ([], sorted(ids))


def test_a_move_killed_at_random_moments_never_moves_a_message_twice_nor_loses_one(tmp_path: Path) -> None:
    state = tmp_path / "state"
    ids = fill(state, COUNT)
    chance = random.Random(18)
    for _ in range(3):
        process = move(state)
        time.sleep(chance.uniform(0.05, 0.6))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        _, err = process.communicate(timeout=PATIENCE)
        assert b"Traceback" not in err
        after = queues(state)
        # All on one queue or the other, each exactly once.
        assert sorted(after["FROM"] + after["TO"]) == sorted(ids)
        assert not (after["FROM"] and after["TO"])


def _display(state: Path, command: str) -> str:
    result = subprocess.run(
        [sys.executable, "-m", "mqtool", "cmd", command],
        env=env(state),
        capture_output=True,
        timeout=PATIENCE,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.decode()


def test_a_get_that_waits_is_a_connection_until_it_ends(tmp_path: Path) -> None:
    state = tmp_path / "state"
    fill(state, 0)
    getter = subprocess.Popen(
        [sys.executable, "-m", "mqtool", "get", "TO", "--system", "CSQ1", "--wait", "120", "-q"],
        env=env(state),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + PATIENCE
        while True:
            shown = _display(state, "-CSQ1 DISPLAY CONN(*) TYPE(ALL) ALL")
            if "OBJNAME(TO)" in shown:
                break
            assert getter.poll() is None and time.monotonic() < deadline, shown
            time.sleep(0.1)
        assert "APPLTAG(mqtool get)" in shown and "APPLTYPE(BATCH)" in shown
        assert f"PID({getter.pid})" in shown and "OPENOPTS(MQOO_INPUT_SHARED)" in shown
        thread = _display(state, "-CSQ1 DISPLAY THREAD(*)")
        assert any(line.startswith("MQTOOL   T  *     1 GET ") for line in thread.splitlines()), thread
        # A message for it: the get ends, and so does the connection.
        putter = subprocess.run(
            [sys.executable, "-m", "mqtool", "put", "TO", "--system", "CSQ1", "--data", "hello", "-q"],
            env=env(state),
            capture_output=True,
            timeout=PATIENCE,
        )
        assert putter.returncode == 0, putter.stderr
        out, _ = getter.communicate(timeout=PATIENCE)
        assert out == b"hello\n"
    finally:
        if getter.poll() is None:
            getter.kill()
            getter.wait()
    assert "CSQM297I" in _display(state, "-CSQ1 DISPLAY CONN(*)")
