"""Command authority through the REST API (issue 16, item 2): a MQWebUser displays, and
runs other commands only as `mqtool rest init --grant` allows, else the queue manager's
2035 answer (CSQ9016E on z/OS, MQT0367E on z/TPF) in runCommand and runCommandJSON;
MQWebAdminRO reads only (403); MQWebAdmin runs everything. In process (RestApi)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mqtool.clock import Clock
from mqtool.rest.api import RestApi
from mqtool.rest.authority import FORBIDDEN, NOT_AUTHORIZED, RUN, Verb, decide
from mqtool.rest.config import RestUser
from mqtool.rest.reply import RestError
from tests.conftest import FROZEN

ADMIN = RestUser("admin", ("MQWebAdmin",), "unused")
READER = RestUser("reader", ("MQWebAdminRO",), "unused")
APP = RestUser("app", ("MQWebUser",), "unused")
DEFINER = RestUser("definer", ("MQWebUser",), "unused", ("DEFINE", "ALTER"))
OPERATOR = RestUser("ops", ("MQWebUser",), "unused", ("ALL",))


@pytest.fixture
def api(state_dir: Path) -> Iterator[RestApi]:
    rest = RestApi(state_dir, Clock.from_setting(FROZEN))
    try:
        yield rest
    finally:
        rest.close()


def post(api: RestApi, qmgr: str, document: dict[str, Any], user: RestUser) -> tuple[int, dict[str, Any]]:
    try:
        reply = api.mqsc(qmgr, json.dumps(document).encode(), user)
    except RestError as error:
        reply = error.reply()
    return reply.status, json.loads(reply.body)


def text(api: RestApi, qmgr: str, command: str, user: RestUser) -> dict[str, Any]:
    status, document = post(api, qmgr, {"type": "runCommand", "parameters": {"command": command}}, user)
    assert status == 200, document
    return document


def exists(api: RestApi, system: str, kind: str, name: str) -> bool:
    with api.session.store.transaction(write=False) as tx:
        return tx.get_object(system, kind, name) is not None


def test_the_decision_table() -> None:
    define, display, unknown = Verb("zos", "DEFINE", True), Verb("zos", "DISPLAY", False), Verb("zos", None, True)
    assert [decide(user, define) for user in (ADMIN, READER, APP, DEFINER, OPERATOR)] == [
        RUN,
        FORBIDDEN,
        NOT_AUTHORIZED,
        RUN,
        RUN,
    ]
    assert {decide(user, display) for user in (ADMIN, READER, APP, DEFINER, OPERATOR)} == {RUN}
    assert decide(DEFINER, Verb("ztpf_mq", "DELETE", True)) == NOT_AUTHORIZED
    assert decide(DEFINER, unknown) == NOT_AUTHORIZED and decide(OPERATOR, unknown) == RUN
    # Several roles: what any of them allows.
    both = RestUser("both", ("MQWebAdminRO", "MQWebUser"), "unused", ("STOP",))
    assert decide(both, Verb("zos", "STOP", True)) == RUN and decide(both, define) == NOT_AUTHORIZED


def test_a_mqweb_user_without_a_grant_gets_2035_on_z_os_and_nothing_runs(api: RestApi) -> None:
    answer = text(api, "CSQ1", "DEFINE QLOCAL(APP.Q)", APP)
    assert answer == {
        "commandResponse": [
            {
                "completionCode": 2,
                "reasonCode": 2035,
                "text": [
                    "CSQN205I   COUNT=       3, RETURN=0000000C, REASON=00000008",
                    "CSQ9016E -CSQ1 ' DEFINE' command request not authorized",
                    "CSQ9023E -CSQ1 CSQ9SCND ' DEFINE QLOCAL' ABNORMAL COMPLETION",
                ],
            }
        ],
        "overallCompletionCode": 2,
        "overallReasonCode": 3008,
    }
    status, document = post(
        api, "CSQ1", {"type": "runCommandJSON", "command": "define", "qualifier": "qlocal", "name": "APP.Q"}, APP
    )
    assert (status, document) == (
        200,
        {
            "commandResponse": [
                {
                    "completionCode": 2,
                    "reasonCode": 2035,
                    "message": [
                        "CSQ9016E -CSQ1 ' DEFINE' command request not authorized",
                        "CSQ9023E -CSQ1 CSQ9SCND ' DEFINE QLOCAL' ABNORMAL COMPLETION",
                    ],
                }
            ],
            "overallCompletionCode": 2,
            "overallReasonCode": 3008,
        },
    )
    for command in (
        "DELETE QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE)",
        "-CSQ1 STOP QMGR",
        "HELLO",
        ".advance 1h",
        "PING CHANNEL(X)",
    ):
        answer = text(api, "CSQ1", command, APP)
        assert answer["commandResponse"][0]["reasonCode"] == 2035, (command, answer)
    assert not exists(api, "CSQ1", "QLOCAL", "APP.Q")
    assert exists(api, "CSQ1", "QLOCAL", "SYSTEM.DEFAULT.LOCAL.QUEUE")
    assert api.qmgr("CSQ1").body == b'{"qmgr":[{"name":"CSQ1","state":"running"}]}'
    shown = text(api, "CSQ1", "DISPLAY QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) MAXDEPTH", APP)
    assert shown["overallCompletionCode"] == 0


def test_a_mqweb_user_without_a_grant_gets_2035_on_z_tpf(api: RestApi) -> None:
    answer = text(api, "TPFQM", "ZMQSC DEFINE QL-APP.Q", APP)
    item = answer["commandResponse"][0]
    assert (item["completionCode"], item["reasonCode"]) == (2, 2035)
    assert item["text"][1] == (
        "MQT0367E 10.41.22 ZMQSC DEFINE NOT AUTHORIZED FOR REST API USER app - NO COMMAND AUTHORITY (MQRC 2035)+"
    )
    status, document = post(
        api, "TPFQM", {"type": "runCommandJSON", "command": "stop", "qualifier": "server", "name": "HTTP81PORT"}, APP
    )
    assert status == 200 and document["commandResponse"][0]["reasonCode"] == 2035
    assert document["commandResponse"][0]["message"][0].startswith("MQT0367E ZHTPS STOP NOT AUTHORIZED")
    assert text(api, "TPFQM", "ZHTPS STATS S-HTTP81PORT RESET", APP)["commandResponse"][0]["reasonCode"] == 2035
    assert not exists(api, "TPF1", "QL", "APP.Q")
    assert text(api, "TPFQM", "ZMQSC DISPLAY QMGR", APP)["overallCompletionCode"] == 0


def test_a_grant_lets_a_mqweb_user_run_the_verbs_it_names(api: RestApi) -> None:
    assert text(api, "CSQ1", "DEFINE QLOCAL(APP.Q)", DEFINER)["overallCompletionCode"] == 0
    assert text(api, "CSQ1", "ALTER QLOCAL(APP.Q) MAXDEPTH(5)", DEFINER)["overallCompletionCode"] == 0
    document = {"type": "runCommandJSON", "command": "define", "qualifier": "ql", "name": "APP.Q"}
    assert post(api, "TPFQM", document, DEFINER)[1]["overallCompletionCode"] == 0
    assert text(api, "CSQ1", "DELETE QLOCAL(APP.Q)", DEFINER)["commandResponse"][0]["reasonCode"] == 2035
    assert exists(api, "CSQ1", "QLOCAL", "APP.Q") and exists(api, "TPF1", "QL", "APP.Q")
    assert text(api, "CSQ1", "DELETE QLOCAL(APP.Q)", OPERATOR)["overallCompletionCode"] == 0
    assert not exists(api, "CSQ1", "QLOCAL", "APP.Q")


def test_read_only_and_admin_roles(api: RestApi) -> None:
    status, document = post(
        api, "CSQ1", {"type": "runCommand", "parameters": {"command": "DEFINE QLOCAL(RO.Q)"}}, READER
    )
    assert status == 403 and document["error"][0]["msgId"] == "MQWB0103E"
    document = {"type": "runCommandJSON", "command": "define", "qualifier": "ql", "name": "RO.Q"}
    assert post(api, "TPFQM", document, READER)[0] == 403
    assert text(api, "CSQ1", "DISPLAY QMGR", READER)["overallCompletionCode"] == 0
    assert text(api, "CSQ1", "DEFINE QLOCAL(ADMIN.Q)", ADMIN)["overallCompletionCode"] == 0
    assert not exists(api, "CSQ1", "QLOCAL", "RO.Q") and exists(api, "CSQ1", "QLOCAL", "ADMIN.Q")
