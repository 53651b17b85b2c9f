"""IBM's whole list of IBM MQ for z/OS MQSC commands, walked (issue 16 item 6, issue 18
item 6): each answers with a real response (mqtool builds it) or with MQT0400E
(recognised, not available in mqtool), never CSQ9001E, which an operator reads as a
typing error, and never mqtool's "Unknown command". The commands of IBM MQ on other
platforms are refused the way z/OS refuses a verb or object it does not have: CSQ9001E.

Source of the list: IBM MQ 9.4 documentation, "Sources from which you can issue MQSC
and PCF commands on IBM MQ for z/OS" (the command summary for IBM MQ for z/OS, table 2:
every MQSC command z/OS takes), checked against the z/OS column of each command's page
in the MQSC commands reference (https://www.ibm.com/docs/en/ibm-mq/9.4.x?topic=reference-mqsc-commands).
The commands of other platforms are those pages whose z/OS column is empty (listener,
service and communication information objects, authority records, DISPLAY QMSTATUS,
APSTATUS, LSSTATUS, SVSTATUS, ENTAUTH, AUTHSERV, PING QMGR, PURGE CHANNEL, STOP CONN:
"STOP CONN (stop a connection) on Multiplatforms"), and SET, DISPLAY and DELETE POLICY:
IBM's pages are "SET POLICY (set security policy) on Multiplatforms" and its DISPLAY and
DELETE neighbours (IBM MQ 9.2 to 9.4, refadmin/q120800_, q120820_, q120810_); on z/OS,
Advanced Message Security policies are managed with the CSQ0UTIL batch utility
(setmqspl, dspmqspl: "The message security policy utility (CSQ0UTIL)", refadmin/q118900_),
not with MQSC.

Each command is given in a form IBM documents (its required keywords), so that when
mqtool builds it the walk still sees a real response."""

from __future__ import annotations

from typing import Any

import pytest

