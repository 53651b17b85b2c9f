"""The last commands of IBM's z/OS list (issue 18 items 4, 6 and 9): what the golden
transcript zos_last_commands cannot show: a STAT trace altered changes the statistics
collected, added log data sets survive a restart and join the ring only when every
copy has one, client-connection channels round-trip through export and apply,
runCommandJSON takes the commands, and hostile values change nothing. (SET, DISPLAY and
DELETE POLICY are Multiplatforms MQSC, refused on z/OS: test_zos_unavailable.)"""

from __future__ import annotations

from typing import Any

from mqtool.clock import Clock
from mqtool.engine.zos import stats
from mqtool.state import Store
from tests.conftest import FROZEN
from tests.test_rest_api import MQSC, Client, command_json
from tests.test_rest_api import client as client  # the REST stand-in's fixture


def zos(mq: Any, *commands: str, clock: str = FROZEN) -> str:
    return str(mq("--system", "CSQ1", "cmd", *commands, clock=clock).output)


def test_altering_a_stat_trace_changes_the_statistics_collected(mq: Any) -> None:
    zos(mq, "ALTER QMGR STATQ(OFF)", "DEFINE QLOCAL(S1) STATQ(ON)", "START TRACE(STAT) CLASS(5)")
    store = Store.open(mq.state_dir)

    def records() -> list[tuple[float, float]]:
        with store.transaction(write=False) as tx:
            return [(start, end) for start, end, _ in stats.queue_records(tx, "CSQ1", "S1")]

    try:
        # Class 5 leaves the trace: the queue statistics end, their interval is written.
        out = zos(mq, "ALTER TRACE(STAT) TNO(2) CLASS(1)", clock="2021-03-09T15:41:32Z")
        assert "CSQW130I -CSQ1 CSQWVCM1 'STAT' TRACE STARTED, ASSIGNED TRACE NUMBER 02" in out
        start, end = Clock.from_setting(FROZEN).timestamp(), Clock.from_setting("2021-03-09T15:41:32Z").timestamp()
        assert records() == [(start, end)]
        with store.transaction(write=False) as tx:
            record = tx.get_object("CSQ1", "QMGR", "CSQ1")
            assert record is not None and stats.stat_classes(record) == {1}
        # Class 5 back: a new interval begins, and nothing is written until it ends.
        zos(mq, "ALTER TRACE(S) TNO(2) CLASS(1,5)", clock="2021-03-09T15:41:42Z")
        zos(mq, "STOP TRACE(STAT)", clock="2021-03-09T15:41:52Z")
        assert records()[-1] == (
            Clock.from_setting("2021-03-09T15:41:42Z").timestamp(),
            Clock.from_setting("2021-03-09T15:41:52Z").timestamp(),
        )
    finally:
        store.close()


def test_alter_trace_keeps_what_it_is_not_given(mq: Any) -> None:
    zos(mq, "START TRACE(A) CLASS(2) DEST(GTF) USERID(PAYUSER) COMMENT('before')")
    zos(mq, "ALTER TRACE(ACCTG) TNO(02) CLASS(1,3)")
    out = zos(mq, "DISPLAY TRACE(ACCTG)")
    assert "02  ACCTG 01,03        GTF          PAYUSER *" in out, out
    # STOP TRACE needs the values it runs with now
    assert "CSQW131I" in zos(mq, "STOP TRACE(A) CLASS(1,3) DEST(GTF) USERID(PAYUSER)")


def test_added_log_data_sets_survive_a_restart_and_need_every_copy(mq: Any) -> None:
    out = zos(mq, "DEFINE LOG(CSQ1.LOGCOPY1.DS04) COPY(1)")
    assert "MQT0483I -CSQ1 CSQJC001 CSQ1.LOGCOPY1.DS04 ADDED TO ACTIVE LOG COPY 1, WHICH NOW HAS 4 DATA SETS" in out
    # Only copy 1 has a fourth data set: the dual log's ring still has three places.
    assert "Full logs to offload - 0 of 6" in zos(mq, "DISPLAY LOG")
    zos(mq, "STOP QMGR", "START QMGR", clock="2021-03-09T15:45:00Z")
    zos(mq, "DEFINE LOG(CSQ1.LOGCOPY2.DS04) COPY(2)", clock="2021-03-09T15:45:00Z")
    zos(mq, "ARCHIVE LOG", "ARCHIVE LOG", "ARCHIVE LOG", clock="2021-03-09T16:00:00Z")
    shown = zos(mq, "DISPLAY LOG", clock="2021-03-09T16:00:00Z")
    assert " 1      0  NO          NO        CSQ1.LOGCOPY1.DS04" in shown, shown
    assert " 2      0  NO          NO        CSQ1.LOGCOPY2.DS04" in shown
    assert "of 8\n" in shown
    console = mq("--system", "CSQ1", "console").output
    assert "CSQJ001I -CSQ1 CURRENT COPY 1 ACTIVE LOG DATA SET IS DSNAME=CSQ1.LOGCOPY1.DS04" in console, console


