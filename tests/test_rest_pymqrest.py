"""Every method of pymqrest's session (a real client from the package registry that
nobody here wrote) against `mqtool serve` and a z/OS queue manager (issue 18, item 9).

The methods are enumerated from MQRESTSession, not chosen: 177 in pymqrest 1.2.2. Each
is called once with arguments an automation developer would give it, in an order that
defines before it alters, displays and deletes, and is classified:

- PASSES: the command ran (HTTP 200, completion code 0) and pymqrest returned what it
  returns (a SyncResult, an EnsureResult, the objects of a DISPLAY);
- ZOS_LACKS: IBM MQ for z/OS has no such command (the commands of IBM MQ on the other
  platforms) and mqtool refuses it as z/OS does, CSQ9001E;
- JSON_UNSUPPORTED: z/OS has the command, and IBM's REST API documents that it cannot be
  sent as a JSON formatted command (runCommandJSON): refused with 400, MQT0369E;
- QSG_ONLY: a queue-sharing-group command, answered as a queue manager in no group
  answers it (MQT0450E, reason 3212);
- ANSWERED_AS_ZOS: z/OS has it and answers it, through the command server, with an
  error in every state the REST API can reach (START QMGR: CSQY003I, the queue manager
  is running; START CMDSERV: CSQN002I, the command server is running);
- NOT_BUILT: IBM MQ for z/OS has it and mqtool does not build it yet (MQT0400E).

The test asserts the whole classification, so a regression (or a command built since)
fails it, and prints the counts. pymqrest maps attribute names strictly by default; its
mapping data (built from IBM's documentation and tested on Linux queue managers) lacks
some attributes that IBM MQ for z/OS displays or takes. Each call is made strictly
first; a mapping failure must name only the attributes listed in ZOS_MAPPING_GAPS, and
the call is then made again with mapping_strict=False, as pymqrest's own ensure tests do.
"""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.served import PASSWORDS, Served, mqtool, serve

pytestmark = pytest.mark.slow

PASSES = "passes"
ZOS_LACKS = "z/OS lacks the command"
JSON_UNSUPPORTED = "IBM's runCommandJSON does not take it"
QSG_ONLY = "queue-sharing group only (CSQ1 is in none)"
ANSWERED_AS_ZOS = "answered with z/OS's error"
NOT_BUILT = "not built in mqtool (MQT0400E)"

