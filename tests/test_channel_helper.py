"""Where a batch's wire work runs (mqtool/engine/channels/offload.py): the helper
process gives the same transcripts, bytes and figures as the thread; a helper that dies
is replaced by the thread without losing or duplicating a message; and a helper never
outlives its parent, not even one killed with -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from zlib_ng.zlib_ng import crc32

from mqtool.engine.channels import mca, offload
from tests import test_channels
from tests.test_channels import Complex
from tests.test_golden import GOLDEN, run_golden

pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="the helper process needs memfd (Linux)")

CHANNEL_GOLDENS = sorted(GOLDEN.glob("channel_*.mqsc"))
plex = test_channels.plex  # the fixture: the complex of tests/test_channels.py


@pytest.fixture
def submitted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of messages of each chunk the helper was given."""
    counts: list[int] = []
    real = offload._Helper.submit

    def spy(self: offload._Helper, jobs: list[offload.Job], frozen: bool, wait: bool = True) -> offload.Pending | None:
        counts.append(len(jobs))
        return real(self, jobs, frozen, wait)

    monkeypatch.setattr(offload._Helper, "submit", spy)
    return counts


def _helper_pid() -> int | None:
    helper = offload._Helper._instance
    return None if helper is None or helper.process.poll() is not None else helper.process.pid


@pytest.mark.parametrize("script", CHANNEL_GOLDENS, ids=[c.stem for c in CHANNEL_GOLDENS])
def test_the_channel_goldens_are_the_same_with_every_batch_in_the_helper(
    script: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, submitted: list[int]
) -> None:
    monkeypatch.setenv(offload.HELPER_VARIABLE, "always")
    output, _ = run_golden(script, tmp_path / "state", monkeypatch)
    assert output == script.with_suffix(".out").read_text(encoding="utf-8")
    if script.stem in ("channel_transfer", "channel_zos"):
        assert sum(submitted) > 0  # these compress and inflate: the helper did it


def _transfer(plex: Complex, compmsg: str, compsize: int) -> tuple[list[bytes], list[bytes], dict[str, object]]:
    """200 messages of 6 KB XML over channel C; what was sent, what arrived, and the
    sender's figures."""
    plex.channel(compmsg=compmsg, xmitq_compsize=compsize)
    plex.cmd(".put DEST.R count=200 size=6000 pattern=xml persistent=yes")
    sent = plex.payloads("TPF1", "XQ")
    plex.cmd("ZMQSC START CHL-C", ".advance 2s")
    assert plex.depth("TPF1", "XQ") == 0
    total = plex.status("TPF1").total
    return sent, plex.payloads("TPF2", "DEST"), total.__dict__


CASES = [("ZLIBFAST", 0), ("ZLIBHIGH", 0), ("NONE", 4000), ("ZLIBFAST", 4000)]  # COMPSIZE 4000: stored compressed


@pytest.mark.parametrize(("compmsg", "compsize"), CASES)
def test_helper_and_thread_move_the_same_bytes_with_the_same_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, submitted: list[int], compmsg: str, compsize: int
) -> None:
    found = {}
    for mode in ("0", "always"):
        monkeypatch.setenv(offload.HELPER_VARIABLE, mode)
        mca._SENT_HERE.clear()
        plex = Complex(tmp_path / f"state-{mode}")
        try:
            found[mode] = _transfer(plex, compmsg, compsize)
        finally:
            plex.store.close()
        assert (sum(submitted) > 0) == (mode == "always")
    sent, arrived, figures = found["always"]
    assert arrived == sent
    assert found["always"] == found["0"]
    assert figures["msgs"] == 200


