"""IBM's rules for using MQSC commands, as the z/OS dialect follows them (sources: IBM MQ
documentation, "MQSC command syntax" / "Rules for using MQSC commands", "Generic values
and characters with special meanings", "MQSC input file syntax" / "Building command
scripts", and message CSQ9002E):

- keywords, parentheses and values are separated by any number of blanks and commas,
  which may also begin and end the command (`ALTER QLOCAL ('Account' ) TRIGDPTH ( 1)`);
- on z/OS a parameter needs no blank before it, and the object need not be the second
  word;
- on z/OS an equals sign starts a value that ends at a blank or comma;
- a string in apostrophes keeps blanks, commas and case, `''` in it is one apostrophe;
  everything else is folded to upper case; keywords are not case sensitive;
- a closing parenthesis must follow an opening one before any other opening one;
- `:` gives an inclusive range in TRACE commands;
- in a file: `*` in column 1 is a comment, blank lines are ignored, `+` continues from
  the first non-blank character of the next line, `-` from its start, both may fall
  inside a quoted string; comments and blank lines between continued lines are dropped.

Hypothesis checks the lexer and the file reader against these rules with commands built
from parts, written in every way the rules allow."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mqtool.commands.zos import lex as zos_lex
from mqtool.parse.command import Command, LexError, Param
from mqtool.parse.lines import assemble
from mqtool.parse.mqsc import lex

PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def zos(mq: Any, *commands: str) -> Any:
    return mq("--system", "CSQ1", "cmd", *commands)


def test_ibm_example_with_blanks_around_parentheses_and_values() -> None:
    command = lex("ALTER QLOCAL ('Account' )      TRIGDPTH ( 1)")
    assert (command.verb, command.object, command.name, command.name_quoted) == ("ALTER", "QLOCAL", "Account", True)
    assert command.params == [Param("TRIGDPTH", "1")]


@pytest.mark.parametrize(
    "line",
    [
        "DEFINE QLOCAL (Q1) USAGE (XMITQ)",  # as IBM's mq-container configuration writes it
        "DEFINE,QLOCAL(Q1),USAGE(XMITQ)",
        ",, DEFINE  QLOCAL( Q1 ) ,, USAGE( XMITQ ) ,,",
        "DEFINE QLOCAL(Q1)USAGE(XMITQ)",  # z/OS: no blank needed before a parameter
        "DEFINE QLOCAL=Q1 USAGE=XMITQ",  # z/OS: KEYWORD=value
        "DEFINE USAGE(XMITQ) QLOCAL(Q1)",  # z/OS: the object need not be second
        "define qlocal (q1) usage (xmitq)",
        "-CSQ1 DEFINE QLOCAL (Q1) USAGE (XMITQ)",
    ],
)
def test_one_definition_written_every_way_the_rules_allow(mq: Any, line: str) -> None:
    result = zos(mq, line, "DISPLAY QLOCAL(Q1) USAGE")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "CSQ9022I -CSQ1 CSQMAQLC ' DEFINE QLOCAL' NORMAL COMPLETION"
    assert "USAGE(XMITQ)" in result.output.splitlines()


def test_quoted_values_after_equals_and_in_lists(mq: Any) -> None:
    result = zos(
        mq,
        "DEFINE QLOCAL(Q2) DESCR='It''s a, b' MAXDEPTH=50",
        "DEFINE CHANNEL(C1) CHLTYPE(RCVR) COMPMSG ( RLE , ZLIBFAST )",
        "DIS QL(Q2) DESCR MAXDEPTH",
        "DIS CURDEPTH QLOCAL(Q2)",
        "DIS CHL(C1) COMPMSG",
    )
    lines = result.output.splitlines()
    assert result.exit_code == 0, result.output
    assert "DESCR(It's a, b)" in lines and "MAXDEPTH(50)" in lines and "COMPMSG(RLE,ZLIBFAST)" in lines
    assert "CURDEPTH(0)" in lines


def test_nested_parentheses_are_unbalanced(mq: Any) -> None:
    result = zos(mq, "DEFINE CHANNEL(C2) CHLTYPE(SDR) CONNAME(host(1414)) XMITQ(X)")
    assert result.output.splitlines() == [
        "CSQ9002E -CSQ1 CSQ9SCND Unbalanced parentheses following 'CONNAME'",
        "CSQ9023E -CSQ1 CSQ9SCND ' DEFINE CHANNEL' ABNORMAL COMPLETION",
    ]


def test_trace_classes_take_a_range(mq: Any) -> None:
    result = zos(mq, "START TRACE(STAT) CLASS(01:03)", "DISPLAY TRACE(STAT)")
    assert "02  STAT  01,02,03     SMF          *      *" in result.output.splitlines()
    refused = zos(mq, "START TRACE(STAT) CLASS(03:01)")
    assert refused.output.splitlines()[0] == (
        "CSQ9030E -CSQ1 CSQ9SCND 'CLASS' value '03:01' is invalid, allowed: a range low:high of numbers"
    )


@pytest.mark.parametrize(
    ("line", "kind", "token"),
    [
        ("DEFINE QLOCAL(A) MAXDEPTH=", "token", "MAXDEPTH="),
        ("DEFINE QLOCAL(A) MAXDEPTH=(5)", "token", "MAXDEPTH=(5)"),
        ("DEFINE QLOCAL(A) DESCR='x", "quote", "DESCR"),
        ("DEFINE QLOCAL(A) DESCR ( x", "paren", "DESCR"),
        ("DEFINE QLOCAL(A) (X)", "token", "(X)"),
    ],
)
def test_what_the_rules_refuse(line: str, kind: str, token: str) -> None:
    with pytest.raises(LexError) as caught:
        lex(line)
    assert (caught.value.kind, caught.value.token) == (kind, token)


def test_object_found_later_on_zos() -> None:
    command = zos_lex("DISPLAY CURDEPTH MAXDEPTH QLOCAL(X*)")
    assert (command.object, command.name) == ("QLOCAL", "X*")
    assert command.params == [Param("CURDEPTH", None), Param("MAXDEPTH", None)]
    # the second word stays the object when no later word is one
    assert zos_lex("DISPLAY BOGUS(X) CURDEPTH").object == "BOGUS"


# -- properties over commands built from parts ---------------------------------------

WORD = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=1, max_size=8)
# An unquoted value: what MQSC takes without apostrophes (letters, digits, . / _ % and
# a trailing *), in any case.
PLAIN = st.text(alphabet="ABCxyz019./_%", min_size=1, max_size=10)
# A quoted string: anything printable, apostrophes included.
QUOTED = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cs")), max_size=12)
VALUE = st.one_of(
    st.tuples(st.just("plain"), PLAIN),
    st.tuples(st.just("quoted"), QUOTED),
    st.tuples(st.just("list"), st.lists(PLAIN, min_size=2, max_size=4)),
    st.tuples(st.just("flag"), st.just("")),
)
MODEL = st.tuples(WORD, WORD, st.one_of(st.none(), PLAIN, QUOTED), st.lists(st.tuples(WORD, VALUE), max_size=5))
GAP = st.sampled_from([" ", ",", " , ", "  ", "\t", ", ,", " ,"])
OPTIONAL_GAP = st.sampled_from(["", " ", ",", " , ", "\t"])


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _render(model: Any, gap: Any, tight: Any) -> str:
    """The command of `model` with `gap()` where at least one separator is needed and
    `tight()` where any number (none included) may stand."""
    verb, obj, name, params = model

    def value(kind: str, text: str | list[str]) -> str:
        if kind == "plain":
            return f"{tight()}({tight()}{text}{tight()})"
        if kind == "quoted":
            assert isinstance(text, str)
            return f"{tight()}({tight()}{_quote(text)}{tight()})"
        if kind == "list":
            return f"{tight()}({tight()}{gap().join(text)}{tight()})"
        return ""

    out = [tight(), verb, gap(), obj]
    if name is not None:
        out.append(value("quoted" if set(name) - set("ABCxyz019./_%") or not name else "plain", name))
    for keyword, (kind, text) in params:
        out += [gap(), keyword, value(kind, text)]
    out.append(tight())
    return "".join(out)


def _expected(model: Any) -> tuple[str, str, str | None, list[Param]]:
    verb, obj, name, params = model
    quoted_name = name is not None and (bool(set(name) - set("ABCxyz019./_%")) or not name)
    expected_name = None if name is None else (name if quoted_name else name.upper())
    out: list[Param] = []
    for keyword, (kind, text) in params:
        if kind == "plain":
            out.append(Param(keyword, text.upper()))
        elif kind == "quoted":
            out.append(Param(keyword, text, True))
        elif kind == "list":
            out.append(Param(keyword, [item.upper() for item in text]))
        else:
            out.append(Param(keyword, None))
    return verb, obj, expected_name, out


def _shape(command: Command) -> tuple[str, str | None, str | None, list[Param]]:
    return command.verb, command.object, command.name, command.params


@PROPERTY
@given(MODEL, st.data())
def test_blanks_and_commas_never_change_a_command(model: Any, data: st.DataObject) -> None:
    text = _render(model, lambda: data.draw(GAP), lambda: data.draw(OPTIONAL_GAP))
    assert _shape(lex(text)) == _expected(model), text


@PROPERTY
@given(MODEL)
def test_equals_gives_the_same_value_as_parentheses(model: Any) -> None:
    verb, obj, _name, params = model
    simple = [(k, v) for k, v in params if v[0] in ("plain", "quoted", "flag")]
    rendered = " ".join(
        f"{k}={_quote(text) if kind == 'quoted' else text}" if kind != "flag" else k for k, (kind, text) in simple
    )
    text = f"{verb} {obj} {rendered}"
    assert _shape(lex(text)) == _expected((verb, obj, None, simple)), text


@PROPERTY
@given(MODEL)
def test_unquoted_words_are_not_case_sensitive(model: Any) -> None:
    verb, obj, _name, params = model
    plain = [(k, v) for k, v in params if v[0] in ("plain", "list", "flag")]
    text = _render((verb, obj, None, plain), lambda: " ", lambda: "")
    assert _shape(lex(text.lower())) == _shape(lex(text)) == _expected((verb, obj, None, plain))


@PROPERTY
@given(QUOTED)
def test_any_string_in_apostrophes_is_kept_exactly(value: str) -> None:
    assert lex(f"ALTER QLOCAL(A) DESCR({_quote(value)})").params == [Param("DESCR", value, True)]
    assert lex(f"ALTER QLOCAL({_quote(value or 'x')})").name == (value or "x")


# Command text for the file rules: anything but line ends and the command end (;), not
# starting with a comment's * and not ending in a continuation character.
LINE_TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp"), exclude_characters=";"),
    min_size=1,
    max_size=60,
).filter(lambda t: t.strip() != "" and not t.startswith("*") and not t.rstrip(" ").endswith(("+", "-")))


@PROPERTY
@given(LINE_TEXT, st.data())
def test_continued_lines_reassemble_to_the_command(text: str, data: st.DataObject) -> None:
    cuts = sorted({cut for cut in data.draw(st.lists(st.integers(1, len(text)), max_size=4)) if cut < len(text)})
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    lines: list[str] = []
    current = pieces[0]
    for following in pieces[1:]:
        # + continues from the next line's first non-blank character, so that line may be
        # indented (and may then start with *), unless the text there starts with a blank;
        # - continues from the start of the next line, which must then be no comment
        # (* in column 1) and not blank.
        plus_fits = not following[0].isspace()
        minus_fits = not following.startswith("*") and following.strip() != ""
        assume(plus_fits or minus_fits)
        plus = plus_fits and (not minus_fits or data.draw(st.booleans()))
        lines.append(current + ("+" if plus else "-"))
        if data.draw(st.booleans()):
            lines += data.draw(st.sampled_from([["* a comment"], [""], ["   "], ["*", ""]]))
        indent = plus and (following.startswith("*") or data.draw(st.booleans()))
        current = ("   " if indent else "") + following
    lines.append(current)
    commands = list(assemble(lines))
    assert [command.text for command in commands] == [text.strip()], lines
