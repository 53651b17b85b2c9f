"""The command path of a DEFINE (issue 19, second round): what it derives once per
keyword table, the store reads it makes in fewer statements, and the report that
`mqtool run` writes with one flush per command. Each keeps the answers it gave."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from mqtool.cli.runner import Report
from mqtool.clock import Clock
from mqtool.commands.zos import builtin
from mqtool.commands.ztpf_mq import defaults_for
from mqtool.complex import ensure_complex
from mqtool.session import Session
from mqtool.state import ObjectRecord, Store
from mqtool.state.store import PRIMARY_KEY_INDEX
from mqtool.tables import load
from tests.conftest import MQ


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(tmp_path)
    ensure_complex(opened, Clock().timestamp())
    yield opened
    opened.close()


def test_table_defaults_are_a_new_dict_each_time() -> None:
    """Derived once per table, handed out as copies: a caller that changes what it got
    (DEFINE merges the given attributes into it) changes nothing the next caller gets."""
    first = builtin.table_defaults("QLOCAL")
    lists = [key for key, value in first.items() if isinstance(value, list)]
    first["MAXDEPTH"] = -1
    for key in lists:
        first[key].append("CHANGED")
    again = builtin.table_defaults("QLOCAL")
    assert again["MAXDEPTH"] != -1
    assert all("CHANGED" not in again[key] for key in lists)
    assert builtin.settable_set("QLOCAL") == frozenset(builtin.settable("QLOCAL"))
    assert builtin.settable("QLOCAL") is not builtin.settable("QLOCAL")


def test_ztpf_defaults_inherit_from_the_queue_manager_of_each_call() -> None:
    """`=QMGR.X` defaults come from the queue manager given to each call, not from the
    rows worked out once."""
    table = load("ztpf_mq")
    inherited = [
        (spec.name, str(spec.default)[len("=QMGR.") :])
        for spec in table.objects["QL"].keywords.values()
        if isinstance(spec.default, str) and spec.default.startswith("=QMGR.")
    ]
    assert inherited, "the QL row inherits no queue manager attribute"
    keyword, source = inherited[0]
    plain = defaults_for(table, "QL", None)
    assert plain[keyword] == table.objects["QMGR"].keywords[source].default
    manager = ObjectRecord("TPF1", "QMGR", "QM", {source: 4242}, {}, 0.0, 0.0)
    assert defaults_for(table, "QL", manager)[keyword] == 4242
    assert defaults_for(table, "QL", None)[keyword] == plain[keyword]


def test_find_object_in_one_query_answers_as_one_query_per_type(store: Store) -> None:
    with store.transaction() as tx:
        tx.put_object(ObjectRecord("TPF1", "QA", "SAME", {"TARGQ": "X"}, {}, 1.0, 1.0))
        tx.put_object(ObjectRecord("TPF1", "QR", "SAME", {"RQMNAME": "Y"}, {"s": 1}, 2.0, 3.0))
        for name in ("SAME", "NONE"):
            for types in (("QL", "QA", "QR"), ("QR", "QA"), ("QA",), ()):
                one = tx.find_object("TPF1", types, name, likely_absent=True)
                each = tx.find_object("TPF1", types, name)
                assert one == each, (name, types)
        found = tx.find_object("TPF1", ("QR", "QA"), "SAME", likely_absent=True)
        assert found is not None and (found.type, found.attrs, found.status) == ("QR", {"RQMNAME": "Y"}, {"s": 1})


def test_status_and_existence_without_the_attributes(store: Store) -> None:
    with store.transaction() as tx:
        tx.put_object(ObjectRecord("CSQ1", "STGCLASS", "ONE", {"PSID": 1}, {"state": "X"}, 1.0, 1.0))
        assert tx.get_status("CSQ1", "STGCLASS", "ONE") == {"state": "X"}
        assert tx.get_status("CSQ1", "STGCLASS", "TWO") is None
        assert tx.has_object("CSQ1", "STGCLASS", "ONE")
        assert not tx.has_object("CSQ1", "STGCLASS", "TWO")


def test_objects_of_a_type_go_through_the_named_primary_key(store: Store) -> None:
    """The index named in the query is the primary key's (a store without it would fail
    every such query), and the query plan uses it."""
    names = [row[0] for row in store.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")]
    assert PRIMARY_KEY_INDEX in names
    plan = store.conn.execute(
        f"EXPLAIN QUERY PLAN SELECT name FROM objects INDEXED BY {PRIMARY_KEY_INDEX} WHERE system = ? AND type = ?",
        ("TPF1", "QMGR"),
    ).fetchall()
    assert any(PRIMARY_KEY_INDEX in str(row[-1]) for row in plan)
    with store.transaction(write=False) as tx:
        assert [record.name for record in tx.objects("TPF1", "QMGR")] == ["TPFQM"]
        assert [record.name for record in tx.objects("TPF1", "QL", "DEAD*")] == ["DEAD.LETTER.QUEUE"]


def test_the_stopped_check_reads_the_status_and_a_new_system_gets_its_objects(store: Store) -> None:
    session = Session(store, Clock())
    assert session.execute("-CSQ1 STOP QMGR").status == "ok"
    refused = session.execute("-CSQ1 DEFINE QLOCAL(AFTER.STOP)")
    assert refused.status != "ok" and any("CSQ3106E" in line for line in refused.lines)
    assert session.execute("-CSQ1 START QMGR").status == "ok"
    assert session.execute("-CSQ1 DEFINE QLOCAL(AFTER.START)").status == "ok"
    with store.transaction() as tx:  # a z/OS system whose objects were never made
        tx.delete_object("CSQ1", "QMGR", "CSQ1")
    assert session.execute("-CSQ1 DEFINE QLOCAL(BOOTSTRAPPED)").status == "ok"
    with store.transaction(write=False) as tx:
        assert tx.get_status("CSQ1", "QMGR", "CSQ1") is not None


LINES = ["plain", "", "with \x1b[1mbold\x1b[0m inside", "ünïcode é", "     1 : ZMQSC DEFINE QL-X"]


def test_report_writes_what_click_echo_writes(capsys: pytest.CaptureFixture[str]) -> None:
    for line in LINES:
        click.echo(line)
    expected = capsys.readouterr().out
    report = Report()
    assert report.stream is sys.stdout  # the fast way is taken on a UTF-8 text stream
    for line in LINES:
        report(line)
    report.flush()
    assert capsys.readouterr().out == expected
    assert "\x1b" not in expected  # not a terminal: click removed the styles


def test_run_report_is_unchanged(tmp_path: Path, mq: MQ) -> None:
    script = tmp_path / "defs.mqsc"
    script.write_text("ZMQSC DEFINE QL-R1\n-CSQ1 DEFINE QLOCAL(R2)\nZMQSC DEFINE QL-R1\n", encoding="utf-8")
    result = mq("run", str(script))  # the clock frozen at 2021-03-09T15:41:22Z, TPF1 at -05:00
    lines = result.output.splitlines()
    assert lines[lines.index("     1 : ZMQSC DEFINE QL-R1") + 1 :][:2] == [
        "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01",
        "MQSC0001I 10.41.22 DEFINE QL-R1 COMPLETED+",
    ]
    assert "CSQ9022I -CSQ1 CSQMAQLC ' DEFINE QLOCAL' NORMAL COMPLETION" in lines
    assert any(line.startswith("MQSC0017E") for line in lines)
    assert lines[-3:] == [
        "3 MQSC commands read.",
        "No commands have a syntax error.",
        "One valid MQSC command could not be processed.",
    ]
