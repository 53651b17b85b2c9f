"""Where messages are in the store (state/messages.py, schema version 3): each local
queue's run of row ids in get order, its head row's figures, and the migration of a
version-2 store that holds messages, marks and a batch in flight."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.core.message import PutOptions
from mqtool.engine.core.streams import get_stream
from mqtool.engine.platforms import open_queue
from mqtool.engine.ztpf.figures import queue_figures
from mqtool.session import Session
from mqtool.state import Store
from mqtool.state import messages as runs
from mqtool.state import store as store_module

FROZEN = "2021-03-09T15:41:22Z"


def _store_at_version_2(state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A version-2 store as the engine of that version left it: Q1 with six messages of
    mixed priorities (ids 1-6 in put order), the first two swept (sweep mark 2), a
    checkpoint up to id 4, and XQ with a channel batch in flight."""
    real = store_module._migrations()
    monkeypatch.setattr(store_module, "_migrations", lambda: real[:2])
    store = Store.open(state)
    conn = store.conn
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO systems (name, platform, position, attrs) VALUES ('TPF1', 'ztpf', 1, '{}')")
    for kind, name, status in (("QMGR", "QM1", "{}"), ("QL", "Q1", "{}"), ("QL", "XQ", '{"inflight": [8, 7]}')):
        conn.execute(
            "INSERT INTO objects (system, type, name, attrs, status, created, altered) "
            "VALUES ('TPF1', ?, ?, ?, ?, 0, 0)",
            (kind, name, '{"USAGE": "XMITQ"}' if name == "XQ" else "{}", status),
        )
    for index, priority in enumerate((0, 5, 0, 9, 5, 0), start=1):
        conn.execute(
            "INSERT INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time, "
            "original_length, stored_length, payload, swbs) VALUES (?, 'TPF1', 'Q1', ?, ?, ?, 1, 0, 2, 2, ?, 1)",
            (index, priority, bytes([index]) * 24, bytes(24), f"m{index}".encode()),
        )
    for index in (7, 8):
        conn.execute(
            "INSERT INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time, "
            "original_length, stored_length, payload, swbs) VALUES (?, 'TPF1', 'XQ', 0, ?, ?, 1, 0, 2, 2, ?, 1)",
            (index, bytes([index]) * 24, bytes(24), f"x{index}".encode()),
        )
    conn.execute("UPDATE queue_stats SET sweep_mark = 2, swbs = swbs - 2 WHERE queue = 'Q1'")
    conn.execute("UPDATE engine_state SET ckpt_mark = 4 WHERE system = 'TPF1'")
    conn.execute("COMMIT")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
    store.close()
    monkeypatch.setattr(store_module, "_migrations", lambda: real)


def test_a_version_2_store_with_messages_migrates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state"
    _store_at_version_2(state, monkeypatch)
    store = Store.open(state)
    try:
        with store.transaction(write=False) as tx:
            system = tx.get_system("TPF1")
            assert system is not None
            # Six messages, two on file (their SWBs no longer held), none compressed.
            assert queue_figures(tx, system, "Q1") == {"CURDEPTH": 6, "SWBS": 4, "COMPRESSED": 0}
            row = tx.conn.execute(
                "SELECT next_seq, sweep_mark, ckpt_mark FROM queue_figures WHERE queue = 'Q1'"
            ).fetchone()
            assert row == (7, 2, 4)  # marks are now sequence numbers of the queue
            xq = tx.get_object("TPF1", "QL", "XQ")
            assert xq is not None
            qkey = runs.queue_key(tx.conn, "TPF1", "XQ")
            assert qkey is not None
            # The batch in flight names the same messages by their new ids, in order.
            assert xq.status["inflight"] == [runs.row_id(qkey, 0, 2), runs.row_id(qkey, 0, 1)]
            assert json.loads(tx.conn.execute("SELECT status FROM objects WHERE name = 'XQ'").fetchone()[0])
        handle = open_queue(store, Clock.from_setting(FROZEN), "TPF1", "Q1")
        got: list[bytes] = []
        result = get_stream(handle, lambda message: got.append(message.payload), count=None)
        assert result.error is None
        # Priority first, then put order within a priority.
        assert got == [b"m4", b"m2", b"m5", b"m1", b"m3", b"m6"]
        handle.put_committed(b"after", PutOptions(persistent=True))
        with store.transaction(write=False) as tx:
            assert tx.conn.execute("SELECT next_seq FROM queue_figures WHERE queue = 'Q1'").fetchone()[0] == 8
    finally:
        store.close()


@pytest.fixture
def session(tmp_path: Path) -> Session:
    clock = Clock.from_setting(FROZEN)
    store = Store.open(tmp_path / "state")
    ensure_complex(store, clock.timestamp())
    return Session(store, clock)


