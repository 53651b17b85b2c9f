"""The state store: WAL and synchronous=FULL, schema versions and forward migration,
refusal of newer, damaged and foreign files (one clear line, file untouched), several
processes at once, and durability of acknowledged definitions across kill -9."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mqtool.cli.main import main_group
from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.state import SCHEMA_VERSION, ObjectRecord, Store, StoreError, SystemRecord
from mqtool.state import store as store_module
from mqtool.state.store import APPLICATION_ID, DB_NAME
from tests.conftest import drop_creation_notice

FROZEN = "2021-03-09T15:41:22Z"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")}
    env["NO_COLOR"] = "1"
    return env


def _mqtool(*args: str, **kwargs: Any) -> list[str]:
    return [sys.executable, "-m", "mqtool", *args]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(tmp_path / "state")
    yield opened
    opened.close()


# -- pragmas and schema --------------------------------------------------------------


def test_wal_and_synchronous_full(store: Store) -> None:
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert store.conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


def test_schema_version_is_the_highest_migration(store: Store) -> None:
    folder = resources.files("mqtool.state").joinpath("migrations")
    numbers = sorted(int(entry.name[:4]) for entry in folder.iterdir() if entry.name.endswith(".sql"))
    assert numbers == list(range(1, len(numbers) + 1)), "migrations are numbered 0001, 0002, ... without gaps"
    assert numbers[-1] == SCHEMA_VERSION
    assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_migration_file_names(store: Store) -> None:
    folder = resources.files("mqtool.state").joinpath("migrations")
    for entry in folder.iterdir():
        if entry.name.endswith(".sql"):
            assert re.fullmatch(r"\d{4}_[a-z0-9_]+\.sql", entry.name), entry.name


def _store_at_version_1(state: Path) -> None:
    """A store as the first release wrote it: migration 0001 only, with some data."""
    state.mkdir(parents=True)
    conn = sqlite3.connect(state / DB_NAME, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    script = resources.files("mqtool.state").joinpath("migrations", "0001_initial.sql").read_text(encoding="utf-8")
    conn.executescript(script)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.execute("INSERT INTO systems (name, platform, position, attrs) VALUES ('OLD1', 'ztpf', 1, '{}')")
    conn.execute("INSERT INTO meta (key, value) VALUES ('initialised', '1')")
    conn.close()


def test_forward_migration_from_version_1(tmp_path: Path) -> None:
    state = tmp_path / "state"
    _store_at_version_1(state)
    opened = Store.open(state)
    try:
        assert opened.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        with opened.transaction(write=False) as tx:
            assert [s.name for s in tx.systems()] == ["OLD1"]
    finally:
        opened.close()


def test_forward_migration_applies_a_new_migration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The mechanism itself, with one more migration than the code has: it runs once,
    keeps the data, and a second open changes nothing."""
    state = tmp_path / "state"
    Store.open(state).close()
    real = store_module._migrations()
    extra = SCHEMA_VERSION + 1
    script = "-- a later release\nCREATE TABLE later (x INTEGER);\nINSERT INTO later (x) VALUES (42);\n"
    monkeypatch.setattr(store_module, "_migrations", lambda: [*real, (extra, script)])
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", extra)  # a later release's
    for _ in range(2):
        opened = Store.open(state)
        assert opened.conn.execute("PRAGMA user_version").fetchone()[0] == extra
        assert opened.conn.execute("SELECT x FROM later").fetchall() == [(42,)]
        opened.close()