@pytest.fixture
def carried(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[int]]:
    """The messages of each chunk started for the batch that carries it ("now") and
    for the next batch while this one commits ("ahead")."""
    found: dict[str, list[int]] = {"now": [], "ahead": []}
    start, start_ahead = offload.Carrier.start, offload.Carrier.start_ahead

    def now(self: offload.Carrier, jobs: list[offload.Job]) -> offload.Pending:
        found["now"].append(len(jobs))
        return start(self, jobs)

    def ahead(self: offload.Carrier, jobs: list[offload.Job]) -> offload.Pending | None:
        pending = start_ahead(self, jobs)
        if pending is not None:
            found["ahead"].append(len(jobs))
        return pending

    monkeypatch.setattr(offload.Carrier, "start", now)
    monkeypatch.setattr(offload.Carrier, "start_ahead", ahead)
    return found


def test_the_next_batch_is_carried_while_this_one_commits_and_each_message_once(
    plex: Complex, monkeypatch: pytest.MonkeyPatch, carried: dict[str, list[int]]
) -> None:
    monkeypatch.setenv(offload.HELPER_VARIABLE, "always")
    sent, arrived, figures = _transfer(plex, "ZLIBFAST", 0)  # 200 messages, batches of 50
    assert arrived == sent
    assert figures["batches"] == 4
    # Three batches had a next one: its first messages were started while they committed.
    assert len(carried["ahead"]) >= 3
    assert sum(carried["now"]) + sum(carried["ahead"]) == 200  # none carried twice
    assert mca._LOOKAHEAD == {}  # the last batch had no next one


def test_a_message_changed_after_it_was_carried_ahead_is_carried_again(
    plex: Complex, monkeypatch: pytest.MonkeyPatch, carried: dict[str, list[int]]
) -> None:
    monkeypatch.setenv(offload.HELPER_VARIABLE, "always")
    plex.channel()
    plex.cmd(".put DEST.R count=120 size=6000 pattern=xml persistent=yes")
    real = mca._look_ahead
    changed: list[bytes] = []

    def then_change(work: Any, end: Any, *args: Any) -> list[Any]:
        started = real(work, end, *args)
        if started and not changed:
            # Another writer changes a message after its wire work started (in the store
            # the write lock keeps others out; this stands for any change at all).
            row = started[0].rows[1]
            changed.append(b"<changed/>" * 700)
            work.tx.conn.execute("UPDATE messages SET payload = ?, stored_length = ?, original_length = ?, "
                                 "checksum = ? WHERE id = ?",
                                 (changed[0], len(changed[0]), len(changed[0]), crc32(changed[0]), row))  # fmt: skip
        return started

    monkeypatch.setattr(mca, "_look_ahead", then_change)
    expected = plex.payloads("TPF1", "XQ")
    expected[51] = b"<changed/>" * 700  # the second message of the second batch
    plex.cmd("ZMQSC START CHL-C", ".advance 2s")
    assert changed and plex.payloads("TPF2", "DEST") == expected
    assert sum(carried["now"]) + sum(carried["ahead"]) > 120  # one chunk carried again


def test_a_batch_with_nothing_to_compress_or_inflate_never_reaches_the_helper(
    plex: Complex, monkeypatch: pytest.MonkeyPatch, submitted: list[int]
) -> None:
    monkeypatch.setenv(offload.HELPER_VARIABLE, "always")
    taken = []
    monkeypatch.setattr(offload._Helper, "take", classmethod(lambda cls: taken.append(cls)))
    sent, arrived, _ = _transfer(plex, "NONE", 0)
    assert arrived == sent
    assert (taken, submitted) == ([], [])


def test_corrupt_data_fails_the_batch_the_same_way_in_the_helper(
    plex: Complex, monkeypatch: pytest.MonkeyPatch, submitted: list[int]
) -> None:
    monkeypatch.setenv(offload.HELPER_VARIABLE, "always")
    plex.channel(compmsg="NONE", xmitq_compsize=16000)
    plex.cmd(".put DEST.R count=3 size=20000 pattern=xml")
    plex.set_payload("XQ", 1, zlib.compress(bytes(60 * 1024 * 1024), 9))  # declared 20000: a bomb
    plex.cmd("ZMQSC START CHL-C", ".advance 1s")
    assert submitted
    assert plex.status("TPF1").state == "RETRYING"
    assert (plex.depth("TPF1", "XQ"), plex.depth("TPF2", "DEST")) == (3, 0)
    (line,) = [text for text in plex.console() if "MQSC0319E" in text]
    assert "does not inflate" in line and "20000 bytes" in line