# (verb, object, a command in IBM's syntax), in an order that defines before it alters,
# displays or deletes; STOP QMGR comes last.
ZOS_COMMANDS: list[tuple[str, str, str]] = [
    ("DEFINE", "QLOCAL", "DEFINE QLOCAL(WALK.QL)"),
    ("DEFINE", "QMODEL", "DEFINE QMODEL(WALK.QM)"),
    ("DEFINE", "QALIAS", "DEFINE QALIAS(WALK.QA) TARGET(WALK.QL)"),
    ("DEFINE", "QREMOTE", "DEFINE QREMOTE(WALK.QR) RNAME(R) RQMNAME(QM2)"),
    ("DEFINE", "CHANNEL", "DEFINE CHANNEL(WALK.RCVR) CHLTYPE(RCVR)"),
    ("DEFINE", "PSID", "DEFINE PSID(20) BUFFPOOL(0)"),
    ("DEFINE", "STGCLASS", "DEFINE STGCLASS(WALKSC) PSID(20)"),
    ("DEFINE", "AUTHINFO", "DEFINE AUTHINFO(WALK.AI) AUTHTYPE(IDPWOS)"),
    ("DEFINE", "BUFFPOOL", "DEFINE BUFFPOOL(5) BUFFERS(1000)"),
    ("DEFINE", "CFSTRUCT", "DEFINE CFSTRUCT(APP1) CFLEVEL(5)"),
    ("DEFINE", "LOG", "DEFINE LOG(CSQ1.LOGCOPY1.DS04) COPY(1)"),
    ("DEFINE", "MAXSMSGS", "DEFINE MAXSMSGS(5000)"),
    ("DEFINE", "NAMELIST", "DEFINE NAMELIST(WALK.NL) NAMES(A)"),
    ("DEFINE", "PROCESS", "DEFINE PROCESS(WALK.PROC) APPLICID('walk')"),
    ("DEFINE", "TOPIC", "DEFINE TOPIC(WALK.TOPIC) TOPICSTR('walk/topic')"),
    ("DEFINE", "SUB", "DEFINE SUB(WALK.SUB) TOPICSTR('walk/topic') DEST(WALK.QL)"),
    ("ALTER", "QLOCAL", "ALTER QLOCAL(WALK.QL) MAXDEPTH(10)"),
    ("ALTER", "QMODEL", "ALTER QMODEL(WALK.QM) MAXDEPTH(10)"),
    ("ALTER", "QALIAS", "ALTER QALIAS(WALK.QA) TARGET(WALK.QL)"),
    ("ALTER", "QREMOTE", "ALTER QREMOTE(WALK.QR) RNAME(R2)"),
    ("ALTER", "CHANNEL", "ALTER CHANNEL(WALK.RCVR) CHLTYPE(RCVR) DESCR('walked')"),
    ("ALTER", "PSID", "ALTER PSID(20) EXPAND(SYSTEM)"),
    ("ALTER", "STGCLASS", "ALTER STGCLASS(WALKSC) DESCR('walked')"),
    ("ALTER", "QMGR", "ALTER QMGR DESCR('walked')"),
    ("ALTER", "AUTHINFO", "ALTER AUTHINFO(WALK.AI) AUTHTYPE(IDPWOS) DESCR('walked')"),
    ("ALTER", "BUFFPOOL", "ALTER BUFFPOOL(5) BUFFERS(2000)"),
    ("ALTER", "CFSTRUCT", "ALTER CFSTRUCT(APP1) CFLEVEL(5)"),
    ("ALTER", "NAMELIST", "ALTER NAMELIST(WALK.NL) NAMES(A,B)"),
    ("ALTER", "PROCESS", "ALTER PROCESS(WALK.PROC) APPLICID('walked')"),
    ("ALTER", "SECURITY", "ALTER SECURITY TIMEOUT(30)"),
    ("ALTER", "SMDS", "ALTER SMDS(*) CFSTRUCT(APP1) DSBUFS(10)"),
    ("ALTER", "SUB", "ALTER SUB(WALK.SUB) EXPIRY(UNLIMITED)"),
    ("ALTER", "TOPIC", "ALTER TOPIC(WALK.TOPIC) DESCR('walked')"),
    ("ALTER", "TRACE", "ALTER TRACE(STAT) TNO(2) CLASS(5)"),
    ("ARCHIVE", "LOG", "ARCHIVE LOG"),
    ("BACKUP", "CFSTRUCT", "BACKUP CFSTRUCT(APP1)"),
    ("CLEAR", "QLOCAL", "CLEAR QLOCAL(WALK.QL)"),
    ("CLEAR", "TOPICSTR", "CLEAR TOPICSTR('walk/topic') CLRTYPE(RETAINED)"),
    ("DISPLAY", "ARCHIVE", "DISPLAY ARCHIVE"),
    ("DISPLAY", "AUTHINFO", "DISPLAY AUTHINFO(*)"),
    ("DISPLAY", "CFSTATUS", "DISPLAY CFSTATUS(*)"),
    ("DISPLAY", "CFSTRUCT", "DISPLAY CFSTRUCT(*)"),
    ("DISPLAY", "CHANNEL", "DISPLAY CHANNEL(*)"),
    ("DISPLAY", "CHINIT", "DISPLAY CHINIT"),
    ("DISPLAY", "CHLAUTH", "DISPLAY CHLAUTH(*)"),
    ("DISPLAY", "CHSTATUS", "DISPLAY CHSTATUS(*)"),
    ("DISPLAY", "CLUSQMGR", "DISPLAY CLUSQMGR(*)"),
    ("DISPLAY", "CMDSERV", "DISPLAY CMDSERV"),
    ("DISPLAY", "CONN", "DISPLAY CONN(*)"),
    ("DISPLAY", "GROUP", "DISPLAY GROUP"),
    ("DISPLAY", "LOG", "DISPLAY LOG"),
    ("DISPLAY", "MAXSMSGS", "DISPLAY MAXSMSGS"),
    ("DISPLAY", "NAMELIST", "DISPLAY NAMELIST(*)"),
    ("DISPLAY", "PROCESS", "DISPLAY PROCESS(*)"),
    ("DISPLAY", "PUBSUB", "DISPLAY PUBSUB"),
    ("DISPLAY", "QALIAS", "DISPLAY QALIAS(*)"),
    ("DISPLAY", "QCLUSTER", "DISPLAY QCLUSTER(*)"),
    ("DISPLAY", "QLOCAL", "DISPLAY QLOCAL(*)"),
    ("DISPLAY", "QMGR", "DISPLAY QMGR"),
    ("DISPLAY", "QMODEL", "DISPLAY QMODEL(*)"),
    ("DISPLAY", "QREMOTE", "DISPLAY QREMOTE(*)"),
    ("DISPLAY", "QSTATUS", "DISPLAY QSTATUS(*)"),
    ("DISPLAY", "QUEUE", "DISPLAY QUEUE(*)"),
    ("DISPLAY", "SBSTATUS", "DISPLAY SBSTATUS(*)"),
    ("DISPLAY", "SECURITY", "DISPLAY SECURITY"),
    ("DISPLAY", "SMDS", "DISPLAY SMDS(*) CFSTRUCT(APP1)"),
    ("DISPLAY", "SMDSCONN", "DISPLAY SMDSCONN(*) CFSTRUCT(APP1)"),
    ("DISPLAY", "STGCLASS", "DISPLAY STGCLASS(*)"),
    ("DISPLAY", "SUB", "DISPLAY SUB(*)"),
    ("DISPLAY", "SYSTEM", "DISPLAY SYSTEM"),
    ("DISPLAY", "THREAD", "DISPLAY THREAD(*)"),
    ("DISPLAY", "TOPIC", "DISPLAY TOPIC(*)"),
    ("DISPLAY", "TPSTATUS", "DISPLAY TPSTATUS('#')"),
    ("DISPLAY", "TRACE", "DISPLAY TRACE(*)"),
    ("DISPLAY", "USAGE", "DISPLAY USAGE"),
    ("MOVE", "QLOCAL", "MOVE QLOCAL(WALK.QL) TOQLOCAL(WALK.QL2)"),
    ("PING", "CHANNEL", "PING CHANNEL(WALK.SDR)"),
    ("RECOVER", "BSDS", "RECOVER BSDS"),
    ("RECOVER", "CFSTRUCT", "RECOVER CFSTRUCT(APP1)"),
    ("REFRESH", "CLUSTER", "REFRESH CLUSTER(CL1)"),
    ("REFRESH", "QMGR", "REFRESH QMGR TYPE(EXPIRY)"),
    ("REFRESH", "SECURITY", "REFRESH SECURITY(*)"),
    ("RESET", "CFSTRUCT", "RESET CFSTRUCT(APP1) ACTION(FAIL)"),
    ("RESET", "CHANNEL", "RESET CHANNEL(WALK.RCVR)"),
    ("RESET", "CLUSTER", "RESET CLUSTER(CL1) QMNAME(QM2) ACTION(FORCEREMOVE)"),
    ("RESET", "QMGR", "RESET QMGR TYPE(PUBSUB) PARENT(QM2)"),
    ("RESET", "QSTATS", "RESET QSTATS(WALK.QL)"),
    ("RESET", "SMDS", "RESET SMDS(*) CFSTRUCT(APP1) ACCESS(ENABLED)"),
    ("RESET", "TPIPE", "RESET TPIPE(T1) XCFGNAME(G1) XCFMNAME(M1) ACTION(COMMIT)"),
    ("RESOLVE", "CHANNEL", "RESOLVE CHANNEL(WALK.SDR) ACTION(COMMIT)"),
    ("RESOLVE", "INDOUBT", "RESOLVE INDOUBT(CICS1) ACTION(COMMIT) NID(*)"),
    ("RESUME", "QMGR", "RESUME QMGR LOG"),
    ("RVERIFY", "SECURITY", "RVERIFY SECURITY(USER1)"),
    ("SET", "ARCHIVE", "SET ARCHIVE DEFAULT"),
    ("SET", "CHLAUTH", "SET CHLAUTH('*') TYPE(BLOCKUSER) USERLIST('nobody')"),
    ("SET", "LOG", "SET LOG DEFAULT"),
    ("SET", "SYSTEM", "SET SYSTEM DEFAULT"),
    ("START", "CHANNEL", "START CHANNEL(WALK.RCVR)"),
    ("START", "CHINIT", "START CHINIT"),
    ("START", "CMDSERV", "START CMDSERV"),
    ("START", "LISTENER", "START LISTENER TRPTYPE(LU62) LUNAME(WALKLU)"),
    ("START", "QMGR", "START QMGR"),
    ("START", "SMDSCONN", "START SMDSCONN(*) CFSTRUCT(APP1)"),
    ("START", "TRACE", "START TRACE(STAT) CLASS(1)"),
    ("STOP", "CHANNEL", "STOP CHANNEL(WALK.RCVR)"),
    ("STOP", "CHINIT", "STOP CHINIT"),
    ("STOP", "CMDSERV", "STOP CMDSERV"),
    ("STOP", "LISTENER", "STOP LISTENER TRPTYPE(LU62)"),
    ("STOP", "SMDSCONN", "STOP SMDSCONN(*) CFSTRUCT(APP1)"),
    ("STOP", "TRACE", "STOP TRACE(STAT)"),
    ("SUSPEND", "QMGR", "SUSPEND QMGR LOG"),
    ("DELETE", "SUB", "DELETE SUB(WALK.SUB)"),
    ("DELETE", "TOPIC", "DELETE TOPIC(WALK.TOPIC)"),
    ("DELETE", "PROCESS", "DELETE PROCESS(WALK.PROC)"),
    ("DELETE", "NAMELIST", "DELETE NAMELIST(WALK.NL)"),
    ("DELETE", "CFSTRUCT", "DELETE CFSTRUCT(APP1)"),
    ("DELETE", "BUFFPOOL", "DELETE BUFFPOOL(5)"),
    ("DELETE", "AUTHINFO", "DELETE AUTHINFO(WALK.AI)"),
    ("DELETE", "CHANNEL", "DELETE CHANNEL(WALK.RCVR)"),
    ("DELETE", "QREMOTE", "DELETE QREMOTE(WALK.QR)"),
    ("DELETE", "QALIAS", "DELETE QALIAS(WALK.QA)"),
    ("DELETE", "QMODEL", "DELETE QMODEL(WALK.QM)"),
    ("DELETE", "QLOCAL", "DELETE QLOCAL(WALK.QL) PURGE"),
    ("DELETE", "STGCLASS", "DELETE STGCLASS(WALKSC)"),
    ("DELETE", "PSID", "DELETE PSID(20)"),
    ("STOP", "QMGR", "STOP QMGR"),
]