# Commands of IBM MQ on other platforms (the MQSC reference's pages whose z/OS column is
# empty, IBM MQ 9.4: listener, service and communication information objects and their
# status, authority records and services, queue manager status, application status,
# PING QMGR, PURGE CHANNEL; DELETE QUEUE is no MQSC command on any platform). SET, DISPLAY
# and DELETE POLICY: IBM's pages are "... on Multiplatforms" (9.2 to 9.4); z/OS manages
# AMS policies with the CSQ0UTIL utility (setmqspl, dspmqspl), not with MQSC.
ZOS_LACKS_METHODS = {
    "alter_comminfo": "COMMINFO",
    "alter_listener": "LISTENER",
    "alter_service": "SERVICE",
    "define_comminfo": "COMMINFO",
    "define_listener": "LISTENER",
    "define_service": "SERVICE",
    "delete_authrec": "AUTHREC",
    "delete_comminfo": "COMMINFO",
    "delete_listener": "LISTENER",
    "delete_policy": "POLICY",
    "delete_queue": "QUEUE",
    "delete_service": "SERVICE",
    "display_apstatus": "APSTATUS",
    "display_authrec": "AUTHREC",
    "display_authserv": "AUTHSERV",
    "display_comminfo": "COMMINFO",
    "display_entauth": "ENTAUTH",
    "display_listener": "LISTENER",
    "display_lsstatus": "LSSTATUS",
    "display_policy": "POLICY",
    "display_qmstatus": "QMSTATUS",
    "display_service": "SERVICE",
    "display_svstatus": "SVSTATUS",
    "ensure_comminfo": "COMMINFO",
    "ensure_listener": "LISTENER",
    "ensure_service": "SERVICE",
    "ping_qmgr": "QMGR",
    "purge_channel": "PURGE",
    "restart_listener": "LSSTATUS",  # STOP LISTENER(name) on z/OS names no object; status: LSSTATUS
    "restart_service": "SERVICE",
    "set_authrec": "AUTHREC",
    "set_policy": "POLICY",
    "stop_conn": "CONN",  # STOP CONN is Multiplatforms' only
    "start_listener_sync": "LSSTATUS",
    "start_service": "SERVICE",
    "start_service_sync": "SERVICE",
    "stop_listener_sync": "LSSTATUS",
    "stop_service": "SERVICE",
    "stop_service_sync": "SERVICE",
}
# IBM MQ REST API, "POST - JSON formatted command" (9.1.3 to 9.4): these MQSC commands
# are not supported when the request is a JSON formatted command.
JSON_UNSUPPORTED_METHODS = {
    "display_archive",
    "display_chinit",
    "display_group",
    "display_log",
    "display_security",
    "display_system",
    "display_thread",
    "display_trace",
    "display_usage",
}
QSG_ONLY_METHODS = {
    "alter_cfstruct",
    "alter_smds",
    "backup_cfstruct",
    "define_cfstruct",
    "delete_cfstruct",
    "display_cfstatus",
    "display_cfstruct",
    "display_smds",
    "display_smdsconn",
    "ensure_cfstruct",
    "recover_cfstruct",
    "reset_cfstruct",
    "reset_smds",
    "start_smdsconn",
    "stop_smdsconn",
}
ANSWERED_AS_ZOS_METHODS = {
    "start_qmgr": "CSQY003I",  # the queue manager is running (the REST API reaches no other)
    "start_cmdserv": "CSQN002I",  # the command server is running (it runs this very command)
    "resolve_channel": "MQT0521E",  # the channel has no batch in doubt
    "reset_tpipe": "MQT0463E",  # the queue manager has no IMS bridge (no XCF member to reset a Tpipe with)
}
# Every method whose MQSC command z/OS has is built (bread-last built the last of them).
NOT_BUILT_METHODS: set[str] = set()
# The listener helpers send START/STOP LISTENER with a listener's name, which z/OS's
# START and STOP LISTENER do not take (z/OS has no listener objects: CSQ9030E), and poll
# DISPLAY LSSTATUS, which z/OS lacks.
PENDING_ELSEWHERE = {
    "start_listener_sync": ("CSQ9030E",),
    "stop_listener_sync": ("CSQ9030E",),
    "restart_listener": ("CSQ9030E",),
}

# Attributes that IBM MQ for z/OS displays and pymqrest's mapping data (the response key
# map of the qualifier) does not name: a strict session (pymqrest's default) raises
# MappingError on these displays, against mqtool as against z/OS. Each is in the z/OS
# column of IBM's MQSC reference (IBM MQ 9.4) for its DISPLAY command.
ZOS_MAPPING_GAPS: dict[str, set[str]] = {
    # QSGDISP(QMGR|COPY|GROUP|SHARED): displayed for every object of a z/OS queue manager
    "channel": {"QSGDISP"},
    "topic": {"QSGDISP"},
    "process": {"QSGDISP"},
    "namelist": {"QSGDISP", "NLTYPE"},
    "stgclass": {"STGCLASS", "QSGDISP", "PSID"},  # and the class's own name and page set
    # the object's own name (AUTHINFO(name), CHLAUTH(profile), SUB(name) of SBSTATUS)
    "authinfo": {"AUTHINFO"},
    "chlauth": {"CHLAUTH", "USERSRC", "WARN"},
    "sbstatus": {"SUB"},
    # DEFINE SUB SUBSCOPE(ALL|QMGR), displayed by DISPLAY SUB
    "sub": {"SUBSCOPE"},
    # DISPLAY TPSTATUS: the topic string and its PUB, SUB and SUBSCOPE
    "tpstatus": {"TOPICSTR", "PUB", "SUB", "SUBSCOPE"},
    # DISPLAY PUBSUB: TYPE(LOCAL|PARENT|CHILD)
    "pubsub": {"TYPE"},
    # DISPLAY CONN on z/OS: the address space id and the origin of a unit of work
    "conn": {"ASID", "NID"},
    # DISPLAY QMGR on z/OS: the DNS group and WLM registration, intra-group queuing
    "qmgr": {"DNSGROUP", "DNSWLM", "IGQ"},
    # pymqrest's mapping data has no response keys at all for this qualifier (bread-last):
    # DISPLAY MAXSMSGS's one value
    "maxsmsgs": {"MAXSMSGS"},
}


