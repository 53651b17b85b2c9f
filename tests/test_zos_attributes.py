"""Every attribute IBM MQ 9.4 for z/OS documents (issue 18 item 5): DISPLAY ... ALL names
IBM's list, validation follows the keyword tables, export and apply carry every
attribute, and runCommandJSON returns the same attributes as the console.

IBM's lists below are the "Requested parameters" of each DISPLAY command in the IBM MQ 9.4
documentation (DISPLAY QMGR, DISPLAY QUEUE, DISPLAY CHANNEL, DISPLAY STGCLASS, DISPLAY
PROCESS, DISPLAY NAMELIST, DISPLAY TOPIC, DISPLAY SUB, DISPLAY AUTHINFO), keeping those
valid on z/OS, for the object type and channel type displayed. The documentation lists
them in alphabetical order; the console shows the name, the identity (TYPE, QSGDISP,
CHLTYPE ...) and then the rest in that order (mqtool-zos(7), DISPLAY).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqtool import tables
from mqtool.clock import Clock
from mqtool.commands.zos.builtin import settable
from mqtool.commands.zos.export import keyword_syntax
from mqtool.rest.service import RestService
from tests.conftest import FROZEN, MQ
from tests.test_apply import round_trip
from tests.test_rest_api import MQSC, Client, command_json, configure

# IBM MQ 9.4, DISPLAY QMGR (q086240_), the attributes valid on z/OS: the queue manager
# system, event control, distributed queuing (z/OS), cluster and publish/subscribe groups.
# Not on z/OS there, so not here: ACCTCONO, ACCTINT, ACCTMQI, ACTVCONO, ACTVTRC, AMQPCAP,
# CERTVPOL, CHAD, CHADEV, CRDATE, CRTIME, DISTL, IMGINTVL, IMGLOGLN, IMGRCOVO, IMGRCOVQ,
# IMGSCHED, INITKEY, LOGGEREV, SCHINIT, SCMDSERV, SSLCRYP, STATINT, STATMQI, XRCAP.
QMGR_ALL = [
    "ACCTQ",
    "ACTCHL",
    "ACTIVREC",
    "ADOPTCHK",
    "ADOPTMCA",
    "ADVCAP",
    "ALTDATE",
    "ALTTIME",
    "AUTHOREV",
    "BRIDGEEV",
    "CCSID",
    "CERTLABL",
    "CERTQSGL",
    "CFCONLOS",
    "CHADEXIT",
    "CHIADAPS",
    "CHIDISPS",
    "CHISERVP",
    "CHLAUTH",
    "CHLEV",
    "CLWLDATA",
    "CLWLEXIT",
    "CLWLLEN",
    "CLWLMRUC",
    "CLWLUSEQ",
    "CMDEV",
    "CMDLEVEL",
    "COMMANDQ",
    "CONFIGEV",
    "CONNAUTH",
    "CPILEVEL",
    "CUSTOM",
    "DEADQ",
    "DEFCLXQ",
    "DEFXMITQ",
    "DESCR",
    "DNSGROUP",
    "DNSWLM",
    "EXPRYINT",
    "GROUPUR",
    "IGQ",
    "IGQAUT",
    "IGQUSER",
    "INHIBTEV",
    "IPADDRV",
    "LOCALEV",
    "LSTRTMR",
    "LU62ARM",
    "LU62CHL",
    "LUGROUP",
    "LUNAME",
    "MARKINT",
    "MAXCHL",
    "MAXHANDS",
    "MAXMSGL",
    "MAXPROPL",
    "MAXPRTY",
    "MAXUMSGS",
    "MONACLS",
    "MONCHL",
    "MONQ",
    "OPORTMAX",
    "OPORTMIN",
    "PARENT",
    "PERFMEV",
    "PLATFORM",
    "PSCLUS",
    "PSMODE",
    "PSNPMSG",
    "PSNPRES",
    "PSRTYCNT",
    "PSSYNCPT",
    "QMID",
    "QSGNAME",
    "RCVTIME",
    "RCVTMIN",
    "RCVTTYPE",
    "REMOTEEV",
    "REPOS",
    "REPOSNL",
    "REVDNS",
    "ROUTEREC",
    "SCYCASE",
    "SPLCAP",
    "SQQMNAME",
    "SSLCRLNL",
    "SSLEV",
    "SSLFIPS",
    "SSLKEYR",
    "SSLRKEYC",
    "SSLTASKS",
    "STATACLS",
    "STATCHL",
    "STATQ",
    "STRSTPEV",
    "SUITEB",
    "SYNCPT",
    "TCPCHL",
    "TCPKEEP",
    "TCPNAME",
    "TCPSTACK",
    "TRAXSTR",
    "TRAXTBL",
    "TREELIFE",
    "TRIGINT",
    "VERSION",
]

# IBM MQ 9.4, DISPLAY QUEUE (q086270_), local queues on z/OS (not there: DISTL, IMGRCOVQ,
# MAXFSIZE, SCOPE; TPIPE is shown only for queues of the IMS bridge); STREAMQ, STRMQOS and
# CAPEXPRY are 9.4's; TRIGGER and HARDENBO and SHARE show as words (NOTRIGGER ...).
QLOCAL_ALL = [
    "ACCTQ",
    "ALTDATE",
    "ALTTIME",
    "BOQNAME",
    "BOTHRESH",
    "CAPEXPRY",
    "CFSTRUCT",
    "CLCHNAME",
    "CLUSNL",
    "CLUSTER",
    "CLWLPRTY",
    "CLWLRANK",
    "CLWLUSEQ",
    "CRDATE",
    "CRTIME",
    "CURDEPTH",
    "CUSTOM",
    "DEFBIND",
    "DEFPRESP",
    "DEFPRTY",
    "DEFPSIST",
    "DEFREADA",
    "DEFSOPT",
    "DEFTYPE",
    "DESCR",
    "GET",
    "HARDENBO",
    "INDXTYPE",
    "INITQ",
    "IPPROCS",
    "MAXDEPTH",
    "MAXMSGL",
    "MONQ",
    "MSGDLVSQ",
    "NPMCLASS",
    "OPPROCS",
    "PROCESS",
    "PROPCTL",
    "PUT",
    "QDEPTHHI",
    "QDEPTHLO",
    "QDPHIEV",
    "QDPLOEV",
    "QDPMAXEV",
    "QSVCIEV",
    "QSVCINT",
    "RETINTVL",
    "SHARE",
    "STATQ",
    "STGCLASS",
    "STREAMQ",
    "STRMQOS",
    "TRIGDATA",
    "TRIGDPTH",
    "TRIGGER",
    "TRIGMPRI",
    "TRIGTYPE",
    "USAGE",
]
# Model queues: no cluster attributes and no status (CURDEPTH, IPPROCS, OPPROCS).
QMODEL_ALL = sorted(
    set(QLOCAL_ALL)
    - {"CLUSNL", "CLUSTER", "CLWLPRTY", "CLWLRANK", "CLWLUSEQ", "DEFBIND", "CURDEPTH", "IPPROCS", "OPPROCS"}
)
# Alias and remote queues share these; each has a few of its own.
QUEUE_COMMON = ["ALTDATE", "ALTTIME", "CAPEXPRY", "CLUSNL", "CLUSTER", "CLWLPRTY", "CLWLRANK", "CRDATE", "CRTIME",
                "CUSTOM", "DEFBIND", "DEFPRESP", "DEFPRTY", "DEFPSIST", "DESCR", "PUT"]  # fmt: skip
QALIAS_ALL = sorted([*QUEUE_COMMON, "DEFREADA", "GET", "PROPCTL", "TARGET", "TARGTYPE"])
QREMOTE_ALL = sorted([*QUEUE_COMMON, "RNAME", "RQMNAME", "XMITQ"])

# IBM MQ 9.4, DISPLAY CHANNEL (q086140_) with the DEFINE CHANNEL syntax of each type on
# z/OS: what a sender, a receiver and a server-connection channel show.
CHANNEL_COMMON = ["ALTDATE", "ALTTIME", "CERTLABL", "COMPHDR", "COMPMSG", "DESCR", "HBINT", "KAINT", "MAXMSGL",
                  "MCAUSER", "MONCHL", "RCVDATA", "RCVEXIT", "SCYDATA", "SCYEXIT", "SENDDATA", "SENDEXIT", "SSLCIPH",
                  "SSLPEER", "TRPTYPE"]  # fmt: skip
CHANNEL_ALL = {
    "SDR": [*CHANNEL_COMMON, "BATCHHB", "BATCHINT", "BATCHLIM", "BATCHSZ", "CONNAME", "CONVERT", "DEFCDISP", "DISCINT",
            "LOCLADDR", "LONGRTY", "LONGTMR", "MCANAME", "MCATYPE", "MODENAME", "MSGDATA", "MSGEXIT", "NPMSPEED",
            "PROPCTL", "SEQWRAP", "SHORTRTY", "SHORTTMR", "STATCHL", "TPNAME", "USEDLQ", "XMITQ"],
    "RCVR": [*CHANNEL_COMMON, "BATCHSZ", "DEFCDISP", "MRDATA", "MREXIT", "MRRTY", "MRTMR", "MSGDATA", "MSGEXIT",
             "NPMSPEED", "PUTAUT", "SEQWRAP", "SSLCAUTH", "STATCHL", "USEDLQ"],
    "SVRCONN": [*CHANNEL_COMMON, "DEFCDISP", "DISCINT", "MAXINST", "MAXINSTC", "PUTAUT", "SHARECNV", "SSLCAUTH"],
}  # fmt: skip
# DISPLAY STGCLASS (with the IMS bridge's PASSTKTA, XCFGNAME, XCFMNAME), PROCESS, NAMELIST,
# TOPIC, SUB and AUTHINFO (IDPWOS) of IBM MQ 9.4 for z/OS.
OTHERS_ALL = {
    "STGCLASS(DEFAULT)": ["ALTDATE", "ALTTIME", "DESCR", "PASSTKTA", "PSID", "XCFGNAME", "XCFMNAME"],
    "PROCESS(P1)": ["ALTDATE", "ALTTIME", "APPLICID", "APPLTYPE", "DESCR", "ENVRDATA", "USERDATA"],
    "NAMELIST(N1)": ["ALTDATE", "ALTTIME", "DESCR", "NAMCOUNT", "NAMES", "NLTYPE"],
    "TOPIC(SYSTEM.BASE.TOPIC)": [
        "ALTDATE",
        "ALTTIME",
        "CAPEXPRY",
        "CLROUTE",
        "CLUSTER",
        "CUSTOM",
        "DEFPRESP",
        "DEFPRTY",
        "DEFPSIST",
        "DESCR",
        "DURSUB",
        "MDURMDL",
        "MNDURMDL",
        "NPMSGDLV",
        "PMSGDLV",
        "PROXYSUB",
        "PUB",
        "PUBSCOPE",
        "SUB",
        "SUBSCOPE",
        "TOPICSTR",
        "USEDLQ",
        "WILDCARD",
    ],
    "AUTHINFO(SYSTEM.DEFAULT.AUTHINFO.IDPWOS)": [
        "ADOPTCTX",
        "ALTDATE",
        "ALTTIME",
        "CHCKCLNT",
        "CHCKLOCL",
        "DESCR",
        "FAILDLAY",
    ],
}
IDENTITY = {
    "QMGR": ["QMNAME"],
    "QUEUE": ["QUEUE", "TYPE", "QSGDISP"],
    "CHANNEL": ["CHANNEL", "CHLTYPE", "QSGDISP"],
    "STGCLASS": ["STGCLASS", "QSGDISP"],
    "PROCESS": ["PROCESS", "QSGDISP"],
    "NAMELIST": ["NAMELIST", "QSGDISP"],
    "TOPIC": ["TOPIC", "TYPE", "QSGDISP"],
    "AUTHINFO": ["AUTHINFO", "AUTHTYPE", "QSGDISP"],
}
SWITCHES = {"NOTRIGGER": "TRIGGER", "NOHARDENBO": "HARDENBO", "NOSHARE": "SHARE", "NOSYNCPT": "SYNCPT"}


def shown(output: str) -> list[str]:
    """The attribute names of the display blocks of a response, in order (a switch under
    its own name: NOTRIGGER is TRIGGER)."""
    names = []
    for line in output.splitlines():
        match = re.fullmatch(r"([A-Z0-9]+)(\(.*\))?", line)
        if match and not line.startswith(("CSQ", "END ")):
            names.append(SWITCHES.get(match.group(1), match.group(1)))
    return names


def test_display_qmgr_all_is_ibms_list_in_ibms_order(mq: MQ) -> None:
    output = mq("cmd", "-CSQ1 DISPLAY QMGR ALL").output
    assert shown(output) == IDENTITY["QMGR"] + QMGR_ALL
    assert "SYNCPT\n" in output and "QMID(CSQ1_2021-03-09_15.41.22)" in output


@pytest.mark.parametrize(
    ("obj", "name", "expected"),
    [
        ("QLOCAL", "SYSTEM.DEFAULT.LOCAL.QUEUE", QLOCAL_ALL),
        ("QMODEL", "SYSTEM.DEFAULT.MODEL.QUEUE", QMODEL_ALL),
        ("QALIAS", "SYSTEM.DEFAULT.ALIAS.QUEUE", QALIAS_ALL),
        ("QREMOTE", "SYSTEM.DEFAULT.REMOTE.QUEUE", QREMOTE_ALL),
    ],
)
def test_display_queue_all_is_ibms_list_for_each_type(mq: MQ, obj: str, name: str, expected: list[str]) -> None:
    assert shown(mq("cmd", f"-CSQ1 DISPLAY {obj}({name}) ALL").output) == IDENTITY["QUEUE"] + expected
    # DISPLAY QUEUE shows each queue with its own type's list
    assert shown(mq("cmd", f"-CSQ1 DISPLAY QUEUE({name}) ALL").output) == IDENTITY["QUEUE"] + expected


@pytest.mark.parametrize("chltype", ["SDR", "RCVR", "SVRCONN"])
def test_display_channel_all_is_ibms_list_for_each_channel_type(mq: MQ, chltype: str) -> None:
    define = f"-CSQ1 DEFINE CHANNEL(C.{chltype}) CHLTYPE({chltype})"
    if chltype == "SDR":
        define += " CONNAME('127.0.0.1(1414)') XMITQ(XQ)"
    assert "NORMAL COMPLETION" in mq("cmd", define).output
    expected = IDENTITY["CHANNEL"] + sorted(CHANNEL_ALL[chltype])
    assert shown(mq("cmd", f"-CSQ1 DISPLAY CHANNEL(C.{chltype}) ALL").output) == expected


@pytest.mark.parametrize("target", sorted(OTHERS_ALL))
def test_display_all_of_the_other_objects_is_ibms_list(mq: MQ, target: str) -> None:
    mq("cmd", "-CSQ1 DEFINE PROCESS(P1)", "-CSQ1 DEFINE NAMELIST(N1)")
    obj = target.split("(")[0]
    assert shown(mq("cmd", f"-CSQ1 DISPLAY {target} ALL").output) == IDENTITY[obj] + OTHERS_ALL[target]


# -- validation ------------------------------------------------------------------------


def _settable_specs() -> list[tuple[str, tables.KeywordSpec]]:
    table = tables.load("zos")
    return [
        (obj.name, spec)
        for obj in table.objects.values()
        for spec in obj.keywords.values()
        if any(verb in spec.verbs for verb in ("DEFINE", "ALTER", "SET"))
    ]


INTS = [(obj, spec) for obj, spec in _settable_specs() if spec.type == "int" and spec.max is not None]
ENUMS = [(obj, spec) for obj, spec in _settable_specs() if spec.type in ("enum", "list") and spec.values]


@pytest.mark.parametrize(("obj", "spec"), INTS, ids=[f"{o}.{s.name}" for o, s in INTS])
def test_every_int_keyword_refuses_just_outside_its_range(obj: str, spec: tables.KeywordSpec) -> None:
    assert spec.min is not None and spec.max is not None
    for inside in (spec.min, spec.max):
        assert tables.convert(spec, str(inside))[1] is None, (obj, spec.name, inside)
    for outside in (spec.min - 1, spec.max + 1):
        if outside < 0:
            continue  # a minus sign is no digit: refused as text
        value, error = tables.convert(spec, str(outside))
        assert error is not None and error.kind == "bad_value", (obj, spec.name, outside, value)
    assert (tables.convert(spec, "-1")[1] is None) == ("-1" in spec.words)


@pytest.mark.parametrize(("obj", "spec"), ENUMS, ids=[f"{o}.{s.name}" for o, s in ENUMS])
def test_every_enum_keyword_refuses_a_word_not_in_it(obj: str, spec: tables.KeywordSpec) -> None:
    for value in spec.values:
        assert tables.convert(spec, value)[1] is None, (obj, spec.name, value)
    for abbrev, value in spec.value_abbrev.items():
        assert tables.convert(spec, abbrev)[0] in (value, [value])
    error = tables.convert(spec, "NOTAVALUE")[1]
    assert error is not None and error.kind == "bad_value"


@given(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", min_size=1, max_size=12))
def test_no_enum_takes_a_word_outside_its_values(word: str) -> None:
    for _obj, spec in ENUMS:
        _value, error = tables.convert(spec, word)
        allowed = {*spec.values, *spec.value_abbrev}
        assert (error is None) == (word.upper() in allowed), (spec.name, word)


def test_a_bad_value_is_refused_on_the_console_and_changes_nothing(mq: MQ) -> None:
    before = mq("cmd", "-CSQ1 DISPLAY QMGR ALL").output
    for command, keyword in [
        ("ALTER QMGR CHIADAPS(10000)", "CHIADAPS"),
        ("ALTER QMGR TREELIFE(59)", "TREELIFE"),
        ("ALTER QMGR IPADDRV(IPV5)", "IPADDRV"),
        ("ALTER QMGR CLWLEXIT(TOOLONGEXIT)", "CLWLEXIT"),
        ("ALTER QMGR SUITEB(NONE,128_BIT)", "SUITEB"),
    ]:
        output = mq("cmd", f"-CSQ1 {command}").output
        assert keyword in output and "ABNORMAL COMPLETION" in output, output
    assert mq("cmd", "-CSQ1 DISPLAY QMGR ALL").output == before
    # SYNCPT is shown, set by no command
    assert "CSQ9001E" in mq("cmd", "-CSQ1 ALTER QMGR NOSYNCPT").output


def test_which_verbs_and_channel_types_take_an_attribute(mq: MQ) -> None:
    out = mq("cmd", "-CSQ1 DEFINE CHANNEL(S1) CHLTYPE(SVRCONN) BATCHHB(5)").output
    assert "BATCHHB(5) NOT ALLOWED - NOT VALID FOR CHLTYPE(SVRCONN)" in out
    out = mq("cmd", "-CSQ1 DEFINE CHANNEL(R1) CHLTYPE(RCVR) MAXINST(5)").output
    assert "NOT VALID FOR CHLTYPE(RCVR)" in out
    out = mq("cmd", "-CSQ1 DEFINE CHANNEL(R1) CHLTYPE(RCVR) CLUSTER(C1)").output
    assert "NOT VALID FOR CHLTYPE(RCVR)" in out
    out = mq("cmd", "-CSQ1 DEFINE CHANNEL(R1) CHLTYPE(RCVR) MSGEXIT(A,B,C,D,E,F,G,H,I)").output
    assert "CSQ9030E" in out and "at most 8 values" in out
    assert "CSQ9001E" in mq("cmd", "-CSQ1 DEFINE QMODEL(M1) CLUSTER(C1)").output
    assert "CSQ9001E" in mq("cmd", "-CSQ1 DEFINE QALIAS(A1) BOTHRESH(3)").output
    assert "CSQ9001E" in mq("cmd", "-CSQ1 ALTER QMGR CRDATE(2021-01-01)").output
    done = mq("cmd", "-CSQ1 DEFINE CHANNEL(R1) CHLTYPE(RCVR) MSGEXIT(EX1,EX2) MSGDATA('a b',C) PUTAUT(CTX)").output
    assert "NORMAL COMPLETION" in done
    shown_lines = mq("cmd", "-CSQ1 DISPLAY CHANNEL(R1) MSGEXIT MSGDATA PUTAUT").output.splitlines()
    assert {"MSGEXIT(EX1,EX2)", "MSGDATA(a b,C)", "PUTAUT(CTX)"} <= set(shown_lines)


# -- every attribute away from its default: export and apply --------------------------


def away(spec: tables.KeywordSpec) -> Any:
    """A valid value other than the keyword's default."""
    if spec.type == "switch":
        return "NO" if spec.default == "YES" else "YES"
    if spec.type == "int":
        assert spec.min is not None and spec.max is not None
        return spec.max if spec.default != spec.max else spec.min
    if spec.type == "enum":
        return next(value for value in spec.values if value != spec.default)
    if spec.type == "list" and spec.values:
        return [next(value for value in spec.values if [value] != spec.default)]
    if spec.type == "list":
        return ["EXIT1", "EXIT2"]
    if spec.type == "name":
        return "SOME.NAME"
    return "x" * min(spec.max or 8, 3)


