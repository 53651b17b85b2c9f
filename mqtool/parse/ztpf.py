"""Lexer for z/TPF operator commands: `ZMQSC VERB OBJ-name KEYWORD-value ... FLAG`
(and `ZHTPS VERB SERVER-name ...`)."""

from __future__ import annotations

import re

from mqtool.parse.command import Command, LexError, Param
from mqtool.parse.quoting import COMMA_MARK, split_quoted

_KEYWORD = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_BLANKS = re.compile(r"[ \t]+")


def _words(text: str) -> list[tuple[str, bool]]:
    """Blank-separated words, unquoted, with commas outside quotes marked as list separators."""
    if "'" not in text:
        # The common case, without quotes: a plain split.
        return [(word.replace(",", COMMA_MARK), False) for word in _BLANKS.split(text) if word]
    return split_quoted(text, mark_commas=True)


def _value(raw: str, quoted: bool) -> str | list[str]:
    parts = raw.split(COMMA_MARK)
    if not quoted:
        parts = [p.upper() for p in parts]
    return parts if len(parts) > 1 else parts[0]


def lex(text: str, dialect: str) -> Command:
    """Splits a z/TPF command line. The first word (ZMQSC/ZHTPS) is checked by the caller."""
    words = _words(text)
    if len(words) < 2:
        raise LexError("empty", text.split()[0] if text.split() else "", "no verb")
    verb_word = words[1][0].replace(COMMA_MARK, ",")
    if COMMA_MARK in words[1][0] or not _KEYWORD.match(verb_word):
        raise LexError("token", verb_word, "not a verb")
    command = Command(text=text, dialect=dialect, verb=verb_word.upper())
    for index, (word, quoted) in enumerate(words[2:]):
        keyword, dash, rest = word.partition("-")
        if not _KEYWORD.match(keyword.replace(COMMA_MARK, ",")) or COMMA_MARK in keyword:
            raise LexError("token", word.replace(COMMA_MARK, ","), "not KEYWORD-value")
        if index == 0 and command.object is None and (dash or keyword.upper() in ("QMGR", "ALL")):
            # The object: OBJ-name, or a bare QMGR / ALL.
            if dash:
                if COMMA_MARK in rest:
                    raise LexError("token", word.replace(COMMA_MARK, ","), "one name only")
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
