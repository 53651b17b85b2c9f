"""`mqtool cmd` takes operator commands as arguments, including ones that start with a
CPF dash and contain letters that click would read as short options (-h)."""

from __future__ import annotations


def test_cpf_command_with_lower_case_h_is_a_command(mq) -> None:  # type: ignore[no-untyped-def]
    result = mq("cmd", "-CSQ1 DEFINE QLOCAL(X) DESCR('hello') REPLACE", "-CSQ1 DISPLAY QLOCAL(X) DESCR")
    assert result.exit_code == 0, result.output
    assert "CSQ9022I -CSQ1 CSQMAQLC ' DEFINE QLOCAL' NORMAL COMPLETION" in result.output
    assert "DESCR(hello)" in result.output
    assert "Usage:" not in result.output


def test_lone_help_still_shows_help(mq) -> None:  # type: ignore[no-untyped-def]
    result = mq("cmd", "-h")
    assert result.exit_code == 0
    assert "Usage:" in result.output and "cmd [OPTIONS] COMMANDS..." in result.output


def test_conname_is_read_when_the_channel_starts_not_at_define(mq) -> None:  # type: ignore[no-untyped-def]
    # IBM checks CONNAME when the channel starts: a template with placeholders defines.
    result = mq(
        "cmd",
        "-CSQ1 DEFINE QLOCAL(XQ) USAGE(XMITQ)",
        "-CSQ1 DEFINE CHANNEL(TO.X) CHLTYPE(SDR) CONNAME('<host>(1414)') XMITQ(XQ)",
        "-CSQ1 DEFINE CHANNEL(TO.Y) CHLTYPE(SDR) CONNAME('host(99999)') XMITQ(XQ)",
        "-CSQ1 START CHANNEL(TO.X)",
        "-CSQ1 START CHANNEL(TO.Y)",
        ".advance 1s",
        "-CSQ1 DISPLAY CHSTATUS(TO.*) STATUS",
    )
    assert result.exit_code == 0, result.output
    assert result.output.count("STATUS(RETRYING)") == 2
    console = mq("console", "--format", "csv").output
    assert "CSQX205E -CSQ1 CSQXRCTL Unable to resolve network address, channel TO.X, connection <host>(1414), " in (
        console
    )
    assert "channel TO.Y, connection host(99999), TRPTYPE=TCP" in console
    # a blank at the start is the one thing IBM refuses at DEFINE (MQRCCF_CONN_NAME_ERROR)
    refused = mq("cmd", "-CSQ1 DEFINE CHANNEL(TO.Z) CHLTYPE(SDR) CONNAME(' host') XMITQ(XQ)")
    assert refused.exit_code == 10
    assert refused.output.splitlines()[0] == (
        "CSQ9030E -CSQ1 CSQ9SCND 'CONNAME' value ' host' is invalid, allowed: a connection name that starts "
        "with no blank"
    )


def test_ztpf_conname_is_read_when_the_channel_starts(mq) -> None:  # type: ignore[no-untyped-def]
    result = mq(
        "cmd",
        "ZMQSC DEFINE QL-XQ USAGE-XMITQ",
        "ZMQSC DEFINE CHL-C CHLTYPE-SDR CONNAME-'h(\u0661\u0664\u0661\u0664)' XMITQ-XQ",
        "ZMQSC START CHL-C",
        ".advance 1s",
    )
    assert result.exit_code == 0, result.output
    assert "MQSC0325W" in mq("console").output
    assert "CHL-C RETRYING IN 60 SECONDS - CONNAME h(\u0661\u0664\u0661\u0664) NOT VALID" in mq("console").output


def test_system_option_after_cmd_is_honoured_wherever_it_stands(mq) -> None:  # type: ignore[no-untyped-def]
    mq("system", "add", "CSQ9", "--platform", "zos", "--cpf", "-CSQ9")
    before = mq("cmd", "--system", "CSQ9", "DIS QMGR")
    assert before.exit_code == 0, before.output
    assert "QMNAME(CSQ9)" in before.output and "CSQ1" not in before.output
    after = mq("cmd", "DIS QMGR", "--system=CSQ9")
    assert after.output == before.output and after.exit_code == 0
    # the z/TPF form on a z/OS system is refused by the session, as with mqtool --system
    ztpf = mq("cmd", "ZMQSC DISPLAY QMGR", "--system", "TPF1")
    assert ztpf.exit_code == 0 and "TPFQM" in ztpf.output


def test_options_after_cmd_never_run_as_commands(mq) -> None:  # type: ignore[no-untyped-def]
    result = mq("cmd", "--system", "CSQ7", "DIS QMGR")
    assert (result.exit_code, result.output) == (2, "Error: no system named CSQ7; systems: TPF1, CSQ1\n")
    for args, message in (
        (("DIS QMGR", "--sytem", "CSQ1"), "no such option: --sytem (cmd takes --format, --system; quote each command)"),
        (("DIS QMGR", "--state", "/tmp/x"), "--state is an option of mqtool itself: put it before the subcommand"),
        (("DIS QMGR", "--clock=2021-03-09T15:41:22Z"), "--clock is an option of mqtool itself"),
        (("DIS QMGR", "--system"), "option --system requires a value"),
    ):
        refused = mq("cmd", *args)
        assert refused.exit_code == 2, refused.output
        assert message in refused.output and "CSQ9022I" not in refused.output, refused.output
    # a lone -- ends the options: what follows is a command (here a refused one)
    literal = mq("cmd", "--", "--system")
    assert literal.exit_code == 10 and "MQT0013E" in literal.output


def test_format_option_after_the_commands(mq) -> None:  # type: ignore[no-untyped-def]
    result = mq("cmd", "-CSQ1 DIS QMGR QMNAME", "--format", "json")
    assert result.exit_code == 0, result.output
    assert result.output.startswith('{"commandResponse": [{"completionCode": 0')