# Commands of IBM MQ on other platforms, and the word z/OS refuses in each.
ELSEWHERE: list[tuple[str, str]] = [
    ("DEFINE LISTENER(WALK.L) TRPTYPE(TCP) PORT(1414)", "LISTENER"),
    ("ALTER LISTENER(WALK.L) TRPTYPE(TCP)", "LISTENER"),
    ("DELETE LISTENER(WALK.L)", "LISTENER"),
    ("DISPLAY LISTENER(*)", "LISTENER"),
    ("DISPLAY LSSTATUS(*)", "LSSTATUS"),
    ("DEFINE SERVICE(WALK.S)", "SERVICE"),
    ("ALTER SERVICE(WALK.S)", "SERVICE"),
    ("DELETE SERVICE(WALK.S)", "SERVICE"),
    ("DISPLAY SERVICE(*)", "SERVICE"),
    ("DISPLAY SVSTATUS(*)", "SVSTATUS"),
    ("START SERVICE(WALK.S)", "SERVICE"),
    ("STOP SERVICE(WALK.S)", "SERVICE"),
    ("DEFINE COMMINFO(WALK.C)", "COMMINFO"),
    ("ALTER COMMINFO(WALK.C)", "COMMINFO"),
    ("DELETE COMMINFO(WALK.C)", "COMMINFO"),
    ("DISPLAY COMMINFO(*)", "COMMINFO"),
    ("SET AUTHREC PROFILE(X) OBJTYPE(QUEUE)", "AUTHREC"),
    ("DELETE AUTHREC PROFILE(X) OBJTYPE(QUEUE)", "AUTHREC"),
    ("DISPLAY AUTHREC", "AUTHREC"),
    ("DISPLAY AUTHSERV", "AUTHSERV"),
    ("DISPLAY ENTAUTH PRINCIPAL(X) OBJTYPE(QMGR)", "ENTAUTH"),
    ("DISPLAY QMSTATUS", "QMSTATUS"),
    ("DISPLAY APSTATUS(WALK.APP)", "APSTATUS"),
    ("PING QMGR", "QMGR"),
    ("PURGE CHANNEL(WALK.MQTT)", "PURGE"),
    ("STOP CONN(1234) TYPE(HANDLE)", "CONN"),  # STOP CONN is Multiplatforms' only
    # AMS policies: Multiplatforms MQSC; z/OS manages them with CSQ0UTIL (setmqspl, dspmqspl)
    ("SET POLICY(WALK.QL) SIGNALG(SHA256)", "POLICY"),
    ("DISPLAY POLICY(*)", "POLICY"),
    ("DELETE POLICY(WALK.QL)", "POLICY"),
]

