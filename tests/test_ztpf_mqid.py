"""ZMQID, the z/TPF MQI channel directory: its commands and errors (MQID ids), the
50-entry limit, the transport rules of a connection, the detail and summary displays in
the layout of TPF's newsletter, export and apply, and runCommandJSON (qualifier MQID)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqtool.clock import Clock
from mqtool.rest.service import RestService
from mqtool.session import Session
from mqtool.state import Store
from tests.conftest import FROZEN, MQ
from tests.test_rest_api import TPF_MQSC, Client, command_json, configure


def lines(mq: MQ, *commands: str) -> list[str]:
    return mq("cmd", *commands).output.splitlines()


def test_define_display_alter_delete(mq: MQ) -> None:
    assert lines(mq, "ZMQID DEFINE CH-CHL1 CO-'9.117.249.98(2000)' QMNAME-QMNGR1 MAXMSGL-30000")[1] == (
        "MQID0001I 10.41.22 ZMQID DEFINE CHANNEL-CHL1 COMPLETED+"
    )
    assert lines(mq, "ZMQID DISP CH-CHL1") == [
        "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01",
        "MQID0012I 10.41.22 START OF ZMQID DISPLAY",
        "CHANNEL CHL1",
        "CONNECTION 9.117.249.98(2000)",
        "TRPTYPE TCP",
        "MODE",
        "TPNAME",
        "QMNAME QMNGR1",
        "DESCR",
        "MAXMSGL 30000",
        "END OF DISPLAY+",
    ]
    lines(mq, "ZMQID DEFINE CHANNEL-'lu.chl' TRPTYPE-APPC CONNECTION-'net1.lu62a' TPNAME-MQSERVER MODE-LU62")
    assert lines(mq, "ZMQID DISPLAY CHL-*") == [
        "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01",
        "MQID0013I 10.41.22 START OF ZMQID DISPLAY",
        "CHANNEL CHL1",
        "CONNECTION 9.117.249.98(2000)",
        "QMNAME QMNGR1",
        "CHANNEL lu.chl",
        "CONNECTION NET1.LU62A",  # an LU name is upper-cased, as TPF translates it
        "QMNAME",
        "END OF DISPLAY+",
    ]
    assert lines(mq, "ZMQID ALT CH-CHL1 DESCR-'Payments hub' MAXMSGL-40000")[1].startswith("MQID0001I")
    shown = lines(mq, "ZMQID DIS CH-CHL1")
    assert "DESCR Payments hub" in shown and "MAXMSGL 40000" in shown and "QMNAME QMNGR1" in shown
    assert lines(mq, "ZMQID DELETE CH-CHL1")[1] == "MQID0001I 10.41.22 ZMQID DELETE CHANNEL-CHL1 COMPLETED+"
    assert lines(mq, "ZMQID DISPLAY CH-CHL1")[1] == "MQID0002E 10.41.22 CHANNEL CHL1 NOT IN THE MQI CHANNEL DIRECTORY+"
    assert lines(mq, "ZMQID DISPLAY CH-X*")[1:] == [
        "MQID0014I 10.41.22 NO CHANNEL FOUND MATCHING X*",
        "END OF DISPLAY+",
    ]


def test_errors_have_mqid_ids_and_change_nothing(mq: MQ) -> None:
    lines(mq, "ZMQID DEFINE CH-A CO-host")
    cases = {
        "ZMQID DEFINE CH-A CO-host": "MQID0003E 10.41.22 CHANNEL A ALREADY IN THE MQI CHANNEL DIRECTORY+",
        "ZMQID DEFINE CH-B": "MQID0036E 10.41.22 KEYWORD CONNECTION REQUIRED FOR DEFINE CHANNEL+",
        "ZMQID DEFINE CH-.B CO-h": "MQID0038E 10.41.22 NAME .B NOT VALID FOR CHANNEL - IT BEGINS OR ENDS WITH A "
        "PERIOD+",
        "ZMQID DEFINE CH-B. CO-h": "MQID0038E 10.41.22 NAME B. NOT VALID FOR CHANNEL - IT BEGINS OR ENDS WITH A "
        "PERIOD+",
        "ZMQID DEFINE CH-B..C CO-h": "MQID0038E 10.41.22 NAME B..C NOT VALID FOR CHANNEL - IT HOLDS TWO PERIODS IN A "
        "ROW+",
        "ZMQID DEFINE CH-TWENTY.ONE.CHARACTERS CO-h": "MQID0038E 10.41.22 NAME TWENTY.ONE.CHARACTERS NOT VALID FOR "
        "CHANNEL - LONGER THAN 20 CHARACTERS+",
        "ZMQID DEFINE CH-B CO-h TPNAME-T1": "MQID0006E 10.41.22 KEYWORD TPNAME NOT VALID FOR TRPTYPE-TCP+",
        "ZMQID DEFINE CH-B CO-'h(99999)'": "MQID0005E 10.41.22 CONNECTION h(99999) NOT VALID FOR TRPTYPE-TCP - "
        "ALLOWED HOST OR ADDRESS, (PORT 1-65535)+",
        "ZMQID DEFINE CH-B TRP-APPC CO-'toolongname.lu'": "MQID0005E 10.41.22 CONNECTION TOOLONGNAME.LU NOT VALID "
        "FOR TRPTYPE-APPC - ALLOWED LUNAME OR NETID.LUNAME (1-8 EACH)+",
        "ZMQID DEFINE CH-B CO-h TRPTYPE-LU62": "MQID0034E 10.41.22 VALUE LU62 NOT VALID FOR TRPTYPE - ALLOWED TCP, "
        "APPC+",
        "ZMQID DEFINE CH-B CO-h FOO-1": "MQID0033E 10.41.22 KEYWORD FOO NOT VALID FOR CHANNEL - VALID KEYWORDS ARE "
        "CONNECTION, TRPTYPE, MODE, TPNAME, QMNAME, DESCR, MAXMSGL+",
        "ZMQID DEFINE CH-B CO-h CO-i": "MQID0035E 10.41.22 KEYWORD CO SPECIFIED MORE THAN ONCE+",
        "ZMQID DEFINE QL-B": "MQID0032E 10.41.22 OBJECT QL NOT VALID FOR DEFINE - VALID OBJECTS ARE CHANNEL+",
        "ZMQID DEFINE CHANNEL": "MQID0037E 10.41.22 CHANNEL NAME REQUIRED+",
        "ZMQID START CH-A": "MQID0031E 10.41.22 VERB START NOT RECOGNIZED - VALID VERBS ARE DEFINE, ALTER, DELETE, "
        "DISPLAY+",
        "ZMQID": "MQID0031E 10.41.22 VERB (NONE) NOT RECOGNIZED - VALID VERBS ARE DEFINE, ALTER, DELETE, DISPLAY+",
        "ZMQID DEFINE CH-B DESCR-'open": "MQID0041E 10.41.22 UNBALANCED APOSTROPHES IN DESCR-'open+",
        "ZMQID DEFINE CH-B CO(h)": "MQID0042E 10.41.22 CO(h) NOT IN KEYWORD-VALUE FORM+",
        "ZMQID ALTER CH-NONE DESCR-x": "MQID0002E 10.41.22 CHANNEL NONE NOT IN THE MQI CHANNEL DIRECTORY+",
        "ZMQID DELETE CH-A*": "MQID0038E 10.41.22 NAME A* NOT VALID FOR CHANNEL - A GENERIC NAME (ENDING IN *) IS "
        "VALID ONLY WITH DISPLAY+",
    }
    for command, answer in cases.items():
        assert lines(mq, command)[1] == answer, command
    typo = lines(mq, "ZMQID DEFNE CH-B CO-h")
    assert typo[2] == "MQID0043E 10.41.22 DEFNE NOT RECOGNIZED - DID YOU MEAN DEFINE+"
    assert [line for line in lines(mq, "ZMQID DIS CH-*") if line.startswith("CHANNEL ")] == ["CHANNEL A"]


def test_the_directory_holds_fifty_entries(mq: MQ) -> None:
    lines(mq, "ZMQID DIS CH-*")  # the default complex
    store = Store.open(mq.state_dir)
    try:
        session = Session(store, Clock.from_setting(FROZEN))
        for number in range(50):
            assert session.execute(f"ZMQID DEFINE CH-C{number:02d} CO-host{number}").status == "ok"
        refused = session.execute("ZMQID DEFINE CH-C50 CO-host")
        assert refused.lines[1] == "MQID0004E 10.41.22 MQI CHANNEL DIRECTORY FULL - IT HOLDS 50 ENTRIES+"
        session.execute("ZMQID DELETE CH-C00")
        assert session.execute("ZMQID DEFINE CH-C50 CO-host").status == "ok"
    finally:
        store.close()


def test_needs_no_queue_manager_and_refuses_a_zos_system(mq: MQ) -> None:
    lines(mq, "ZMQID DEFINE CH-KEPT CO-h")
    assert lines(mq, "ZMQSC DBREBUILD")[1].endswith("2 LOCAL QUEUE(S), 3 DEFINITION(S), 0 MESSAGE(S) CHECKED+")
    assert lines(mq, "ZMQSC DELETE QMGR PURGE")[1] == "MQSC0001I 10.41.22 DELETE QMGR-TPFQM COMPLETED+"
    assert "CHANNEL KEPT" in lines(mq, "ZMQID DIS CH-KEPT")
    assert lines(mq, "ZMQID DEFINE CH-A CO-h")[1].startswith("MQID0001I")
    out = mq("--system", "CSQ1", "cmd", "ZMQID DIS CH-*").output.splitlines()
    assert out == [
        "MQID0025E SYSTEM CSQ1 IS A Z/OS SYSTEM - ZMQID NEEDS A Z/TPF SYSTEM - ENTER .SYSTEM TPF1",
    ]


def test_export_and_apply_carry_the_directory(mq: MQ, tmp_path: Path) -> None:
    lines(mq, "ZMQID DEFINE CH-A CO-'h(1415)' QMNAME-QM1", "ZMQID DEFINE CH-B TRP-APPC CO-LU1 T-TP1")
    # ZMQSC's new attributes travel the same way.
    lines(mq, "ZMQSC DEFINE QL-ORDERS TRIGTYPE-FIRST PROCESS-ORD1", "ZMQSC DEFINE CHL-IN CHLTYPE-RCVR CPU-ALL")
    exported = mq("export").output
    assert "ZMQSC DEFINE QL-ORDERS COMPSIZE-0 MAXMSGL-4194304 TRIGTYPE-FIRST PROCESS-ORD1\n" in exported
    assert "ZMQSC DEFINE CHL-IN CHLTYPE-RCVR BATCHSZ-50 MAXMSGL-4194304 CPU-ALL\n" in exported
    assert "ZMQID DEFINE CHANNEL-A CONNECTION-'h(1415)' QMNAME-QM1\n" in exported
    assert "ZMQID DEFINE CHANNEL-B CONNECTION-LU1 TRPTYPE-APPC TPNAME-TP1\n" in exported
    assert "ZMQID DEFINE CHANNEL-A" in mq("export", "-t", "MQID").output
    assert "ZMQID" not in mq("export", "-t", "QL").output
    document = tmp_path / "complex.yaml"
    assert mq("export", "--format", "yaml", "-o", str(document)).exit_code == 0
    assert "      CHANNEL:\n        A:\n          CONNECTION: h(1415)\n" in document.read_text(encoding="utf-8")
    # The document applied to a new store makes the same directory; applied again, nothing to do.
    other = MQ(tmp_path / "other")
    applied = other("apply", str(document))
    assert applied.exit_code == 0, applied.output
    assert "ZMQID DEFINE CHANNEL-B CONNECTION-LU1 TRPTYPE-APPC TPNAME-TP1" in applied.output
    assert other("export").output.split("\n", 1)[1] == exported.split("\n", 1)[1]
    again = other("apply", str(document))
    assert "ZMQID" not in again.output
    # --prune removes an entry the document does not have.
    lines(other, "ZMQID DEFINE CH-EXTRA CO-x")
    pruned = other("apply", str(document), "--prune")
    assert "ZMQID DELETE CHANNEL-EXTRA" in pruned.output
    assert lines(other, "ZMQID DIS CH-EXTRA")[1].startswith("MQID0002E")


@pytest.fixture
def client(state_dir: Path) -> Client:
    configure(state_dir)
    service = RestService(state_dir, Clock.from_setting(FROZEN))
    with service:
        yield Client(service.port)  # type: ignore[misc]


def test_run_command_json_reaches_the_directory_and_the_new_verbs(client: Client) -> None:
    def json_command(command: str, qualifier: str, name: str | None = None, **parameters: object) -> object:
        more = {"parameters": parameters} if parameters else {}
        return client.mqsc(command_json(command, qualifier, name, **more), TPF_MQSC)

    defined = json_command("define", "mqid", "CHL1", connection="9.1.2.3(2000)", qmname="QM1")
    assert defined["overallCompletionCode"] == 0, defined
    shown = json_command("display", "mqid", "CHL1")
    assert shown["commandResponse"][0]["parameters"] == {
        "channel": "CHL1",
        "connection": "9.1.2.3(2000)",
        "trptype": "TCP",
        "mode": "",
        "tpname": "",
        "qmname": "QM1",
        "descr": "",
        "maxmsgl": 4194304,
    }
    missing = json_command("display", "mqid", "NONE")
    assert missing["commandResponse"][0]["reasonCode"] == 2085
    twice = json_command("define", "mqid", "CHL1", connection="h")
    assert twice["commandResponse"][0]["reasonCode"] == 4001
    # The ZMQSC verbs beyond the seeds, and the new keywords.
    assert json_command("define", "ql", "ORDERS", trigtype="FIRST", process="ORD1")["overallCompletionCode"] == 0
    queue = json_command("display", "ql", "ORDERS")["commandResponse"][0]["parameters"]
    assert (queue["trigtype"], queue["process"]) == ("FIRST", "ORD1")
    began = json_command("migrate", "begin")
    assert began["overallCompletionCode"] == 0, began
    refused = json_command("define", "ql", "LATER")
    assert refused["overallCompletionCode"] == 2
    assert "MQSC0405E" in refused["commandResponse"][0]["message"][0]
    assert json_command("migrate", "commit", force=True)["overallCompletionCode"] == 0
    rebuilt = json_command("dbrebuild", "qmgr")
    assert rebuilt["overallCompletionCode"] == 0
    assert rebuilt["commandResponse"][0]["message"][0].startswith("MQSC0421I DBREBUILD COMPLETED FOR QMGR-TPFQM")
    json_command("define", "ql", "XQ", usage="XMITQ")
    json_command("define", "chl", "OUT", chltype="SDR", conname="127.0.0.1(1415)", xmitq="XQ")
    status = json_command("display", "chl", "OUT", status=True)
    assert status["commandResponse"][0]["parameters"] == {
        "channel": "OUT",
        "chltype": "SDR",
        "conname": "127.0.0.1(1415)",
        "xmitq": "XQ",
        "xqmsgsa": 0,
        "status": "INACTIVE",
    }
    moved = json_command("movemsgs", "q", "ORDERS", cpu="C")
    assert "MQSC0413E NO PROCESSOR CPU-C WITH QMGR-TPFQM IN THE COMPLEX" in moved["commandResponse"][0]["message"]
    # runCommand lines reach ZMQID too.
    text = client.run("ZMQID DISPLAY CH-*", TPF_MQSC)
    assert text["commandResponse"][0]["text"][1] == "MQID0013I 10.41.22 START OF ZMQID DISPLAY"