def test_a_helper_that_dies_is_replaced_by_the_thread_and_nothing_is_lost(
    plex: Complex, monkeypatch: pytest.MonkeyPatch, submitted: list[int]
) -> None:
    monkeypatch.setenv(offload.HELPER_VARIABLE, "always")
    monkeypatch.setattr(offload._Helper, "_failed", False)
    plex.channel()
    plex.cmd(".put DEST.R count=50 size=6000 pattern=xml persistent=yes")
    sent = plex.payloads("TPF1", "XQ")

    def die_first(self: offload._Helper, pending: offload._InHelper) -> list[Any]:
        # The helper dies with chunks under way, before it wrote their answers: reading
        # its pipe meets the end (killing it is not enough, since answers it wrote before
        # dying would still be read when the machine is loaded, and nothing would fail).
        self.process.kill()
        self.process.wait()
        raise offload._HelperGone

    monkeypatch.setattr(offload._Helper, "_answer", die_first)
    plex.cmd("ZMQSC START CHL-C", ".advance 2s")
    assert submitted
    assert plex.payloads("TPF2", "DEST") == sent
    assert plex.depth("TPF1", "XQ") == 0
    assert offload._Helper._failed and _helper_pid() is None  # the thread carries on


_PARENT = """
import os, sys
from mqtool.engine.channels import offload
os.environ[offload.HELPER_VARIABLE] = "always"
carrier = offload.Carrier(False, 0)
done = carrier.start([offload.Job(b"x" * 5000, "", 5000, "ZLIBFAST", 0, True)]).result()
assert carrier.helper is not None
assert done[0].original == b"x" * 5000, done
print(carrier.helper.process.pid, flush=True)
sys.stdin.read()
"""


def test_the_helper_ends_with_its_parent_even_after_kill_9(tmp_path: Path) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", _PARENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)},
    )  # fmt: skip
    try:
        assert parent.stdout is not None
        helper = int(parent.stdout.readline())
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        # End of file on its pipe ends the helper; poll until it is gone (no fixed delay).
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and _alive(helper):
            time.sleep(0.05)
        assert not _alive(helper)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_an_interrupt_while_waiting_for_the_helper_ends_it_and_the_next_batch_starts_another(
    plex: Complex, monkeypatch: pytest.MonkeyPatch, submitted: list[int]
) -> None:
    monkeypatch.setenv(offload.HELPER_VARIABLE, "always")
    plex.channel()
    plex.cmd(".put DEST.R count=50 size=6000 pattern=xml persistent=yes")
    sent = plex.payloads("TPF1", "XQ")
    real = offload._Helper._answer
    calls = []

    def interrupted(self: offload._Helper, pending: offload._InHelper) -> list[offload.Result]:
        calls.append(self.process.pid)
        if len(calls) == 1:
            raise KeyboardInterrupt  # Ctrl-C while a chunk's answer is awaited
        return real(self, pending)

    monkeypatch.setattr(offload._Helper, "_answer", interrupted)
    plex.cmd("ZMQSC START CHL-C")
    with pytest.raises(KeyboardInterrupt):
        plex.cmd(".advance 2s")
    first = calls[0]
    assert not _alive(first)  # ended, not left with its answers out of step
    assert plex.depth("TPF2", "DEST") == 0  # the batch's transaction never committed
    plex.cmd(".advance 2s")
    assert plex.payloads("TPF2", "DEST") == sent
    assert plex.depth("TPF1", "XQ") == 0
    assert calls[-1] != first  # a new helper carried the batch


@pytest.mark.parametrize("args", [[], ["x"], ["987"]])
def test_the_helper_started_by_hand_says_what_it_is_in_one_line(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mqtool.engine.channels.offload", *args], stdin=subprocess.DEVNULL,
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("mqtool: error: the channel helper ") and done.stderr.count("\n") == 1
