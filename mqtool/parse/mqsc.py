"""Lexer for MQSC (IBM MQ for z/OS): `VERB OBJTYPE(name) KEYWORD(value) ... FLAG`."""

from __future__ import annotations

import re

from mqtool.parse.command import Command, LexError, Param
from mqtool.parse.quoting import split_quoted

_WORD = re.compile(r"[A-Za-z0-9_]+")


def _read_parens(text: str, start: int, keyword: str) -> tuple[str, int, bool]:
    """Reads from the `(` at `start` to its matching `)`; returns (inside, next index, quoted)."""
    depth = 0
    i = start
    quoted = False
    any_quote = False
    while i < len(text):
        char = text[i]
        if quoted:
            if char == "'":
                if i + 1 < len(text) and text[i + 1] == "'":
                    i += 2
                    continue
                quoted = False
        elif char == "'":
            quoted = True
            any_quote = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1 : i], i + 1, any_quote
        i += 1
    if quoted:
        raise LexError("quote", keyword)
    raise LexError("paren", keyword)


def _items(inside: str) -> list[tuple[str, bool]]:
    """The items inside parentheses, separated by commas or blanks, unquoted; nested
    parentheses stay in their item (CONNAME(host(1414)))."""
    return split_quoted(inside, separators=" ,\t", nest_parens=True)


def split_items(inside: str) -> list[tuple[str, bool]]:
    """The items of a value as they stand inside its parentheses, each (item, quoted):
    what the lexer makes of WHERE(...), for callers that hold the inside alone (the REST
    API's runCommandJSON `where`)."""
    return _items(inside)


def tokens(text: str) -> list[tuple[str, str | None, list[tuple[str, bool]] | None]]:
    """(KEYWORD, raw inside or None, items or None) for each token of the line."""
    out: list[tuple[str, str | None, list[tuple[str, bool]] | None]] = []
    i = 0
    length = len(text)
    while i < length:
        char = text[i]
        if char in " ,\t":
            i += 1
            continue
        match = _WORD.match(text, i)
        if not match:
            if char == "'" and text.count("'", i) % 2:
                raise LexError("quote", text[i:].split()[0])
            raise LexError("token", text[i:].split()[0] if text[i:].split() else char)
        keyword = match.group(0).upper()
        i = match.end()
        if i < length and text[i] == "(":
            inside, i, _ = _read_parens(text, i, keyword)
            out.append((keyword, inside, _items(inside)))
        else:
            if i < length and text[i] not in " ,\t":
                raise LexError("token", text[match.start() :].split()[0])
            out.append((keyword, None, None))
    return out


def lex(text: str, cpf: str | None = None) -> Command:
    """Splits an MQSC line (the CPF already removed by the caller)."""
    toks = tokens(text)
    if not toks:
        raise LexError("empty", "", "no verb")
    verb, verb_inside, _ = toks[0]
    if verb_inside is not None:
        raise LexError("token", verb, "a verb takes no value")
    command = Command(text=text, dialect="zos", verb=verb, cpf=cpf)
    rest = toks[1:]
    if rest:
        obj, _inside, items = rest[0]
        command.object = obj
        if items is not None:
            command.object_value = [value if quoted else value.upper() for value, quoted in items]
            if len(items) == 1:
                command.name = items[0][0] if items[0][1] else items[0][0].upper()
                command.name_quoted = items[0][1]
            elif not items:
                command.name = ""
        rest = rest[1:]
    for keyword, _inside, items in rest:
        if items is None:
            command.params.append(Param(keyword, None))
            continue
        values = [value if quoted else value.upper() for value, quoted in items]
        quoted_any = any(quoted for _, quoted in items)
        if len(values) == 1:
            command.params.append(Param(keyword, values[0], quoted_any))
        elif not values:
            command.params.append(Param(keyword, "", quoted_any))
        else:
            command.params.append(Param(keyword, values, quoted_any))
    return command