def every_attribute(obj: str, name: str, fixed: str = "", chltype: str | None = None) -> str:
    """`DEFINE obj(name) ...` with every attribute that has no behaviour set away from its
    default (those with behaviour have rules between objects; the export tests cover them)."""
    spec = tables.load("zos").objects[obj]
    words = []
    for keyword in settable(obj):
        row = spec.keywords[keyword]
        if not row.shown_only or (chltype and chltype not in row.only_for.get("CHLTYPE", (chltype,))):
            continue
        if row.type == "enum" and len(row.values) == 1:
            continue  # MCANAME: blank only
        words.append(keyword_syntax(obj, keyword, away(row)))
    verb = "ALTER" if obj == "QMGR" else "DEFINE"
    target = "QMGR" if obj == "QMGR" else f"{obj}({name})"
    return f"-CSQ1 {verb} {target} {fixed} {' '.join(words)}".replace("  ", " ")


EVERY = (
    every_attribute("QMGR", ""),
    every_attribute("QLOCAL", "ALL.LOCAL"),
    every_attribute("QMODEL", "ALL.MODEL"),
    every_attribute("QALIAS", "ALL.ALIAS", "TARGET(ALL.LOCAL)"),
    every_attribute("QREMOTE", "ALL.REMOTE", "RNAME(R) RQMNAME(QM2)"),
    every_attribute("STGCLASS", "ALLSTC"),
    every_attribute("CHANNEL", "ALL.SDR", "CHLTYPE(SDR) CONNAME('h(1414)') XMITQ(XQ)", "SDR"),
    every_attribute("CHANNEL", "ALL.RCVR", "CHLTYPE(RCVR)", "RCVR"),
    every_attribute("CHANNEL", "ALL.SVRCONN", "CHLTYPE(SVRCONN)", "SVRCONN"),
)
EVERY_DISPLAYS = (
    "DIS QMGR ALL",
    "DIS Q(ALL.*) ALL",
    "DIS STGCLASS(ALLSTC) ALL",
    "DIS CHANNEL(ALL.*) ALL",
)


