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


def test_conname_port_range_on_zos(mq) -> None:  # type: ignore[no-untyped-def]
    result = mq("cmd", "-CSQ1 DEFINE CHANNEL(TO.X) CHLTYPE(SDR) CONNAME('host(99999)') XMITQ(XQ)")
    assert result.exit_code == 10
    assert result.output.splitlines() == [
        "CSQ9030E -CSQ1 CSQ9SCND 'CONNAME' value 'host(99999)' is invalid, allowed: host(port) with a port 1-65535",
        "CSQ9023E -CSQ1 CSQ9SCND ' DEFINE CHANNEL' ABNORMAL COMPLETION",
    ]


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
