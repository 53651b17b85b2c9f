"""Two stores on 127.0.0.1, each run by its own `mqtool serve` process, joined by a TCP
channel; one of the two processes is killed with SIGKILL at a random point of a batch
(while it streams, takes or puts a message, between its commits, before or after an
answer), again and again, and started again. Every message put arrives once: none lost,
none duplicated, and the channel resynchronises by itself at each restart (its batch in
doubt committed or backed out by the receiver's LUWID).

The number of kills per side is MQTOOL_TEST_KILLS (default 3); the report's figures are
over 30 (`MQTOOL_TEST_KILLS=30 pytest -s tests/test_tcp_process.py`)."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mqtool.engine.channels import listeners
from mqtool.engine.channels.tcp.agents import KILL_VARIABLE
from mqtool.state import Store
from mqtool.state import messages as runs

pytestmark = pytest.mark.slow

KILLS = int(os.environ.get("MQTOOL_TEST_KILLS", "3"))
PATIENCE = 120.0
CHANNEL = "TPF1.TO.CSQ1"


def env(**extra: str) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    return clean | extra


def mqtool(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run([sys.executable, "-m", "mqtool", "--state", str(state), *args], capture_output=True,
                            text=True, env=env(), timeout=120)  # fmt: skip
    assert result.returncode == 0, (args, result.stdout, result.stderr)
    return result


def wait_for(condition: Callable[[], bool], patience: float = PATIENCE) -> bool:
    deadline = time.monotonic() + patience
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


class Server:
    """`mqtool serve` on a store, its output in files (a pipe nobody drains could block it)."""

    def __init__(self, state: Path, log: Path, **extra: str) -> None:
        self.log = log
        with (log.with_suffix(".out")).open("a") as out, (log.with_suffix(".err")).open("a") as err:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "mqtool", "--state", str(state), "serve", "--interval", "0.05"],
                stdout=out, stderr=err, env=env(**extra),
            )  # fmt: skip

    def ended(self) -> bool:
        return self.process.poll() is not None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def read(state: Path, system: str, queue: str) -> list[bytes]:
    store = Store.open(state)
    try:
        with store.transaction(write=False) as tx:
            qkey = runs.queue_key(tx.conn, system, queue)
            assert qkey is not None
            rows = tx.conn.execute("SELECT msgid FROM messages WHERE id > ? AND id < ?", runs.span(qkey))
            return [bytes(row[0]) for row in rows]
    finally:
        store.close()


def listening_port(state: Path) -> int:
    store = Store.open(state)
    try:
        with store.transaction(write=False) as tx:
            system = tx.get_system("CSQ1")
            assert system is not None
            for address in listeners.configured(system):
                status = listeners.status_of(tx, "CSQ1", address)
                if status.state == listeners.LISTENING:
                    return status.port
    finally:
        store.close()
    return 0


def loops(state: Path) -> set[int]:
    """The pids of the serving loops registered on a store."""
    store = Store.open(state)
    try:
        with store.transaction(write=False) as tx:
            found = json.loads(tx.get_meta("http.services") or "{}")
    finally:
        store.close()
    return {int(data["pid"]) for data in found.values()}


def owner_pid(state: Path) -> int:
    store = Store.open(state)
    try:
        with store.transaction(write=False) as tx:
            (status,) = listeners.statuses(tx, "CSQ1").values()
    finally:
        store.close()
    return int((status.owner or {}).get("pid", 0))


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[tuple[Path, Path, list[bytes]]]:
    """A (TPF1 sends) and B (CSQ1 receives on a port the system chose once, then kept:
    a receiver killed and started again listens where its sender looks)."""
    a, b = tmp_path / "a", tmp_path / "b"
    mqtool(b, "cmd", "-CSQ1 START LISTENER PORT(0)", "-CSQ1 DEFINE QLOCAL(ORDERS.IN)",
           f"-CSQ1 DEFINE CHANNEL({CHANNEL}) CHLTYPE(RCVR) COMPMSG(ANY) HBINT(5) MCAUSER(TPFMQ)")  # fmt: skip
    first = Server(b, tmp_path / "b-first")
    try:
        assert wait_for(lambda: listening_port(b) > 0), first.log.with_suffix(".err").read_text()
        port = listening_port(b)
    finally:
        first.stop()
    mqtool(b, "cmd", "-CSQ1 STOP LISTENER", f"-CSQ1 START LISTENER PORT({port})")
    count = 20 * KILLS + 60
    mqtool(a, "cmd", "ZMQSC DEFINE QL-CSQ1 USAGE-XMITQ", "ZMQSC DEFINE QR-ORDERS RNAME-ORDERS.IN RQMNAME-CSQ1",
           f"ZMQSC DEFINE CHL-{CHANNEL} CHLTYPE-SDR CONNAME-'127.0.0.1({port})' XMITQ-CSQ1 COMPMSG-ZLIBFAST "
           "BATCHSZ-10 SHORTTMR-1 HBINT-5")  # fmt: skip
    mqtool(a, "put", "ORDERS", "--pattern", "xml", "--size", "3000", "--count", str(count), "--persistent", "-q")
    sent = read(a, "TPF1", "CSQ1")
    assert len(sent) == count
    mqtool(a, "cmd", f"ZMQSC START CHL-{CHANNEL}")
    yield a, b, sent


@pytest.mark.parametrize("side", ["sender", "receiver"])
def test_kill_9_at_random_points_of_a_batch_loses_and_duplicates_nothing(
    stores: tuple[Path, Path, list[bytes]], tmp_path: Path, side: str
) -> None:
    a, b, sent = stores
    victim, survivor = (a, b) if side == "sender" else (b, a)
    chance = random.Random(f"{side}-{KILLS}")
    other = Server(survivor, tmp_path / "survivor")
    kills = 0

    def done() -> bool:
        return len(read(b, "CSQ1", "ORDERS.IN")) == len(sent)

    try:
        while kills < KILLS:
            point = chance.randint(1, 40)
            killed = Server(victim, tmp_path / f"victim-{kills}", **{KILL_VARIABLE: str(point)})
            assert wait_for(lambda: killed.ended() or done()), "neither killed nor done"  # noqa: B023
            if not killed.ended():
                killed.stop()
                break  # everything arrived before this round's point: no more to kill
            assert killed.process.returncode == -signal.SIGKILL, killed.log.with_suffix(".err").read_text()
            kills += 1
        last = Server(victim, tmp_path / "victim-last")
        try:
            assert wait_for(lambda: len(read(b, "CSQ1", "ORDERS.IN")) >= len(sent) and not read(a, "TPF1", "CSQ1"))
        finally:
            last.stop()
    finally:
        other.stop()
    arrived = read(b, "CSQ1", "ORDERS.IN")
    duplicated = [msgid for msgid, times in Counter(arrived).items() if times > 1]
    lost = set(sent) - set(arrived)
    print(f"\n{side}: {kills} kills with SIGKILL, {len(sent)} messages: {len(lost)} lost, {len(duplicated)} duplicated")
    assert kills >= min(KILLS, 1)
    assert not lost and not duplicated and len(arrived) == len(sent)
    console = mqtool(a, "console").stdout
    assert "MQSC0301I" in console  # started again by itself after each kill


def test_two_serving_loops_on_one_store_share_its_listener(tmp_path: Path) -> None:
    """A second `mqtool serve` on the store leaves the listener to the first; it takes
    it over when the first is killed."""
    state = tmp_path / "b"
    mqtool(state, "cmd", "-CSQ1 START LISTENER PORT(0)")
    first = Server(state, tmp_path / "first")
    second: Server | None = None
    try:
        assert wait_for(lambda: listening_port(state) > 0)
        port = listening_port(state)
        second = Server(state, tmp_path / "second")
        pid = second.process.pid
        # Once the second loop has polled (it is registered), the listener is still the first one's.
        assert wait_for(lambda: pid in loops(state))
        assert listening_port(state) == port and owner_pid(state) == first.process.pid
        with socket.create_connection(("127.0.0.1", port), timeout=10):
            pass
        first.process.kill()
        first.process.wait()
        assert wait_for(lambda: listening_port(state) not in (0, port))
    finally:
        first.stop()
        if second is not None:
            second.stop()
