"""The MQSC input-file rules (mqtool.parse.lines.assemble): comments, blank lines, `+`
and `-` continuation (also inside quotes), and `;` as an explicit end of command."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.parse.lines import MAX_COMMAND, LineTooLong, SourceCommand, assemble, continuation, read_lines


def texts(lines: list[str]) -> list[str]:
    return [command.text for command in assemble(lines)]


def test_one_command_per_line() -> None:
    assert texts(["ZMQSC DIS QMGR", "DIS QMGR"]) == ["ZMQSC DIS QMGR", "DIS QMGR"]


def test_comment_in_column_one_and_blank_lines_are_skipped() -> None:
    lines = ["* a comment", "", "   ", "\t", "ZMQSC DIS QMGR", "*ZMQSC DEF QL-A"]
    assert texts(lines) == ["ZMQSC DIS QMGR"]


def test_star_after_column_one_is_not_a_comment() -> None:
    assert texts([" * not a comment"]) == ["* not a comment"]


def test_plus_continues_from_the_first_non_blank_character() -> None:
    assert texts(["ZMQSC DEFINE +", "      QL-PAYQ +", "\t COMPSIZE-16000"]) == ["ZMQSC DEFINE QL-PAYQ COMPSIZE-16000"]


def test_plus_glued_to_a_word_joins_the_words() -> None:
    assert texts(["ZMQSC DEF QL-PAY+", "   Q1"]) == ["ZMQSC DEF QL-PAYQ1"]


def test_minus_continues_from_column_one() -> None:
    assert texts(["ZMQSC DEF -", "   QL-A"]) == ["ZMQSC DEF    QL-A"]
    assert texts(["ZMQSC DEF QL-AB-", "CD"]) == ["ZMQSC DEF QL-ABCD"]


def test_trailing_blanks_after_the_continuation_character_are_allowed() -> None:
    assert texts(["DIS QL(*) +   ", "ALL"]) == ["DIS QL(*) ALL"]


def test_a_tab_after_the_continuation_character_ends_the_line() -> None:
    # IBM: a line must not end with a control character; the + is then plain text.
    assert texts(["DIS QMGR +\t", "DIS QL(*)"]) == ["DIS QMGR +", "DIS QL(*)"]


def test_continuation_skips_comments_and_blank_lines() -> None:
    lines = ["ZMQSC DEFINE +", "* the name follows", "", "  QL-A"]
    commands = list(assemble(lines))
    assert [c.text for c in commands] == ["ZMQSC DEFINE QL-A"]
    assert commands[0].lines == ["ZMQSC DEFINE +", "  QL-A"]
    assert commands[0].line == 1


def test_continuation_inside_quotes_plus() -> None:
    # IBM's own example: 'Fr+ then   ed' means 'Fred'.
    assert texts(["ALTER QLOCAL(Q1) DESCR('Fr+", "   ed')"]) == ["ALTER QLOCAL(Q1) DESCR('Fred')"]


def test_continuation_inside_quotes_minus() -> None:
    assert texts(["ALTER QLOCAL(Q1) DESCR('Fr-", "ed')"]) == ["ALTER QLOCAL(Q1) DESCR('Fred')"]


def test_semicolon_ends_a_command_and_the_rest_of_the_line_is_ignored() -> None:
    assert texts(["DIS QMGR; this is ignored", "DIS QL(*)"]) == ["DIS QMGR", "DIS QL(*)"]


def test_semicolon_after_a_mistaken_plus_ends_the_command() -> None:
    assert texts(["DIS QL(*) +", "  ALL;", "DIS QMGR"]) == ["DIS QL(*) ALL", "DIS QMGR"]


def test_semicolon_inside_quotes_is_text() -> None:
    assert texts(["ZMQSC ALT QL-A DESCR-'a;b'"]) == ["ZMQSC ALT QL-A DESCR-'a;b'"]
    assert texts(["ALTER QL(A) DESCR('it''s; fine');"]) == ["ALTER QL(A) DESCR('it''s; fine')"]


def test_quote_state_carries_over_a_continuation() -> None:
    # The quote opened on the first line is closed on the second: the `;` after it ends
    # the command, the `;` inside the quotes does not.
    lines = ["ZMQSC ALTER QL-A DESCR-'x; +", "  y'; ZMQSC DIS QMGR", "ZMQSC DIS QL-A"]
    assert texts(lines) == ["ZMQSC ALTER QL-A DESCR-'x; y'", "ZMQSC DIS QL-A"]


def test_a_line_holding_only_a_semicolon_is_no_command() -> None:
    assert texts([";", "  ;  ", "DIS QMGR"]) == ["DIS QMGR"]


def test_file_ending_inside_a_continuation_yields_what_was_read() -> None:
    commands = list(assemble(["DIS QMGR", "ZMQSC DEFINE +"]))
    assert [c.text for c in commands] == ["DIS QMGR", "ZMQSC DEFINE"]
    assert commands[1].line == 2


def test_line_numbers_and_physical_lines() -> None:
    lines = ["* header", "ZMQSC DEF +", "  QL-A", "", "ZMQSC DIS QL-A"]
    assert list(assemble(lines)) == [
        SourceCommand("ZMQSC DEF QL-A", 2, ["ZMQSC DEF +", "  QL-A"]),
        SourceCommand("ZMQSC DIS QL-A", 5, ["ZMQSC DIS QL-A"]),
    ]


def test_carriage_returns_are_dropped() -> None:
    assert texts(["DIS QMGR +\r\n", "ALL\r"]) == ["DIS QMGR ALL"]


def test_continuation_character() -> None:
    assert continuation("A +") == "+"
    assert continuation("A -  ") == "-"
    assert continuation("A") is None
    assert continuation("") is None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=30), max_size=8))
def test_assemble_never_fails_and_yields_stripped_non_empty_commands(lines: list[str]) -> None:
    for command in assemble(lines):
        assert command.text == command.text.strip()
        assert command.text
        assert 1 <= command.line <= len(lines)
        assert command.lines


@settings(max_examples=200, deadline=None)
@given(st.lists(st.from_regex(r"[A-Z][A-Z0-9 ().'-]{0,20}[A-Z0-9)]", fullmatch=True), min_size=1, max_size=6))
def test_plain_lines_are_commands_unchanged(lines: list[str]) -> None:
    # Lines that neither continue nor hold `;` are one command each, exactly as typed.
    assert texts(lines) == [line.strip() for line in lines]


def _reference_split(line: str, quoted: bool) -> tuple[str, bool, bool]:
    """The rule spelled out character by character."""
    for index, char in enumerate(line):
        if char == "'":
            quoted = not quoted
        elif char == ";" and not quoted:
            return line[:index], True, False
    return line, False, quoted


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("AB ';+-")), max_size=20), st.booleans())
def test_split_semicolon_matches_the_rule(line: str, quoted: bool) -> None:
    from mqtool.parse.lines import _split_semicolon

    assert _split_semicolon(line, quoted) == _reference_split(line, quoted)


# -- bounds: one line, one continued command -----------------------------------------------


def test_read_lines_gives_the_lines_as_splitlines_does() -> None:
    text = "DIS QMGR\r\nZMQSC DEF +\n  QL-A\x0cDIS QL(*)\n\nlast"
    assert list(read_lines(io.StringIO(text, newline=""))) == text.splitlines()


def test_read_lines_stops_at_a_line_longer_than_a_command() -> None:
    ok = "X" * MAX_COMMAND
    assert list(read_lines(io.StringIO(f"{ok}\r\n{ok}"))) == [ok, ok]
    lines = read_lines(io.StringIO(f"DIS QMGR\n{ok}Y\nDIS QL(*)\n"))
    assert next(lines) == "DIS QMGR"
    with pytest.raises(LineTooLong, match=f"line 2 is longer than {MAX_COMMAND} characters"):
        next(lines)


def test_read_lines_never_holds_more_than_one_line() -> None:
    class Endless(io.TextIOBase):
        """/dev/zero as text: NULs without end, counting what was asked for."""

        asked = 0

        def readline(self, size: int | None = -1) -> str:
            assert size is not None and 0 < size <= MAX_COMMAND + 2
            self.asked += size
            return "\0" * size

    stream = Endless()
    with pytest.raises(LineTooLong, match="line 1 "):
        list(read_lines(stream))  # type: ignore[arg-type]
    assert stream.asked == MAX_COMMAND + 2


def test_a_continued_command_longer_than_the_limit_is_marked_and_skipped() -> None:
    half = "X" * (MAX_COMMAND // 2)
    lines = ["ZMQSC DEF QL-A +", f"DESCR-'{half}+", f"{half}+", f"{half}'", "DIS QMGR"]
    first, second = assemble(lines)
    assert first.too_long and first.line == 1
    assert sum(len(line) for line in first.lines) == MAX_COMMAND  # the start, for the echo
    assert second == SourceCommand("DIS QMGR", 5, ["DIS QMGR"])
    # Exactly at the limit is still a command.
    exact = "X" * (MAX_COMMAND - len("ZMQSC DEF QL-A +"))
    (command,) = assemble(["ZMQSC DEF QL-A +", exact])
    assert not command.too_long and command.text == "ZMQSC DEF QL-A " + exact


def test_endless_continuation_holds_nothing_past_the_limit() -> None:
    lines = ["DIS QMGR +", *(["+"] * (MAX_COMMAND * 2))]
    (command,) = assemble(lines)
    assert command.too_long and sum(len(line) for line in command.lines) <= MAX_COMMAND
