"""Opening a store that is already at this mqtool's schema version (issue 19, start-up):
no migration file is read and few statements run; a newer store is still refused and a
damaged or foreign one still reported."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from mqtool.state import SCHEMA_VERSION, Store, StoreError
from mqtool.state import store as store_module
from mqtool.state.store import DB_NAME


def _statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The SQL statements the stores opened from now on run (SQLite's trace)."""
    seen: list[str] = []
    real = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        conn = real(*args, **kwargs)
        conn.set_trace_callback(seen.append)
        return conn

    monkeypatch.setattr(store_module.sqlite3, "connect", connect)
    return seen


def test_a_store_at_this_version_opens_without_reading_a_migration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Store.open(tmp_path).close()

    def unread() -> list[tuple[int, str]]:
        raise AssertionError("a migration file was read")

    monkeypatch.setattr(store_module, "_migrations", unread)
    seen = _statements(monkeypatch)
    store = Store.open(tmp_path)
    try:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert store.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    finally:
        store.close()
    # (SQLite traces the pragmas a query reads as comments: "-- PRAGMA user_version")
    opening = [sql for sql in seen[: seen.index("PRAGMA user_version")] if not sql.startswith("--")]
    # One read transaction of one query, four settings, six watch triggers; no write.
    assert len(opening) <= 13, opening
    assert not [sql for sql in opening if sql.startswith(("BEGIN IMMEDIATE", "PRAGMA user_version =", "CREATE TABLE"))]


def test_a_newer_store_is_refused_without_reading_a_migration(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    Store.open(tmp_path).close()
    monkeypatch.setattr(store_module, "_migrations", list)  # none: the store's version alone decides
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match=f"schema version {SCHEMA_VERSION + 1}, newer than this mqtool"):
        Store.open(tmp_path)


def test_a_foreign_or_damaged_file_is_still_reported(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    conn = sqlite3.connect(foreign / DB_NAME)
    conn.execute("CREATE TABLE t (x)")
    conn.execute("PRAGMA application_id = 7")
    conn.close()
    with pytest.raises(StoreError, match="belongs to another program"):
        Store.open(foreign)
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / DB_NAME).write_bytes(b"not a database at all" * 300)
    with pytest.raises(StoreError, match="damaged"):
        Store.open(damaged)
