"""Damaged message rows: whatever is wrong with a row (a changed byte found by its
checksum, a value of the wrong type or range, a header that is not JSON, an unknown
codec), a get or browse of it is refused with MQRC 2195, prints none of its bytes, and
the message stays on its queue, uncounted."""

from __future__ import annotations

import shutil
import zlib
from pathlib import Path

import pytest

from mqtool.cli.main import main
from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.core.message import PutOptions
from mqtool.engine.core.streams import get_stream, put_stream
from mqtool.engine.payload import generate
from mqtool.engine.platforms import open_queue
from mqtool.session import Session
from mqtool.state import Store

FROZEN = "2021-03-09T15:41:22Z"
SECRET = b"PAYLOAD-BYTES-NEVER-SHOWN"

# kind -> (the column assignments that damage the first message, what the reason says)
DAMAGE: dict[str, tuple[str, str]] = {
    "flipped-byte": ("payload = CAST(replace(payload, X'4E', X'4F') AS BLOB)", "does not match its checksum"),
    "flipped-compressed-byte": ("payload = CAST(zeroblob(40) || substr(payload, 41) AS BLOB)", "checksum"),
    "negative-length": ("original_length = -5", "its length -5 is not a length"),
    "payload-as-text": ("payload = CAST(payload AS TEXT)", "its payload is stored as TEXT, not as a BLOB"),
    "payload-null-checksum-text": ("checksum = 'x'", "does not match its checksum"),
    "header-not-json": ("header = '{not json'", "its header is not JSON"),
    "header-not-object": ("header = '[1, 2]'", "its header is not a JSON object"),
    "header-as-blob": ("header = X'7B7D'", "its header is stored as BLOB"),
    "unknown-codec": ("codec = 'NOPE', checksum = NULL", "unknown compression technique 'NOPE'"),
    "codec-as-blob": ("codec = X'51'", "its codec is stored as BLOB"),
    "stored-length": ("stored_length = stored_length + 1", "its stored length"),
    "length-mismatch": ("original_length = original_length + 3", "is not the"),
    "short-msgid": ("msgid = X'0102'", "its message id is not 24 bytes"),
    "correlid-as-text": ("correlid = 'ORDER'", "its correlation id is not 24 bytes"),
    "priority": ("priority = 12", "its priority 12 is not 0-9"),
    "persistence": ("persistent = 7", "its persistence 7 is not 0 or 1"),
    "put-time-as-text": ("put_time = 'yesterday'", "its put time or expiry is not a time"),
    "expiry-as-text": ("expiry = 'soon'", "its put time or expiry is not a time"),
    "negative-swbs": ("swbs = -1", "its storage units (SWBs, pages) -1 are not a count"),
    # The get's SQL checks the row's types by comparisons (core/handle.py, _SOUND): a
    # REAL, a text or a NULL where an integer belongs is found as damage() finds it.
    "priority-real": ("priority = 4.5", "its priority 4.5 is not 0-9"),
    "priority-as-text": ("priority = 'high'", "its priority 'high' is not 0-9"),
    "persistence-real": ("persistent = 0.5", "its persistence 0.5 is not 0 or 1"),
    "length-real": ("original_length = original_length + 0.5", "is not a length"),
    "swbs-as-text": ("swbs = 'many'", "its storage units (SWBs, pages) 'many' are not a count"),
    "checksum-real": ("checksum = checksum + 0.5", "does not match its checksum"),
    "checksum-negative": ("checksum = -1", "does not match its checksum"),
    "codec-as-number": ("codec = 5, checksum = NULL", "unknown compression technique '5'"),
    "msgid-long": ("msgid = msgid || X'00'", "its message id is not 24 bytes"),
    "expiry-as-blob": ("expiry = X'01'", "its put time or expiry is not a time"),
    "put-time-as-blob": ("put_time = X'01'", "its put time or expiry is not a time"),
}


def mqtool(state: Path, capsysbinary: pytest.CaptureFixture[bytes], *args: str) -> tuple[int, bytes, str]:
    with pytest.raises(SystemExit) as leaving:
        main(["--state", str(state), "--clock", FROZEN, *args])
    captured = capsysbinary.readouterr()
    code = leaving.value.code
    return (code if isinstance(code, int) else 0), captured.out, captured.err.decode()


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[bool, Path]:
    """Two stores made once: Q1 with a text message holding SECRET then "second", and
    the same with the first message compressed (COMPSIZE)."""
    made = {}
    for compressed in (False, True):
        state = tmp_path_factory.mktemp("template") / "state"
        clock = Clock.from_setting(FROZEN)
        store = Store.open(state)
        ensure_complex(store, clock.timestamp())
        session = Session(store, clock)
        assert session.execute("ZMQSC DEFINE QL-Q1" + (" COMPSIZE-100" if compressed else "")).status == "ok"
        first = generate("xml", 3000) if compressed else SECRET + b" NNN"
        result = put_stream(
            open_queue(store, clock, "TPF1", "Q1"), [(first, PutOptions()), (b"second", PutOptions())], lambda _: None
        )
        assert result.error is None
        store.close()
        made[compressed] = state
    return made