def test_a_failing_migration_leaves_the_store_at_its_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state"
    Store.open(state).close()
    real = store_module._migrations()
    script = "CREATE TABLE half (x INTEGER);\nINSERT INTO no_such_table VALUES (1);\n"
    monkeypatch.setattr(store_module, "_migrations", lambda: [*real, (SCHEMA_VERSION + 1, script)])
    monkeypatch.setattr(store_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(StoreError, match="no such table: no_such_table"):
        Store.open(state)
    monkeypatch.undo()
    opened = Store.open(state)
    assert opened.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert opened.conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'half'").fetchone()[0] == 0
    opened.close()


def test_a_newer_store_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "state"
    Store.open(state).close()
    conn = sqlite3.connect(state / DB_NAME)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer than this mqtool understands"):
        Store.open(state)


# -- typed access --------------------------------------------------------------------


def test_transaction_commits_and_rolls_back(store: Store) -> None:
    with store.transaction() as tx:
        tx.put_system(SystemRecord("T1", "ztpf", {"cpu": "z15"}))
        tx.put_object(ObjectRecord("T1", "QL", "KEEP", {"MAXDEPTH": 5}, {}, 1.0, 1.0))
    with store.transaction() as tx:
        tx.put_object(ObjectRecord("T1", "QL", "FAILED", {}, {}, 1.0, 1.0))
        tx.fail()
    with pytest.raises(RuntimeError), store.transaction() as tx:
        tx.put_object(ObjectRecord("T1", "QL", "RAISED", {}, {}, 1.0, 1.0))
        raise RuntimeError("boom")
    with store.transaction(write=False) as tx:
        assert [o.name for o in tx.objects("T1")] == ["KEEP"]
        record = tx.get_object("T1", "QL", "KEEP")
        assert record is not None and record.attrs == {"MAXDEPTH": 5}


def test_read_transaction_never_writes(store: Store) -> None:
    with store.transaction(write=False) as tx:
        tx.set_meta("x", "1")
    with store.transaction(write=False) as tx:
        assert tx.get_meta("x") is None


def test_generic_object_names(store: Store) -> None:
    with store.transaction() as tx:
        tx.put_system(SystemRecord("T1", "ztpf"))
        for name in ("PAY.IN", "PAY.OUT", "PAYROLL", "OTHER", "PA%_X"):
            tx.put_object(ObjectRecord("T1", "QL", name, {}, {}, 1.0, 1.0))
    with store.transaction(write=False) as tx:
        assert [o.name for o in tx.objects("T1", "QL", "PAY*")] == ["PAY.IN", "PAY.OUT", "PAYROLL"]
        assert [o.name for o in tx.objects("T1", "QL", "PA%*")] == ["PA%_X"]  # no LIKE wildcards
        assert len(tx.objects("T1", "QL", "*")) == 5
        assert [o.name for o in tx.objects("T1", "QL", "OTHER")] == ["OTHER"]


def test_delete_system_removes_its_rows(store: Store) -> None:
    with store.transaction() as tx:
        tx.put_system(SystemRecord("T1", "ztpf"))
        tx.put_object(ObjectRecord("T1", "QL", "A", {}, {}, 1.0, 1.0))
        tx.console("T1", 1.0, "hello")
    with store.transaction() as tx:
        tx.delete_system("T1")
    with store.transaction(write=False) as tx:
        assert tx.systems() == []
        assert tx.objects("T1") == []
        assert tx.console_since("T1") == []


# -- damaged, foreign and newer files through the CLI --------------------------------


def _real_store(state: Path) -> None:
    """A store with some definitions, checkpointed so that everything is in the main file."""
    result = CliRunner().invoke(
        main_group,
        ["--state", str(state), "--clock", FROZEN, "cmd", *[f"ZMQSC DEF QL-Q{i:03d}" for i in range(60)]],
    )
    assert result.exit_code == 0, result.output
    conn = sqlite3.connect(state / DB_NAME)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _random_bytes(state: Path) -> None:
    state.mkdir(parents=True)
    (state / DB_NAME).write_bytes(bytes((i * 7919 + 13) % 251 for i in range(16384)))


def _truncated(state: Path) -> None:
    _real_store(state)
    path = state / DB_NAME
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _overwritten_page(state: Path) -> None:
    """The size is right but a page in the middle is garbage: found while a command runs."""
    _real_store(state)
    path = state / DB_NAME
    data = bytearray(path.read_bytes())
    data[4096 : 4096 + 4096] = b"\xde\xad\xbe\xef" * 1024
    path.write_bytes(bytes(data))


def _text_file(state: Path) -> None:
    state.mkdir(parents=True)
    (state / DB_NAME).write_text("ZMQSC DEFINE QL-A\nthis is not a database\n", encoding="utf-8")


def _foreign_sqlite(state: Path) -> None:
    state.mkdir(parents=True)
    conn = sqlite3.connect(state / DB_NAME)
    conn.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO customers (name) VALUES ('ACME')")
    conn.commit()
    conn.close()


def _newer(state: Path) -> None:
    _real_store(state)
    conn = sqlite3.connect(state / DB_NAME)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()


BAD_STORES = {
    "random-bytes": (_random_bytes, "is damaged or is not an mqtool store"),
    "truncated": (_truncated, "is damaged or is not an mqtool store"),
    "overwritten-page": (_overwritten_page, "is damaged"),
    "text-file": (_text_file, "is damaged or is not an mqtool store"),
    "foreign-sqlite": (_foreign_sqlite, "belongs to another program"),
    "newer": (_newer, "newer than this mqtool understands"),
}


@pytest.mark.parametrize("kind", sorted(BAD_STORES))
@pytest.mark.parametrize(
    "args",
    [("cmd", "ZMQSC DIS QL-*", "ZMQSC DEF QL-NEW"), ("run", "-"), ("init",)],
    ids=["cmd", "run", "init"],
)
def test_bad_store_gives_one_line_and_is_left_unchanged(tmp_path: Path, kind: str, args: tuple[str, ...]) -> None:
    state = tmp_path / "state"
    make, reason = BAD_STORES[kind]
    make(state)
    path = state / DB_NAME
    before = path.read_bytes()
    result = subprocess.run(
        _mqtool("--state", str(state), "--clock", FROZEN, *args),
        input="ZMQSC DEF QL-FROM.STDIN\n",
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
    )
    assert result.returncode not in (0, 10), result
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("mqtool: error: "), lines[0]
    assert "Traceback" not in result.stderr
    if args[0] == "init":
        assert "already holds a complex" in lines[0]
    else:
        assert reason in lines[0]
        assert str(path) in lines[0]
    assert path.read_bytes() == before


# -- several processes ---------------------------------------------------------------


@pytest.mark.slow
def test_concurrent_processes_lose_no_definition(tmp_path: Path) -> None:
    """Four processes define queues at once on a store that none of them has created
    yet: each command is its own transaction (BEGIN IMMEDIATE, busy timeout)."""
    state = tmp_path / "state"
    workers, per_worker = 4, 40
    processes = []
    for worker in range(workers):
        script = tmp_path / f"w{worker}.mqsc"
        lines = [f"ZMQSC DEFINE QL-W{worker}.Q{i:03d} MAXDEPTH-{i + 1}" for i in range(per_worker)]
        script.write_text("\n".join(lines) + "\n", encoding="utf-8")
        processes.append(
            subprocess.Popen(
                _mqtool("--state", str(state), "run", "-e", str(script)),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=_env(),
            )
        )
    notices = 0
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, (out, err)
        notices += err != drop_creation_notice(err)
        assert drop_creation_notice(err) == ""
        assert f"{per_worker} MQSC commands read." in out
    assert notices == 1  # the process that created the store says so; the others found it
    opened = Store.open(state)
    try:
        with opened.transaction(write=False) as tx:
            names = {o.name: o.attrs["MAXDEPTH"] for o in tx.objects("TPF1", "QL", "W*")}
            assert len(tx.systems()) == 2  # the default complex was created exactly once
        assert len(names) == workers * per_worker
        for worker in range(workers):
            for i in range(per_worker):
                assert names[f"W{worker}.Q{i:03d}"] == i + 1
    finally:
        opened.close()


@pytest.mark.slow
def test_processes_creating_one_store_at_once(tmp_path: Path) -> None:
    """Six processes find no store and create it at the same moment, a few times over:
    switching to WAL and the first migration are raced for, and nobody fails."""
    for round_ in range(4):
        state = tmp_path / f"state{round_}"
        processes = [
            subprocess.Popen(
                _mqtool("--state", str(state), "cmd", f"ZMQSC DEFINE QL-RACE.Q{worker}"),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=_env(),
            )
            for worker in range(6)
        ]
        notices = 0
        for process in processes:
            out, err = process.communicate(timeout=120)
            assert (process.returncode, drop_creation_notice(err)) == (0, ""), (out, err)
            notices += err != drop_creation_notice(err)
        assert notices == 1  # exactly one process created the store
        opened = Store.open(state)
        try:
            with opened.transaction(write=False) as tx:
                assert len(tx.objects("TPF1", "QL", "RACE.*")) == 6
                assert [s.name for s in tx.systems()] == ["TPF1", "CSQ1"]
        finally:
            opened.close()


@pytest.mark.slow
def test_acknowledged_definitions_survive_kill_9(tmp_path: Path) -> None:
    """Every DEFINE whose success line reached the pipe is in the store after kill -9."""
    state = tmp_path / "state"
    Store.open(state).close()
    script = tmp_path / "many.mqsc"
    script.write_text("".join(f"ZMQSC DEFINE QL-K.Q{i:05d}\n" for i in range(20000)), encoding="utf-8")
    process = subprocess.Popen(
        _mqtool("--state", str(state), "--clock", FROZEN, "run", "-e", str(script)),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_env(),
    )
    assert process.stdout is not None
    acknowledged: list[str] = []
    pattern = re.compile(rb"MQSC0001I \S+ DEFINE QL-(\S+) COMPLETED")
    while len(acknowledged) < 300:
        line = process.stdout.readline()
        assert line, "mqtool ended before it was killed"
        if match := pattern.search(line):
            acknowledged.append(match.group(1).decode())
    process.send_signal(signal.SIGKILL)
    # What was already written to the pipe before the kill counts as printed too.
    for line in process.stdout.read().splitlines():
        if match := pattern.search(line):
            acknowledged.append(match.group(1).decode())
    process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    assert len(acknowledged) < 20000, "the run finished before the kill"

    opened = Store.open(state)
    try:
        assert opened.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        with opened.transaction(write=False) as tx:
            stored = {o.name for o in tx.objects("TPF1", "QL", "K.*")}
    finally:
        opened.close()
    missing = [name for name in acknowledged if name not in stored]
    assert not missing, f"{len(missing)} acknowledged definitions lost, first {missing[:5]}"
    # The store is usable afterwards.
    result = subprocess.run(
        _mqtool("--state", str(state), "--clock", FROZEN, "cmd", "ZMQSC DIS QL-K.Q00000"),
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
    )
    assert result.returncode == 0, result


def test_ensure_complex_is_idempotent(store: Store) -> None:
    clock = Clock.from_setting(FROZEN)
    ensure_complex(store, clock.timestamp())
    ensure_complex(store, clock.timestamp())
    with store.transaction(write=False) as tx:
        assert [(s.name, s.platform) for s in tx.systems()] == [("TPF1", "ztpf"), ("CSQ1", "zos")]
        assert tx.get_meta("current_system") == "TPF1"


# -- what a session may keep between commands ------------------------------------------


def _session(state: Path) -> Any:
    from mqtool.session import Session

    opened = Store.open(state)
    clock = Clock.from_setting(FROZEN)
    ensure_complex(opened, clock.timestamp())
    return Session(opened, clock)


def test_generation_moves_with_own_and_other_changes(tmp_path: Path) -> None:
    state = tmp_path / "state"
    session = _session(state)
    store = session.store
    first = store.generation()
    assert store.generation() == first  # reading changes nothing
    with store.transaction() as tx:
        tx.put_object(ObjectRecord("TPF1", "QL", "NOT.WATCHED", {}, {}, 1.0, 1.0))
    assert store.generation() == first  # objects are not a watched table
    with store.transaction() as tx:
        tx.put_system(SystemRecord("T2", "ztpf", {}))
    second = store.generation()
    assert second != first
    other = Store.open(state)
    with other.transaction() as tx:
        tx.set_meta("x", "1")
    assert store.generation() != second  # another connection committed
    other.close()
    store.close()


def test_session_sees_a_system_added_by_another_process(tmp_path: Path) -> None:
    state = tmp_path / "state"
    session = _session(state)
    assert [s.name for s in session.systems()] == ["TPF1", "CSQ1"]
    other = Store.open(state)
    with other.transaction() as tx:
        tx.put_system(SystemRecord("LATE", "ztpf", {}))
    other.close()
    assert [s.name for s in session.systems()] == ["TPF1", "CSQ1", "LATE"]
    outcome = session.execute(".system late")
    assert outcome.lines == ["MQT0004I Current system is LATE (z/TPF)"]
    session.store.close()


@pytest.mark.parametrize("writer", ["same-connection", "other-connection"])
def test_a_timer_scheduled_elsewhere_runs_at_the_next_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, writer: str
) -> None:
    from mqtool.engine import timers

    state = tmp_path / "state"
    session = _session(state)
    ran: list[float] = []

    def probe(_session: Any, _tx: Any, _system: Any, due: float) -> None:
        ran.append(due)

    monkeypatch.setitem(timers.TIMERS, "test-probe", probe)
    session.execute(".echo warm")  # the session now knows when the next timer is due
    now = session.clock.timestamp()
    store = session.store if writer == "same-connection" else Store.open(state)
    with store.transaction() as tx:
        timers.schedule(tx, "TPF1", "test-probe", now - 1)
    if store is not session.store:
        store.close()
    session.execute(".echo next")
    assert ran == [now - 1]
    session.store.close()