@dataclass
class Call:
    """One method call of the walk: its arguments and what it must answer."""

    method: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    check: Callable[[Any], bool] | None = None  # on a result that PASSES


def _sync(pymqrest: Any) -> Any:
    return pymqrest.sync.SyncConfig(timeout_seconds=120.0, poll_interval_seconds=0.2)


def walk(pymqrest: Any) -> list[Call]:
    """The calls in order: definitions, changes, displays, operations, deletions; the
    commands that stop the command server and the queue manager last."""
    sync = _sync(pymqrest)
    return [
        # definitions
        Call("define_qlocal", ("PY.QL",), {"request_parameters": {"description": "walk", "max_queue_depth": 500}}),
        Call("define_qlocal", ("PY.QL2",), {"request_parameters": {"replace": "yes"}}),
        Call("define_qlocal", ("PY.XMITQ",), {"request_parameters": {"usage": "XMITQ"}}),
        Call("define_qmodel", ("PY.QM",), {"request_parameters": {"definition_type": "PERMDYN"}}),
        Call("define_qalias", ("PY.QA",), {"request_parameters": {"target_queue_name": "PY.QL"}}),
        Call(
            "define_qremote",
            ("PY.QR",),
            {
                "request_parameters": {
                    "remote_queue_name": "R",
                    "remote_queue_manager_name": "QM2",
                    "transmission_queue_name": "PY.XMITQ",
                }
            },
        ),
        Call(
            "define_channel",
            ("PY.SDR",),
            {
                "request_parameters": {
                    "channel_type": "SDR",
                    "connection_name": "127.0.0.1(1415)",
                    "transmission_queue_name": "PY.XMITQ",
                }
            },
        ),
        Call("define_channel", ("PY.RCVR",), {"request_parameters": {"channel_type": "RCVR"}}),
        Call("define_process", ("PY.PROC",), {"request_parameters": {"application_id": "/bin/true"}}),
        Call("define_namelist", ("PY.NL",), {"request_parameters": {"names": ["PY.QL"]}}),
        Call("define_topic", ("PY.TOPIC",), {"request_parameters": {"topic_string": "py/walk"}}),
        Call("define_sub", ("PY.SUB",), {"request_parameters": {"topic_string": "py/walk", "destination": "PY.QL"}}),
        Call("define_authinfo", ("PY.AI",), {"request_parameters": {"authentication_info_type": "IDPWOS"}}),
        Call("define_buffpool", ("5",), {"request_parameters": {"BUFFERS": 1000}}),
        Call("define_psid", ("20",), {"request_parameters": {"BUFFPOOL": 5}}),
        Call("define_stgclass", ("PYSC",), {"request_parameters": {"page_set_id": 20}}),
        Call("define_cfstruct", ("APP1",), {"request_parameters": {"cf_level": 5}}),
        Call("define_log", ("CSQ1.LOGCOPY1.DS04",), {"request_parameters": {"COPY": 1}}),
        Call("define_maxsmsgs", ("5000",)),
        Call("define_comminfo", ("PY.CI",)),
        Call("define_listener", ("PY.LSTR",), {"request_parameters": {"transport_type": "TCP", "port": 1416}}),
        Call("define_service", ("PY.SVC",)),
        # changes
        Call("alter_qlocal", ("PY.QL",), {"request_parameters": {"max_queue_depth": 600}}),
        Call("alter_qmodel", ("PY.QM",), {"request_parameters": {"description": "model"}}),
        Call("alter_qalias", ("PY.QA",), {"request_parameters": {"description": "alias"}}),
        Call("alter_qremote", ("PY.QR",), {"request_parameters": {"remote_queue_name": "R2"}}),
        Call("alter_channel", ("PY.RCVR",), {"request_parameters": {"channel_type": "RCVR", "description": "rcvr"}}),
        Call("alter_process", ("PY.PROC",), {"request_parameters": {"description": "process"}}),
        Call("alter_namelist", ("PY.NL",), {"request_parameters": {"names": ["PY.QL", "PY.QL2"]}}),
        Call("alter_topic", ("PY.TOPIC",), {"request_parameters": {"description": "topic"}}),
        Call("alter_sub", ("PY.SUB",), {"request_parameters": {"user_data": "walked"}}),
        Call(
            "alter_authinfo",
            ("PY.AI",),
            {"request_parameters": {"authentication_info_type": "IDPWOS", "description": "authinfo"}},
        ),
        Call("alter_buffpool", ("5",), {"request_parameters": {"BUFFERS": 2000}}),
        Call("alter_psid", ("20",), {"request_parameters": {"EXPAND": "SYSTEM"}}),
        Call("alter_stgclass", ("PYSC",), {"request_parameters": {"description": "class"}}),
        Call("alter_qmgr", (), {"request_parameters": {"description": "walked by pymqrest"}}),
        Call("alter_security", (), {"request_parameters": {"security_timeout": 30}}),
        Call("alter_cfstruct", ("APP1",), {"request_parameters": {"cf_level": 5}}),
        Call("alter_smds", ("*",), {"request_parameters": {"cf_struct_name": "APP1", "DSBUFS": 10}}),
        Call("alter_trace", ("STAT",), {"request_parameters": {"TNO": 2, "CLASS": 5}}),
        Call("alter_comminfo", ("PY.CI",)),
        Call("alter_listener", ("PY.LSTR",), {"request_parameters": {"transport_type": "TCP"}}),
        Call("alter_service", ("PY.SVC",)),
        # ensure: created, then unchanged or updated
        Call("ensure_qlocal", ("PY.EQL",), {"request_parameters": {"description": "ensured"}}, _created(pymqrest)),
        Call("ensure_qmodel", ("PY.QM",), {"request_parameters": {"description": "ensured"}}, _updated(pymqrest)),
        Call("ensure_qalias", ("PY.QA",), {"request_parameters": {"description": "alias"}}, _unchanged(pymqrest)),
        Call("ensure_qremote", ("PY.QR",), {"request_parameters": {"description": "ensured"}}, _updated(pymqrest)),
        Call(
            "ensure_channel",
            ("PY.ECHL",),
            {"request_parameters": {"channel_type": "SVRCONN", "description": "ensured"}},
            _created(pymqrest),
        ),
        Call("ensure_process", ("PY.PROC",), {"request_parameters": {"description": "ensured"}}, _updated(pymqrest)),
        Call("ensure_namelist", ("PY.ENL",), {"request_parameters": {"names": ["PY.QL"]}}, _created(pymqrest)),
        Call("ensure_topic", ("PY.TOPIC",), {"request_parameters": {"description": "ensured"}}, _updated(pymqrest)),
        Call("ensure_sub", ("PY.SUB",), {"request_parameters": {"user_data": "walked"}}, _unchanged(pymqrest)),
        Call(
            "ensure_authinfo",
            ("PY.EAI",),
            {"request_parameters": {"authentication_info_type": "IDPWOS", "description": "ensured"}},
            _created(pymqrest),
        ),
        Call("ensure_stgclass", ("PYSC",), {"request_parameters": {"description": "ensured"}}, _updated(pymqrest)),
        Call("ensure_qmgr", (), {"request_parameters": {"description": "ensured"}}, _updated(pymqrest)),
        Call("ensure_cfstruct", ("APP1",), {"request_parameters": {"cf_level": 5}}),
        Call("ensure_comminfo", ("PY.CI",)),
        Call("ensure_listener", ("PY.LSTR",), {"request_parameters": {"transport_type": "TCP"}}),
        Call("ensure_service", ("PY.SVC",)),
        # displays
        Call("display_queue", ("PY.*",), {}, _names("queue_name", {"PY.QL", "PY.QL2", "PY.XMITQ", "PY.QM"})),
        Call("display_qstatus", ("PY.QL",), {}, _names("queue_name", {"PY.QL"})),
        Call("display_channel", ("PY.*",), {}, _names("channel_name", {"PY.SDR", "PY.RCVR", "PY.ECHL"})),
        Call("display_process", ("PY.*",), {}, _names("process_name", {"PY.PROC"})),
        Call("display_namelist", ("PY.*",), {}, _names("namelist_name", {"PY.NL", "PY.ENL"})),
        Call("display_topic", ("PY.*",), {}, _names("topic_name", {"PY.TOPIC"})),
        Call("display_sub", ("PY.SUB",), {}, _names("subscription_name", {"PY.SUB"})),
        Call("display_sbstatus", ("PY.SUB",), {}, _count(1)),
        Call("display_tpstatus", ("py/walk",), {}, _count(1)),
        Call("display_authinfo", ("PY.AI",), {}, _count(1)),
        # responseParameters in pymqrest's names: the attribute, under its name
        Call(
            "display_topic", ("PY.TOPIC",), {"response_parameters": ["topic_string"]}, _value("topic_string", "py/walk")
        ),
        Call("display_sub", ("PY.SUB",), {"response_parameters": ["destination"]}, _value("destination", "PY.QL")),
        Call(
            "display_process",
            ("PY.PROC",),
            {"response_parameters": ["application_id"]},
            _value("application_id", "/bin/true"),
        ),
        Call("display_namelist", ("PY.NL",), {"response_parameters": ["names"]}, _value("names", ["PY.QL", "PY.QL2"])),
        Call(
            "display_qstatus",
            ("PY.QL",),
            {"response_parameters": ["current_queue_depth"]},
            _value("current_queue_depth", 0),
        ),
        Call(
            "display_qmgr",
            (),
            {"response_parameters": ["dead_letter_queue_name"]},
            lambda qmgr: qmgr["dead_letter_queue_name"] == "SYSTEM.DEAD.QUEUE",
        ),
        Call(
            "display_queue",
            ("PY.*",),
            {"where": "max_queue_depth EQ 600"},
            lambda rows: [r["queue_name"] for r in rows] == ["PY.QL"],
        ),
        Call("display_stgclass", ("PYSC",), {}, _count(1)),
        Call("display_chlauth", ("*",), {}, _count(3)),
        Call("display_conn", ("*",), {}, lambda rows: any("connection_id" in row for row in rows)),
        Call("display_qmgr", (), {}, lambda qmgr: qmgr["queue_manager_name"] == "CSQ1"),
        Call("display_cmdserv", ()),
        Call("display_pubsub", (), {}, _count(1)),
        Call("display_clusqmgr", ("*",), {}, _count(0)),
        Call("display_chstatus", ("PY.*",), {}, _count(0)),
        Call("display_tcluster", ("*",), {}, _count(0)),
        Call("display_archive", ()),
        Call("display_chinit", ()),
        Call("display_group", ()),
        Call("display_log", ()),
        Call("display_security", ()),
        Call("display_system", ()),
        Call("display_thread", ("*",)),
        Call("display_trace", ("*",)),
        Call("display_usage", ()),
        Call("display_cfstatus", ("*",)),
        Call("display_cfstruct", ("*",)),
        Call("display_smds", ("*",), {"request_parameters": {"cf_struct_name": "APP1"}}),
        Call("display_smdsconn", ("*",), {"request_parameters": {"cf_struct_name": "APP1"}}),
        Call("display_maxsmsgs", ()),
        Call("display_policy", ("PY.QL",)),
        Call("display_apstatus", ("PY.APP",)),
        Call("display_authrec", ()),
        Call("display_authserv", ()),
        Call("display_comminfo", ("*",)),
        Call("display_entauth", (), {"request_parameters": {"PRINCIPAL": "app", "OBJTYPE": "QMGR"}}),
        Call("display_listener", ("*",)),
        Call("display_lsstatus", ("*",)),
        Call("display_qmstatus", ()),
        Call("display_service", ("*",)),
        Call("display_svstatus", ("*",)),
        # operations
        Call("clear_qlocal", ("PY.QL2",)),
        Call("move_qlocal", ("PY.QL",), {"request_parameters": {"to_queue_name": "PY.QL2"}}),
        Call("reset_qstats", ("PY.QL",)),
        Call("clear_topicstr", ("py/walk",), {"request_parameters": {"clear_type": "RETAINED"}}),
        Call("ping_channel", ("PY.SDR",)),
        Call("start_channel", ("PY.SDR",)),
        Call("stop_channel_sync", ("PY.SDR",), {"config": sync}, _operation(pymqrest, "STOPPED")),
        Call("start_channel_sync", ("PY.SDR",), {"config": sync}, _operation(pymqrest, "STARTED")),
        Call("restart_channel", ("PY.SDR",), {"config": sync}, _operation(pymqrest, "RESTARTED")),
        Call("stop_channel", ("PY.SDR",)),
        Call("reset_channel", ("PY.SDR",), {"request_parameters": {"SEQNUM": 1}}),
        Call("resolve_channel", ("PY.SDR",), {"request_parameters": {"in_doubt": "COMMIT"}}),
        Call("stop_chinit", ()),
        Call("start_chinit", ()),
        Call("refresh_qmgr", (), {"request_parameters": {"TYPE": "EXPIRY", "NAME": "PY.*"}}),
        Call("refresh_security", ("*",)),
        Call("rverify_security", ("USER1",)),
        Call("refresh_cluster", ("CL1",)),
        Call("reset_cluster", ("CL1",), {"request_parameters": {"queue_manager_name": "QM2", "action": "FORCEREMOVE"}}),
        Call("suspend_qmgr", (), {"request_parameters": {"CLUSTER": "CL1"}}),
        Call("resume_qmgr", (), {"request_parameters": {"CLUSTER": "CL1"}}),
        Call("archive_log", ()),
        Call("set_log", (), {"request_parameters": {"DEFAULT": "yes"}}),
        Call("set_archive", (), {"request_parameters": {"DEFAULT": "yes"}}),
        Call("set_system", (), {"request_parameters": {"DEFAULT": "yes"}}),
        Call(
            "set_chlauth",
            ("PY.*",),
            {"request_parameters": {"type": "BLOCKUSER", "user_list": ["nobody"]}},
        ),
        Call("start_trace", ("STAT",), {"request_parameters": {"CLASS": 1}}),
        Call("stop_trace", ("STAT",)),
        Call("stop_conn", ("1234",), {"request_parameters": {"connection_info_type": "HANDLE"}}),
        Call("start_listener", (), {"request_parameters": {"transport_type": "TCP", "port": 1416}}),
        Call("stop_listener", (), {"request_parameters": {"transport_type": "TCP", "port": 1416}}),
        Call("start_listener_sync", ("PY.LSTR",), {"config": sync}),
        Call("stop_listener_sync", ("PY.LSTR",), {"config": sync}),
        Call("restart_listener", ("PY.LSTR",), {"config": sync}),
        Call("start_service", ("PY.SVC",)),
        Call("stop_service", ("PY.SVC",)),
        Call("start_service_sync", ("PY.SVC",), {"config": sync}),
        Call("stop_service_sync", ("PY.SVC",), {"config": sync}),
        Call("restart_service", ("PY.SVC",), {"config": sync}),
        Call("backup_cfstruct", ("APP1",)),
        Call("recover_cfstruct", ("APP1",)),
        Call("reset_cfstruct", ("APP1",), {"request_parameters": {"action": "FAIL"}}),
        Call("reset_smds", ("*",), {"request_parameters": {"cf_struct_name": "APP1", "access": "ENABLED"}}),
        Call("start_smdsconn", ("*",), {"request_parameters": {"cf_struct_name": "APP1"}}),
        Call("stop_smdsconn", ("*",), {"request_parameters": {"cf_struct_name": "APP1"}}),
        Call("recover_bsds", ()),
        # z/OS takes TYPE(PUBSUB) only; PARENT names the queue manager's parent (set up below)
        Call("reset_qmgr", (), {"request_parameters": {"status_type": "PUBSUB", "PARENT": "PY.PARENT"}}),
        Call("reset_tpipe", ("T1",), {"request_parameters": {"XCFGNAME": "G1", "XCFMNAME": "M1", "ACTION": "COMMIT"}}),
        Call("resolve_indoubt", ("CICS1",), {"request_parameters": {"in_doubt": "COMMIT", "origin_id": "*"}}),
        Call("set_policy", ("PY.QL",), {"request_parameters": {"sign_algorithm": "SHA256"}}),
        Call("set_authrec", (), {"request_parameters": {"PROFILE": "PY.QL", "OBJTYPE": "QUEUE"}}),
        Call("ping_qmgr", ()),
        Call("purge_channel", ("PY.MQTT",)),
        Call("start_qmgr", ()),
        Call("start_cmdserv", ()),
        # deletions
        Call("delete_sub", ("PY.SUB",)),
        Call("delete_topic", ("PY.TOPIC",)),
        Call("delete_process", ("PY.PROC",)),
        Call("delete_namelist", ("PY.NL",)),
        Call("delete_authinfo", ("PY.AI",)),
        Call("delete_qalias", ("PY.QA",)),
        Call("delete_qremote", ("PY.QR",)),
        Call("delete_qmodel", ("PY.QM",)),
        Call("delete_channel", ("PY.RCVR",)),
        Call("delete_qlocal", ("PY.QL",), {"request_parameters": {"purge": "yes"}}),
        Call("delete_stgclass", ("PYSC",)),
        Call("delete_psid", ("20",)),
        Call("delete_buffpool", ("5",)),
        Call("delete_cfstruct", ("APP1",)),
        Call("delete_policy", ("PY.QL",)),
        Call("delete_authrec", (), {"request_parameters": {"PROFILE": "PY.QL", "OBJTYPE": "QUEUE"}}),
        Call("delete_comminfo", ("PY.CI",)),
        Call("delete_listener", ("PY.LSTR",)),
        Call("delete_service", ("PY.SVC",)),
        Call("delete_queue", ("PY.QL2",)),
        # last: the command server (started again at the console) and the queue manager
        Call("stop_cmdserv", ()),
        Call("stop_qmgr", ()),
    ]