REFUSED_AS_TYPING = ("CSQ9001E", "MQT0001E", "MQT0013E", "MQT0014E")


def test_the_list_names_each_ibm_command_once() -> None:
    pairs = [(verb, obj) for verb, obj, _ in ZOS_COMMANDS]
    assert len(pairs) == len(set(pairs)) == 126
    for verb, obj, line in ZOS_COMMANDS:
        assert line.startswith(f"{verb} {obj}"), line


@pytest.mark.parametrize("prefix", ["-CSQ1 ", ""], ids=["with CPF", "without CPF"])
def test_every_zos_command_is_built_or_answers_mqt0400e(mq: Any, prefix: str) -> None:
    """Without a CPF the current system is z/TPF: an MQSC verb still goes to the z/OS
    queue manager (SPEC section 3), never to mqtool's "Unknown command"."""
    mq("cmd", "-CSQ1 DEFINE QLOCAL(WALK.QL2)")
    wrong = {}
    for verb, obj, line in ZOS_COMMANDS:
        result = mq("cmd", prefix + line)
        lines = result.output.splitlines()
        first = lines[0] if lines else ""
        if first.startswith("MQT0400E"):
            assert f"'{verb} {obj}" in first, first  # it names the IBM command it stands for
            continue
        if first.startswith(REFUSED_AS_TYPING) or not lines:
            wrong[line] = result.output
    assert not wrong, wrong