def test_every_attribute_set_displays_exports_and_replays(mq: MQ, tmp_path: Path) -> None:
    for command in EVERY:
        output = mq("cmd", command).output
        assert "NORMAL COMPLETION" in output, (command, output)
    qmgr = mq("cmd", "-CSQ1 DIS QMGR ALL").output
    assert "SUITEB(128_BIT)" in qmgr and "TREELIFE(604000)" in qmgr and "CHIADAPS(9999)" in qmgr
    channel = mq("cmd", "-CSQ1 DIS CHANNEL(ALL.SDR) ALL").output
    assert "MSGEXIT(EXIT1,EXIT2)" in channel and "BATCHLIM(999999)" in channel
    # export as commands and replay them on a new store: the same displays
    script = mq("--system", "CSQ1", "export", "--format", "commands").output
    for command in EVERY:
        for word in command.split()[3:]:
            if not word.startswith(("CONNAME", "XMITQ", "CHLTYPE", "TARGET", "RNAME", "RQMNAME")):
                assert word in script, (word, command)
    replay = MQ(tmp_path / "replay")
    path = tmp_path / "export.mqsc"
    path.write_text(script, encoding="utf-8")
    report = replay("--system", "TPF1", "run", "-e", str(path)).output
    assert report.splitlines()[-1] == "All valid MQSC commands were processed.", report
    for display in EVERY_DISPLAYS:
        assert replay("cmd", f"-CSQ1 {display}").output == mq("cmd", f"-CSQ1 {display}").output, display


