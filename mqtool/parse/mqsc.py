"""Lexer for MQSC (IBM MQ for z/OS): `VERB OBJTYPE(name) KEYWORD(value) ... FLAG`,
by IBM's rules for using MQSC commands:

- keywords, parentheses and values are separated by any number of blanks and commas
  (`ALTER QLOCAL ('Account' ) , TRIGDPTH ( 1)`); on z/OS a parameter needs no blank
  before it (`QLOCAL(A)DESCR(B)`);
- a value is in parentheses after its keyword, or on z/OS after an equals sign, where
  it ends at the next blank or comma (`MAXDEPTH=500`);
- a list in parentheses is separated by blanks or commas (`COMPMSG(RLE, ZLIBFAST)`);
- a string in apostrophes keeps its blanks, commas, parentheses and case, and `''` in
  it is one apostrophe; everything else is folded to upper case;
- a closing parenthesis must follow an opening one before any other opening one
  (`CONNAME(host(1414))` is CSQ9002E: the value is written `CONNAME('host(1414)')`).

The file rules (comments, continuation, `;`, the 32,762-character command) are
lines.py's; that the object need not be the second word on z/OS is the dialect's
(commands/zos), which knows the object words.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mqtool.parse.command import Command, LexError, Param

_WORD = re.compile(r"[A-Za-z0-9_]+")
SEPARATORS = " ,\t"  # blanks and commas (a tab is taken as a blank)
Item = tuple[str, bool]  # one value of a list, unquoted, and whether it was quoted
Token = tuple[str, "str | None", "list[Item] | None"]  # (KEYWORD, raw value or None, items or None)


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in SEPARATORS:
        i += 1
    return i


def _quoted(text: str, i: int, keyword: str) -> tuple[str, int]:
    """The string in apostrophes starting at `i` (`''` is one apostrophe) and the index
    after its closing apostrophe."""
    out: list[str] = []
    i += 1
    while i < len(text):
        if text[i] == "'":
            if text.startswith("''", i):
                out.append("'")
                i += 2
                continue
            return "".join(out), i + 1
        out.append(text[i])
        i += 1
    raise LexError("quote", keyword)


def _parenthesised(text: str, start: int, keyword: str) -> tuple[str, list[Item], int]:
    """The value in the parentheses opening at `start`: (the text inside, its items, the
    index after the closing parenthesis)."""
    items: list[Item] = []
    current: list[str] = []
    quoted = started = False
    i = start + 1
    while i < len(text):
        char = text[i]
        if char == "'":
            value, i = _quoted(text, i, keyword)
            current.append(value)
            quoted = started = True
            continue
        if char in SEPARATORS or char == ")":
            if started:
                items.append(("".join(current), quoted))
            current, quoted, started = [], False, False
            if char == ")":
                return text[start + 1 : i], items, i + 1
        elif char == "(":
            raise LexError("paren", keyword, "an opening parenthesis before the closing one")
        else:
            current.append(char)
            started = True
        i += 1
    raise LexError("paren", keyword)


def _after_equals(text: str, start: int, keyword: str) -> tuple[str, list[Item], int]:
    """z/OS `KEYWORD=value`: the value after the equals sign at `start`, up to the next
    blank or comma (a string in apostrophes may hold them)."""
    i = start + 1
    current: list[str] = []
    quoted = False
    while i < len(text) and text[i] not in SEPARATORS:
        char = text[i]
        if char == "'":
            value, i = _quoted(text, i, keyword)
            current.append(value)
            quoted = True
            continue
        if char in "()=":
            raise LexError("token", f"{keyword}={text[start + 1 :].split()[0]}", "a value after = ends at a blank")
        current.append(char)
        i += 1
    if not current and not quoted:
        raise LexError("token", f"{keyword}=", "no value after =")
    return text[start + 1 : i], [("".join(current), quoted)], i


def split_items(inside: str) -> list[Item]:
    """The items of a value as they stand inside its parentheses, each (item, quoted):
    what the lexer makes of WHERE(...), for callers that hold the inside alone (the REST
    API's runCommandJSON `where`). LexError for an apostrophe or parenthesis left open."""
    _, items, end = _parenthesised(f"({inside})", 0, "WHERE")
    if end != len(inside) + 2:
        raise LexError("paren", "WHERE", "a closing parenthesis inside the value")
    return items


def tokens(text: str) -> list[Token]:
    """(KEYWORD, raw value or None, items or None) for each parameter of the line."""
    out: list[Token] = []
    i = _skip(text, 0)
    while i < len(text):
        match = _WORD.match(text, i)
        if not match:
            char = text[i]
            rest = text[i:].split()[0] if text[i:].split() else char
            if char == "'" and text.count("'", i) % 2:
                raise LexError("quote", rest)
            raise LexError("token", rest)
        keyword = match.group(0).upper()
        i = _skip(text, match.end())
        if i < len(text) and text[i] == "(":
            inside, items, i = _parenthesised(text, i, keyword)
            out.append((keyword, inside, items))
        elif i < len(text) and text[i] == "=":
            inside, items, i = _after_equals(text, i, keyword)
            out.append((keyword, inside, items))
        elif i == match.end() and i < len(text):
            # Glued to something that is no separator, parenthesis or equals sign.
            raise LexError("token", text[match.start() :].split()[0])
        else:
            out.append((keyword, None, None))
        i = _skip(text, i)
    return out


def _values(items: list[Item]) -> list[str]:
    return [value if quoted else value.upper() for value, quoted in items]


def lex(text: str, cpf: str | None = None, is_object: Callable[[str, str], bool] | None = None) -> Command:
    """Splits an MQSC line (the CPF already removed by the caller). The object is the
    second word, unless `is_object(verb, word)` says it is not and says a later word is
    (on z/OS the object need not be second: `DEFINE REPLACE QLOCAL(A)`)."""
    toks = tokens(text)
    if not toks:
        raise LexError("empty", "", "no verb")
    verb, verb_inside, _ = toks[0]
    if verb_inside is not None:
        raise LexError("token", verb, "a verb takes no value")
    command = Command(text=text, dialect="zos", verb=verb, cpf=cpf)
    rest = toks[1:]
    if rest and is_object is not None and not is_object(verb, rest[0][0]):
        later = next((index for index, tok in enumerate(rest) if is_object(verb, tok[0])), 0)
        rest.insert(0, rest.pop(later))
    if rest:
        obj, _inside, items = rest[0]
        command.object = obj
        if items is not None:
            command.object_value = _values(items)
            if len(items) == 1:
                command.name = command.object_value[0]
                command.name_quoted = items[0][1]
            elif not items:
                command.name = ""
        rest = rest[1:]
    for keyword, _inside, items in rest:
        command.params.append(param(keyword, items))
    return command


def param(keyword: str, items: list[Item] | None) -> Param:
    """One parameter as the lexer gives it: a flag (None), one value, or a list."""
    if items is None:
        return Param(keyword, None)
    values = _values(items)
    quoted_any = any(quoted for _, quoted in items)
    if len(values) == 1:
        return Param(keyword, values[0], quoted_any)
    if not values:
        return Param(keyword, "", quoted_any)
    return Param(keyword, values, quoted_any)