# The forms of IBM's commands that a command of the list does not show: zos-last built them
# (SUSPEND and RESUME QMGR LOG are in the list itself).
OTHER_FORMS = ["DISPLAY THREAD(*) TYPE(REGIONS)", "DISPLAY THREAD(*) TYPE(*)", "DISPLAY THREAD(*) TYPE(INDOUBT)"]


def test_nothing_of_the_list_is_left_unbuilt(mq: Any) -> None:
    """Every command of IBM's list runs: the last of them (ALTER TRACE, DEFINE LOG,
    MAXSMSGS, RECOVER BSDS, RESET QMGR and TPIPE, RESOLVE INDOUBT, SUSPEND and RESUME QMGR
    LOG, DISPLAY THREAD TYPE(REGIONS)) are built."""
    mq("cmd", "-CSQ1 DEFINE QLOCAL(WALK.QL2)")
    unbuilt = set()
    for line in [*(line for _verb, _obj, line in ZOS_COMMANDS), *OTHER_FORMS]:
        first = (mq("cmd", "-CSQ1 " + line).output.splitlines() or [""])[0]
        if first.startswith("MQT0400E"):
            unbuilt.add(first.split("'")[1])
    assert unbuilt == set()


@pytest.mark.parametrize(("line", "word"), ELSEWHERE, ids=[line for line, _ in ELSEWHERE])
def test_what_only_other_platforms_have_is_refused_as_zos_refuses_it(mq: Any, line: str, word: str) -> None:
    for prefix in ("-CSQ1 ", ""):
        result = mq("cmd", prefix + line)
        lines = result.output.splitlines()
        assert lines[0] == f"CSQ9001E -CSQ1 CSQ9SCND '{word}' is invalid", result.output
        assert lines[-1].startswith("CSQ9023E -CSQ1 CSQ9SCND ' ") and lines[-1].endswith("ABNORMAL COMPLETION")
        assert result.exit_code == 10


def test_channel_types_zos_has_and_mqtool_does_not_build(mq: Any) -> None:
    for chltype in ("CLUSSDR", "CLUSRCVR"):
        result = mq("cmd", f"-CSQ1 DEFINE CHANNEL(WALK.{chltype}) CHLTYPE({chltype}) CONNAME('h(1414)')")
        assert result.output.splitlines() == [
            f"MQT0400E -CSQ1 CSQ9SCND 'DEFINE CHANNEL CHLTYPE({chltype})' is an IBM MQ for z/OS command: "
            "recognised, not available in mqtool",
            "CSQ9023E -CSQ1 CSQ9SCND ' DEFINE CHANNEL' ABNORMAL COMPLETION",
        ]
    # a type z/OS does not have is invalid, and the answer names every type z/OS has
    invalid = mq("cmd", "-CSQ1 DEFINE CHANNEL(WALK.X) CHLTYPE(MQTT)").output.splitlines()[0]
    assert invalid == (
        "CSQ9030E -CSQ1 CSQ9SCND 'CHLTYPE' value 'MQTT' is invalid, allowed: SDR, SVR, RCVR, RQSTR, SVRCONN, CLNTCONN; "
        "CLUSSDR, CLUSRCVR are not available in mqtool"
    )