def test_every_attribute_round_trips_through_apply(mq: MQ, tmp_path: Path) -> None:
    for command in EVERY:
        assert "NORMAL COMPLETION" in mq("cmd", command).output, command
    target = MQ(tmp_path / "target")
    round_trip(mq, target, tmp_path)
    for display in EVERY_DISPLAYS:
        assert target("cmd", f"-CSQ1 {display}").output == mq("cmd", f"-CSQ1 {display}").output, display


# -- runCommandJSON ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("qualifier", "name", "console"),
    [
        ("qmgr", None, "DISPLAY QMGR ALL"),
        ("qlocal", "SYSTEM.DEFAULT.LOCAL.QUEUE", "DISPLAY QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) ALL"),
        ("channel", "SYSTEM.DEF.SENDER", "DISPLAY CHANNEL(SYSTEM.DEF.SENDER) ALL"),
        ("stgclass", "DEFAULT", "DISPLAY STGCLASS(DEFAULT) ALL"),
    ],
)
def test_run_command_json_all_returns_the_console_attributes(
    state_dir: Path, qualifier: str, name: str | None, console: str
) -> None:
    configure(state_dir)
    with RestService(state_dir, Clock.from_setting(FROZEN)) as service:
        client = Client(service.port)
        document = client.mqsc(command_json("display", qualifier, name, responseParameters=["all"]), MQSC)
        text = client.run(console)["commandResponse"]
    assert document["overallCompletionCode"] == 0, document
    parameters = document["commandResponse"][0]["parameters"]
    lines = [line for item in text for line in item["text"]]
    console_names = [name.lower() for name in shown("\n".join(lines))]
    # the console's attributes, in its order, under their lower-case MQSC names
    assert list(parameters) == console_names
    if qualifier == "qmgr":
        assert parameters["chiadaps"] == 8 and parameters["suiteb"] == ["NONE"] and parameters["syncpt"] == "yes"
        assert json.dumps(parameters)  # plain JSON values


