"""The z/TPF lexer: `ZMQSC VERB OBJ-name KEYWORD-value ... FLAG`, quoting and case."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.parse.command import LexError, Param
from mqtool.parse.ztpf import _words, lex


def test_verb_object_name_are_upper_cased() -> None:
    command = lex("zmqsc def ql-payq", "ztpf_mq")
    assert (command.dialect, command.verb, command.object, command.name) == ("ztpf_mq", "DEF", "QL", "PAYQ")
    assert command.name_quoted is False
    assert command.params == []


def test_quoted_name_keeps_its_case() -> None:
    command = lex("ZMQSC DEFINE QL-'MyQueue'", "ztpf_mq")
    assert command.name == "MyQueue"
    assert command.name_quoted is True


def test_keyword_values_are_upper_cased_unless_quoted() -> None:
    command = lex("ZMQSC ALTER QL-A put-disabled descr-'Payments in'", "ztpf_mq")
    assert command.params == [Param("PUT", "DISABLED", False), Param("DESCR", "Payments in", True)]


def test_two_apostrophes_inside_quotes_are_one() -> None:
    command = lex("ZMQSC ALT QL-A DESCR-'it''s here'", "ztpf_mq")
    assert command.params == [Param("DESCR", "it's here", True)]


def test_comma_list_value() -> None:
    command = lex("ZMQSC ALT CHL-TO.B COMPMSG-zlibfast,ZLIBHIGH", "ztpf_mq")
    assert command.params == [Param("COMPMSG", ["ZLIBFAST", "ZLIBHIGH"], False)]


def test_comma_inside_quotes_is_not_a_separator() -> None:
    command = lex("ZMQSC ALT QL-A DESCR-'a,b'", "ztpf_mq")
    assert command.params == [Param("DESCR", "a,b", True)]


def test_quoted_value_with_parentheses() -> None:
    command = lex("ZMQSC DEF CHL-TO.B CHLTYPE-SDR CONNAME-'127.0.0.1(1415)'", "ztpf_mq")
    assert command.params == [Param("CHLTYPE", "SDR", False), Param("CONNAME", "127.0.0.1(1415)", True)]


def test_flag_without_value_and_empty_value() -> None:
    command = lex("ZMQSC DIS QL-A STAT", "ztpf_mq")
    assert command.params == [Param("STAT", None)]
    command = lex("ZMQSC ALT QL-A DESCR-", "ztpf_mq")
    assert command.params == [Param("DESCR", "")]


def test_bare_qmgr_and_all_are_objects() -> None:
    assert lex("ZMQSC DIS QMGR", "ztpf_mq").object == "QMGR"
    assert lex("ZMQSC DIS QMGR", "ztpf_mq").name is None
    assert lex("ZMQSC DIS ALL", "ztpf_mq").object == "ALL"


def test_generic_name() -> None:
    assert lex("ZMQSC DIS QL-PAY*", "ztpf_mq").name == "PAY*"


def test_blanks_and_tabs_separate_words() -> None:
    command = lex("ZMQSC\tDEF   QL-A \t MAXDEPTH-10  ", "ztpf_mq")
    assert (command.verb, command.name, command.params) == ("DEF", "A", [Param("MAXDEPTH", "10")])


def test_http_dialect() -> None:
    command = lex("ZHTPS START S-web1", "ztpf_http")
    assert (command.dialect, command.verb, command.object, command.name) == ("ztpf_http", "START", "S", "WEB1")


@pytest.mark.parametrize(
    ("text", "kind", "token"),
    [
        ("ZMQSC", "empty", "ZMQSC"),
        ("ZMQSC   ", "empty", "ZMQSC"),
        ("ZMQSC DEF,X", "token", "DEF,X"),
        ("ZMQSC D-E QL-A", "token", "D-E"),
        ("ZMQSC DEF QL-A B=C", "token", "B=C"),
        ("ZMQSC DEF QL-A,B", "token", "QL-A,B"),
        ("ZMQSC DEF QL-A 9X-1", "token", "9X-1"),
        ("ZMQSC DEF QL-'abc", "quote", "QL-'abc"),
        ("ZMQSC ALT QL-A DESCR-'it''s", "quote", "DESCR-'it''s"),
        ("ZMQSC ALT QL-A DESCR-'a b  ", "quote", "DESCR-'a b"),
    ],
)
def test_lex_errors(text: str, kind: str, token: str) -> None:
    with pytest.raises(LexError) as caught:
        lex(text, "ztpf_mq")
    assert caught.value.kind == kind
    assert caught.value.token == token


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ZMQSC DEFQL-,\t19a")), max_size=30))
def test_words_without_quotes_split_as_the_quoted_path_does(text: str) -> None:
    # Text without apostrophes takes a fast path; adding a quoted empty word at the end
    # forces the character-by-character path, which must agree on the words before it.
    assert _words(text) == _words(text + " ''")[:-1]
