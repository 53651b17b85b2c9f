"""The directive lexer: `.name arg ... key=value key='quoted value'`, and `.echo`, which
prints its text as given."""

from __future__ import annotations

from typing import Any

import pytest

from mqtool.parse.command import LexError
from mqtool.parse.directive import lex


def test_name_args_and_options() -> None:
    directive = lex(".put PAYQ count=5 data='a b' size=10")
    assert directive.name == "put"
    assert directive.args == ["PAYQ"]
    assert directive.options == {"count": "5", "data": "a b", "size": "10"}


def test_name_and_option_keys_are_lower_cased_values_kept() -> None:
    directive = lex(".PUT Q COUNT=1 Pattern=XML")
    assert (directive.name, directive.args, directive.options) == ("put", ["Q"], {"count": "1", "pattern": "XML"})


def test_two_apostrophes_inside_quotes_are_one() -> None:
    assert lex(".put Q data='it''s'").options == {"data": "it's"}


def test_quoted_argument_with_blanks() -> None:
    assert lex(".help 'ZMQSC DEFINE' QL").args == ["ZMQSC DEFINE", "QL"]


def test_leading_and_trailing_blanks() -> None:
    directive = lex("  .advance   5s  ")
    assert (directive.name, directive.args, directive.options) == ("advance", ["5s"], {})


def test_empty_option_value_and_equals_without_key() -> None:
    assert lex(".put Q a=").options == {"a": ""}
    assert lex(".put Q =x").args == ["Q", "=x"]


@pytest.mark.parametrize(
    ("text", "kind", "token"),
    [
        (".", "token", "."),
        (".1x", "token", ".1x"),
        (".put=3", "token", ".put=3"),
        ("put Q", "token", "put"),
        (".put Q count=1 COUNT=2", "repeat", "count"),
        (".put Q data='x y", "quote", "data='x y"),
    ],
)
def test_lex_errors(text: str, kind: str, token: str) -> None:
    with pytest.raises(LexError) as caught:
        lex(text)
    assert caught.value.kind == kind
    assert caught.value.token == token


def test_directive_errors_through_the_cli(mq: Any) -> None:
    result = mq("cmd", ".", ".nosuch x", ".put Q data='x", ".system", ".system A B", ".advance soon")
    assert result.exit_code == 10, result.output
    assert result.output.splitlines() == [
        "MQT0002E Unknown directive .; .help lists them",
        "MQT0002E Unknown directive .nosuch; .help lists them",
        "MQT0008E Unbalanced apostrophes in 'data='x'",
        "MQT0003E Directive .system: usage: .system NAME",
        "MQT0003E Directive .system: usage: .system NAME",
        "MQT0003E Directive .advance: not a duration: 'soon'; give a number with a unit, ms, s, m, h or d, "
        "in one word (5s, 2m, 1h, 250ms; a bare number is seconds)",
    ]


def test_echo_prints_its_text_as_given(mq: Any) -> None:
    result = mq("cmd", ".echo total=5 it's  fine", ".ECHO x", ".echo")
    assert result.exit_code == 0, result.output
    assert result.output == "total=5 it's  fine\nx\n\n"