# -- status -----------------------------------------------------------------------------

# IBM MQ 9.4, DISPLAY QSTATUS TYPE(QUEUE) on z/OS (q086260_): CURDEPTH, IPPROCS, LGETDATE,
# LGETTIME, LPUTDATE, LPUTTIME, MONQ, MSGAGE, OPPROCS, QSGDISP, QTIME, UNCOM (MEDIALOG is
# not on z/OS).
QSTATUS_ALL = {"CURDEPTH", "IPPROCS", "LGETDATE", "LGETTIME", "LPUTDATE", "LPUTTIME", "MONQ", "MSGAGE", "OPPROCS",
               "QSGDISP", "QTIME", "UNCOM"}  # fmt: skip


def test_queue_status_shows_monq_and_the_time_messages_spent_on_the_queue(mq: MQ) -> None:
    mq("cmd", "-CSQ1 DEFINE QLOCAL(Q1) MONQ(HIGH)", "-CSQ1 DEFINE QLOCAL(Q2)")
    for queue in ("Q1", "Q2"):
        assert mq("--system", "CSQ1", "put", queue, "--data", "x").exit_code == 0
        got = mq("--system", "CSQ1", "get", queue, clock="2021-03-09T15:41:25Z")
        assert got.exit_code == 0, got.output
    output = mq("cmd", "-CSQ1 DISPLAY QSTATUS(Q1) ALL", clock="2021-03-09T15:41:25Z").output
    assert set(shown(output)) == {"QSTATUS", "TYPE"} | QSTATUS_ALL
    assert "MONQ(HIGH)" in output and "QTIME(3000000,3000000)" in output  # microseconds
    # MONQ(QMGR) takes the queue manager's, OFF by default: no QTIME then
    quiet = mq("cmd", "-CSQ1 DISPLAY QSTATUS(Q2) MONQ QTIME").output
    assert "MONQ(OFF)" in quiet and "QTIME( )" in quiet
    mq("cmd", "-CSQ1 ALTER QMGR MONQ(LOW)")
    assert "MONQ(LOW)" in mq("cmd", "-CSQ1 DISPLAY QSTATUS(Q2) MONQ").output
    mq("cmd", "-CSQ1 ALTER QMGR MONQ(NONE)")
    assert "MONQ(OFF)" in mq("cmd", "-CSQ1 DISPLAY QSTATUS(Q1) MONQ").output