def test_a_queue_run_is_in_get_order_and_goes_with_its_queue(session: Session) -> None:
    assert session.execute("ZMQSC DEFINE QL-Q1").status == "ok"
    store = session.store
    handle = open_queue(store, session.clock, "TPF1", "Q1")
    with store.transaction() as tx:
        handle.open(tx)
        for priority in (0, 9, 3, 9, 0):
            handle.put(tx, f"p{priority}".encode(), PutOptions(priority=priority))
        handle.close(tx)
    with store.transaction(write=False) as tx:
        qkey = runs.queue_key(tx.conn, "TPF1", "Q1")
        assert qkey is not None
        low, high = runs.span(qkey)
        rows = tx.conn.execute("SELECT id, priority FROM messages WHERE id > ? AND id < ? ORDER BY id", (low, high))
        ordered = rows.fetchall()
        # Row id order is get order; sequence numbers are put order across priorities.
        assert [priority for _, priority in ordered] == [9, 9, 3, 0, 0]
        assert [runs.seq_of(row_id) for row_id, _ in ordered] == [2, 4, 3, 1, 5]
        head = tx.conn.execute("SELECT system, depth, next_seq FROM messages WHERE id = ?", (runs.head_id(qkey),))
        assert head.fetchone() == ("", 5, 6)
        assert tx.conn.execute("SELECT count(*) FROM messages WHERE system = 'TPF1'").fetchone()[0] == 5
    assert session.execute("ZMQSC DELETE QL-Q1 PURGE").status == "ok"
    with store.transaction(write=False) as tx:
        # The messages and the head row went with the queue.
        left = tx.conn.execute("SELECT count(*) FROM messages WHERE id >= ? AND id < ?", (low, high)).fetchone()[0]
        assert left == 0 and runs.queue_key(tx.conn, "TPF1", "Q1") is None
    # A queue defined again starts a new run: its sequence starts at 1.
    assert session.execute("ZMQSC DEFINE QL-Q1").status == "ok"
    with store.transaction() as tx:
        assert runs.depth(tx.conn, "TPF1", "Q1") == 0
        assert runs.seq_of(runs.next_id(tx.conn, "TPF1", "Q1", 0)) == 1
        with pytest.raises(LookupError):
            runs.next_id(tx.conn, "TPF1", "NOPE", 0)


def test_a_rolled_back_put_leaves_its_counts_uncounted(session: Session) -> None:
    assert session.execute("ZMQSC DEFINE QL-Q1").status == "ok"
    store = session.store
    handle = open_queue(store, session.clock, "TPF1", "Q1")
    with store.transaction() as tx:
        handle.open(tx)
    handle.put_committed(b"kept", PutOptions(persistent=True))
    store.conn.execute("BEGIN IMMEDIATE")
    from mqtool.state import Transaction

    tx = Transaction(store)
    handle.put(tx, b"dropped", PutOptions(persistent=True))
    store.conn.execute("ROLLBACK")
    handle.rolled_back(tx)
    with store.transaction() as tx:
        handle.close(tx)
    with store.transaction(write=False) as tx:
        row = tx.conn.execute("SELECT t_put_p, t_put_p_bytes FROM queue_stats WHERE queue = 'Q1'").fetchone()
        assert row == (1, 4)
        assert runs.depth(tx.conn, "TPF1", "Q1") == 1


def test_a_put_stores_its_ids_and_payload_as_blobs_of_the_bytes_given(session: Session) -> None:
    """A put binds small blobs as bytearray copies (cheaper in Python's sqlite3 than bytes)
    and large ones as they are: either way the row holds BLOBs of exactly the bytes put."""
    assert session.execute("ZMQSC DEFINE QL-Q1").status == "ok"
    store = session.store
    handle = open_queue(store, session.clock, "TPF1", "Q1")
    with store.transaction() as tx:
        handle.open(tx)
    correlid = b"C" * 24
    payloads = [b"", b"\x00small", bytes(range(256)) * 63, bytes(range(256)) * 64, b"L" * 100_000]
    results = [handle.put_committed(payload, PutOptions(persistent=True, correlid=correlid)) for payload in payloads]
    rows = store.conn.execute(
        "SELECT typeof(msgid), msgid, typeof(correlid), correlid, typeof(payload), payload FROM messages "
        "WHERE system = 'TPF1' ORDER BY id"
    ).fetchall()
    assert rows == [
        ("blob", result.msgid, "blob", correlid, "blob", payload)
        for result, payload in zip(results, payloads, strict=True)
    ]
    got = [handle.get_committed() for _ in payloads]
    assert [message.payload for message in got if message is not None] == payloads
    assert all(type(message.payload) is bytes and type(message.msgid) is bytes for message in got if message)