def _created(pymqrest: Any) -> Callable[[Any], bool]:
    return lambda result: result.action is pymqrest.EnsureAction.CREATED


def _updated(pymqrest: Any) -> Callable[[Any], bool]:
    return lambda result: result.action is pymqrest.EnsureAction.UPDATED


def _unchanged(pymqrest: Any) -> Callable[[Any], bool]:
    return lambda result: result.action is pymqrest.EnsureAction.UNCHANGED


def _operation(pymqrest: Any, name: str) -> Callable[[Any], bool]:
    return lambda result: result.operation is getattr(pymqrest.sync.SyncOperation, name)


def _names(key: str, wanted: set[str]) -> Callable[[Any], bool]:
    return lambda rows: {row.get(key) for row in rows} >= wanted


def _value(key: str, wanted: Any) -> Callable[[Any], bool]:
    return lambda rows: len(rows) == 1 and rows[0].get(key) == wanted


def _count(n: int) -> Callable[[Any], bool]:
    return lambda rows: len(rows) == n


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    yield from serve(tmp_path)


def _session(pymqrest: Any, served: Served, strict: bool) -> Any:
    return pymqrest.MQRESTSession(
        served.base,
        "CSQ1",
        credentials=pymqrest.BasicAuth("admin", PASSWORDS["admin"]),
        verify_tls=False,
        mapping_strict=strict,
    )


