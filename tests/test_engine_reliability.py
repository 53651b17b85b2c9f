"""Whole-process reliability of the message engine: a put stream killed with SIGKILL at
random points loses no acknowledged message and leaves nothing partial; three putters
and three getters on one store get every message exactly once; a damaged compressed
payload fails its get with a clear error and stays on the queue."""

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
from mqtool.engine.core.message import format_id
from mqtool.engine.core.streams import get_stream
from mqtool.engine.payload import generate
from mqtool.engine.platforms import open_queue
from mqtool.state import Store

pytestmark = pytest.mark.slow


def mqtool(state: Path, *args: str, **kwargs: object) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    env["MQTOOL_STATE"] = str(state)
    return subprocess.Popen(  # type: ignore[call-overload, no-any-return]
        [sys.executable, "-m", "mqtool", *args], env=env, **kwargs
    )


def run(state: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    process = mqtool(state, *args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = process.communicate(stdin, timeout=120)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def browse_all(state: Path, queue: str, system: str = "TPF1") -> list[tuple[bytes, bytes]]:
    store = Store.open(state)
    try:
        found: list[tuple[bytes, bytes]] = []
        handle = open_queue(store, Clock(), system, queue)
        result = get_stream(handle, lambda m: found.append((m.msgid, m.payload)), None, browse=True)
        assert result.error is None
        return found
    finally:
        store.close()


@pytest.mark.parametrize("persistence", ["--persistent", "--non-persistent"])
def test_killed_put_stream_keeps_every_acknowledged_message_once(tmp_path: Path, persistence: str) -> None:
    state = tmp_path / "state"
    assert run(state, "cmd", "ZMQSC DEFINE QL-Q0", "ZMQSC DEFINE QL-Q1", "ZMQSC DEFINE QL-Q2").returncode == 0
    chance = random.Random(f"crash{persistence}")
    for round_number in range(3):
        queue = f"Q{round_number}"
        seed = 100 + round_number
        args = ["put", queue, "--pattern", "xml", "--size", "1500", "--count", "1000000", "--seed", str(seed)]
        process = mqtool(state, *args, persistence, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert process.stdout is not None
        # Wait for the first acknowledgement, then kill at a random moment after it.
        first = process.stdout.readline()
        assert first.startswith(b"MQT0102I Message 1 put"), first
        time.sleep(chance.uniform(0.05, 0.6))
        process.send_signal(signal.SIGKILL)
        rest = process.stdout.read()
        process.wait()
        complete = (first + rest).split(b"\n")[:-1]  # a line cut by the kill is not an acknowledgement
        acknowledged = [line.split(b"MSGID ")[1].split(b",")[0].decode() for line in complete]
        stored = browse_all(state, queue)
        ids = [format_id(msgid) for msgid, _ in stored]
        assert len(ids) == len(set(ids)), "a message stored twice"
        assert ids[: len(acknowledged)] == acknowledged, "an acknowledged message is missing"
        # Every stored message is whole: message i of the stream, byte for byte.
        for index, (_, payload) in enumerate(stored):
            assert payload == generate("xml", 1500, seed, index)
        assert len(acknowledged) >= 1


def every_message_once(state: Path, define: str, system: str = "TPF1", total: int = 3000) -> None:
    """Three putters and three getters, whole processes, on queue SHARED of `system`
    (defined by `define`): every message is got once, none lost, none twice. Each getter
    ends when it has its share; the long wait bounds a failure only (no timing)."""
    assert run(state, "--system", system, "cmd", define).returncode == 0
    putters = getters_count = 3
    payloads = [f"message {k:05d}".encode() for k in range(total)]
    share = str(total // getters_count)
    getters = [
        mqtool(state, "--system", system, "get", "SHARED", "--count", share, "--wait", "300", "-q",
               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(getters_count)
    ]  # fmt: skip
    puts = []
    for number in range(putters):
        lines = b"\n".join(payloads[number::putters]) + b"\n"
        process = mqtool(
            state, "--system", system, "put", "SHARED", "-q", stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        puts.append((process, lines))
    for process, lines in puts:
        process.communicate(lines, timeout=300)
        assert process.returncode == 0
    got: Counter[bytes] = Counter()
    for getter in getters:
        out, err = getter.communicate(timeout=300)
        assert getter.returncode == 0, err
        got.update(out.splitlines())
    assert got == Counter(payloads)  # every message once: none lost, none twice
    assert browse_all(state, "SHARED", system) == []


def test_three_putters_and_three_getters_get_every_message_once(tmp_path: Path) -> None:
    every_message_once(tmp_path / "state", "ZMQSC DEFINE QL-SHARED DEFPSIST-YES")


def test_damaged_compressed_payload_fails_the_get_and_stays(tmp_path: Path) -> None:
    state = tmp_path / "state"
    assert run(state, "cmd", "ZMQSC DEFINE QL-Q1 COMPSIZE-1000").returncode == 0
    assert run(state, "put", "Q1", "--pattern", "xml", "--size", "8000", "--count", "2", "-q").returncode == 0
    store = Store.open(state)
    with store.transaction() as tx:
        row_id, stored = tx.conn.execute(
            "SELECT id, payload FROM messages WHERE system = 'TPF1' ORDER BY id LIMIT 1"
        ).fetchone()
        broken = stored[: len(stored) // 2] + bytes(len(stored) - len(stored) // 2)
        tx.conn.execute("UPDATE messages SET payload = ? WHERE id = ?", (broken, row_id))
    store.close()
    result = run(state, "get", "Q1")
    assert result.returncode == 1
    assert result.stdout == b""
    err = result.stderr.decode()
    assert err.startswith("MQT0120E Get from Q1 failed: MQRC 2195 (MQRC_UNEXPECTED_ERROR): message ")
    assert "is damaged: its payload does not match its checksum" in err and "Traceback" not in err
    depth = run(state, "cmd", "ZMQSC DISPLAY QL-Q1").stdout.decode()
    assert "CURDEPTH 2" in depth