def damaged_store(state: Path, templates: dict[bool, Path], kind: str) -> None:
    shutil.copytree(templates["compressed" in kind], state)
    store = Store.open(state)
    with store.transaction() as tx:
        first_id = tx.conn.execute("SELECT min(id) FROM messages WHERE system = 'TPF1'").fetchone()[0]
        tx.conn.execute(f"UPDATE messages SET {DAMAGE[kind][0]} WHERE id = ?", (first_id,))
    store.close()


@pytest.mark.parametrize("kind", sorted(DAMAGE))
@pytest.mark.parametrize("browse", [False, True], ids=["get", "browse"])
def test_a_damaged_row_is_2195_and_stays(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], templates: dict[bool, Path], kind: str, browse: bool
) -> None:
    state = tmp_path / "state"
    damaged_store(state, templates, kind)
    action = "Browse of" if browse else "Get from"
    code, out, err = mqtool(state, capsysbinary, "get", "Q1", *(["--browse"] if browse else []))
    assert (code, out) == (1, b""), err
    assert err.startswith(f"MQT0120E {action} Q1 failed: MQRC 2195 (MQRC_UNEXPECTED_ERROR): "), err
    assert DAMAGE[kind][1] in err and len(err.splitlines()) == 1
    assert "Traceback" not in err and SECRET.decode() not in err
    display = mqtool(state, capsysbinary, "cmd", "ZMQSC DISPLAY QL-Q1 STAT")[1].decode().splitlines()
    # The get counted its MQOPEN and MQCLOSE and no get; the message is still there.
    assert "Current Depth      - 2" in display
    assert [line.split()[:3] for line in display if line.startswith("Get")] == [["Get", "-", "0"]]
    assert "Num of MQOPEN     - 2" in display and "Num of MQCLOSE    - 2" in display


@pytest.mark.parametrize("kind", ["flipped-byte", "header-not-json", "payload-as-text"])
def test_the_engine_refuses_and_keeps_the_row(tmp_path: Path, templates: dict[bool, Path], kind: str) -> None:
    state = tmp_path / "state"
    damaged_store(state, templates, kind)
    store = Store.open(state)
    try:
        handle = open_queue(store, Clock.from_setting(FROZEN), "TPF1", "Q1")
        got: list[bytes] = []
        result = get_stream(handle, lambda message: got.append(message.payload), None)
        assert result.error is not None and result.error.reason == 2195
        assert got == [] and result.count == 0
        with store.transaction(write=False) as tx:
            depth, gets = tx.conn.execute(
                "SELECT f.depth, s.t_gets FROM queue_figures f JOIN queue_stats s USING (system, queue) "
                "WHERE f.system = 'TPF1' AND f.queue = 'Q1'"
            ).fetchone()
        assert (depth, gets) == (2, 0)
    finally:
        store.close()


