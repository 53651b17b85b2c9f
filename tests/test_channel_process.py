"""Channels across processes: a process killed with SIGKILL in the middle of a batch
(inside its first commit, or between its two commits) loses and duplicates nothing
once another process drives the channel; and real time: a channel started from one
process moves the messages put from another while `mqtool serve` runs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mqtool.engine.channels.mca import CRASH_VARIABLE
from mqtool.state import Store
from mqtool.state import messages as runs

pytestmark = pytest.mark.slow

FROZEN = "2021-03-09T15:41:22Z"
LATER = "2021-03-09T15:45:00Z"  # a later frozen instant: what was due is due again
SETUP = (
    "ZMQSC DEFINE QL-XQ USAGE-XMITQ\n"
    "ZMQSC DEFINE QR-DEST.R RNAME-DEST RQMNAME-TPFQM2 XMITQ-XQ\n"
    "ZMQSC DEFINE CHL-C CHLTYPE-SDR CONNAME-'127.0.0.1(1415)' XMITQ-XQ COMPMSG-ZLIBFAST BATCHSZ-40\n"
    ".system TPF2\n"
    "ZMQSC DEFINE QL-DEST\n"
    "ZMQSC DEFINE CHL-C CHLTYPE-RCVR COMPMSG-ANY\n"
    ".system TPF1\n"
    ".put DEST.R count=100 size=4000 pattern=xml persistent=yes\n"
)


def env(**extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    return clean | extra


def mqtool(state: Path, *args: str, clock: str | None = FROZEN, **extra: str) -> subprocess.CompletedProcess[str]:
    base = [sys.executable, "-m", "mqtool", "--state", str(state)] + (["--clock", clock] if clock else [])
    return subprocess.run([*base, *args], capture_output=True, text=True, env=env(**extra), timeout=120)


def complex_with_channel(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    for args in (
        ("system", "alter", "TPF1", "--listener", "127.0.0.1(1414)"),
        ("system", "add", "TPF2", "--platform", "ztpf", "--qmgr", "TPFQM2", "--listener", "127.0.0.1(1415)"),
    ):
        result = mqtool(state, *args)
        assert result.returncode == 0, result.stderr
    script = tmp_path / "setup.mqsc"
    script.write_text(SETUP, encoding="utf-8")
    result = mqtool(state, "run", str(script))
    assert result.returncode == 0, result.stdout
    return state


def messages(state: Path, system: str, queue: str) -> list[tuple[bytes, bytes]]:
    """(msgid, payload as stored) of every message on a queue."""
    store = Store.open(state)
    try:
        with store.transaction(write=False) as tx:
            qkey = runs.queue_key(tx.conn, system, queue)
            assert qkey is not None
            rows = tx.conn.execute(
                "SELECT msgid, payload FROM messages WHERE id > ? AND id < ? ORDER BY id", runs.span(qkey)
            ).fetchall()
    finally:
        store.close()
    return [(bytes(m), bytes(p)) for m, p in rows]


@pytest.mark.parametrize("point", ["send", "confirm"])
def test_kill_9_in_the_middle_of_a_batch_loses_and_duplicates_nothing(tmp_path: Path, point: str) -> None:
    state = complex_with_channel(tmp_path)
    sent = messages(state, "TPF1", "XQ")
    assert len(sent) == 100
    script = tmp_path / "move.mqsc"
    script.write_text("ZMQSC START CHL-C\n.advance 1s\nZMQSC DISPLAY QL-XQ\n", encoding="utf-8")
    killed = mqtool(state, "run", str(script), **{CRASH_VARIABLE: point})
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stdout, killed.stderr)
    delivered = messages(state, "TPF2", "DEST")
    # Killed inside the first commit: nothing arrived. Between the commits: the first
    # batch arrived and is still on the transmission queue, in doubt.
    assert len(delivered) == (0 if point == "send" else 40)
    assert len(messages(state, "TPF1", "XQ")) == 100
    # Another process drives the channel on: it resolves the batch with the receiver
    # and moves the rest.
    resumed = mqtool(state, "cmd", "ZMQSC DISPLAY CHL-C STAT", clock=LATER)
    assert resumed.returncode == 0, resumed.stdout
    assert "Sequence Number    - 100" in resumed.stdout, resumed.stdout
    assert messages(state, "TPF1", "XQ") == []
    arrived = messages(state, "TPF2", "DEST")
    assert sorted(m for m, _ in arrived) == sorted(m for m, _ in sent)
    assert len(arrived) == len({m for m, _ in arrived}) == 100
    console = mqtool(state, "console", clock=LATER).stdout
    if point == "confirm":
        assert "CHL-C IN-DOUBT BATCH SEQNUM 1-40 (40 MESSAGES) COMMITTED WITH TPFQM2" in console, console
    else:
        assert "IN-DOUBT" not in console


def wait_for(condition: object, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


def test_a_channel_started_in_one_process_moves_messages_put_from_another(tmp_path: Path) -> None:
    state = complex_with_channel(tmp_path)
    # The server's output goes to files, not pipes: a pipe nobody drains could fill and
    # block the server, and the files tell what happened when an assertion fails.
    out, err = tmp_path / "serve.out", tmp_path / "serve.err"
    with out.open("w") as stdout, err.open("w") as stderr:
        serve = subprocess.Popen(
            [sys.executable, "-m", "mqtool", "--state", str(state), "serve", "--interval", "0.05"],
            stdout=stdout,
            stderr=stderr,
            text=True,
            env=env(),
        )
    try:
        assert wait_for(lambda: "MQT0140I Serving" in err.read_text()), err.read_text()
        started = mqtool(state, "cmd", "ZMQSC START CHL-C", clock=None)
        assert "START CHL-C ACCEPTED" in started.stdout, started.stdout
        # The 100 messages put before the start move as soon as the channel binds ...
        assert wait_for(lambda: len(messages(state, "TPF2", "DEST")) == 100), err.read_text()
        # ... and a message put now by another process follows within the loop's ticks.
        put = mqtool(state, "put", "DEST.R", "--data", "real time", clock=None)
        assert put.returncode == 0, put.stderr
        assert wait_for(lambda: len(messages(state, "TPF2", "DEST")) == 101), err.read_text()
        assert messages(state, "TPF2", "DEST")[-1][1] == b"real time"
        assert messages(state, "TPF1", "XQ") == []
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(timeout=60)
        finally:
            if serve.poll() is None:
                serve.kill()
                serve.wait()
    assert serve.returncode == 0, (out.read_text(), err.read_text())
