"""The MQSC lexer (`VERB OBJTYPE(name) KEYWORD(value) ... FLAG`) and how a command
prefix string routes a line to its z/OS system, glued to the verb or not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mqtool.clock import Clock
from mqtool.complex import defaults, ensure_complex
from mqtool.parse.command import LexError, Param
from mqtool.parse.mqsc import lex
from mqtool.session import Session, _match_cpf
from mqtool.state import Store, SystemRecord


def test_verb_object_name_and_flag() -> None:
    command = lex("def ql(payq) replace")
    assert (command.dialect, command.verb, command.object, command.name) == ("zos", "DEF", "QL", "PAYQ")
    assert command.object_value == ["PAYQ"]
    assert command.params == [Param("REPLACE", None)]


def test_quoted_name_keeps_case_unquoted_is_upper_cased() -> None:
    command = lex("DEFINE QLOCAL('Mixed.Case')")
    assert (command.name, command.name_quoted) == ("Mixed.Case", True)
    command = lex("define qlocal(mixed.case)")
    assert (command.name, command.name_quoted) == ("MIXED.CASE", False)


def test_two_apostrophes_are_one_quote() -> None:
    command = lex("ALTER QL(A) DESCR('It''s mine')")
    assert command.params == [Param("DESCR", "It's mine", True)]


def test_values_are_upper_cased_unless_quoted() -> None:
    command = lex("alter ql(q1) streamq(q2) strmqos(mustdup) descr('keep Case')")
    assert command.params == [
        Param("STREAMQ", "Q2"),
        Param("STRMQOS", "MUSTDUP"),
        Param("DESCR", "keep Case", True),
    ]


def test_lists_separated_by_commas_or_blanks() -> None:
    command = lex("ALTER QMGR LIST(a, b  c,d)")
    assert command.params == [Param("LIST", ["A", "B", "C", "D"])]


def test_empty_parentheses() -> None:
    command = lex("ALTER QL(A) DESCR()")
    assert command.params == [Param("DESCR", "")]
    assert lex("DEF QL()").name == ""


def test_several_names_in_the_object_parentheses() -> None:
    command = lex("DEF QL(A,B)")
    assert command.name is None
    assert command.object_value == ["A", "B"]


def test_blanks_and_commas_are_interchangeable_and_collapse() -> None:
    command = lex("DIS ,, QL(*) ,  ALL")
    assert (command.verb, command.object, command.name, command.params) == ("DIS", "QL", "*", [Param("ALL", None)])


def test_keyword_glued_after_parentheses() -> None:
    command = lex("DEF QL(A)DESCR(B)")
    assert command.params == [Param("DESCR", "B")]


def test_parentheses_in_a_value_are_quoted() -> None:
    # IBM (CSQ9002E): a closing parenthesis must follow an opening one before any other.
    assert lex("DEF CHL(C) CONNAME('host(1414)')").params == [Param("CONNAME", "host(1414)", True)]
    with pytest.raises(LexError) as caught:
        lex("DEF CHL(C) CONNAME(host(1414))")
    assert (caught.value.kind, caught.value.token) == ("paren", "CONNAME")


def test_object_without_name() -> None:
    command = lex("SET LOG ZHYLINK(YES)")
    assert (command.verb, command.object, command.name) == ("SET", "LOG", None)
    assert command.params == [Param("ZHYLINK", "YES")]


def test_cpf_is_recorded() -> None:
    assert lex("DIS QMGR", cpf="-CSQ1").cpf == "-CSQ1"


@pytest.mark.parametrize(
    ("text", "kind", "token"),
    [
        ("", "empty", ""),
        (" ,, ", "empty", ""),
        ("DEF(X)", "token", "DEF"),
        ("DEF QL(A", "paren", "QL"),
        ("DEF QL(A) DESCR(x", "paren", "DESCR"),
        ("DEF QL(A) DESCR('x", "quote", "DESCR"),
        ("DEF QL(A) DESCR('it''s)", "quote", "DESCR"),
        ("DEF QL(A) X)", "token", "X)"),
        ("DEF QL(A) =", "token", "="),
        ("DEF QL(A) 'x", "quote", "'x"),
        # A balanced quoted word where a keyword belongs is not an apostrophe problem.
        ("DEF QL(A) 'x'", "token", "'x'"),
    ],
)
def test_lex_errors(text: str, kind: str, token: str) -> None:
    with pytest.raises(LexError) as caught:
        lex(text)
    assert caught.value.kind == kind
    assert caught.value.token == token


# -- CPF routing ---------------------------------------------------------------------


def _zos(name: str, cpf: str) -> SystemRecord:
    return SystemRecord(name, "zos", defaults("zos") | {"cpf": cpf})


def test_match_cpf_glued_and_spaced() -> None:
    systems = [SystemRecord("TPF1", "ztpf", defaults("ztpf")), _zos("CSQ1", "-CSQ1")]
    for line, rest in [("-CSQ1 DIS QMGR", "DIS QMGR"), ("-CSQ1DIS QMGR", "DIS QMGR"), ("-csq1 dis qmgr", "dis qmgr")]:
        system, remainder = _match_cpf(line, systems)
        assert system is not None and system.name == "CSQ1"
        assert remainder == rest
    assert _match_cpf("DIS QMGR", systems) == (None, "DIS QMGR")
    assert _match_cpf("-CSQ2 DIS QMGR", systems) == (None, "-CSQ2 DIS QMGR")


def test_match_cpf_prefers_the_longest_prefix() -> None:
    systems = [_zos("CSQ1", "-CSQ1"), _zos("CSQ10", "-CSQ10")]
    system, rest = _match_cpf("-CSQ10 DIS QMGR", systems)
    assert system is not None and system.name == "CSQ10"
    assert rest == "DIS QMGR"
    system, rest = _match_cpf("-CSQ1 DIS QMGR", systems)
    assert system is not None and system.name == "CSQ1"


def test_cpf_of_a_ztpf_system_is_ignored() -> None:
    systems = [SystemRecord("TPF1", "ztpf", defaults("ztpf") | {"cpf": "-TPF"})]
    assert _match_cpf("-TPF DIS QMGR", systems) == (None, "-TPF DIS QMGR")


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    store = Store.open(tmp_path)
    clock = Clock.from_setting("2021-03-09T15:41:22Z")
    ensure_complex(store, clock.timestamp())
    with store.transaction() as tx:
        tx.put_system(_zos("CSQ2", "+CSQ2"))
    yield Session(store, clock)
    store.close()


@pytest.mark.parametrize("line", ["-CSQ1DIS BOGUS(X)", "-CSQ1 DIS BOGUS(X)", "-csq1  dis bogus(x)"])
def test_session_routes_by_cpf_glued_or_spaced(session: Session, line: str) -> None:
    outcome = session.execute(line)
    assert outcome.system == "CSQ1"
    assert outcome.lines == [
        "CSQ9001E -CSQ1 CSQ9SCND 'BOGUS' is invalid",
        "CSQ9023E -CSQ1 CSQ9SCND ' DISPLAY BOGUS' ABNORMAL COMPLETION",
    ]


def test_session_routes_to_the_second_zos_system(session: Session) -> None:
    outcome = session.execute("+CSQ2DIS BOGUS(X)")
    assert outcome.system == "CSQ2"
    assert outcome.lines[0] == "CSQ9001E +CSQ2 CSQ9SCND 'BOGUS' is invalid"


def test_mqsc_without_cpf_on_a_ztpf_system_names_the_cpfs(session: Session) -> None:
    outcome = session.execute("DIS BOGUS(X)")
    assert outcome.lines == [
        "MQT0011E Current system TPF1 is not z/OS and this session has used no z/OS system: "
        "prefix the command with a CPF (-CSQ1, +CSQ2) or use .system"
    ]
    # Once the session has used a z/OS system, an MQSC verb without a CPF goes there.
    session.execute("+CSQ2DIS QMGR")
    assert session.execute("DIS BOGUS(X)").lines[0] == "CSQ9001E +CSQ2 CSQ9SCND 'BOGUS' is invalid"
