"""The cost of one DEFINE, ALTER, DELETE or DISPLAY of one name does not grow with the
number of objects of the system (issue 16, item 5).

The cost is counted, not timed: SQLite's progress handler counts the virtual machine
instructions a command runs, which grow with every row a command reads. A command that
read every queue of the system (as the z/OS streaming rules did) runs twenty times the
instructions beside 1,000 queues that it runs beside 50; one that reads only what its
rules need runs the same number."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.session import Session
from mqtool.state import ObjectRecord, Store
from mqtool.state.store import REFERENCE_ATTRIBUTES

SMALL, LARGE = 50, 1000
STEP = 10  # instructions per progress-handler call

ZOS_SETUP = (
    "-CSQ1 DEFINE QLOCAL(XQ) USAGE(XMITQ)",
    "-CSQ1 DEFINE QLOCAL(TARGET.Q)",
    "-CSQ1 DEFINE QALIAS(VIA.ALIAS) TARGET(TARGET.Q)",
    "-CSQ1 DEFINE QLOCAL(SOURCE.Q) STREAMQ(VIA.ALIAS)",
    "-CSQ1 DEFINE PSID(9) PAGES(1000)",
    "-CSQ1 DEFINE STGCLASS(NINE) PSID(9)",
    "-CSQ1 DEFINE QLOCAL(ON.NINE) STGCLASS(NINE)",
)
ZOS_COMMANDS = (
    "-CSQ1 DEFINE QLOCAL(NEW.Q)",
    "-CSQ1 ALTER QLOCAL(NEW.Q) DESCR('changed')",
    "-CSQ1 DEFINE QLOCAL(NEW.STREAMING) STREAMQ(NEW.Q) STRMQOS(MUSTDUP)",
    "-CSQ1 ALTER QLOCAL(TARGET.Q) MAXDEPTH(500)",
    "-CSQ1 ALTER QALIAS(VIA.ALIAS) TARGET(TARGET.Q)",
    "-CSQ1 DEFINE QALIAS(NEW.ALIAS) TARGET(NEW.Q)",
    "-CSQ1 DEFINE QREMOTE(NEW.REMOTE) RNAME(A) RQMNAME(B) XMITQ(XQ)",
    "-CSQ1 DISPLAY QLOCAL(NEW.Q) ALL",
    "-CSQ1 DISPLAY QUEUE(NEW.Q)",
    "-CSQ1 DISPLAY QSTATUS(NEW.Q)",
    "-CSQ1 DEFINE CHANNEL(NEW.CHL) CHLTYPE(SDR) CONNAME('h(1414)') XMITQ(XQ)",
    "-CSQ1 DISPLAY CHANNEL(NEW.CHL)",
    "-CSQ1 DELETE CHANNEL(NEW.CHL)",
    "-CSQ1 ALTER STGCLASS(NINE) PSID(9)",
    "-CSQ1 ALTER PSID(9) PAGES(2000)",
    "-CSQ1 CLEAR QLOCAL(NEW.Q)",
    "-CSQ1 DELETE QALIAS(NEW.ALIAS)",
    "-CSQ1 DELETE QLOCAL(NEW.STREAMING)",
    "-CSQ1 DELETE QLOCAL(NEW.Q)",
)
ZTPF_SETUP = ("ZMQSC DEFINE QL-XQ USAGE-XMITQ",)
ZTPF_COMMANDS = (
    "ZMQSC DEFINE QL-NEW.Q",
    "ZMQSC ALTER QL-NEW.Q MAXDEPTH-500",
    "ZMQSC DISPLAY QL-NEW.Q",
    "ZMQSC DISPLAY QL-NEW.Q STAT",
    "ZMQSC DEFINE QA-NEW.ALIAS TARGQ-NEW.Q",
    "ZMQSC DEFINE QR-NEW.REMOTE RNAME-A RQMNAME-B XMITQ-XQ",
    "ZMQSC DEFINE CHL-NEW.CHL CHLTYPE-SDR CONNAME-'h(1414)' XMITQ-XQ",
    "ZMQSC DISPLAY CHL-NEW.CHL",
    "ZMQSC CLEAR QL-XQ",
    "ZMQSC ALTER QMGR MAXMSGL-4194304",
    "ZMQSC ALTER QMGR DEADQ-NEW.Q",
    "ZMQSC ALTER QMGR DEADQ-DEAD.LETTER.QUEUE",
    "ZMQSC DELETE CHL-NEW.CHL",
    "ZMQSC DELETE QR-NEW.REMOTE",
    "ZMQSC DELETE QA-NEW.ALIAS",
    "ZMQSC DELETE QL-NEW.Q",
)


def _instructions(folder: Path, queues: int, setup: tuple[str, ...], commands: tuple[str, ...]) -> list[int]:
    """The instructions each command of `commands` runs on a store with `queues` more queues."""
    store = Store.open(folder)
    try:
        clock = Clock.from_setting("2021-03-09T15:41:22Z")
        ensure_complex(store, clock.timestamp())
        store.conn.execute("PRAGMA synchronous = OFF")  # only the filling: the count is the same either way
        session = Session(store, clock)
        zos = setup[0].startswith("-CSQ1")
        for number in range(queues):
            line = f"-CSQ1 DEFINE QLOCAL(FILL.Q{number:05d})" if zos else f"ZMQSC DEFINE QL-FILL.Q{number:05d}"
            assert session.execute(line).status == "ok"
        for line in setup:
            outcome = session.execute(line)
            assert outcome.status == "ok", outcome.lines
        counted = [0]

        def count() -> int:
            counted[0] += 1
            return 0

        store.conn.set_progress_handler(count, STEP)
        costs = []
        for line in commands:
            counted[0] = 0
            outcome = session.execute(line)
            assert outcome.status == "ok", (line, outcome.lines)
            costs.append(counted[0] * STEP)
        return costs
    finally:
        store.close()


@pytest.mark.parametrize(
    ("setup", "commands"), [(ZOS_SETUP, ZOS_COMMANDS), (ZTPF_SETUP, ZTPF_COMMANDS)], ids=["zos", "ztpf"]
)
def test_one_command_costs_the_same_beside_many_queues(
    tmp_path: Path, setup: tuple[str, ...], commands: tuple[str, ...]
) -> None:
    small = _instructions(tmp_path / "small", SMALL, setup, commands)
    large = _instructions(tmp_path / "large", LARGE, setup, commands)
    grown = {
        line: (few, many)
        for line, few, many in zip(commands, small, large, strict=True)
        if many > few * 1.5 + 100  # a command that read every queue would run 20 times as many
    }
    assert not grown, f"instructions beside {SMALL} and {LARGE} queues: {grown}"


def _plan(store: Store, keyword: str) -> str:
    from mqtool.state.store import _where

    sql, args = _where("CSQ1", keyword, "X", ("QLOCAL",), False, "name")
    return " ".join(str(row[3]) for row in store.conn.execute("EXPLAIN QUERY PLAN " + sql, args))


@pytest.mark.parametrize("keyword", sorted(REFERENCE_ATTRIBUTES))
def test_objects_where_reads_through_the_index_of_the_attribute(tmp_path: Path, keyword: str) -> None:
    store = Store.open(tmp_path)
    try:
        assert f"USING INDEX objects_by_{keyword.lower()} (system=? AND <expr>=?)" in _plan(store, keyword)
    finally:
        store.close()


def test_the_partial_indexes_hold_what_objects_where_asks_for(tmp_path: Path) -> None:
    """Each index's WHERE in the migration is the condition objects_where repeats."""
    store = Store.open(tmp_path)
    try:
        found = dict(store.conn.execute("SELECT name, sql FROM sqlite_master WHERE name LIKE 'objects_by_%'"))
    finally:
        store.close()
    assert set(found) == {f"objects_by_{keyword.lower()}" for keyword in REFERENCE_ATTRIBUTES}
    for keyword, condition in REFERENCE_ATTRIBUTES.items():
        assert " ".join(found[f"objects_by_{keyword.lower()}"].split()).endswith(f"WHERE {condition}"), keyword


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    store = Store.open(tmp_path)
    ensure_complex(store, 0.0)
    yield store
    store.close()


