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
