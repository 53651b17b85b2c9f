"""Full disks, for real and simulated: the state file's disk fills during puts and gets
(one `mqtool: error:` line naming the state file, exit 2, acknowledged messages kept;
DISPLAY and browses still work, the timers due are deferred and said once, MQT0712W),
and `get --out` fills the disk it writes to (the message that does not fit stays on the
queue, no empty or partial file is left, and the STAT counters agree with what was got).

The real cases mount a small tmpfs (root only; skipped, saying why, where mounting is
impossible); the simulated case makes the file writes fail and always runs."""

from __future__ import annotations

import errno
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from mqtool.cli import delivery
from mqtool.cli.main import main
from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.core.message import PutOptions, format_id
from mqtool.engine.payload import generate
from mqtool.engine.platforms import open_queue
from mqtool.session import Session
from mqtool.state import Store
from mqtool.state.store import DB_NAME

FROZEN = "2021-03-09T15:41:22Z"
BODY = 32 * 1024


def mqtool(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    env["MQTOOL_STATE"] = str(state)
    return subprocess.run([sys.executable, "-m", "mqtool", *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """Mounts tmpfs file systems of a given size (`256k`, `2m`) and unmounts them after."""
    mounted: list[Path] = []

    def mount(size: str) -> Path:
        if not hasattr(os, "geteuid") or os.geteuid() != 0:
            pytest.skip("filling a real disk needs a small tmpfs, which only root can mount")
        point = tmp_path / f"disk{len(mounted)}"
        point.mkdir()
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)], capture_output=True, text=True
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip() or done.returncode}")
        mounted.append(point)
        return point

    yield mount
    for point in reversed(mounted):
        if subprocess.run(["umount", str(point)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(point)], capture_output=True)


def resize(disk: Path, size: str) -> None:
    subprocess.run(["mount", "-o", f"remount,size={size}", str(disk)], check=True, capture_output=True)


def fill_up(disk: Path) -> Path:
    """Takes every free byte of `disk` with one file (removed to free the disk again)."""
    filler = disk / "filler"
    with open(filler, "wb", buffering=0) as handle:
        for size in (64 * 1024, 1):  # blocks, then the last bytes
            try:
                while True:
                    handle.write(bytes(size))
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    return filler


def figures(state: Path, queue: str) -> dict[str, int]:
    """CURDEPTH, gets, MQOPEN and MQCLOSE of a queue, from the STAT display."""
    text = mqtool(state, "cmd", f"ZMQSC DISPLAY QL-{queue} STAT").stdout
    found = {
        "depth": re.search(r"Current Depth\s+- (\d+)", text),
        "gets": re.search(r"^Get\s+- (\d+)", text, re.MULTILINE),
        "opens": re.search(r"Num of MQOPEN\s+- (\d+)", text),
        "closes": re.search(r"Num of MQCLOSE\s+- (\d+)", text),
    }
    return {key: int(match.group(1)) for key, match in found.items() if match is not None}


def one_error(stderr: str) -> str:
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    errors = [line for line in stderr.splitlines() if line.startswith("mqtool:")]
    assert len(errors) == 1, stderr
    return errors[0]


@pytest.mark.slow
def test_the_state_file_disk_fills_under_puts_and_gets(small_disk: Callable[[str], Path]) -> None:
    disk = small_disk("2m")
    state = disk / "state"
    path = state / DB_NAME
    assert mqtool(state, "cmd", "ZMQSC DEFINE QL-Q").returncode == 0
    # Persistent puts until the disk is full: refused with the cause, the acknowledged kept.
    put = mqtool(state, "put", "Q", "--pattern", "random", "--size", "16KB", "--count", "1000", "--persistent")
    assert put.returncode == 2, put.stderr
    assert one_error(put.stderr).startswith(f"mqtool: error: the state file {path} cannot grow: the disk is full (")
    acknowledged = put.stdout.count("MQT0102I")
    assert acknowledged > 10
    assert re.search(rf"^MQT0152W Put {acknowledged} of 1000 messages to Q: ", put.stdout, re.MULTILINE)
    # With every byte taken (and the log checkpointed away, with room lent for that, so
    # that not even the -shm index can be made), every command that writes is refused
    # the same way and changes nothing ...
    resize(disk, "4m")
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    filler = fill_up(disk)
    for args in (["get", "Q"], ["put", "Q", "--data", "x"], ["cmd", "ZMQSC DEF QL-R"]):
        done = mqtool(state, *args)
        assert done.returncode == 2, (args, done.stderr)
        assert one_error(done.stderr).startswith(f"mqtool: error: the state file {path} cannot grow: the disk is full")
    # ... while the operator can still look: DISPLAY, the console, the systems, and a
    # browse (its counts not kept, as it says once).
    before = figures(state, "Q")
    assert before["depth"] == acknowledged
    for args in (["cmd", "ZMQSC DISPLAY QL-Q"], ["cmd", "-CSQ1 DISPLAY QMGR"], ["console"], ["system", "list"]):
        done = mqtool(state, *args)
        assert done.returncode == 0, (args, done.stderr)
        assert "Traceback" not in done.stderr and "mqtool: error" not in done.stderr
    browsed = disk.parent / "browsed"
    done = mqtool(state, "get", "Q", "--browse", "--count", "3", "--out", str(browsed))
    assert done.returncode == 0, done.stderr
    assert len(os.listdir(browsed)) == 3
    assert "MQT0713W Browsed Q without counting: the state file" in done.stderr
    assert "MQT0111I Browsed 3 messages from Q" in done.stderr
    assert figures(state, "Q") == before  # nothing counted, nothing changed
    filler.unlink()
    assert figures(state, "Q")["depth"] == acknowledged
    got = mqtool(state, "get", "Q", "--all", "--out", str(disk.parent / "got"))
    assert got.returncode == 0 and f"Got {acknowledged} messages" in got.stderr


