"""The z/TPF MQ put/get path: resolution, reason codes, order and selection, queue
compression (and the z14 fallback), SWBs, expiry, and the figures kept by triggers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine import codecs
from mqtool.engine.core.handle import QueueHandle
from mqtool.engine.core.message import NO_ID, Message, PutOptions, PutResult, Selector, format_id, parse_id
from mqtool.engine.core.reasons import MQError
from mqtool.engine.core.streams import get_stream, put_stream
from mqtool.engine.payload import generate
from mqtool.engine.platforms import open_queue
from mqtool.engine.ztpf.figures import file_ios, queue_figures, swbs_for, system_swbs
from mqtool.session import Session
from mqtool.state import Store

FROZEN = "2021-03-09T15:41:22Z"


class Engine:
    """A fresh store with the default complex and a frozen clock, driven in process."""

    def __init__(self, state_dir: Path, system: str = "TPF1") -> None:
        self.clock = Clock.from_setting(FROZEN)
        self.store = Store.open(state_dir)
        ensure_complex(self.store, self.clock.timestamp())
        self.system = system
        self.session = Session(self.store, self.clock, system)

    def cmd(self, *lines: str) -> list[str]:
        out: list[str] = []
        for line in lines:
            outcome = self.session.execute(line)
            assert outcome.status == "ok", outcome.lines
            out.extend(outcome.lines)
        return out

    def handle(self, queue: str) -> QueueHandle:
        return open_queue(self.store, self.clock, self.system, queue)

    def put(self, queue: str, *payloads: bytes, **options: Any) -> list[PutResult]:
        handle = self.handle(queue)
        results = []
        with self.store.transaction() as tx:
            handle.open(tx)
            for payload in payloads:
                results.append(handle.put(tx, payload, PutOptions(**options)))
            handle.close(tx)
        return results

    def get(self, queue: str, count: int | None = 1, **selector: bytes) -> list[Message]:
        got: list[Message] = []
        result = get_stream(self.handle(queue), got.append, count, Selector(**selector))
        if result.error is not None:
            raise result.error
        return got

    def set_cpu(self, model: str) -> None:
        with self.store.transaction() as tx:
            system = tx.get_system("TPF1")
            assert system is not None
            system.attrs["cpu"] = model
            tx.put_system(system)

    def figures(self, queue: str) -> dict[str, int]:
        with self.store.transaction(write=False) as tx:
            system = tx.get_system("TPF1")
            assert system is not None
            return queue_figures(tx, system, queue)

    def stat(self, queue: str, field: str) -> int:
        with self.store.transaction(write=False) as tx:
            row = tx.conn.execute(
                f"SELECT {field} FROM queue_stats WHERE system = 'TPF1' AND queue = ?", (queue,)
            ).fetchone()
        return int(row[0])


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    made = Engine(tmp_path / "state")
    yield made
    made.store.close()


def reason(error: pytest.ExceptionInfo[MQError]) -> int:
    return error.value.reason


def test_put_get_round_trip_in_priority_then_fifo_order(engine: Engine) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1")
    engine.put("Q1", b"low-1", b"low-2", priority=0)
    engine.put("Q1", b"high-1", priority=9)
    engine.put("Q1", b"mid-1", b"mid-2", priority=5)
    got = engine.get("Q1", None)
    assert [m.payload for m in got] == [b"high-1", b"mid-1", b"mid-2", b"low-1", b"low-2"]
    assert engine.figures("Q1") == {"CURDEPTH": 0, "SWBS": 0, "COMPRESSED": 0}


def test_message_ids_are_unique_deterministic_and_selectable(engine: Engine, tmp_path: Path) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1")
    first = engine.put("Q1", b"a", b"b", b"c")
    ids = [r.msgid for r in first]
    assert len(set(ids)) == 3 and all(len(i) == 24 for i in ids)
    assert ids[0].startswith(b"TPF TPFQM       ")
    again = Engine(tmp_path / "again")
    again.cmd("ZMQSC DEFINE QL-Q1")
    assert [r.msgid for r in again.put("Q1", b"a", b"b", b"c")] == ids
    again.store.close()
    # Selection by msgid, then by correlid.
    got = engine.get("Q1", msgid=ids[1])
    assert [m.payload for m in got] == [b"b"]
    engine.put("Q1", b"x", correlid=parse_id("ORDER42"))
    engine.put("Q1", b"y", correlid=parse_id("ORDER43"))
    got = engine.get("Q1", correlid=parse_id("ORDER43"))
    assert [m.payload for m in got] == [b"y"]
    assert [m.payload for m in engine.get("Q1", None)] == [b"a", b"c", b"x"]


def test_ids_as_typed() -> None:
    assert parse_id("AB") == b"AB" + bytes(22)
    assert parse_id("00" * 23 + "41") == bytes(23) + b"A"
    assert format_id(b"\x01\xab") == "01AB"
    with pytest.raises(ValueError, match="longer than 24 bytes"):
        parse_id("X" * 25)


def test_reason_codes_of_the_put_checks(engine: Engine) -> None:
    engine.cmd(
        "ZMQSC DEFINE QL-Q1 MAXDEPTH-2 MAXMSGL-100",
        "ZMQSC DEFINE QL-OFF PUT-DISABLED GET-DISABLED",
    )
    with pytest.raises(MQError) as error:
        engine.put("NOSUCH", b"x")
    assert reason(error) == 2085
    assert str(error.value).startswith("MQRC 2085 (MQRC_UNKNOWN_OBJECT_NAME)")
    with pytest.raises(MQError) as error:
        engine.put("OFF", b"x")
    assert reason(error) == 2051
    with pytest.raises(MQError) as error:
        engine.get("OFF")
    assert reason(error) == 2016
    with pytest.raises(MQError) as error:
        engine.put("Q1", b"x" * 101)
    assert reason(error) == 2030
    engine.put("Q1", b"x" * 100, b"y")
    with pytest.raises(MQError) as error:
        engine.put("Q1", b"z")
    assert reason(error) == 2053
    assert engine.figures("Q1")["CURDEPTH"] == 2
    engine.get("Q1", None)
    # An empty queue is no error of the stream: it returns no message (callers report 2033).
    result = get_stream(engine.handle("Q1"), lambda m: None, 1)
    assert result.count == 0 and result.error is None


def test_an_open_handle_refused_by_get_disabled_gets_once_the_queue_is_enabled(engine: Engine) -> None:
    """A handle keeps its queue's resolution between gets; a refusal (2016) made with it
    is checked against the definitions version, so ALTER ... GET-ENABLED is seen by the
    next get of the same handle (it used to fail until a put resolved the queue again)."""
    engine.cmd("ZMQSC DEFINE QL-Q1 GET-DISABLED")
    engine.put("Q1", b"one")
    getter = engine.handle("Q1")
    with engine.store.transaction() as tx:
        getter.open(tx, "get")
    try:
        with engine.store.transaction() as tx, pytest.raises(MQError) as refused:
            getter.get(tx)
        assert reason(refused) == 2016
        engine.cmd("ZMQSC ALTER QL-Q1 GET-ENABLED")
        with engine.store.transaction() as tx:
            got = getter.get(tx)
        assert got is not None and got.payload == b"one"
        engine.cmd("ZMQSC ALTER QL-Q1 GET-DISABLED")
        with engine.store.transaction() as tx, pytest.raises(MQError) as again:
            getter.get(tx)
        assert reason(again) == 2016
    finally:
        with engine.store.transaction() as tx:
            getter.close(tx)


def test_alias_and_remote_resolution(engine: Engine) -> None:
    engine.cmd(
        "ZMQSC DEFINE QL-TARGET",
        "ZMQSC DEFINE QA-ALIAS TARGQ-TARGET DEFPSIST-YES",
        "ZMQSC DEFINE QA-NOPUT TARGQ-TARGET PUT-DISABLED",
        "ZMQSC DEFINE QL-QM2 USAGE-XMITQ",
        "ZMQSC DEFINE QR-REMOTE RNAME-PAYQ RQMNAME-QM2",
    )
    [result] = engine.put("ALIAS", b"through the alias")
    assert result.persistent
    with pytest.raises(MQError) as error:
        engine.put("NOPUT", b"x")
    assert reason(error) == 2051
    assert [m.payload for m in engine.get("ALIAS")] == [b"through the alias"]
    engine.put("REMOTE", b"far away")
    assert engine.figures("QM2")["CURDEPTH"] == 1
    with pytest.raises(MQError) as error:
        engine.get("REMOTE")
    assert reason(error) == 2045
    [message] = engine.get("QM2")
    assert message.header == {"qmgr": "TPFQM", "rname": "PAYQ", "rqmname": "QM2"}
    # The alias's target and the remote's transmission queue must exist and be right.
    engine.cmd("ZMQSC ALTER QL-QM2 USAGE-NORMAL")
    with pytest.raises(MQError) as error:
        engine.put("REMOTE", b"x")
    assert reason(error) == 2198
    engine.cmd("ZMQSC DEFINE QR-LOST RNAME-X RQMNAME-NOWHERE")
    with pytest.raises(MQError) as error:
        engine.put("LOST", b"x")
    assert reason(error) == 2196


def test_puts_and_gets_refused_while_the_queue_manager_is_stopped(engine: Engine) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1")
    engine.put("Q1", b"kept", persistent=True)
    handle = engine.handle("Q1")
    with engine.store.transaction() as tx:
        handle.open(tx)
    engine.cmd("ZMQSC STOP QMGR")
    # An open handle sees the stop at its next put (the definitions version moved).
    with pytest.raises(MQError) as error, engine.store.transaction() as tx:
        handle.put(tx, b"x", PutOptions())
    assert reason(error) == 2059
    with pytest.raises(MQError) as error:
        engine.put("Q1", b"x")
    assert reason(error) == 2059
    engine.cmd("ZMQSC START QMGR")
    assert [m.payload for m in engine.get("Q1")] == [b"kept"]


def test_compression_at_put_and_inflation_at_get(engine: Engine) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1 COMPSIZE-16000")
    small, large = generate("xml", 15999), generate("xml", 32768)
    noise = generate("random", 20000)
    results = engine.put("Q1", small, large, noise)
    assert [r.codec for r in results] == ["", "QUEUE", ""]
    assert results[1].stored < len(large) // 2
    # Random bytes do not shrink: stored as they are, counted as not compressed.
    assert results[2].stored == len(noise)
    assert engine.figures("Q1")["COMPRESSED"] == 1
    got = engine.get("Q1", None)
    assert [m.payload for m in got] == [small, large, noise]
    assert [m.inflated for m in got] == ["", "hardware", ""]
    assert engine.stat("Q1", "t_decomp_hw") == 1 and engine.stat("Q1", "t_decomp_sw") == 0
    assert engine.stat("Q1", "t_comp") == 1


def test_z14_fallback_inflates_in_software_and_compresses_nothing(engine: Engine) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1 COMPSIZE-1000")
    payload = generate("xml", 5000)
    engine.put("Q1", payload, payload)
    assert engine.figures("Q1")["COMPRESSED"] == 2
    engine.set_cpu("z14")
    [first] = engine.get("Q1")
    assert first.payload == payload and first.inflated == "software"
    [plain] = engine.put("Q1", payload)
    assert plain.codec == "" and plain.stored == len(payload)
    got = engine.get("Q1", None)
    assert [m.payload for m in got] == [payload, payload]
    assert engine.stat("Q1", "t_decomp_sw") == 2 and engine.stat("Q1", "t_decomp_hw") == 0


@pytest.mark.parametrize(
    ("stored", "swbs"),
    [(0, 1), (1, 1), (1008, 1), (1009, 2), (2016, 2), (3000, 3), (32768, 33), (200000, 199)],
)
def test_swbs_per_message(stored: int, swbs: int) -> None:
    assert swbs_for(stored, 1024) == swbs


def test_swbs_in_use_per_queue_and_system_and_none_on_common_queues(engine: Engine) -> None:
    engine.cmd("ZMQSC DEFINE QL-MEM", "ZMQSC DEFINE QL-SHARED COMMON-YES", "ZMQSC DEFINE QL-OTHER")
    engine.put("MEM", b"x" * 3000, b"y" * 1008)
    engine.put("SHARED", b"z" * 50000)
    engine.put("OTHER", b"w" * 32768)
    assert engine.figures("MEM") == {"CURDEPTH": 2, "SWBS": 4, "COMPRESSED": 0}
    assert engine.figures("SHARED") == {"CURDEPTH": 1, "SWBS": 0, "COMPRESSED": 0}
    with engine.store.transaction(write=False) as tx:
        assert system_swbs(tx, "TPF1") == 4 + 33
    engine.get("MEM")
    assert engine.figures("MEM")["SWBS"] == 1
    # CLEAR (another module's raw DELETE) keeps the figures right through the triggers.
    engine.cmd("ZMQSC CLEAR QL-OTHER")
    with engine.store.transaction(write=False) as tx:
        assert system_swbs(tx, "TPF1") == 1


def test_smaller_swbsize_gives_more_swbs(engine: Engine) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1")
    with engine.store.transaction() as tx:
        system = tx.get_system("TPF1")
        assert system is not None
        system.attrs["swbsize"] = 528
        tx.put_system(system)
    engine.put("Q1", b"x" * 1024)
    assert engine.figures("Q1")["SWBS"] == 2


def test_expired_messages_are_never_returned_and_are_removed(engine: Engine) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1")
    engine.put("Q1", b"short", expiry=5.0)
    engine.put("Q1", b"long", expiry=60.0)
    engine.put("Q1", b"forever")
    engine.clock.advance(10)
    assert [m.payload for m in engine.get("Q1", None)] == [b"long", b"forever"]
    assert engine.stat("Q1", "expired") == 1
    assert engine.figures("Q1")["CURDEPTH"] == 0


def test_browse_leaves_messages_and_walks_in_order(engine: Engine) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1")
    engine.put("Q1", b"one", b"two")
    engine.put("Q1", b"urgent", priority=7)
    seen: list[bytes] = []
    result = get_stream(engine.handle("Q1"), lambda m: seen.append(m.payload), None, browse=True)
    assert result.error is None and seen == [b"urgent", b"one", b"two"]
    assert engine.figures("Q1")["CURDEPTH"] == 3
    assert engine.stat("Q1", "t_gets") == 0


def test_put_stream_acknowledges_only_committed_messages(engine: Engine) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1 MAXDEPTH-3")
    acknowledged: list[int] = []
    commits: list[int] = []

    def on_commit(results: list[object]) -> None:
        commits.append(len(results))
        acknowledged.extend(r.row_id for r in results)

    items = ((bytes([i]), PutOptions(persistent=True)) for i in range(5))
    result = put_stream(engine.handle("Q1"), items, on_commit)
    assert result.count == 3 and result.error is not None and result.error.reason == 2053
    assert commits == [1, 1, 1]  # persistent: each on its own
    with engine.store.transaction(write=False) as tx:
        rows = [
            r[0] for r in tx.conn.execute("SELECT id FROM messages WHERE system = 'TPF1' AND queue = 'Q1' ORDER BY id")
        ]
    assert rows == acknowledged
    engine.cmd("ZMQSC CLEAR QL-Q1", "ZMQSC ALTER QL-Q1 MAXDEPTH-0")
    commits.clear()
    items = ((b"n", PutOptions(persistent=False)) for _ in range(2500))
    result = put_stream(engine.handle("Q1"), items, on_commit)
    assert result.count == 2500 and commits == [1000, 1000, 500]  # non-persistent: in batches


def test_opens_and_closes_are_counted(engine: Engine) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1")
    engine.put("Q1", b"a")
    engine.get("Q1")
    assert (engine.stat("Q1", "opens"), engine.stat("Q1", "closes")) == (2, 2)


def test_damaged_compressed_payload_fails_the_get_and_stays(engine: Engine) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1 COMPSIZE-100")
    payload = generate("xml", 5000)
    engine.put("Q1", payload)
    with engine.store.transaction() as tx:
        stored = tx.conn.execute("SELECT payload FROM messages WHERE system = 'TPF1' AND queue = 'Q1'").fetchone()[0]
        damaged = stored[:40] + bytes(20)
        # A row written without a checksum (by another writer), so that inflation finds it.
        tx.conn.execute(
            "UPDATE messages SET payload = ?, stored_length = ?, checksum = NULL "
            "WHERE system = 'TPF1' AND queue = 'Q1'",
            (damaged, len(damaged)),
        )
    with pytest.raises(MQError) as error:
        engine.get("Q1")
    assert reason(error) == 2195
    assert "does not inflate" in str(error.value)
    assert engine.figures("Q1")["CURDEPTH"] == 1
    assert engine.stat("Q1", "t_gets") == 0


def test_inflation_is_bounded_by_the_original_length(engine: Engine) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1 COMPSIZE-100")
    engine.put("Q1", generate("xml", 5000))
    bomb = codecs.compress("QUEUE", b"\0" * 1_000_000)
    with engine.store.transaction() as tx:
        tx.conn.execute(
            "UPDATE messages SET payload = ?, stored_length = ?, checksum = NULL "
            "WHERE system = 'TPF1' AND queue = 'Q1'",
            (bomb, len(bomb)),
        )
    with pytest.raises(MQError) as error:
        engine.get("Q1")
    assert reason(error) == 2195 and "exceeds 5000 bytes" in str(error.value)


def test_file_ios() -> None:
    assert [file_ios(n) for n in (0, 1, 4096, 4097, 32768)] == [1, 2, 2, 3, 9]


def test_transmission_header_is_stored_as_json(engine: Engine) -> None:
    engine.cmd("ZMQSC DEFINE QL-XQ USAGE-XMITQ", "ZMQSC DEFINE QR-R RNAME-FAR RQMNAME-QM9 XMITQ-XQ")
    engine.put("R", b"payload", correlid=NO_ID)
    with engine.store.transaction(write=False) as tx:
        header = tx.conn.execute("SELECT header FROM messages WHERE system = 'TPF1' AND queue = 'XQ'").fetchone()[0]
    assert json.loads(header) == {"qmgr": "TPFQM", "rname": "FAR", "rqmname": "QM9"}


def test_messages_that_cannot_be_handed_on_go_back_in_place(engine: Engine) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1 COMPSIZE-100")
    payloads = [generate("xml", 500, 0, i) for i in range(6)]
    engine.put("Q1", *payloads)
    delivered: list[bytes] = []

    def deliver(message: Message) -> None:
        if len(delivered) == 2:
            raise BrokenPipeError("reader went away")
        delivered.append(message.payload)

    with pytest.raises(BrokenPipeError):
        get_stream(engine.handle("Q1"), deliver, None)
    assert delivered == payloads[:2]
    assert engine.figures("Q1") == {"CURDEPTH": 4, "SWBS": 4, "COMPRESSED": 4}
    assert engine.stat("Q1", "t_gets") == 2 and engine.stat("Q1", "t_put_np") == 6
    assert [m.payload for m in engine.get("Q1", None)] == payloads[2:]


def test_an_open_handle_sees_what_other_connections_did(engine: Engine, tmp_path: Path) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1 MAXDEPTH-3")
    handle = engine.handle("Q1")
    with engine.store.transaction() as tx:
        handle.open(tx)
        handle.put(tx, b"mine", PutOptions())
    other = Store.open(tmp_path / "state")
    try:
        # Another process puts two messages: this handle's next put finds the queue full.
        theirs = open_queue(other, engine.clock, "TPF1", "Q1")
        with other.transaction() as tx:
            theirs.put(tx, b"a", PutOptions())
            theirs.put(tx, b"b", PutOptions())
        with pytest.raises(MQError) as error, engine.store.transaction() as tx:
            handle.put(tx, b"too many", PutOptions())
        assert reason(error) == 2053
        # ... and sees a definition changed there, too.
        with other.transaction() as tx:
            tx.conn.execute("DELETE FROM messages WHERE system = 'TPF1' AND queue = 'Q1'")
            record = tx.get_object("TPF1", "QL", "Q1")
            assert record is not None
            record.attrs["PUT"] = "DISABLED"
            tx.put_object(record)
        with pytest.raises(MQError) as error, engine.store.transaction() as tx:
            handle.put(tx, b"x", PutOptions())
        assert reason(error) == 2051
    finally:
        other.close()


def test_committed_puts_and_gets_keep_figures_counts_and_checks(engine: Engine, tmp_path: Path) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1 MAXDEPTH-3 DEFPSIST-YES")
    handle = engine.handle("Q1")
    with engine.store.transaction() as tx:
        handle.open(tx)
    payload = generate("xml", 2048, 0, 0)
    first = handle.put_committed(payload, PutOptions())
    handle.put_committed(b"second", PutOptions(priority=5))
    assert first.persistent and first.swbs == swbs_for(2048)
    other = Store.open(tmp_path / "state")
    try:
        # Another connection fills the queue: this handle's next committed put is refused
        # and leaves nothing behind.
        with other.transaction() as tx:
            putter = open_queue(other, engine.clock, "TPF1", "Q1")
            putter.put(tx, b"theirs", PutOptions())
            putter.close(tx)  # a handle writes its put and get counts by its close
        with pytest.raises(MQError) as error:
            handle.put_committed(b"too many", PutOptions())
        assert reason(error) == 2053
    finally:
        other.close()
    assert engine.figures("Q1") == {"CURDEPTH": 3, "SWBS": swbs_for(2048) + 2, "COMPRESSED": 0}
    got = [handle.get_committed(), handle.get_committed()]
    assert [m.payload for m in got if m is not None] == [b"second", payload]
    assert engine.figures("Q1") == {"CURDEPTH": 1, "SWBS": 1, "COMPRESSED": 0}
    with engine.store.transaction() as tx:
        handle.close(tx)
    assert engine.stat("Q1", "t_put_p") == 3 and engine.stat("Q1", "t_put_np") == 0
    assert engine.stat("Q1", "t_gets") == 2
    assert handle.get_committed(Selector(msgid=b"none")) is None


def test_a_handle_holds_no_read_snapshot_between_operations(engine: Engine, tmp_path: Path) -> None:
    engine.cmd("ZMQSC DEFINE QL-Q1")
    handle = engine.handle("Q1")
    with engine.store.transaction() as tx:
        handle.open(tx)
    for index in range(3):
        handle.put_committed(f"m{index}".encode(), PutOptions(persistent=True))
    assert handle.get_committed() is not None
    browsed: list[Message] = []
    get_stream(handle, browsed.append, 1, browse=True)
    assert len(browsed) == 1
    other = Store.open(tmp_path / "state")
    try:
        # A full checkpoint that resets the WAL is refused (busy) while any connection
        # still reads an old snapshot: the handle's cursor must not keep one.
        busy, _, _ = other.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0
    finally:
        other.close()