@dataclass
class Outcome:
    category: str
    detail: str = ""


def _refusal(session: Any) -> tuple[int | None, str, int | None]:
    """The HTTP status, first message id and reason code of the last answer."""
    payload = session.last_response_payload or {}
    if "error" in payload:
        error = payload["error"][0]
        return session.last_http_status, str(error.get("msgId", "")), error.get("reasonCode")
    items = payload.get("commandResponse") or [{}]
    failed = next((item for item in items if item.get("completionCode")), items[0])
    lines = failed.get("message") or failed.get("text") or [""]
    return session.last_http_status, lines[0].split(" ")[0], failed.get("reasonCode")


def _call(pymqrest: Any, sessions: tuple[Any, Any], call: Call, gaps: dict[str, set[str]]) -> Outcome:
    """Calls the method on the lenient session; a display that passes is made again on
    the strict one, and the attributes pymqrest's mapping does not know go to `gaps`."""
    strict, lenient = sessions
    try:
        result = getattr(lenient, call.method)(*call.args, **call.kwargs)
    except pymqrest.MQRESTCommandError:
        return _failure(call.method, *_refusal(lenient))
    except pymqrest.MQRESTTimeoutError as error:
        return Outcome("timed out", str(error))
    status, msg_id, reason = _refusal(lenient)
    if status != 200:
        return _failure(call.method, status, msg_id, reason)
    if call.check is not None and not call.check(result):
        return Outcome("wrong answer", repr(result)[:300])
    if call.method.startswith("display_"):
        try:
            getattr(strict, call.method)(*call.args, **call.kwargs)
        except pymqrest.MappingError as error:
            for issue in error.issues:
                gaps.setdefault(str(issue.qualifier), set()).add(issue.attribute_name)
    return Outcome(PASSES)