@pytest.mark.slow
@pytest.mark.parametrize("persistence", ["--persistent", "--non-persistent"])
def test_get_out_onto_a_full_disk(tmp_path: Path, small_disk: Callable[[str], Path], persistence: str) -> None:
    state = tmp_path / "state"
    assert mqtool(state, "cmd", "ZMQSC DEFINE QL-Q").returncode == 0
    put = mqtool(state, "put", "Q", "--pattern", "random", "--size", "32KB", "--count", "16", persistence, "-q")
    assert put.returncode == 0, put.stderr
    got_dir = small_disk("256k") / "got"
    done = mqtool(state, "get", "Q", "--all", "--out", str(got_dir))
    assert done.returncode == 2
    line = one_error(done.stderr)
    assert line == (
        f"mqtool: error: cannot write a message to {got_dir}: No space left on device; it stays on the queue"
    )
    files = sorted(os.listdir(got_dir))
    got = int(re.search(r"MQT0111I Got (\d+) messages? from Q", done.stderr).group(1))  # type: ignore[union-attr]
    assert 0 < got < 16 and len(files) == got
    # Each file is whole and is the message of its name; nothing else is left behind.
    for index, name in enumerate(files):
        assert name.endswith(".msg") and (got_dir / name).read_bytes() == generate("random", BODY, 0, index)
    assert figures(state, "Q") == {"depth": 16 - got, "gets": got, "opens": 2, "closes": 2}


def test_a_failed_write_leaves_no_file_and_keeps_the_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Simulated: the disk fills in the middle of the sixth message's file."""
    state = tmp_path / "state"
    clock = Clock.from_setting(FROZEN)
    store = Store.open(state)
    ensure_complex(store, clock.timestamp())
    assert Session(store, clock).execute("ZMQSC DEFINE QL-Q").status == "ok"
    handle = open_queue(store, clock, "TPF1", "Q")
    with store.transaction() as tx:
        handle.open(tx)
        ids = [handle.put(tx, f"message {n}".encode() * 100, PutOptions(persistent=n % 2 == 0)).msgid for n in range(9)]
        handle.close(tx)
    store.close()
    opened: list[str] = []

    class FillingFile:
        def __init__(self, file: Any) -> None:
            self.file = file

        def write(self, data: bytes) -> int:
            if len(opened) == 6:
                self.file.write(data[:100])
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return int(self.file.write(data))

        def __getattr__(self, name: str) -> Any:
            return getattr(self.file, name)

        def __enter__(self) -> FillingFile:
            return self

        def __exit__(self, *exc: object) -> None:
            self.file.close()

    def filling_open(name: Any, mode: str = "r") -> FillingFile:
        opened.append(str(name))
        return FillingFile(open(name, mode))

    monkeypatch.setattr(delivery, "open", filling_open, raising=False)
    out = tmp_path / "got"
    with pytest.raises(SystemExit) as leaving:
        main(["--state", str(state), "--clock", FROZEN, "get", "Q", "--all", "--out", str(out)])
    monkeypatch.undo()
    assert leaving.value.code == 2
    err = capsys.readouterr().err
    assert err == (
        "MQT0111I Got 5 messages from Q\n"
        f"mqtool: error: cannot write a message to {out}: No space left on device; it stays on the queue\n"
    )
    assert sorted(os.listdir(out)) == sorted(f"{format_id(msgid)}.msg" for msgid in ids[:5])
    assert figures(state, "Q") == {"depth": 4, "gets": 5, "opens": 2, "closes": 2}
    # The rest is got once the disk has room, the sixth message first.
    assert mqtool(state, "get", "Q", "--all", "--out", str(out)).returncode == 0
    assert sorted(os.listdir(out)) == sorted(f"{format_id(msgid)}.msg" for msgid in ids)
    assert (out / f"{format_id(ids[5])}.msg").read_bytes() == b"message 5" * 100


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> Callable[[bool], None]:
    """Simulated: every write transaction fails at its commit as on a full disk (what it
    wrote is rolled back); `full(False)` gives the disk its room back."""
    from contextlib import contextmanager

    from mqtool.state import StoreError

    real = Store.transaction

    @contextmanager
    def failing(self: Store, write: bool = True) -> Iterator[Any]:
        with real(self, write=False) as tx:
            yield tx
        if write:
            raise StoreError(f"the state file {self.path} cannot grow: the disk is full (simulated)", full=True)

    def full(on: bool = True) -> None:
        monkeypatch.setattr(Store, "transaction", failing if on else real)

    return full


