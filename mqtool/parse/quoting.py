"""Splitting text into words the way every dialect quotes: `'...'` keeps blanks and
case, `''` inside quotes is one quote."""

from __future__ import annotations

from mqtool.parse.command import LexError

COMMA_MARK = "\x00"  # stands for a comma outside quotes, so lists survive unquoting


def split_quoted(
    text: str, separators: str = " \t", mark_commas: bool = False, nest_parens: bool = False
) -> list[tuple[str, bool]]:
    """Words separated by runs of `separators` outside quotes (and outside parentheses
    with `nest_parens`), each unquoted; returns (word, had_quotes) pairs. With
    `mark_commas`, a comma outside quotes becomes COMMA_MARK. An unclosed quote is a
    LexError naming the word it starts in."""
    words: list[tuple[str, bool]] = []
    current: list[str] = []
    quoted = had_quotes = started = False
    depth = 0
    word_start = 0
    i = 0
    while i < len(text):
        char = text[i]
        if not started:
            word_start = i
        if quoted:
            if char == "'":
                if text.startswith("''", i):
                    current.append("'")
                    i += 2
                    continue
                quoted = False
            else:
                current.append(char)
        elif char == "'":
            quoted = had_quotes = started = True
        elif char in separators and depth == 0:
            if started:
                words.append(("".join(current), had_quotes))
            current, had_quotes, started = [], False, False
        else:
            if nest_parens and char in "()":
                depth += 1 if char == "(" else -1
            current.append(COMMA_MARK if mark_commas and char == "," else char)
            started = True
        i += 1
    if quoted:
        raise LexError("quote", text[word_start:].rstrip(), "unbalanced apostrophes")
    if started:
        words.append(("".join(current), had_quotes))
    return words
