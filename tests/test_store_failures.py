"""A store that fails under a command: a full disk or an I/O error is one `mqtool: error:`
line naming the state file (exit 2), never the internal error of a ROLLBACK after
SQLite has already rolled back; and an empty state file is damage, not a new store.

SQLite's errors are simulated here by a connection that fails a chosen statement the
way SQLite does (with its result code, having rolled the transaction back itself or
not), so every case runs on every machine; tests/test_full_disk.py fills a real disk."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mqtool.cli.main import main
from mqtool.state import Store, StoreError
from mqtool.state import store as store_module
from mqtool.state.store import DB_NAME
from tests.conftest import drop_creation_notice

FROZEN = "2021-03-09T15:41:22Z"

# (SQLite's extended result code name, its number, its message)
FULL = ("SQLITE_FULL", 13, "database or disk is full")
IOERR_WRITE = ("SQLITE_IOERR_WRITE", 778, "disk I/O error")
IOERR_FSYNC = ("SQLITE_IOERR_FSYNC", 1034, "disk I/O error")


class Failing:
    """Fails the first statement that `matches` once armed, as SQLite would."""

    def __init__(self, error: tuple[str, int, str], matches: Callable[[str], bool], rolls_back: bool) -> None:
        self.error = error
        self.matches = matches
        self.rolls_back = rolls_back
        self.armed = False
        self.fired = 0

    def check(self, conn: sqlite3.Connection, sql: str) -> None:
        if self.armed and self.matches(sql.strip()):
            self.armed = False
            self.fired += 1
            if self.rolls_back and conn.in_transaction:
                conn.execute("ROLLBACK")  # SQLite rolls back by itself on a full disk or an I/O error
            name, code, text = self.error
            exc = sqlite3.OperationalError(text)
            exc.sqlite_errorname = name  # type: ignore[attr-defined]
            exc.sqlite_errorcode = code  # type: ignore[attr-defined]
            raise exc


class FailingCursor:
    def __init__(self, cursor: sqlite3.Cursor, conn: sqlite3.Connection, failing: Failing) -> None:
        self._cursor, self._conn, self._failing = cursor, conn, failing

    def execute(self, sql: str, *args: Any) -> Any:
        self._failing.check(self._conn, sql)
        self._cursor.execute(sql, *args)
        return self

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


class FailingConnection:
    def __init__(self, conn: sqlite3.Connection, failing: Failing) -> None:
        self._conn, self._failing = conn, failing

    def execute(self, sql: str, *args: Any) -> Any:
        self._failing.check(self._conn, sql)
        return self._conn.execute(sql, *args)

    def cursor(self) -> FailingCursor:
        return FailingCursor(self._conn.cursor(), self._conn, self._failing)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


def mqtool(state: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as leaving:
        main(["--state", str(state), "--clock", FROZEN, *args])
    captured = capsys.readouterr()
    code = leaving.value.code
    return (code if isinstance(code, int) else 0), captured.out, drop_creation_notice(captured.err)


@pytest.fixture
def state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    state = tmp_path / "state"
    assert mqtool(state, capsys, "cmd", "ZMQSC DEFINE QL-Q1")[0] == 0
    assert mqtool(state, capsys, "put", "Q1", "--data", "one", "--data", "two", "--persistent", "-q")[0] == 0
    return state


def failing_store(monkeypatch: pytest.MonkeyPatch, failing: Failing) -> None:
    real_open = Store.open.__func__  # type: ignore[attr-defined]

    def open_failing(cls: type[Store], state_dir: Path) -> Store:
        store = real_open(cls, state_dir)
        store.conn = FailingConnection(store.conn, failing)  # type: ignore[assignment]
        failing.armed = True
        return store

    monkeypatch.setattr(Store, "open", classmethod(open_failing))


def depth(state: Path, capsys: pytest.CaptureFixture[str]) -> str:
    out = mqtool(state, capsys, "cmd", "ZMQSC DISPLAY QL-Q1")[1]
    return next(line for line in out.splitlines() if "CURDEPTH" in line)


CASES = {
    "get-full": (["get", "Q1"], FULL, "DELETE FROM messages", True),
    "get-ioerr-kept-open": (["get", "Q1"], IOERR_WRITE, "DELETE FROM messages", False),
    "put-full": (["put", "Q1", "--data", "three"], FULL, "INSERT INTO messages", True),
    "commit-fsync": (["cmd", "ZMQSC DEFINE QL-Q2"], IOERR_FSYNC, "COMMIT", True),
    "define-full": (["cmd", "ZMQSC DEFINE QL-Q2"], FULL, "INSERT INTO objects", True),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_failing_disk_is_one_line_naming_the_state_file(
    state: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    args, error, statement, rolls_back = CASES[case]
    before = depth(state, capsys)
    failing = Failing(error, lambda sql: sql.startswith(statement), rolls_back)
    failing_store(monkeypatch, failing)
    code, out, err = mqtool(state, capsys, *args)
    monkeypatch.undo()
    assert failing.fired == 1
    assert code == 2, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1 or (args[0] == "put" and lines[0].startswith("MQT0152W")), err
    line = lines[-1]
    assert line.startswith(f"mqtool: error: the state file {state / DB_NAME} "), line
    assert error[2] in line and "internal error" not in err and "rollback" not in err
    if error[0] == "SQLITE_FULL":
        assert "the disk is full" in line
    assert depth(state, capsys) == before  # nothing was got or put
    assert mqtool(state, capsys, "get", "Q1", "--browse", "--all", "-q")[1] == "one\ntwo\n"


def test_a_real_full_store_is_reported(
    state: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not simulated: SQLite itself finds the file full (max_page_count caps it)."""
    real_open = Store.open.__func__  # type: ignore[attr-defined]

    def capped(cls: type[Store], state_dir: Path) -> Store:
        store = real_open(cls, state_dir)
        pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
        store.conn.execute(f"PRAGMA max_page_count = {pages + 2}")
        return store

    monkeypatch.setattr(Store, "open", classmethod(capped))
    code, out, err = mqtool(state, capsys, "put", "Q1", "--pattern", "random", "--size", "64KB", "--persistent")
    monkeypatch.undo()
    assert code == 2, (out, err)
    assert err.splitlines()[-1] == (
        f"mqtool: error: the state file {state / DB_NAME} cannot grow: the disk is full (database or disk is full)"
    )
    assert "CURDEPTH 2" in depth(state, capsys)


