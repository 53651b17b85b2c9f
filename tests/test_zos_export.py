"""The z/OS export hook: `commands(tx, system)` writes MQSC that, replayed on a new
queue manager, recreates the same definitions (the same DISPLAY output)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mqtool.cli.main import main_group
from mqtool.commands.zos.export import commands, value_syntax
from mqtool.state import Store

FROZEN = "2021-03-09T15:41:22Z"
DISPLAYS = (
    "DIS QMGR",
    "DIS Q(*) ALL",
    "DIS STC(*) ALL",
    "DIS CHL(*) ALL",
    "DIS USAGE TYPE(PAGESET)",
    "DIS PROCESS(*) ALL",
    "DIS NAMELIST(*) ALL",
)
SETUP = (
    "DEFINE BUFFPOOL(4) BUFFERS(2000) LOCATION(ABOVE) PAGECLAS(FIXED4KB)",
    "DEFINE PSID(04) BUFFPOOL(4) PAGES(1000) EXPAND(NONE)",
    "ALTER PSID(02) EXPAND(SYSTEM)",
    "DEFINE STGCLASS(SMALL) PSID(4) DESCR('Small page set')",
    "ALTER STGCLASS(SYSTEMST) DESCR('changed default')",
    "DEFINE QLOCAL(QUEUE1) DESCR('It''s the source') MAXDEPTH(5000)",
    "DEFINE QLOCAL(QUEUE2) STGCLASS(SMALL) CAPEXPRY(12000)",
    "ALTER QLOCAL(QUEUE1) STREAMQ(QUEUE2) STRMQOS(MUSTDUP)",
    "DEFINE QLOCAL(XMIT1) USAGE(XMITQ) STGCLASS(SMALL)",
    "DEFINE QREMOTE(RQ) RNAME(THEIRQ) RQMNAME(QM2) XMITQ(XMIT1)",
    "DEFINE QALIAS('lower.alias') TARGET(QUEUE1)",
    "DEFINE QMODEL(MODEL1) DEFTYPE(PERMDYN) STREAMQ(QUEUE2)",
    "DEFINE CHANNEL(TO.QM2) CHLTYPE(SDR) CONNAME('qm2.example.com(1414)') XMITQ(XMIT1) COMPMSG(ZLIBFAST,RLE)",
    "DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN) SHARECNV(5) COMPMSG(ANY)",
    "ALTER QMGR EXPRYINT(300) STATQ(ON) DESCR('Test')",
    "ALTER QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) MAXDEPTH(5000) STGCLASS(SMALL)",
    "DELETE QREMOTE(SYSTEM.DEFAULT.REMOTE.QUEUE)",
    "DELETE CHANNEL(SYSTEM.DEF.RECEIVER)",
    "DELETE QLOCAL(SYSTEM.DEAD.QUEUE)",
    "DEFINE QALIAS(SYSTEM.DEAD.QUEUE) TARGET(QUEUE1)",
    "DEFINE QLOCAL(AFTER.DEFAULTS)",
    "DELETE STGCLASS(REMOTE)",
    "DELETE PSID(03)",
    "DEFINE PROCESS(PAYPROC) APPLICID('/usr/bin/pay') APPLTYPE(UNIX) USERDATA('u d')",
    "DEFINE NAMELIST(QUEUES) NAMES(QUEUE1,'lower.q') NLTYPE(QUEUE)",
    "DEFINE QLOCAL(INITQ)",
    "DEFINE QLOCAL(TRIGGERED) TRIGGER TRIGTYPE(DEPTH) TRIGDPTH(5) PROCESS(PAYPROC) INITQ(INITQ) TRIGDATA('td')",
    "SET LOG ZHYLINK(YES)",
)


def run(state: Path, *args: str) -> str:
    result = CliRunner().invoke(main_group, ["--state", str(state), "--clock", FROZEN, *args], catch_exceptions=False)
    return result.output


def exported(state: Path, all_attributes: bool = False) -> list[str]:
    store = Store.open(state)
    with store.transaction(write=False) as tx:
        system = tx.get_system("CSQ1")
        assert system is not None
        lines = commands(tx, system, all_attributes=all_attributes)
    store.close()
    return lines


@pytest.mark.parametrize("all_attributes", [False, True])
def test_replay_gives_the_same_displays(tmp_path: Path, all_attributes: bool) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    run(first, "--system", "CSQ1", "cmd", *SETUP)
    lines = exported(first, all_attributes)
    script = tmp_path / "export.mqsc"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = run(second, "--system", "TPF1", "run", "-e", str(script))
    assert report.splitlines()[-2:] == [
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
    ]
    for display in DISPLAYS:
        assert run(second, "cmd", f"-CSQ1 {display}") == run(first, "cmd", f"-CSQ1 {display}"), display


def test_exported_commands(tmp_path: Path) -> None:
    assert "ABNORMAL" not in run(tmp_path, "--system", "CSQ1", "cmd", *SETUP)
    assert exported(tmp_path) == [
        "-CSQ1 DEFINE BUFFPOOL(04) BUFFERS(2000) LOCATION(ABOVE) PAGECLAS(FIXED4KB) REPLACE",
        "-CSQ1 ALTER PSID(02) EXPAND(SYSTEM)",
        "-CSQ1 DEFINE PSID(04) BUFFPOOL(4) EXPAND(NONE) PAGES(1000)",
        "-CSQ1 DEFINE STGCLASS(SMALL) PSID(4) DESCR('Small page set') REPLACE",
        "-CSQ1 DEFINE PROCESS(PAYPROC) APPLICID('/usr/bin/pay') APPLTYPE(UNIX) USERDATA('u d') REPLACE",
        "-CSQ1 DEFINE NAMELIST(QUEUES) NLTYPE(QUEUE) NAMES(QUEUE1,'lower.q') REPLACE",
        "-CSQ1 ALTER QMGR DESCR('Test') EXPRYINT(300) STATQ(ON)",
        "-CSQ1 DELETE QLOCAL(SYSTEM.DEAD.QUEUE)",
        "-CSQ1 DELETE QREMOTE(SYSTEM.DEFAULT.REMOTE.QUEUE)",
        "-CSQ1 DELETE CHANNEL(SYSTEM.DEF.RECEIVER)",
        "-CSQ1 DEFINE QLOCAL(AFTER.DEFAULTS) STGCLASS(SMALL) MAXDEPTH(5000) REPLACE",
        "-CSQ1 DEFINE QLOCAL(INITQ) STGCLASS(SMALL) MAXDEPTH(5000) REPLACE",
        "-CSQ1 DEFINE QLOCAL(QUEUE1) DESCR('It''s the source') MAXDEPTH(5000) STREAMQ(QUEUE2) STRMQOS(MUSTDUP) REPLACE",
        "-CSQ1 DEFINE QLOCAL(QUEUE2) STGCLASS(SMALL) CAPEXPRY(12000) REPLACE",
        "-CSQ1 DEFINE QLOCAL(TRIGGERED) TRIGGER TRIGTYPE(DEPTH) TRIGDPTH(5) TRIGDATA('td') PROCESS(PAYPROC) "
        "INITQ(INITQ) STGCLASS(SMALL) MAXDEPTH(5000) REPLACE",
        "-CSQ1 DEFINE QLOCAL(XMIT1) USAGE(XMITQ) STGCLASS(SMALL) REPLACE",
        "-CSQ1 DEFINE QMODEL(MODEL1) STREAMQ(QUEUE2) DEFTYPE(PERMDYN) REPLACE",
        "-CSQ1 DEFINE QALIAS(SYSTEM.DEAD.QUEUE) TARGET(QUEUE1) REPLACE",
        "-CSQ1 DEFINE QALIAS('lower.alias') TARGET(QUEUE1) REPLACE",
        "-CSQ1 DEFINE QREMOTE(RQ) RNAME(THEIRQ) RQMNAME(QM2) XMITQ(XMIT1) REPLACE",
        "-CSQ1 DEFINE CHANNEL(APP.SVRCONN) CHLTYPE(SVRCONN) COMPMSG(ANY) SHARECNV(5) REPLACE",
        "-CSQ1 DEFINE CHANNEL(TO.QM2) CHLTYPE(SDR) CONNAME('qm2.example.com(1414)') XMITQ(XMIT1) "
        "COMPMSG(ZLIBFAST,RLE) REPLACE",
        "-CSQ1 ALTER STGCLASS(SYSTEMST) DESCR('changed default')",
        "-CSQ1 ALTER QLOCAL(SYSTEM.DEFAULT.LOCAL.QUEUE) STGCLASS(SMALL) MAXDEPTH(5000)",
        "-CSQ1 DELETE STGCLASS(REMOTE)",
        "-CSQ1 DELETE PSID(03)",
        "* SET LOG values in effect are run-time, lost at restart, and not exported: ZHYLINK(YES) ZHYWRITE(YES)",
    ]


def test_a_new_queue_manager_exports_nothing(tmp_path: Path) -> None:
    run(tmp_path, "init")
    assert exported(tmp_path) == []


def test_values_are_written_as_mqsc_takes_them_back() -> None:
    assert value_syntax("QLOCAL", "DESCR", "") == "''"
    assert value_syntax("QLOCAL", "STREAMQ", "") == "''"
    assert value_syntax("QLOCAL", "STREAMQ", "Q.lower") == "'Q.lower'"
    assert value_syntax("QLOCAL", "MAXDEPTH", 10) == "10"
    assert value_syntax("QLOCAL", "CAPEXPRY", "NOLIMIT") == "NOLIMIT"
    assert value_syntax("CHANNEL", "COMPMSG", ["ZLIBHIGH", "RLE"]) == "ZLIBHIGH,RLE"
    assert value_syntax("CHANNEL", "CONNAME", "Host(1414)") == "'Host(1414)'"


def test_blank_values_that_were_set_replay(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    run(
        first,
        "--system",
        "CSQ1",
        "cmd",
        "ALTER STGCLASS(DEFAULT) DESCR('')",
        "ALTER QA(SYSTEM.DEFAULT.ALIAS.QUEUE) TARGET(X)",
    )
    lines = exported(first)
    assert lines == [
        "-CSQ1 ALTER STGCLASS(DEFAULT) DESCR('')",
        "-CSQ1 ALTER QALIAS(SYSTEM.DEFAULT.ALIAS.QUEUE) TARGET(X)",
    ]
    run(second, "cmd", *lines)
    assert run(second, "cmd", "-CSQ1 DIS STC(DEFAULT) DESCR") == run(first, "cmd", "-CSQ1 DIS STC(DEFAULT) DESCR")


def test_all_attributes_writes_every_attribute(tmp_path: Path) -> None:
    run(tmp_path, "--system", "CSQ1", "cmd", "DEFINE QLOCAL(FULL)")
    define = next(line for line in exported(tmp_path, all_attributes=True) if "QLOCAL(FULL)" in line)
    assert define == (
        "-CSQ1 DEFINE QLOCAL(FULL) DESCR('') PUT(ENABLED) GET(ENABLED) DEFPRTY(0) DEFSOPT(EXCL) NOTRIGGER "
        "TRIGTYPE(FIRST) TRIGDPTH(1) TRIGMPRI(0) TRIGDATA('') PROCESS('') INITQ('') DEFPSIST(NO) USAGE(NORMAL) "
        "STGCLASS(DEFAULT) MAXDEPTH(999999999) MAXMSGL(4194304) CAPEXPRY(NOLIMIT) CUSTOM('') STREAMQ('') "
        "STRMQOS(BESTEF) STATQ(QMGR) ACCTQ(QMGR) BOQNAME('') BOTHRESH(0) CFSTRUCT('') CLCHNAME('') CLUSNL('') "
        "CLUSTER('') CLWLPRTY(0) CLWLRANK(0) CLWLUSEQ(QMGR) DEFBIND(OPEN) DEFPRESP(SYNC) DEFREADA(NO) NOHARDENBO "
        "INDXTYPE(NONE) MONQ(QMGR) MSGDLVSQ(PRIORITY) NPMCLASS(NORMAL) PROPCTL(COMPAT) QDEPTHHI(80) QDEPTHLO(40) "
        "QDPHIEV(DISABLED) QDPLOEV(DISABLED) QDPMAXEV(ENABLED) QSVCIEV(NONE) QSVCINT(999999999) RETINTVL(999999999) "
        "SHARE REPLACE"
    )
