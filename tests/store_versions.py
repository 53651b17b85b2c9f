"""Stores of an earlier schema version, made by the real migrations up to that version
(with the SQL functions the migrations call), for the tests of later migrations."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from mqtool.state.store import APPLICATION_ID, _migrations, _split_sql, payload_checksum


def store_at(path: Path, version: int) -> sqlite3.Connection:
    """A new store file at `path` brought to schema `version`; the connection is open
    (autocommit) for the test to add rows the way that version kept them."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    conn.create_function("mqtool_checksum", 1, payload_checksum, deterministic=True)
    for number, script in _migrations():
        if number > version:
            break
        for statement in _split_sql(script):
            conn.execute(statement)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute(f"PRAGMA user_version = {version}")
    return conn
