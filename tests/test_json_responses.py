"""`--format json` on `mqtool cmd` and `mqtool run`: IBM MQ runCommandJSON response bodies
built from the handlers' Response values (mqtool.render.json), for z/OS and z/TPF, and
the function a REST server calls (command_json, with runCommandJSON's `where`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conftest import MQ
from tests.test_zos_objects import put_rows

OK_ENVELOPE = {"overallCompletionCode": 0, "overallReasonCode": 0}
FAILED_ENVELOPE = {"overallCompletionCode": 2, "overallReasonCode": 3008}


def responses(mq: MQ, *commands: str, system: str | None = None) -> list[dict[str, Any]]:
    args = (["--system", system] if system else []) + ["cmd", "--format", "json", *commands]
    result = mq(*args)
    lines = result.output.splitlines()
    assert len(lines) == len(commands), result.output
    return [json.loads(line) for line in lines]


def test_zos_display_is_one_item_per_object_with_typed_lower_case_parameters(mq: MQ) -> None:
    mq.cmd("-CSQ1 DEFINE QLOCAL(ORDERS) MAXDEPTH(5000) DESCR('Orders') STREAMQ(' ')")
    [body] = responses(mq, "-CSQ1 DISPLAY QLOCAL(ORDERS)")
    assert body == {
        "commandResponse": [
            {
                "completionCode": 0,
                "reasonCode": 0,
                "parameters": {
                    "queue": "ORDERS",
                    "type": "QLOCAL",
                    "qsgdisp": "QMGR",
                    "descr": "Orders",
                    "put": "ENABLED",
                    "get": "ENABLED",
                    "defprty": 0,
                    "defsopt": "EXCL",
                    "trigger": "no",
                    "trigtype": "FIRST",
                    "trigdpth": 1,
                    "trigmpri": 0,
                    "trigdata": "",
                    "process": "",
                    "initq": "",
                    "defpsist": "NO",
                    "usage": "NORMAL",
                    "stgclass": "DEFAULT",
                    "maxdepth": 5000,
                    "maxmsgl": 4194304,
                    "capexpry": "NOLIMIT",
                    "custom": "",
                    "streamq": "",
                    "strmqos": "BESTEF",
                    "statq": "QMGR",
                    "deftype": "PREDEFINED",
                    "crdate": "2021-03-09",
                    "crtime": "15.41.22",
                    "altdate": "2021-03-09",
                    "alttime": "15.41.22",
                    "curdepth": 0,
                    "ipprocs": 0,
                    "opprocs": 0,
                    # bread-attrs: the other attributes IBM MQ 9.4 for z/OS shows for a local queue
                    "acctq": "QMGR",
                    "boqname": "",
                    "bothresh": 0,
                    "cfstruct": "",
                    "clchname": "",
                    "clusnl": "",
                    "cluster": "",
                    "clwlprty": 0,
                    "clwlrank": 0,
                    "clwluseq": "QMGR",
                    "defbind": "OPEN",
                    "defpresp": "SYNC",
                    "defreada": "NO",
                    "hardenbo": "no",
                    "indxtype": "NONE",
                    "monq": "QMGR",
                    "msgdlvsq": "PRIORITY",
                    "npmclass": "NORMAL",
                    "propctl": "COMPAT",
                    "qdepthhi": 80,
                    "qdepthlo": 40,
                    "qdphiev": "DISABLED",
                    "qdploev": "DISABLED",
                    "qdpmaxev": "ENABLED",
                    "qsvciev": "NONE",
                    "qsvcint": 999999999,
                    "retintvl": 999999999,
                    "share": "yes",
                },
            }
        ],
        **OK_ENVELOPE,
    }
    # in the console's order: the name and identity, then IBM's alphabetical order
    names = list(body["commandResponse"][0]["parameters"])
    assert names[:3] == ["queue", "type", "qsgdisp"] and names[3:] == sorted(names[3:])


def test_zos_generic_display_lists_are_arrays(mq: MQ) -> None:
    mq.cmd("-CSQ1 DEFINE CHANNEL(TO.TPF) CHLTYPE(SDR) CONNAME('h(1)') XMITQ(XQ) COMPMSG(ZLIBHIGH,RLE)")
    [body] = responses(mq, "-CSQ1 DIS CHL(T*) COMPMSG CONNAME")
    assert body["commandResponse"] == [
        {
            "completionCode": 0,
            "reasonCode": 0,
            "parameters": {
                "channel": "TO.TPF",
                "chltype": "SDR",
                "qsgdisp": "QMGR",
                "conname": "h(1)",
                "compmsg": ["ZLIBHIGH", "RLE"],
            },
        }
    ]


def test_display_that_matches_nothing_is_a_normal_completion_with_no_object(mq: MQ) -> None:
    # z/OS: CSQM297I and CSQ9022I NORMAL COMPLETION, generic or specific; the REST API
    # then has no object to give. z/TPF's and the HTTP server's "none found" alike.
    empty = {"commandResponse": [], "overallCompletionCode": 0, "overallReasonCode": 0}
    lines = (
        "-CSQ1 DIS QL(NONE*)",
        "-CSQ1 DIS QL(NONE)",
        "-CSQ1 DIS CHS(NONE)",
        "ZMQSC DIS QL-NONE*",
        "ZHTPS DISPLAY ALL",
    )
    assert responses(mq, *lines) == [empty] * len(lines)
    result = mq("cmd", *lines)
    assert result.exit_code == 0, result.output
    assert "CSQM297I -CSQ1 CSQMDRTS NO QLOCAL FOUND MATCHING REQUEST CRITERIA" in result.output.splitlines()
    # a specific z/TPF name that does not exist is the error the z/TPF console says
    (missing,) = responses(mq, "ZMQSC DIS QL-NONE")
    assert missing["commandResponse"] == [
        {"completionCode": 2, "reasonCode": 2085, "message": ["MQSC0018E QL-NONE NOT FOUND"]}
    ]
    assert mq("cmd", "ZMQSC DIS QL-NONE").exit_code == 10


def test_errors_carry_reason_codes_and_message_arrays(mq: MQ) -> None:
    mq.cmd("-CSQ1 DEFINE QLOCAL(Q1)", "ZMQSC DEFINE QL-Q1")
    bodies = responses(
        mq,
        "-CSQ1 DELETE QLOCAL(NOPE)",
        "-CSQ1 DEFINE QLOCAL(Q1)",
        "ZMQSC DEFINE QL-Q1",
        "-CSQ1 DEFINE QLOCAL(Q2) MAXDEPTH(X)",
        "NOT A COMMAND",
    )
    assert [b["commandResponse"][0]["reasonCode"] for b in bodies] == [2085, 4001, 4001, 3008, 3008]
    assert all(b["commandResponse"][0]["completionCode"] == 2 for b in bodies)
    assert all({k: b[k] for k in FAILED_ENVELOPE} == FAILED_ENVELOPE for b in bodies)
    assert bodies[0]["commandResponse"][0]["message"] == [
        "CSQM125I -CSQ1 CSQMUQLC QLOCAL (NOPE) QSGDISP(QMGR) WAS NOT FOUND",
        "CSQM090E -CSQ1 CSQMUQLC FAILURE REASON CODE X'00D44002'",
        "CSQ9023E -CSQ1 CSQMUQLC ' DELETE QLOCAL' ABNORMAL COMPLETION",
    ]
    assert bodies[2]["commandResponse"][0]["message"] == ["MQSC0017E QL-Q1 ALREADY EXISTS"]


def test_a_command_that_completes_has_its_messages(mq: MQ) -> None:
    [zos, ztpf] = responses(mq, "-CSQ1 DEFINE QLOCAL(NEW)", "ZMQSC DEFINE QL-NEW")
    assert zos == {
        "commandResponse": [
            {
                "completionCode": 0,
                "reasonCode": 0,
                "message": ["CSQ9022I -CSQ1 CSQMAQLC ' DEFINE QLOCAL' NORMAL COMPLETION"],
            }
        ],
        **OK_ENVELOPE,
    }
    assert ztpf["commandResponse"] == [
        {"completionCode": 0, "reasonCode": 0, "message": ["MQSC0001I DEFINE QL-NEW COMPLETED"]}
    ]


def test_ztpf_displays_have_their_own_parameter_names(mq: MQ) -> None:
    mq.cmd("ZMQSC DEFINE QL-PAYQ COMPSIZE-16000", "ZMQSC DEFINE CHL-IN CHLTYPE-RCVR")
    queues, channel, qmgr, stat = responses(
        mq, "ZMQSC DIS QL-*", "ZMQSC DIS CHL-IN", "ZMQSC DIS QMGR", "ZMQSC DIS QL-PAYQ STAT"
    )
    names = [item["parameters"]["queue"] for item in queues["commandResponse"]]
    assert names == ["DEAD.LETTER.QUEUE", "PAYQ", "SPECIAL.RECOVERY.QUEUE"]
    assert queues["commandResponse"][1]["parameters"] == {
        "queue": "PAYQ",
        "compsize": 16000,
        "common": "NO",
        "usage": "NORMAL",
        "maxdepth": 0,
        "maxmsgl": 4194304,
        "put": "ENABLED",
        "get": "ENABLED",
        "defpsist": "NO",
        "qdepthhi": 0,
        "sweep": "YES",
        "descr": "",
        "trigtype": "NONE",
        "process": "",
        "curdepth": 0,
        "swbs": 0,
        "compressed": 0,
    }
    assert channel["commandResponse"][0]["parameters"] == {
        "channel": "IN",
        "chltype": "RCVR",
        "batchsz": 50,
        "compmsg": ["NONE"],
        "maxmsgl": 4194304,
        "descr": "",
        "hbint": 300,
        "discint": 6000,
        "shortrty": 10,
        "shorttmr": 60,
        "longrty": 999999999,
        "longtmr": 1200,
        "sslciph": "",
        "sslcauth": "REQUIRED",
        "sslpeer": "",
        "certlabl": "",
        "cpu": "B",
        "status": "INACTIVE",
    }
    assert qmgr["commandResponse"][0]["parameters"]["qmgr"] == "TPFQM"
    figures = stat["commandResponse"][0]["parameters"]
    assert (figures["queue"], figures["depth"], figures["persistent_size"], figures["ckpt_high"]) == (
        "PAYQ",
        0,
        "0 bytes",
        "0.000",
    )


def test_http_server_display_and_stats(mq: MQ, tmp_path: Path) -> None:
    result = mq("http", "init", "WEB", "--port", "8081")
    assert result.exit_code == 0, result.output
    display, stats = responses(mq, "ZHTPS DISPLAY SERVER-WEB", "ZHTPS STATS SERVER-WEB")
    server = display["commandResponse"][0]["parameters"]
    assert (server["server"], server["state"], server["port"], server["last_refresh"]) == (
        "WEB",
        "STOPPED",
        8081,
        "NONE",
    )
    assert stats["commandResponse"][0]["completionCode"] == 2  # never started: HTTPS0106E
    assert stats["commandResponse"][0]["message"][0].startswith("HTTPS0106E ")


def test_json_text_is_unchanged(mq: MQ) -> None:
    """The text renderer is untouched: the same command prints the same console lines."""
    text = mq("cmd", "ZMQSC DIS QMGR").output
    assert text.splitlines()[0] == "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01"
    assert text.splitlines()[-1] == "END OF DISPLAY+"


def test_exit_status_is_that_of_the_text_format(mq: MQ) -> None:
    assert mq("cmd", "--format", "json", "ZMQSC DIS QMGR").exit_code == 0
    assert mq("cmd", "--format=json", "ZMQSC DIS QL-NOPE").exit_code == 10


def test_run_json_is_one_document(mq: MQ, tmp_path: Path) -> None:
    script = tmp_path / "setup.mqsc"
    script.write_text("* set up\nZMQSC DEFINE QL-A +\n  MAXDEPTH-5\n.echo done\nZMQSC DEFINE QL-A\n", encoding="utf-8")
    result = mq("run", "--format", "json", str(script))
    assert result.exit_code == 10
    document = json.loads(result.output)
    assert document["summary"] == {"read": 3, "syntaxErrors": 0, "notProcessed": 1}
    assert document["exitStatus"] == 10
    [entry] = document["files"]
    assert (entry["file"], entry["system"]) == (str(script), "TPF1")
    assert [(c["line"], c["command"]) for c in entry["commands"]] == [
        (2, "ZMQSC DEFINE QL-A MAXDEPTH-5"),
        (4, ".echo done"),
        (5, "ZMQSC DEFINE QL-A"),
    ]
    assert entry["commands"][1]["response"]["commandResponse"][0]["message"] == ["done"]
    assert entry["commands"][2]["response"]["commandResponse"][0]["reasonCode"] == 4001


def test_command_json_for_a_server(mq: MQ, state_dir: Path) -> None:
    """What the REST stand-in calls: a Session and a command line (and a where)."""
    from mqtool.clock import Clock
    from mqtool.complex import ensure_complex
    from mqtool.render.json import command_json
    from mqtool.session import Session
    from mqtool.state import Store

    mq.cmd("-CSQ1 DEFINE QLOCAL(FULL)", "-CSQ1 DEFINE QLOCAL(EMPTY)")
    put_rows(state_dir, "FULL", [10, 20])
    store = Store.open(state_dir)
    clock = Clock.from_setting("2021-03-09T15:41:22Z")
    ensure_complex(store, clock.timestamp())
    try:
        session = Session(store, clock)
        body = command_json(session, "-CSQ1 DISPLAY QLOCAL(*)", where="curdepth gt 0")
        assert body["commandResponse"] == [
            {
                "completionCode": 0,
                "reasonCode": 0,
                "parameters": {"queue": "FULL", "type": "QLOCAL", "qsgdisp": "QMGR", "curdepth": 2},
            }
        ]
        refused = command_json(session, "ZMQSC DIS QL-*", where="curdepth gt 0")
        assert refused["commandResponse"] == [
            {
                "completionCode": 2,
                "reasonCode": 3008,
                "message": ["MQT0301E A WHERE filter applies to an MQSC DISPLAY only, not to: ZMQSC DIS QL-*"],
            }
        ]
        assert command_json(session, "   ") == {"commandResponse": [], **OK_ENVELOPE}
    finally:
        store.close()