def test_single_logging_takes_no_copy_2(mq: Any) -> None:
    assert mq("system", "alter", "CSQ1", "--log", "TWOACTV=NO").exit_code == 0
    out = zos(mq, "DEFINE LOG(CSQ1.LOGCOPY2.DS04) COPY(2)")
    assert out.splitlines()[0] == (
        "MQT0480E -CSQ1 CSQJC001 DEFINE LOG NOT PROCESSED - COPY(2) NEEDS DUAL ACTIVE LOGGING, TWOACTV IS NO"
    )
    assert mq("system", "alter", "CSQ1", "--log", "TWOBSDS=NO").exit_code == 0
    assert zos(mq, "RECOVER BSDS").splitlines()[0].startswith("MQT0484E -CSQ1 CSQJC001 RECOVER BSDS NOT PROCESSED")


def test_a_ring_holds_310_data_sets(mq: Any) -> None:
    commands = [f"DEFINE LOG(CSQ1.ADDED.DS{n:03d}) COPY(1)" for n in range(4, 311)]
    out = zos(mq, *commands)
    assert out.count("MQT0483I") == 307 and "WHICH NOW HAS 310 DATA SETS" in out
    refused = zos(mq, "DEFINE LOG(CSQ1.ADDED.DS311) COPY(1)").splitlines()[0]
    assert refused.startswith("MQT0482E -CSQ1 CSQJC001 DEFINE LOG NOT PROCESSED - COPY 1 HAS 310")


def test_client_channels_round_trip_through_export(mq: Any, tmp_path: Any) -> None:
    zos(
        mq,
        "DEFINE CHANNEL(CSQ1.CLIENT) CHLTYPE(CLNTCONN) CONNAME('h1(1414),h2(1414)') QMNAME('*GROUP') CLNTWGHT(9)",
        "DEFINE MAXSMSGS(777)",
    )
    exported = mq("export", "--system", "CSQ1").output
    assert "CHLTYPE(CLNTCONN)" in exported and "MAXUMSGS(777)" in exported
    script = tmp_path / "export.mqsc"
    script.write_text(exported)
    other = tmp_path / "other"
    replay = mq("--state", str(other), "run", str(script))
    assert replay.exit_code == 0, replay.output
    again = mq("--state", str(other), "export", "--system", "CSQ1").output
    assert again == exported
    # The YAML document holds the channel; apply takes it as it is.
    document = mq("export", "--system", "CSQ1", "--format", "yaml").output
    assert "CSQ1.CLIENT" in document
    (tmp_path / "doc.yaml").write_text(document)
    plan = mq("apply", str(tmp_path / "doc.yaml"), "--dry-run")
    assert plan.exit_code == 0, plan.output
    third = tmp_path / "third"
    applied = mq("--state", str(third), "apply", str(tmp_path / "doc.yaml"))
    assert applied.exit_code == 0, applied.output
    shown = mq("--state", str(third), "--system", "CSQ1", "cmd", "DISPLAY CHANNEL(CSQ1.CLIENT) CLNTWGHT QMNAME").output
    assert "CHLTYPE(CLNTCONN)" in shown and "CLNTWGHT(9)" in shown and "QMNAME(*GROUP)" in shown, shown


def test_run_command_json_takes_the_new_commands(client: Client) -> None:
    def run(command: str, qualifier: str, name: str | None = None, **parameters: Any) -> Any:
        more = {"parameters": parameters} if parameters else {}
        return client.mqsc(command_json(command, qualifier, name, **more))

    assert run("define", "maxsmsgs", "250")["overallCompletionCode"] == 0
    shown = run("display", "maxsmsgs")
    assert shown["commandResponse"][0]["parameters"] == {"maxsmsgs": 250}, shown
    resolved = run("resolve", "indoubt", "CICS1", action="COMMIT", nid="*")
    assert resolved["overallCompletionCode"] == 0, resolved
    assert run("define", "log", "CSQ1.LOGCOPY1.DS04", copy=1)["overallCompletionCode"] == 0
    status, refused = client.json(
        "POST", MQSC, {"type": "runCommandJSON", "command": "reset", "qualifier": "tpipe", "name": "T1",
                       "parameters": {"xcfmname": "IMS1"}},
    )  # fmt: skip
    assert refused["overallCompletionCode"] == 2, (status, refused)
    # SET, DISPLAY and DELETE POLICY are Multiplatforms MQSC: refused as z/OS refuses them
    for command in ("set", "display", "delete"):
        policy = run(command, "policy", "PAY.Q", **({"signalg": "SHA256"} if command == "set" else {}))
        assert policy["overallCompletionCode"] == 2, policy
        assert policy["commandResponse"][0]["message"][0].startswith("CSQ9001E"), policy


def test_hostile_values_are_refused_and_change_nothing(mq: Any) -> None:
    for line in (
        "DEFINE LOG(" + "A." * 30 + "B) COPY(1)",
        "DEFINE LOG('CSQ1.LOG DS') COPY(1)",
        "DEFINE MAXSMSGS(99999999999999999999)",
        "RESET TPIPE(T1) XCFMNAME(IMS1) SENDSEQ(123456789)",
        "RESOLVE INDOUBT(CICS1) ACTION(COMMIT) NID('a.b.c')",
        "ALTER TRACE(STAT) TNO(33)",
    ):
        result = mq("--system", "CSQ1", "cmd", line)
        assert result.exit_code != 0, (line, result.output)
        assert result.output.splitlines()[-1].endswith("ABNORMAL COMPLETION"), (line, result.output)
        assert "internal error" not in result.output
    assert "MAXSMSGS(10000)" in zos(mq, "DISPLAY MAXSMSGS")
    assert "Full logs to offload - 0 of 6" in zos(mq, "DISPLAY LOG")
