"""Lexer for z/TPF operator commands: `ZMQSC VERB OBJ-name KEYWORD-value ... FLAG`
(and `ZHTPS VERB SERVER-name ...`)."""

from __future__ import annotations

import re

from mqtool.parse.command import Command, LexError, Param

_KEYWORD = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_BLANKS = re.compile(r"[ \t]+")


def _words(text: str) -> list[tuple[str, bool]]:
    """Blank-separated words; each word's quoted parts are unquoted, `''` is one quote.
    Returns (word, had_quotes)."""
    if "'" not in text:
        # The common case, without quotes: a plain split (commas marked as separators).
        return [(word.replace(",", "\x00"), False) for word in _BLANKS.split(text) if word]
    words: list[tuple[str, bool]] = []
    current: list[str] = []
    quoted = False
    had_quotes = False
    started = False
    word_start = 0
    i = 0
    while i < len(text):
        char = text[i]
        if not started:
            word_start = i
        if quoted:
            if char == "'":
                if i + 1 < len(text) and text[i + 1] == "'":
                    current.append("'")
                    i += 2
                    continue
                quoted = False
            else:
                current.append(char)
        elif char == "'":
            quoted = True
            had_quotes = True
            started = True
        elif char in " \t":
            if started:
                words.append(("".join(current), had_quotes))
            current, had_quotes, started = [], False, False
        else:
            current.append("\x00" if char == "," else char)  # mark separators outside quotes
            started = True
        i += 1
    if quoted:
        raise LexError("quote", text[word_start:].rstrip(), "unbalanced apostrophes")
    if started:
        words.append(("".join(current), had_quotes))
    return words


def _value(raw: str, quoted: bool) -> str | list[str]:
    parts = raw.split("\x00")
    if not quoted:
        parts = [p.upper() for p in parts]
    return parts if len(parts) > 1 else parts[0]


def lex(text: str, dialect: str) -> Command:
    """Splits a z/TPF command line. The first word (ZMQSC/ZHTPS) is checked by the caller."""
    words = _words(text)
    if len(words) < 2:
        raise LexError("empty", text.split()[0] if text.split() else "", "no verb")
    verb_word = words[1][0].replace("\x00", ",")
    if "\x00" in words[1][0] or not _KEYWORD.match(verb_word):
        raise LexError("token", verb_word, "not a verb")
    command = Command(text=text, dialect=dialect, verb=verb_word.upper())
    for index, (word, quoted) in enumerate(words[2:]):
        keyword, dash, rest = word.partition("-")
        if not _KEYWORD.match(keyword.replace("\x00", ",")) or "\x00" in keyword:
            raise LexError("token", word.replace("\x00", ","), "not KEYWORD-value")
        if index == 0 and command.object is None and (dash or keyword.upper() in ("QMGR", "ALL")):
            # The object: OBJ-name, or a bare QMGR / ALL.
            if dash:
                if "\x00" in rest:
                    raise LexError("token", word.replace("\x00", ","), "one name only")
                command.object = keyword.upper()
                command.name = rest if quoted else rest.upper()
                command.name_quoted = quoted
            else:
                command.object = keyword.upper()
            continue
        if dash:
            command.params.append(Param(keyword.upper(), _value(rest, quoted), quoted))
        else:
            command.params.append(Param(keyword.upper(), None))
    return command