def _cli(state: Path, *args: str) -> Any:
    from click.testing import CliRunner

    from mqtool.cli.main import main_group

    return CliRunner().invoke(main_group, ["--state", str(state), "--clock", FROZEN, *args])


def test_reading_commands_work_while_the_timers_cannot_run(tmp_path: Path, full_disk: Callable[[bool], None]) -> None:
    state = tmp_path / "state"
    setup = ["-CSQ1 START TRACE(STAT) CLASS(1,5)", "-CSQ1 ALTER QMGR STATQ(ON)", "-CSQ1 DEFINE QLOCAL(PAYQ)"]
    assert _cli(state, "cmd", *setup).exit_code == 0
    assert _cli(state, "--system", "CSQ1", "put", "PAYQ", "--data", "order", "-q").exit_code == 0
    # A minute later an interval has ended: its records cannot be written.
    later = "2021-03-09T15:43:00Z"
    full_disk(True)
    from click.testing import CliRunner

    from mqtool.cli.main import main_group

    done = CliRunner().invoke(
        main_group,
        ["--state", str(state), "--clock", later, "cmd", "-CSQ1 DIS QLOCAL(PAYQ) CURDEPTH", "-CSQ1 DIS QMGR"],
    )
    assert done.exit_code == 0, done.output
    assert "CURDEPTH(1)" in done.stdout
    warnings = [line for line in done.stderr.splitlines() if line.startswith("MQT0712W")]
    assert warnings == [
        "MQT0712W Timers due since 2021-03-09T15:41:27Z did not run: the state file "
        f"{state / DB_NAME} cannot grow: the disk is full (simulated); they run at the next command that can write"
    ]
    browse = CliRunner().invoke(
        main_group, ["--state", str(state), "--clock", later, "--system", "CSQ1", "get", "PAYQ", "--browse"]
    )
    assert browse.exit_code == 0, browse.output
    assert browse.stdout == "order\n"
    assert "MQT0713W Browsed PAYQ without counting" in browse.stderr
    got = CliRunner().invoke(main_group, ["--state", str(state), "--clock", later, "--system", "CSQ1", "get", "PAYQ"])
    assert type(got.exception).__name__ == "StoreError"  # main() makes it one line, exit 2
    # With room again, the deferred interval is written: the put counted, the browse not.
    full_disk(False)
    records = CliRunner().invoke(
        main_group, ["--state", str(state), "--clock", later, "smf", "qstat", "--queue", "PAYQ", "--format", "json"]
    )
    import json

    figures = json.loads(records.stdout)
    found = [(r["puts_total"], r["browses"], r["depth"], r["interval_end"][11:19]) for r in figures]
    assert found == [(1, 0, 1, "15:42:22")]


def test_a_session_defers_once_and_catches_up_later(tmp_path: Path, full_disk: Callable[[bool], None]) -> None:
    store = Store.open(tmp_path / "state")
    clock = Clock.from_setting(FROZEN)
    ensure_complex(store, clock.timestamp())
    session = Session(store, clock)
    told: list[str] = []
    session.notify = told.append
    session.execute("ZMQSC DEFINE QL-Q")
    clock.advance(3600)
    full_disk(True)
    assert session.tick() == 0
    assert session.execute("ZMQSC DISPLAY QL-Q").status == "ok"
    assert len(told) == 1 and told[0].startswith("MQT0712W Timers due since 2021-03-09T15:41:27Z did not run")
    full_disk(False)
    assert session.tick() > 0
    store.close()


def test_the_real_time_loop_says_a_full_disk_once(tmp_path: Path, full_disk: Callable[[bool], None]) -> None:
    from mqtool.cli.loop import EngineLoop

    state = tmp_path / "state"
    assert _cli(state, "cmd", "ZMQSC DEFINE QL-Q").exit_code == 0
    clock = Clock.from_setting(FROZEN)
    errors: list[str] = []
    loop = EngineLoop(state, clock, on_error=errors.append, services=[])
    full_disk(True)
    for _ in range(5):
        clock.advance(5)
        loop.step()
    assert [line[:27] for line in errors] == ["MQT0712W Timers due since 2"]
    full_disk(False)
    clock.advance(5)
    loop.step()
    full_disk(True)
    clock.advance(5)
    loop.step()
    assert len(errors) == 2  # caught up in between: a disk full again is said again
    full_disk(False)
    loop.close()
