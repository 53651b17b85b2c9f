"""MQSC for z/OS: command entry and framing. CPF routing, synonyms, quoting and lists,
the parser errors CSQ9000E-CSQ9003E, the completion lines, and that a command that
fails changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mqtool.commands.zos import csect_for, verb_words
from mqtool.parse.command import Command

ENABLE = "ENABLED, DISABLED"


def zos(mq: Any, *commands: str) -> str:
    result = mq("--system", "CSQ1", "cmd", *commands)
    return str(result.output)


@pytest.mark.parametrize(
    "line",
    ["-CSQ1 DEFINE QLOCAL(ROUTED)", "-CSQ1DEFINE QLOCAL(ROUTED)", "-csq1 def ql(routed)", "DEF QL(ROUTED)"],
)
def test_cpf_glued_spaced_or_absent(mq: Any, line: str) -> None:
    assert zos(mq, line) == "CSQ9022I -CSQ1 CSQMAQLC ' DEFINE QLOCAL' NORMAL COMPLETION\n"


def test_cpf_reaches_zos_while_the_current_system_is_ztpf(mq: Any) -> None:
    # Without a CPF it goes to the only z/OS system (SPEC section 3).
    result = mq("--system", "TPF1", "cmd", "DIS QMGR DEADQ", "-CSQ1 DIS QMGR DEADQ")
    assert result.exit_code == 0
    assert result.output == 2 * (
        "CSQM201I -CSQ1 CSQMDRTC DISPLAY QMGR DETAILS\n"
        "QMNAME(CSQ1)\n"
        "DEADQ(SYSTEM.DEAD.QUEUE)\n"
        "END QMGR DETAILS\n"
        "CSQ9022I -CSQ1 CSQMDRTS ' DISPLAY QMGR' NORMAL COMPLETION\n"
    )


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        ("DEF QL(A)", "DEFINE QLOCAL"),
        ("ALT QA(A)", "ALTER QALIAS"),
        ("DEL QR(A)", "DELETE QREMOTE"),
        ("DIS Q(A)", "DISPLAY QUEUE"),
        ("DIS QM(A)", "DISPLAY QMODEL"),
        ("DIS CHL(A)", "DISPLAY CHANNEL"),
        ("DIS CHS(A)", "DISPLAY CHSTATUS"),
        ("DIS QS(A)", "DISPLAY QSTATUS"),
        ("DIS STC(A)", "DISPLAY STGCLASS"),
        ("DIS ARC", "DISPLAY ARCHIVE"),
        ("STA QMGR", "START QMGR"),
    ],
)
def test_synonyms_echo_the_full_words(typed: str, words: str) -> None:
    verb, rest = typed.split(" ", 1)
    obj = rest.split("(")[0]
    assert verb_words(Command(text=typed, dialect="zos", verb=verb, object=obj)) == words


def test_csects_come_from_the_table() -> None:
    assert [csect_for(v, o) for v, o in [("DEFINE", "QLOCAL"), ("DELETE", "QLOCAL"), ("DISPLAY", "QLOCAL")]] == [
        "CSQMAQLC",
        "CSQMUQLC",
        "CSQMDRTS",
    ]
    assert csect_for("SET", "LOG") == "CSQJC001"
    assert csect_for("START", "QMGR") == "CSQYASCP"


def test_quoted_strings_keep_case_and_double_quotes(mq: Any) -> None:
    out = zos(mq, "DEF QL('Mixed.Case') DESCR('It''s (quoted), with commas')", "DIS QL('Mixed.Case') DESCR")
    assert out == (
        "CSQ9022I -CSQ1 CSQMAQLC ' DEFINE QLOCAL' NORMAL COMPLETION\n"
        "CSQM293I -CSQ1 CSQMDRTC 1 QLOCAL FOUND MATCHING REQUEST CRITERIA\n"
        "CSQM201I -CSQ1 CSQMDRTC DISPLAY QLOCAL DETAILS\n"
        "QUEUE(Mixed.Case)\n"
        "TYPE(QLOCAL)\n"
        "QSGDISP(QMGR)\n"
        "DESCR(It's (quoted), with commas)\n"
        "END QLOCAL DETAILS\n"
        "CSQ9022I -CSQ1 CSQMDRTS ' DISPLAY QLOCAL' NORMAL COMPLETION\n"
    )


def test_lists_take_commas_or_blanks(mq: Any) -> None:
    zos(mq, "DEF CHL(R1) CHLTYPE(RCVR) COMPMSG(ZLIBFAST RLE)", "DEF CHL(R2) CHLTYPE(RCVR) COMPMSG(ZLIBHIGH,RLE)")
    out = zos(mq, "DIS CHL(R*) COMPMSG")
    assert "COMPMSG(ZLIBFAST,RLE)" in out.splitlines()
    assert "COMPMSG(ZLIBHIGH,RLE)" in out.splitlines()


@pytest.mark.parametrize(
    ("line", "first"),
    [
        ("DEF QL(A) MAXDEPTH(1) MAXDEPTH(2)", "CSQ9000E -CSQ1 CSQ9SCND 'MAXDEPTH' appears more than once"),
        ("DEF QL(A) REPLACE NOREPLACE", "CSQ9000E -CSQ1 CSQ9SCND 'NOREPLACE' appears more than once"),
        ("DEF QL(A) NOSUCH(1)", "CSQ9001E -CSQ1 CSQ9SCND 'NOSUCH' is invalid"),
        ("DEF QL(A", "CSQ9002E -CSQ1 CSQ9SCND Unbalanced parentheses following 'QL'"),
        ("DEF QL(A) DESCR('open", "CSQ9003E -CSQ1 CSQ9SCND 'DESCR' parameter contains unbalanced apostrophes"),
        ("DEF QL(A) PUT(SOMETIMES)", "CSQ9030E -CSQ1 CSQ9SCND 'PUT' value 'SOMETIMES' is invalid, allowed: " + ENABLE),
        ("DEF QL", "CSQ9031E -CSQ1 CSQ9SCND 'QL' requires a name in parentheses, up to 48 characters"),
    ],
)
def test_parser_errors_end_abnormally_and_change_nothing(mq: Any, line: str, first: str) -> None:
    result = mq("--system", "CSQ1", "cmd", line)
    assert result.exit_code == 10
    assert result.output.splitlines() == [first, "CSQ9023E -CSQ1 CSQ9SCND ' DEFINE QLOCAL' ABNORMAL COMPLETION"]
    assert zos(mq, "DIS QL(A)") == (
        "CSQM297I -CSQ1 CSQMDRTS NO QLOCAL FOUND MATCHING REQUEST CRITERIA\n"
        "CSQ9022I -CSQ1 CSQMDRTS ' DISPLAY QLOCAL' NORMAL COMPLETION\n"
    )


@pytest.mark.parametrize(
    ("line", "first"),
    [
        ("DIS QMGR ALL ALL", "CSQ9000E -CSQ1 CSQ9SCND 'ALL' appears more than once"),
        ("DIS QMGR MAXUMSGS MAXUMSGS", "CSQ9000E -CSQ1 CSQ9SCND 'MAXUMSGS' appears more than once"),
        ("DIS QMGR MODE", "CSQ9001E -CSQ1 CSQ9SCND 'MODE' is invalid"),
        ("DIS QMGR MAXUMSGS(5)", "CSQ9001E -CSQ1 CSQ9SCND 'MAXUMSGS' is invalid"),
    ],
)
def test_display_selection_errors(mq: Any, line: str, first: str) -> None:
    assert zos(mq, line).splitlines() == [first, "CSQ9023E -CSQ1 CSQ9SCND ' DISPLAY QMGR' ABNORMAL COMPLETION"]


def test_unknown_verb_and_object(mq: Any) -> None:
    # IBM's verbs and objects that mqtool lacks say so (MQT0400E); other words are typos.
    assert zos(mq, "DEFINE CHL(X) CHLTYPE(CLUSSDR)", "-CSQ1 RESETT QSTATS(X)", "DEFINE LOGG(X)") == (
        "MQT0400E -CSQ1 CSQ9SCND 'DEFINE CHANNEL CHLTYPE(CLUSSDR)' is an IBM MQ for z/OS command: recognised, not "
        "available in mqtool\n"
        "CSQ9023E -CSQ1 CSQ9SCND ' DEFINE CHANNEL' ABNORMAL COMPLETION\n"
        "CSQ9001E -CSQ1 CSQ9SCND 'RESETT' is invalid\n"
        "MQT0015I -CSQ1 CSQ9SCND Did you mean 'RESET'?\n"
        "CSQ9023E -CSQ1 CSQ9SCND ' RESETT QSTATS' ABNORMAL COMPLETION\n"
        "CSQ9001E -CSQ1 CSQ9SCND 'LOGG' is invalid\n"
        "MQT0015I -CSQ1 CSQ9SCND Did you mean 'LOG'?\n"  # DEFINE LOG(dsname) is a command now
        "CSQ9023E -CSQ1 CSQ9SCND ' DEFINE LOGG' ABNORMAL COMPLETION\n"
    )


def test_a_failed_command_rolls_back_and_a_check_run_changes_nothing(mq: Any, tmp_path: Path) -> None:
    script = tmp_path / "check.mqsc"
    script.write_text("DEFINE QLOCAL(CHECKED)\nDEFINE QLOCAL(BAD) MAXDEPTH(X)\n", encoding="utf-8")
    result = mq("--system", "CSQ1", "run", "-v", "-e", str(script))
    assert result.exit_code == 10
    assert "One command has a syntax error." in result.output
    assert "CSQM297I" in zos(mq, "DIS QL(CHECKED)")


def test_blank_name_values_mean_none(mq: Any) -> None:
    out = zos(mq, "DEF QL(A) STREAMQ(B)", "ALT QL(A) STREAMQ(' ')", "DIS QL(A) STREAMQ")
    assert "STREAMQ( )" in out.splitlines()