def _failure(method: str, status: int | None, msg_id: str, reason: int | None) -> Outcome:
    """The category of a refusal, by its status, message id and reason code."""
    if msg_id == ANSWERED_AS_ZOS_METHODS.get(method):
        return Outcome(ANSWERED_AS_ZOS, msg_id)
    if msg_id in PENDING_ELSEWHERE.get(method, ()):
        return Outcome(expected(method), msg_id)
    if status == 400 and msg_id == "MQT0369E":
        return Outcome(JSON_UNSUPPORTED, msg_id)
    if msg_id == "MQT0450E" and reason == 3212:
        return Outcome(QSG_ONLY, msg_id)
    if msg_id == "MQT0400E":
        return Outcome(NOT_BUILT, msg_id)
    if msg_id == "CSQ9001E":
        return Outcome(ZOS_LACKS, msg_id)
    return Outcome("refused", f"HTTP {status} {msg_id} reason {reason}")


def expected(method: str) -> str:
    if method in ZOS_LACKS_METHODS:
        return ZOS_LACKS
    if method in JSON_UNSUPPORTED_METHODS:
        return JSON_UNSUPPORTED
    if method in QSG_ONLY_METHODS:
        return QSG_ONLY
    if method in ANSWERED_AS_ZOS_METHODS:
        return ANSWERED_AS_ZOS
    if method in NOT_BUILT_METHODS:
        return NOT_BUILT
    return PASSES