def test_an_error_inside_a_transaction_is_a_store_error(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "state")
    failing = Failing(IOERR_WRITE, lambda sql: sql.startswith("INSERT INTO meta"), rolls_back=True)
    store.conn = FailingConnection(store.conn, failing)  # type: ignore[assignment]
    failing.armed = True
    expected = r"cannot be read or written: disk I/O error \(SQLITE_IOERR_WRITE\)"
    with pytest.raises(StoreError, match=expected), store.transaction() as tx:
        tx.set_meta("key", "value")
    assert not store.conn.in_transaction
    with store.transaction() as tx:  # the store is usable again
        tx.set_meta("key", "value")
    store.close()


# -- an empty state file --------------------------------------------------------------


def test_an_empty_state_file_is_damage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / DB_NAME).touch()
    for args in (["cmd", "ZMQSC DIS QL-*"], ["get", "Q1", "--browse"], ["init"]):
        code, out, err = mqtool(state, capsys, *args)
        assert (code, out) == (2, ""), err
        assert err == (
            f"mqtool: error: the state file {state / DB_NAME} is empty: it is damaged (not an mqtool store); "
            "move it away, use another --state directory, or replace it with a new default complex "
            "(mqtool init --force)\n"
        )
        assert (state / DB_NAME).stat().st_size == 0
    code, out, err = mqtool(state, capsys, "init", "--force")
    assert code == 0 and out.startswith("Created the default complex"), err
    assert mqtool(state, capsys, "cmd", "ZMQSC DIS QL-*")[0] == 0


def test_a_store_that_cannot_be_made_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Creation happens under a temporary name: a failure leaves nothing, never an empty
    or half-migrated mqtool.db that the next command would have to refuse."""
    state = tmp_path / "state"
    real = store_module._migrations()
    monkeypatch.setattr(store_module, "_migrations", lambda: [*real, (99, "INSERT INTO no_such_table VALUES (1);")])
    with pytest.raises(StoreError, match="no_such_table"):
        Store.open(state)
    assert list(state.iterdir()) == []
    monkeypatch.undo()
    opened = Store.open(state)
    assert opened.created
    opened.close()
    assert [path.name for path in state.iterdir() if not path.name.startswith(DB_NAME)] == []


def test_a_browse_on_a_full_disk_looks_without_counting(
    state: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A browse writes only its counts (MQOPEN first): when the disk is full there, it
    shows the messages all the same and says that they were not counted."""
    failing = Failing(FULL, lambda sql: sql.startswith("UPDATE queue_stats SET opens"), True)
    failing_store(monkeypatch, failing)
    code, out, err = mqtool(state, capsys, "get", "Q1", "--browse", "--count", "2")
    monkeypatch.undo()
    assert failing.fired == 1
    assert (code, out) == (0, "one\ntwo\n"), err
    assert err.splitlines() == [
        f"MQT0713W Browsed Q1 without counting: the state file {state / DB_NAME} cannot grow: the disk is full "
        "(database or disk is full)",
        "MQT0111I Browsed 2 messages from Q1",
    ]
    display = mqtool(state, capsys, "cmd", "ZMQSC DISPLAY QL-Q1 STAT")[1]
    assert "Num of MQOPEN     - 1" in display  # the put's only
