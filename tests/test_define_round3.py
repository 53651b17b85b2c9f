"""The command path of a DEFINE, third round (issue 19): a command that starts without
looking at the store (its own transaction checks the store did not move), and a local
queue numbered in the INSERT of its definition. Each keeps the answers it gave."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.session import Session
from mqtool.state import ObjectRecord, Store, SystemRecord
from mqtool.state import messages as runs


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    store = Store.open(tmp_path)
    ensure_complex(store, Clock().timestamp())
    opened = Session(store, Clock())
    yield opened
    store.close()


def _statements(store: Store) -> list[str]:
    seen: list[str] = []
    store.conn.set_trace_callback(seen.append)
    return seen


def _set_processor(state: Path, processor: str) -> None:
    """Another process changes the system TPF1 (what its console header shows)."""
    other = Store.open(state)
    try:
        with other.transaction() as tx:
            system = tx.get_system("TPF1")
            assert system is not None
            tx.put_system(SystemRecord(system.name, system.platform, {**system.attrs, "processor": processor}, 0))
    finally:
        other.close()


def test_a_settled_command_first_reads_the_store_in_its_own_transaction(session: Session) -> None:
    assert session.execute("ZMQSC DEFINE QL-FIRST").status == "ok"
    seen = _statements(session.store)
    assert session.execute("ZMQSC DEFINE QL-SECOND").status == "ok"
    assert seen[0] == "BEGIN IMMEDIATE", seen
    assert seen.count("PRAGMA data_version") == 1 and seen.index("PRAGMA data_version") == 1, seen
    assert seen[-1] == "COMMIT"


def test_a_system_changed_by_another_process_is_seen_by_the_next_command(session: Session) -> None:
    state = session.store.path.parent
    assert session.execute("ZMQSC DEFINE QL-FIRST").lines[0].startswith("CSMP0097I")
    for processor, line in (("X", "ZMQSC DEFINE QL-SECOND"), ("Y", "ZMQSC DEFINE QL-SECOND"), ("Z", "ZMQSC NOSUCH")):
        _set_processor(state, processor)
        seen = _statements(session.store)
        lines = session.execute(line).lines  # a success, a failure, a refusal before any transaction
        assert f"CPU-{processor} " in lines[0], (line, lines)
        assert seen.count("COMMIT") <= 1
    with session.store.transaction(write=False) as tx:  # the stale attempt wrote nothing
        assert tx.has_object("TPF1", "QL", "SECOND")
        count = tx.conn.execute("SELECT count(*) FROM objects WHERE name = 'SECOND'").fetchone()[0]
        assert count == 1


def test_a_timer_made_due_by_another_process_runs_before_the_next_command(session: Session) -> None:
    state = session.store.path.parent
    assert session.execute("ZMQSC DEFINE QL-FIRST").status == "ok"
    now = session.clock.timestamp()
    other = Store.open(state)
    try:
        with other.transaction() as tx:
            tx.conn.execute("UPDATE timers SET due = ? WHERE system = 'TPF1' AND name = 'ztpf-mq-monitor'", (now - 1,))
    finally:
        other.close()
    assert session.execute("ZMQSC DEFINE QL-SECOND").status == "ok"
    with session.store.transaction(write=False) as tx:
        due = tx.conn.execute("SELECT due FROM timers WHERE system = 'TPF1' AND name = 'ztpf-mq-monitor'")
        assert due.fetchone()[0] > now  # it ran, and is due again later


def test_own_changes_to_the_systems_are_seen_at_once(session: Session) -> None:
    assert session.execute("ZMQSC DEFINE QL-FIRST").status == "ok"
    with session.store.transaction() as tx:
        system = tx.get_system("TPF1")
        assert system is not None
        tx.put_system(SystemRecord("TPF1", "ztpf", {**system.attrs, "processor": "Q"}, system.position))
    assert "CPU-Q " in session.execute("ZMQSC DEFINE QL-SECOND").lines[0]


def test_a_new_local_queue_is_numbered_in_its_insert(session: Session) -> None:
    store = session.store
    with store.transaction() as tx:
        highest = tx.conn.execute("SELECT max(id) >> 44 FROM messages").fetchone()[0]
        tx.put_object(ObjectRecord("TPF1", "QL", "NUMBERED", {}, {}, 1.0, 1.0))
        tx.put_object(ObjectRecord("CSQ1", "QLOCAL", "NUMBERED", {}, {}, 1.0, 1.0))
        tx.put_object(ObjectRecord("TPF1", "QA", "NOT.A.QUEUE", {"TARGQ": "NUMBERED"}, {}, 1.0, 1.0))
        first = runs.queue_key(tx.conn, "TPF1", "NUMBERED")
        second = runs.queue_key(tx.conn, "CSQ1", "NUMBERED")
        assert (first, second) == (highest + 1, highest + 2)
        head = tx.conn.execute("SELECT queue, depth, next_seq FROM messages WHERE id = ?", (runs.head_id(second),))
        assert head.fetchone() == ("NUMBERED", 0, 1)
        alias = tx.conn.execute("SELECT qkey FROM objects WHERE type = 'QA' AND name = 'NOT.A.QUEUE'").fetchone()
        assert alias == (None,)
        # Written again whole (ALTER, apply): the queue keeps its number and head row.
        tx.put_object(ObjectRecord("TPF1", "QL", "NUMBERED", {"MAXDEPTH": 5}, {}, 1.0, 2.0))
        assert runs.queue_key(tx.conn, "TPF1", "NUMBERED") == first
        heads = tx.conn.execute("SELECT count(*) FROM messages WHERE id >= ? AND id < ?", runs.span(first))
        assert heads.fetchone()[0] == 1


def test_decoded_attributes_are_copies_and_follow_the_stored_text(session: Session) -> None:
    """A queue manager's attributes are decoded once per text: what a caller changes in
    its copy is not seen by the next reader, a list inside is never shared, and a change
    by another connection is read at once."""
    store = session.store
    with store.transaction(write=False) as tx:
        manager = tx.first_object("TPF1", "QMGR")
        assert manager is not None and manager == tx.objects("TPF1", "QMGR")[0]
        manager.attrs["MAXMSGL"] = -1
        again = tx.first_object("TPF1", "QMGR")
        assert again is not None and again.attrs["MAXMSGL"] != -1
        assert tx.first_object("TPF1", "NOSUCH") is None
    with store.transaction() as tx:
        tx.put_object(ObjectRecord("TPF1", "QA", "LISTED", {"TARGQ": "X", "LIST": ["A"]}, {}, 1.0, 1.0))
        first = tx.get_object("TPF1", "QA", "LISTED")
        assert first is not None
        first.attrs["LIST"].append("B")
        second = tx.get_object("TPF1", "QA", "LISTED")
        assert second is not None and second.attrs["LIST"] == ["A"]
    other = Store.open(store.path.parent)
    try:
        with other.transaction() as tx:
            tx.conn.execute("UPDATE objects SET attrs = json_set(attrs, '$.MAXMSGL', 1234) WHERE type = 'QMGR'")
    finally:
        other.close()
    with store.transaction(write=False) as tx:
        changed = tx.first_object("TPF1", "QMGR")
        assert changed is not None and changed.attrs["MAXMSGL"] == 1234


@pytest.mark.parametrize(
    "value",
    [{"A": True}, {"A": 1}, {"A": 1.0}, {"A": -0.0}, {"A": 0.0}, {"B": None, "A": "x"}, {"A": [1]}, {"A": {"B": 1}}],
)
def test_attributes_are_written_as_json_dumps_writes_them(value: dict[str, object]) -> None:
    """Written from the texts kept by keys and typed values: the same text as json.dumps,
    for values equal across types (True == 1 == 1.0, 0.0 == -0.0) too."""
    from mqtool.state.store import _dumps

    for _ in range(2):  # the second time from what was kept, where it was kept
        assert _dumps(dict(value)) == json.dumps(value, sort_keys=True, separators=(",", ":"))


@pytest.mark.parametrize(
    ("queues", "limit"),
    [
        ({}, 1000),  # only the queue manager's own queues, at the default
        ({"AAA": 5000}, 1000),  # one below the system queues by name
        ({"AAA": 500, "ZZZ": 8000000}, 1000),
        ({"AAA": 500, "ZZZ": 8000000}, 5000000),  # above the default: only the index answers
        ({"AAA": 500, "BBB": 900}, 104857600),  # raising: nothing above
        ({"AAA": 500, "ZZZ": 8000000}, 4194304),  # to the default itself
    ],
)
def test_a_lower_queue_manager_maxmsgl_names_the_first_queue_above_it(
    session: Session, queues: dict[str, int], limit: int
) -> None:
    """The local queues at the default MAXMSGL are not in the index of MAXMSGL: the
    refusal still names the first queue by name above the new value, as reading every
    queue would."""
    assert session.execute("ZMQSC ALTER QMGR MAXMSGL-104857600").status == "ok"
    for name, maxmsgl in queues.items():
        assert session.execute(f"ZMQSC DEFINE QL-{name} MAXMSGL-{maxmsgl}").status == "ok"
    assert session.execute("ZMQSC DEFINE QL-DEFAULTED").status == "ok"  # 104857600 from the queue manager
    assert session.execute("ZMQSC ALTER QL-DEFAULTED MAXMSGL-4194304").status == "ok"
    with session.store.transaction(write=False) as tx:
        everyone = sorted((queue.name, int(queue.attrs["MAXMSGL"])) for queue in tx.objects("TPF1", "QL"))
    above = [(name, value) for name, value in everyone if value > limit]
    outcome = session.execute(f"ZMQSC ALTER QMGR MAXMSGL-{limit}")
    if above:
        name, value = above[0]
        assert outcome.status != "ok" and f"QL-{name}" in "\n".join(outcome.lines) and str(value) in outcome.lines[1]
    else:
        assert outcome.status == "ok", outcome.lines


def test_queues_at_the_default_maxmsgl_are_left_out_of_its_index(session: Session) -> None:
    assert session.execute("ZMQSC ALTER QMGR MAXMSGL-104857600").status == "ok"
    for line in ("ZMQSC DEFINE QL-AT.DEFAULT MAXMSGL-4194304", "ZMQSC DEFINE QL-OTHER MAXMSGL-100"):
        assert session.execute(line).status == "ok"
    with session.store.transaction(write=False) as tx:
        indexed = tx.names_where("TPF1", "MAXMSGL", 100, ("QL",))
        assert indexed == ["OTHER"]
        assert tx.names_where("TPF1", "MAXMSGL", 4194304, ("QL",)) == []
        assert tx.first_at_maxmsgl("TPF1", 4194304) == "AT.DEFAULT"


def test_queues_without_a_streaming_queue_are_left_out_of_its_index(session: Session) -> None:
    for line in ("-CSQ1 DEFINE QLOCAL(TARGET.Q)", "-CSQ1 DEFINE QLOCAL(SOURCE.Q) STREAMQ(TARGET.Q)"):
        assert session.execute(line).status == "ok"
    with session.store.transaction(write=False) as tx:
        assert tx.names_where("CSQ1", "STREAMQ", "TARGET.Q") == ["SOURCE.Q"]
        assert tx.names_where("CSQ1", "STREAMQ", "") == []
        entries = tx.conn.execute("SELECT count(*) FROM objects INDEXED BY objects_by_streamq WHERE system = 'CSQ1' "
                                  "AND json_extract(attrs, '$.STREAMQ') > '' AND type IN ('QLOCAL', 'QMODEL') "
                                  "AND json_extract(attrs, '$.STREAMQ') <> ''").fetchone()[0]  # fmt: skip
        assert entries == 1


def test_a_settled_command_gets_its_own_copy_of_its_system(session: Session) -> None:
    """The system a settled command's handler gets comes from the session's list, as a
    copy the handler may change; a system with nested settings is read from the store."""
    systems = session.systems()
    ztpf = next(system for system in systems if system.platform == "ztpf")
    zos = next(system for system in systems if system.platform == "zos")
    copy = ztpf.own_copy()
    assert copy == ztpf and copy is not ztpf and copy.attrs is not ztpf.attrs
    copy.attrs["processor"] = "CHANGED"
    assert session.systems()[systems.index(ztpf)].attrs.get("processor") != "CHANGED"
    assert any(isinstance(value, dict) for value in zos.attrs.values())
    assert zos.own_copy() is None
    seen = _statements(session.store)
    assert session.execute("ZMQSC DEFINE QL-FIRST").status == "ok"
    assert session.execute("ZMQSC DEFINE QL-SECOND").status == "ok"
    second = seen[seen.index("COMMIT") + 1 :]
    assert not any("FROM systems" in statement for statement in second), second
