"""DISPLAY ... WHERE(keyword operator value) in the MQSC dialect: IBM's operators and
their rules, on stored and computed attributes, in text and JSON, and the keyword
table row that completion and help read."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MQ
from tests.test_zos_objects import put_rows

SETUP = [
    "DEFINE QLOCAL(PAY.IN) DESCR('Payments in') MAXDEPTH(5000)",
    "DEFINE QLOCAL(PAY.OUT) DESCR('payments out') PUT(DISABLED)",
    "DEFINE QLOCAL(TO.TPF1) USAGE(XMITQ)",
    "DEFINE QALIAS(PAY.ALIAS) TARGET(PAY.IN)",
    "DEFINE QREMOTE(PAY.REMOTE) RNAME(X) RQMNAME(TPF1) XMITQ(TO.TPF1)",
    "DEFINE CHANNEL(TO.TPF1) CHLTYPE(SDR) CONNAME('h(1)') XMITQ(TO.TPF1) COMPMSG(ZLIBHIGH,RLE)",
    "DEFINE CHANNEL(FROM.TPF1) CHLTYPE(RCVR) COMPMSG(ANY)",
]


@pytest.fixture
def zos(mq: MQ, state_dir: Path) -> MQ:
    result = mq("--system", "CSQ1", "cmd", *SETUP)
    assert result.exit_code == 0, result.output
    put_rows(state_dir, "PAY.IN", [10, 20, 30])
    return mq


def names(mq: MQ, command: str) -> list[str]:
    result = mq("--system", "CSQ1", "cmd", command)
    assert result.exit_code == 0, result.output
    return [line for line in result.output.splitlines() if line.startswith(("QUEUE(", "CHANNEL(", "QSTATUS("))]


def test_curdepth_greater_than_zero_shows_the_queue_with_its_depth(zos: MQ) -> None:
    result = zos("--system", "CSQ1", "cmd", "DIS QL(*) WHERE(CURDEPTH GT 0)")
    assert result.output.splitlines() == [
        "CSQM293I -CSQ1 CSQMDRTC 1 QLOCAL FOUND MATCHING REQUEST CRITERIA",
        "CSQM201I -CSQ1 CSQMDRTC DISPLAY QLOCAL DETAILS",
        "QUEUE(PAY.IN)",
        "TYPE(QLOCAL)",
        "QSGDISP(QMGR)",
        "CURDEPTH(3)",
        "END QLOCAL DETAILS",
        "CSQ9022I -CSQ1 CSQMDRTS ' DISPLAY QLOCAL' NORMAL COMPLETION",
    ]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("DIS QL(PAY*) WHERE(CURDEPTH EQ 0)", ["QUEUE(PAY.OUT)"]),
        ("DIS QL(PAY*) WHERE(CURDEPTH NE 0)", ["QUEUE(PAY.IN)"]),
        ("DIS QL(PAY*) WHERE(CURDEPTH GE 3)", ["QUEUE(PAY.IN)"]),
        ("DIS QL(PAY*) WHERE(CURDEPTH LE 2)", ["QUEUE(PAY.OUT)"]),
        ("DIS QL(PAY*) WHERE(CURDEPTH LT 3)", ["QUEUE(PAY.OUT)"]),
        ("DIS QL(*) WHERE(MAXDEPTH LT 999999999)", ["QUEUE(PAY.IN)"]),
        ("DIS QL(*) WHERE(PUT EQ DISABLED)", ["QUEUE(PAY.OUT)"]),
        ("DIS QL(*) WHERE(PUT EQ DIS)", ["QUEUE(PAY.OUT)"]),  # the value's abbreviation
        ("DIS QL(PAY*) WHERE(PUT NE DISABLED)", ["QUEUE(PAY.IN)"]),
        ("DIS QL(*) WHERE(USAGE EQ XMITQ)", ["QUEUE(TO.TPF1)"]),
        ("DIS QL(*) WHERE(DESCR LK 'Pay*')", ["QUEUE(PAY.IN)"]),
        ("DIS QL(PAY*) WHERE(DESCR NL 'Pay*')", ["QUEUE(PAY.OUT)"]),
        ("DIS QL(*) WHERE(DESCR EQ 'payments out')", ["QUEUE(PAY.OUT)"]),
        ("DIS QL(PAY*) WHERE(DESCR GT 'a')", ["QUEUE(PAY.OUT)"]),  # strings compare too
        ("DIS QL(*) WHERE(DESCR LK PAY*)", []),  # unquoted is upper case: no match
        ("DIS Q(*) WHERE(TARGET EQ PAY.IN)", ["QUEUE(PAY.ALIAS)"]),  # only aliases have TARGET
        ("DIS Q(*) WHERE(TARGET NE ' ')", ["QUEUE(PAY.ALIAS)"]),  # a blank value is an empty one
        ("DIS Q(*) WHERE(TARGET EQ ' ')", ["QUEUE(SYSTEM.DEFAULT.ALIAS.QUEUE)"]),
        ("DIS Q(*) WHERE(XMITQ LK TO.*)", ["QUEUE(PAY.REMOTE)"]),
        ("DIS Q(*) TYPE(QLOCAL) WHERE(CURDEPTH GT 0)", ["QUEUE(PAY.IN)"]),
        ("DIS CHL(*) WHERE(COMPMSG CT RLE)", ["CHANNEL(TO.TPF1)"]),
        ("DIS CHL(*) WHERE(COMPMSG CT NONE)", ["CHANNEL(SYSTEM.DEF.RECEIVER)", "CHANNEL(SYSTEM.DEF.REQUESTER)",
                                             "CHANNEL(SYSTEM.DEF.SENDER)", "CHANNEL(SYSTEM.DEF.SERVER)",
                                             "CHANNEL(SYSTEM.DEF.SVRCONN)"]),
        ("DIS CHL(*) WHERE(COMPMSG EX NONE)", ["CHANNEL(FROM.TPF1)", "CHANNEL(TO.TPF1)"]),
        ("DIS CHL(*) WHERE(COMPMSG CTG ZLIB*)", ["CHANNEL(TO.TPF1)"]),
        ("DIS CHL(*) WHERE(COMPMSG EXG ZLIB*)", ["CHANNEL(FROM.TPF1)", "CHANNEL(SYSTEM.DEF.RECEIVER)",
                                               "CHANNEL(SYSTEM.DEF.REQUESTER)", "CHANNEL(SYSTEM.DEF.SENDER)",
                                               "CHANNEL(SYSTEM.DEF.SERVER)", "CHANNEL(SYSTEM.DEF.SVRCONN)"]),
        ("DIS CHL(*) WHERE(CHLTYPE EQ RCVR)", ["CHANNEL(FROM.TPF1)", "CHANNEL(SYSTEM.DEF.RECEIVER)"]),
        ("DIS QS(*) WHERE(CURDEPTH GT 0)", ["QSTATUS(PAY.IN)"]),
        ("DIS QL(*) WHERE(CAPEXPRY EQ NOLIMIT)", ["QUEUE(PAY.IN)", "QUEUE(PAY.OUT)", "QUEUE(SYSTEM.DEAD.QUEUE)",
                                                 "QUEUE(SYSTEM.DEFAULT.LOCAL.QUEUE)", "QUEUE(TO.TPF1)"]),
        ("DIS QL(*) WHERE(CAPEXPRY GT 0)", []),  # NOLIMIT is a word, not a number
        ("DIS STGCLASS(*) WHERE(PSID EQ 3)", []),  # STGCLASS lines are STGCLASS(...), not counted here
    ],
)  # fmt: skip
def test_operators(zos: MQ, command: str, expected: list[str]) -> None:
    assert names(zos, command) == expected


def test_storage_classes_filter_too(zos: MQ) -> None:
    result = zos("--system", "CSQ1", "cmd", "DIS STC(*) WHERE(PSID EQ 3)")
    assert "STGCLASS(REMOTE)" in result.output.splitlines()
    assert "1 STGCLASS FOUND" in result.output


def test_selected_attributes_gain_the_filter_keyword(zos: MQ) -> None:
    result = zos("--system", "CSQ1", "cmd", "DIS QL(PAY.IN) MAXDEPTH WHERE(CURDEPTH GT 1)")
    assert result.output.splitlines()[2:8] == [
        "QUEUE(PAY.IN)",
        "TYPE(QLOCAL)",
        "QSGDISP(QMGR)",
        "CURDEPTH(3)",
        "MAXDEPTH(5000)",
        "END QLOCAL DETAILS",
    ]


def test_nothing_matching_is_csqm297i(zos: MQ) -> None:
    result = zos("--system", "CSQ1", "cmd", "DIS QL(PAY.OUT) WHERE(CURDEPTH GT 0)")
    assert result.output.splitlines() == [
        "CSQM297I -CSQ1 CSQMDRTS NO QLOCAL FOUND MATCHING REQUEST CRITERIA",
        "CSQ9022I -CSQ1 CSQMDRTS ' DISPLAY QLOCAL' NORMAL COMPLETION",
    ]


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("DIS QL(*) WHERE(CURDEPTH GT)", "'WHERE' value 'CURDEPTH GT' is invalid, allowed: keyword operator value, "
         "e.g. WHERE(CURDEPTH GT 0)"),
        ("DIS QL(*) WHERE(NOSUCH EQ 1)", "'WHERE' value 'NOSUCH' is invalid, allowed: an attribute that DISPLAY "
         "QLOCAL shows, except QSGDISP"),
        ("DIS QL(*) WHERE(QSGDISP EQ QMGR)", "'WHERE' value 'QSGDISP' is invalid, allowed: an attribute that "
         "DISPLAY QLOCAL shows, except QSGDISP"),
        ("DIS QS(*) WHERE(TYPE EQ QUEUE)", "'WHERE' value 'TYPE' is invalid, allowed: an attribute that DISPLAY "
         "QSTATUS shows, except QSGDISP, TYPE"),
        ("DIS CHL(*) CHLTYPE(SDR) WHERE(CHLTYPE EQ SDR)", "'WHERE' value 'CHLTYPE' is invalid, allowed: an "
         "attribute that DISPLAY CHANNEL shows, except QSGDISP, CHLTYPE"),
        ("DIS QL(*) WHERE(CURDEPTH XX 1)", "'WHERE' value 'XX' is invalid, allowed: LT GT EQ NE LE GE LK NL CT EX "
         "CTG EXG"),
        ("DIS QL(*) WHERE(CURDEPTH LK 1*)", "'WHERE' value '1*' is invalid, allowed: a number: CURDEPTH has "
         "numeric values, which cannot be generic"),
        ("DIS QL(*) WHERE(CURDEPTH EQ ABC)", "'WHERE' value 'ABC' is invalid, allowed: a number 0-2147483647 for "
         "CURDEPTH"),
        ("DIS QL(*) WHERE(PUT GT ENABLED)", "'WHERE' value 'PUT GT' is invalid, allowed: EQ or NE: PUT takes one "
         "of ENABLED, DISABLED"),
        ("DIS QL(*) WHERE(PUT EQ MAYBE)", "'WHERE' value 'MAYBE' is invalid, allowed: ENABLED, DISABLED"),
        ("DIS QL(*) WHERE(CAPEXPRY LT NOLIMIT)", "'WHERE' value 'LT NOLIMIT' is invalid, allowed: EQ or NE with "
         "NOLIMIT"),
        ("DIS QL(*) WHERE(DESCR EQ A*)", "'WHERE' value 'EQ A*' is invalid, allowed: LK or NL for a generic value"),
        ("DIS QL(*) WHERE(DESCR LK A*B*)", "'WHERE' value 'A*B*' is invalid, allowed: one asterisk, at the end of a "
         "generic value"),
        ("DIS QL(*) WHERE(DESCR CT A)", "'WHERE' value 'DESCR CT' is invalid, allowed: LT GT EQ NE LE GE LK NL: "
         "DESCR is not a list"),
        ("DIS CHL(*) WHERE(COMPMSG EQ RLE)", "'WHERE' value 'COMPMSG EQ' is invalid, allowed: CT, EX, CTG or EXG: "
         "COMPMSG is a list"),
        ("DIS CHL(*) WHERE(COMPMSG CT ZLIB*)", "'WHERE' value 'ZLIB*' is invalid, allowed: CTG or EXG for a generic "
         "value"),
        ("DIS CHL(*) WHERE(COMPMSG CT LZ4)", "'WHERE' value 'LZ4' is invalid, allowed: NONE, RLE, ZLIBFAST, "
         "ZLIBHIGH, ANY"),
    ],
)  # fmt: skip
def test_bad_filters_are_csq9030e(zos: MQ, command: str, error: str) -> None:
    result = zos("--system", "CSQ1", "cmd", command)
    assert result.exit_code == 10
    first, last = result.output.splitlines()
    assert first == f"CSQ9030E -CSQ1 CSQ9SCND {error}"
    assert last.startswith("CSQ9023E -CSQ1 CSQ9SCND ' DISPLAY ")


@pytest.mark.parametrize("command", ["DIS QMGR WHERE(DESCR EQ X)", "DIS USAGE WHERE(PSID EQ 1)", "DIS LOG WHERE(A)"])
def test_where_only_on_the_displays_ibm_allows(zos: MQ, command: str) -> None:
    result = zos("--system", "CSQ1", "cmd", command)
    assert result.exit_code == 10
    assert result.output.startswith("CSQ9001E -CSQ1 CSQ9SCND 'WHERE' is invalid")


def test_where_twice_is_refused(zos: MQ) -> None:
    result = zos("--system", "CSQ1", "cmd", "DIS QL(*) WHERE(CURDEPTH GT 0) WHERE(CURDEPTH GT 1)")
    assert result.output.startswith("CSQ9000E -CSQ1 CSQ9SCND 'WHERE' appears more than once")


def test_where_in_json(zos: MQ) -> None:
    import json

    result = zos("--system", "CSQ1", "cmd", "--format", "json", "DIS QL(*) WHERE(curdepth gt 0)")
    assert json.loads(result.output)["commandResponse"] == [
        {
            "completionCode": 0,
            "reasonCode": 0,
            "parameters": {"queue": "PAY.IN", "type": "QLOCAL", "qsgdisp": "QMGR", "curdepth": 3},
        }
    ]


def test_the_keyword_table_has_where_for_completion_and_help(zos: MQ) -> None:
    from mqtool import tables

    table = tables.load("zos")
    having = [name for name, obj in table.objects.items() if "WHERE" in obj.keywords]
    assert having == [
        "QLOCAL",
        "QMODEL",
        "QALIAS",
        "QREMOTE",
        "QUEUE",
        "STGCLASS",
        "CHANNEL",
        "CHSTATUS",
        "QSTATUS",
        "TOPIC",
        "SUB",
        "TPSTATUS",
        "SBSTATUS",
        "PROCESS",
        "NAMELIST",
        "CONN",
        "CFSTRUCT",
        "CLUSQMGR",
        "QCLUSTER",
        "TCLUSTER",
        "AUTHINFO",
    ]
    spec = table.objects["QLOCAL"].keywords["WHERE"]
    assert spec.verbs == ("DISPLAY",) and not spec.display
    assert spec.describe_values() == "attribute operator value, operators LT GT EQ NE LE GE LK NL CT EX CTG EXG"


def test_completion_offers_where(zos: MQ, state_dir: Path) -> None:
    from mqtool.cli.complete import complete, snapshot
    from mqtool.state import Store

    store = Store.open(state_dir)
    try:
        found = complete("-CSQ1 DIS QL(*) WH", snapshot(store, "CSQ1"))
    finally:
        store.close()
    assert [c.text for c in found] == ["WHERE("]