def test_every_put_stores_a_checksum_that_every_get_checks(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    state = tmp_path / "state"
    assert mqtool(state, capsysbinary, "cmd", "ZMQSC DEFINE QL-Q1 COMPSIZE-1000")[0] == 0
    assert mqtool(state, capsysbinary, "put", "Q1", "--pattern", "xml", "--size", "4KB", "--count", "3", "-q")[0] == 0
    assert mqtool(state, capsysbinary, "put", "Q1", "--data", "plain", "-q")[0] == 0
    store = Store.open(state)
    with store.transaction(write=False) as tx:
        rows = tx.conn.execute(
            "SELECT codec, checksum, payload FROM messages WHERE system = 'TPF1' ORDER BY id"
        ).fetchall()
    store.close()
    assert [codec for codec, _, _ in rows] == ["QUEUE", "QUEUE", "QUEUE", ""]
    assert all(checksum == zlib.crc32(payload) for _, checksum, payload in rows)
    code, out, _ = mqtool(state, capsysbinary, "get", "Q1", "--all")
    assert code == 0 and out.endswith(b"plain\n")


def test_migration_4_checksums_the_messages_already_stored(tmp_path: Path) -> None:
    """A store of schema version 3 (no checksum column) with messages, compressed and
    not: opening it adds the column and checksums every message, so a byte that changes
    afterwards is found."""
    from store_versions import store_at

    from mqtool.engine import codecs
    from mqtool.state import messages as runs

    for compressed in (False, True):
        state = tmp_path / f"v3-{compressed}"
        state.mkdir()
        conn = store_at(state / "mqtool.db", 3)
        conn.execute("INSERT INTO systems (name, platform, position, attrs) VALUES ('TPF1', 'ztpf', 1, '{}')")
        conn.execute(
            "INSERT INTO objects (system, type, name, attrs, status, created, altered) "
            "VALUES ('TPF1', 'QL', 'Q1', '{}', '{}', 0, 0)"
        )
        qkey = runs.queue_key(conn, "TPF1", "Q1")
        assert qkey is not None
        for seq, original in enumerate((generate("xml", 3000), b"second"), start=1):
            stored = codecs.compress("QUEUE", original) if compressed and seq == 1 else original
            conn.execute(
                "INSERT INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time, "
                "original_length, stored_length, codec, payload) VALUES (?, 'TPF1', 'Q1', 0, ?, ?, 0, 0, ?, ?, ?, ?)",
                (runs.row_id(qkey, 0, seq), bytes(24), bytes(24), len(original), len(stored),
                 "QUEUE" if stored is not original else "", stored),
            )  # fmt: skip
        conn.close()
        store = Store.open(state)
        try:
            rows = store.conn.execute("SELECT system, checksum, payload FROM messages ORDER BY id").fetchall()
            assert all(checksum is None for system, checksum, _ in rows if system == "")  # head rows
            messages = [(checksum, payload) for system, checksum, payload in rows if system != ""]
            assert len(messages) == 2 and all(checksum == zlib.crc32(payload) for checksum, payload in messages)
        finally:
            store.close()


def test_a_row_the_sql_doubts_but_damage_accepts_is_delivered(tmp_path: Path, templates: dict[bool, Path]) -> None:
    """The get's SQL check is stricter than `damage` where it packs values (swept 0 or
    1, an integer stored length): such a row is read whole and delivered as before."""
    state = tmp_path / "state"
    shutil.copytree(templates[False], state)
    store = Store.open(state)
    try:
        with store.transaction() as tx:
            first_id = tx.conn.execute("SELECT min(id) FROM messages WHERE system = 'TPF1'").fetchone()[0]
            tx.conn.execute("UPDATE messages SET swept = 2, priority = 3 WHERE id = ?", (first_id,))
        handle = open_queue(store, Clock.from_setting(FROZEN), "TPF1", "Q1")
        with store.transaction() as tx:
            handle.open(tx, "get")
            message = handle.get(tx)
        assert message is not None and message.payload == SECRET + b" NNN"
        assert (message.swept, message.priority, message.header) == (True, 3, {})
    finally:
        store.close()


@pytest.mark.parametrize("swept", [False, True])
def test_a_got_message_has_every_field_it_was_put_with(tmp_path: Path, swept: bool) -> None:
    """The get reads a message in packed columns (core/handle.py): each field comes back
    as it was put, with a header, a correlation id, a priority and an expiry."""
    clock = Clock.from_setting(FROZEN)
    store = Store.open(tmp_path / "state")
    try:
        ensure_complex(store, clock.timestamp())
        assert Session(store, clock).execute("ZMQSC DEFINE QL-Q1").status == "ok"
        handle = open_queue(store, clock, "TPF1", "Q1")
        correlid = bytes(range(200, 224))
        msgid = bytes(range(24))
        header = '{"rname": "R", "rqmname": "QM2"}'
        options = PutOptions(True, 7, msgid, correlid, 3600.0, header)
        with store.transaction() as tx:
            handle.open(tx)
            put = handle.put(tx, b"\x00payload\xff", options)
        if swept:
            with store.transaction() as tx:
                tx.conn.execute("UPDATE messages SET swept = 1 WHERE id = ?", (put.row_id,))
        with store.transaction() as tx:
            message = handle.get(tx, browse=True)
        assert message is not None
        assert (message.row_id, message.msgid, message.correlid, message.priority, message.persistent) == (
            put.row_id, msgid, correlid, 7, True,
        )  # fmt: skip
        assert (message.length, message.stored, message.codec, message.swept, message.expiry) == (
            9, 9, "", swept, put.expiry,
        )  # fmt: skip
        assert message.header == {"rname": "R", "rqmname": "QM2"} and message.payload == b"\x00payload\xff"
        assert message.checksum == zlib.crc32(b"\x00payload\xff") and message.put_time == clock.timestamp()
    finally:
        store.close()