def test_every_pymqrest_method_against_a_zos_queue_manager(served: Served, pymqrest: Any) -> None:
    methods = sorted(
        name
        for name, member in inspect.getmembers(pymqrest.MQRESTSession)
        if callable(member) and not name.startswith("_")
    )
    calls = walk(pymqrest)
    assert {call.method for call in calls} == set(methods), "the walk calls every method, and no other"
    setup = mqtool(
        served.state_dir,
        "cmd",
        "-CSQ1 ALTER QMGR PERFMEV(ENABLED) PARENT(PY.PARENT)",
        "ZMQSC DEFINE CHL-PY.SDR CHLTYPE-RCVR",
    )
    assert setup.returncode == 0, setup.stdout + setup.stderr
    listener = mqtool(served.state_dir, "system", "alter", "TPF1", "--listener", "127.0.0.1(1415)")
    assert listener.returncode == 0, listener.stderr
    sessions = (_session(pymqrest, served, True), _session(pymqrest, served, False))
    gaps: dict[str, set[str]] = {}
    outcomes: dict[str, list[Outcome]] = {}
    for call in calls:
        outcome = _call(pymqrest, sessions, call, gaps)
        outcomes.setdefault(call.method, []).append(outcome)
        if call.method == "stop_cmdserv" and outcome.category == PASSES:
            started = mqtool(served.state_dir, "cmd", "-CSQ1 START CMDSERV")  # at the console
            assert "CSQN001I" in started.stdout, started.stdout + started.stderr
    found = {method: outcomes[method][-1] for method in methods}
    wrong = {
        method: f"{outcome.category} {outcome.detail}".strip()
        for method, outcome in found.items()
        if outcome.category != expected(method) or any(o.category != expected(method) for o in outcomes[method])
    }
    counts = Counter(outcome.category for outcome in found.values())
    print(f"\npymqrest {pymqrest.__version__ if hasattr(pymqrest, '__version__') else ''}: {len(methods)} methods")
    for category, count in counts.most_common():
        print(f"  {count:3d} {category}")
    print("  mapping gaps:", {q: sorted(keys) for q, keys in sorted(gaps.items())})
    assert wrong == {}
    assert len(methods) == 177
    assert gaps == ZOS_MAPPING_GAPS