def test_objects_where_finds_values_and_numbers(store: Store) -> None:
    with store.transaction() as tx:
        tx.put_object(ObjectRecord("CSQ1", "QLOCAL", "A", {"STGCLASS": "DEFAULT", "STREAMQ": ""}))
        tx.put_object(ObjectRecord("CSQ1", "QLOCAL", "B", {"STGCLASS": "OTHER", "STREAMQ": "A"}))
        tx.put_object(ObjectRecord("CSQ1", "QMODEL", "M", {"STGCLASS": "OTHER"}))
        tx.put_object(ObjectRecord("TPF1", "QL", "B", {"STGCLASS": "OTHER"}))  # another system
        for name, maxmsgl in (("LOW", 100), ("HIGH", 300), ("MID", 200)):
            tx.put_object(ObjectRecord("TPF1", "QL", name, {"MAXMSGL": maxmsgl}))
    with store.transaction(write=False) as tx:
        assert "A" in [r.name for r in tx.objects_where("CSQ1", "STGCLASS", "DEFAULT", ("QLOCAL",))]
        assert [(r.type, r.name) for r in tx.objects_where("CSQ1", "STGCLASS", "OTHER")] == [
            ("QLOCAL", "B"),
            ("QMODEL", "M"),
        ]
        assert tx.names_where("CSQ1", "STGCLASS", "OTHER", ("QMODEL",)) == ["M"]
        assert tx.names_where("CSQ1", "STREAMQ", "A") == ["B"]
        assert tx.names_where("TPF1", "STGCLASS", "OTHER") == []  # the index holds z/OS queues only
        above = [r.name for r in tx.objects_where("TPF1", "MAXMSGL", 150, ("QL",), above=True)]
        assert "HIGH" in above and "MID" in above and "LOW" not in above
        with pytest.raises(ValueError, match="DESCR has no index"):
            tx.objects_where("CSQ1", "DESCR", "x")


def test_a_page_set_with_more_queues_than_one_statement_takes(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The queues of a page set are looked up in groups (SQLite takes at most 32,766
    parameters in a statement); here groups of 2 stand for groups of 10,000."""
    from mqtool.engine.zos import pages

    session = Session(store, Clock.from_setting("2021-03-09T15:41:22Z"))
    for number in range(5):
        assert session.execute(f"-CSQ1 DEFINE QLOCAL(ON.ONE.{number})").status == "ok"
    with store.transaction(write=False) as tx:
        whole = pages.pageset_qkeys(tx, "CSQ1", 1)  # STGCLASS DEFAULT is on page set 1
        monkeypatch.setattr(pages, "NAMES_PER_QUERY", 2)
        assert pages.pageset_qkeys(tx, "CSQ1", 1) == whole
        assert len(whole) >= 5
