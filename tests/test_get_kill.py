"""Getters killed with SIGKILL lose nothing: `mqtool get --all`, to standard output and
to --out DIR, of persistent and non-persistent messages, killed at a random moment again
and again, then a last get that runs to the end. Every message put comes out (0 lost);
with --out each is exactly one file (0 duplicated), never an empty or partial one.
Standard output is at least once: a message written just before a kill may come again,
and the line a kill cut short (no newline after it) is not a delivery.

The number of kills per case is MQTOOL_TEST_KILLS (default 3); each case prints its
figures (`pytest -s`), which is how the report's figures over 30 kills were measured."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.core.message import PutOptions
from mqtool.engine.platforms import open_queue
from mqtool.session import Session
from mqtool.state import Store

pytestmark = pytest.mark.slow

KILLS = int(os.environ.get("MQTOOL_TEST_KILLS", "3"))
# Messages per case: a non-persistent get to standard output is fast (batches, no fsync
# per message), so it needs many for its kills to land while it delivers.
MESSAGES = {(False, False): 30000, (False, True): 1500, (True, False): 1500, (True, True): 1500}
PATIENCE = 60.0  # seconds: the most a condition is waited for


def env(state: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    clean["MQTOOL_STATE"] = str(state)
    return clean


def payload(number: int) -> bytes:
    return f"message {number:06d} ".encode() + bytes([65 + number % 26]) * (number % 300)


def fill(state: Path, persistent: bool, count: int) -> None:
    """`count` messages on queue Q, put in one transaction (quick, even when persistent)."""
    clock = Clock()
    store = Store.open(state)
    try:
        ensure_complex(store, clock.timestamp())
        assert Session(store, clock).execute("ZMQSC DEFINE QL-Q").status == "ok"
        handle = open_queue(store, clock, "TPF1", "Q")
        with store.transaction() as tx:
            handle.open(tx)
            for number in range(count):
                handle.put(tx, payload(number), PutOptions(persistent=persistent))
            handle.close(tx)
    finally:
        store.close()


def delivered(output: Path, folder: Path | None) -> int:
    """How far delivery has come: bytes written to this getter's standard output, or
    files in the folder."""
    if folder is None:
        return output.stat().st_size if output.exists() else 0
    return sum(1 for name in os.listdir(folder) if name.endswith(".msg"))


@pytest.mark.parametrize("persistent", [True, False], ids=["persistent", "non-persistent"])
@pytest.mark.parametrize("to_folder", [False, True], ids=["stdout", "out-dir"])
def test_killed_getters_lose_nothing(tmp_path: Path, persistent: bool, to_folder: bool) -> None:
    state = tmp_path / "state"
    count = MESSAGES[persistent, to_folder]
    if count < 10000:
        count *= max(1, KILLS // 3)  # enough for every kill to land while the getter delivers
    fill(state, persistent, count)
    folder = tmp_path / "got" if to_folder else None
    if folder is not None:
        folder.mkdir()
    outputs: list[Path] = []  # each getter's standard output
    chance = random.Random(f"{persistent}{to_folder}")
    args = [sys.executable, "-m", "mqtool", "get", "Q", "--all", "-q"]
    if folder is not None:
        args += ["--out", str(folder)]
    kills = 0
    for _ in range(KILLS):
        output = tmp_path / f"stdout{len(outputs)}"
        outputs.append(output)
        since = delivered(output, folder) if folder is not None else 0
        with open(output, "wb") as sink:
            process = subprocess.Popen(args, env=env(state), stdout=sink, stderr=subprocess.PIPE)
        # Kill once it is delivering: after its first message, at a random moment.
        deadline = time.monotonic() + PATIENCE
        while delivered(output, folder) <= since and process.poll() is None:
            assert time.monotonic() < deadline, "the getter delivered nothing"
            time.sleep(0.005)
        time.sleep(chance.uniform(0.0, 0.03 if count > 10000 else 0.1))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            kills += 1
        process.wait(timeout=PATIENCE)
        assert process.stderr is not None
        assert b"Traceback" not in process.stderr.read()
        process.stderr.close()
    # The last getter runs to the end.
    output = tmp_path / "stdout-last"
    outputs.append(output)
    with open(output, "wb") as sink:
        final = subprocess.run(args, env=env(state), stdout=sink, stderr=subprocess.PIPE, timeout=PATIENCE * 4)
    assert final.returncode == 0, final.stderr
    expected = Counter(payload(number) for number in range(count))
    if folder is None:
        # A reader of a killed getter's output drops its last line if the kill cut it
        # (no newline after it): that message is still on the queue.
        got = Counter(line for output in outputs for line in output.read_bytes().split(b"\n")[:-1])
        lost = sum((expected - got).values())
        duplicated = sum((got - expected).values())
        assert set(got) <= set(expected), "a message that was never put"
    else:
        names = sorted(os.listdir(folder))
        files = [name for name in names if name.endswith(".msg")]
        got = Counter((folder / name).read_bytes() for name in files)
        lost = sum((expected - got).values())
        duplicated = sum((got - expected).values())
        assert all(name.endswith(".msg") or name.endswith(".got") for name in names), names
        assert len(files) == count - lost
    print(f"\n{'persistent' if persistent else 'non-persistent'} to {'--out' if folder else 'stdout'}: "
          f"{kills} kills, {lost} lost, {duplicated} delivered twice")  # fmt: skip
    assert lost == 0
    if folder is not None:
        assert duplicated == 0
    assert kills >= 1  # at least one getter was killed while it was delivering
