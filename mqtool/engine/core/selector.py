"""Subscription selectors (SELECTOR on DEFINE SUB): IBM MQ's SQL92 subset, on what the
engine's messages carry. mqtool's messages have no user properties, so a selector may
name only message descriptor fields: JMSPriority and Root.MQMD.Priority (0-9),
JMSDeliveryMode ('PERSISTENT' or 'NON_PERSISTENT') and Root.MQMD.Persistence (1 or 0),
JMSCorrelationID and Root.MQMD.CorrelId (the correlation id as 'ID:' and 48 hex digits,
or its text without trailing nulls). Any other name is refused at DEFINE with MQRC 2551
(MQRC_SELECTION_NOT_AVAILABLE: no selection provider can evaluate it); a syntax error
with MQRC 2459 (MQRC_SELECTOR_SYNTAX_ERROR).

The grammar: comparisons (= <> < > <= >=), [NOT] BETWEEN a AND b, [NOT] IN (...),
[NOT] LIKE 'pattern' [ESCAPE 'c'], IS [NOT] NULL, AND, OR, NOT, parentheses, string
('it''s'), integer and decimal literals, TRUE and FALSE; SQL's three-valued logic (a
comparison with an unknown value is unknown, and selects nothing)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mqtool.engine.core.reasons import SELECTION_NOT_AVAILABLE, SELECTOR_SYNTAX_ERROR

MAX_DEPTH = 64  # nested parentheses and NOTs
MAX_LENGTH = 10240

Fields = dict[str, Any]  # what a message offers: "priority", "persistent", "correlid"
Test = Callable[[Fields], Any]  # True, False or None (unknown)

_IDENTIFIERS: dict[str, Callable[[Fields], Any]] = {
    "JMSPRIORITY": lambda f: f["priority"],
    "ROOT.MQMD.PRIORITY": lambda f: f["priority"],
    "JMSDELIVERYMODE": lambda f: "PERSISTENT" if f["persistent"] else "NON_PERSISTENT",
    "ROOT.MQMD.PERSISTENCE": lambda f: 1 if f["persistent"] else 0,
    "JMSCORRELATIONID": lambda f: _correlid_text(f["correlid"]),
    "ROOT.MQMD.CORRELID": lambda f: _correlid_text(f["correlid"]),
}
_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<number>\d+(?:\.\d+)?)|(?P<op><>|<=|>=|[=<>(),])"
    r"|(?P<word>[A-Za-z_$][A-Za-z0-9_$.]*))"
)
_KEYWORDS = {"AND", "OR", "NOT", "BETWEEN", "IN", "LIKE", "ESCAPE", "IS", "NULL", "TRUE", "FALSE"}


def _correlid_text(value: bytes) -> str:
    return "ID:" + value.hex()


class SelectorError(ValueError):
    """A selector refused at DEFINE, with the MQ reason code it earns."""

    def __init__(self, reason: int, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class _Token:
    kind: str  # string, number, op, word, end
    text: str
    at: int


def _tokens(text: str) -> list[_Token]:
    out: list[_Token] = []
    index = 0
    while index < len(text):
        if text[index:].strip() == "":
            break
        match = _TOKEN.match(text, index)
        if match is None or match.end() == index:
            raise SelectorError(SELECTOR_SYNTAX_ERROR, f"cannot read the selector at character {index + 1}")
        kind = match.lastgroup or ""
        out.append(_Token(kind, match.group(kind), match.start(kind)))
        index = match.end()
    out.append(_Token("end", "", len(text)))
    return out


def _and(a: Any, b: Any) -> Any:
    if a is False or b is False:
        return False
    if a is None or b is None:
        return None
    return True


def _or(a: Any, b: Any) -> Any:
    if a is True or b is True:
        return True
    if a is None or b is None:
        return None
    return False


def _not(a: Any) -> Any:
    return None if a is None else not a


def _compare(op: str, a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    if isinstance(a, str) != isinstance(b, str):
        return False  # a string never equals a number
    if isinstance(a, str) and op not in ("=", "<>"):
        return None  # strings compare for equality only
    return {
        "=": a == b,
        "<>": a != b,
        "<": a < b,
        ">": a > b,
        "<=": a <= b,
        ">=": a >= b,
    }[op]


def _like(pattern: str, escape: str | None) -> re.Pattern[str]:
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if escape is not None and char == escape and index + 1 < len(pattern):
            out.append(re.escape(pattern[index + 1]))
            index += 2
            continue
        out.append(".*" if char == "%" else "." if char == "_" else re.escape(char))
        index += 1
    return re.compile("".join(out), re.DOTALL)


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.index = 0
        self.depth = 0

    def peek(self, word: str | None = None) -> bool:
        token = self.tokens[self.index]
        if word is None:
            return token.kind != "end"
        return token.text.upper() == word and token.kind in ("word", "op")

    def take(self, word: str | None = None) -> _Token:
        token = self.tokens[self.index]
        if word is not None and not self.peek(word):
            raise SelectorError(SELECTOR_SYNTAX_ERROR, f"expected {word} at character {token.at + 1}")
        if token.kind == "end":
            raise SelectorError(SELECTOR_SYNTAX_ERROR, "the selector ends too soon")
        self.index += 1
        return token

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise SelectorError(SELECTOR_SYNTAX_ERROR, f"more than {MAX_DEPTH} nested parentheses or NOTs")

    def expression(self) -> Test:
        left = self.conjunction()
        while self.peek("OR"):
            self.take()
            right = self.conjunction()
            left = (lambda a, b: lambda f: _or(a(f), b(f)))(left, right)
        return left

    def conjunction(self) -> Test:
        left = self.negation()
        while self.peek("AND"):
            self.take()
            right = self.negation()
            left = (lambda a, b: lambda f: _and(a(f), b(f)))(left, right)
        return left

    def negation(self) -> Test:
        if self.peek("NOT"):
            self.take()
            self.deeper()
            inner = self.negation()
            self.depth -= 1
            return lambda f: _not(inner(f))
        return self.comparison()

    def comparison(self) -> Test:
        left = self.value()
        negate = False
        if self.peek("NOT"):
            self.take()
            negate = True
            if not (self.peek("BETWEEN") or self.peek("IN") or self.peek("LIKE")):
                raise SelectorError(SELECTOR_SYNTAX_ERROR, "NOT must be followed by BETWEEN, IN or LIKE here")
        test: Test
        if self.peek("BETWEEN"):
            self.take()
            low = self.value()
            self.take("AND")
            high = self.value()
            test = lambda f: _and(_compare(">=", left(f), low(f)), _compare("<=", left(f), high(f)))  # noqa: E731
        elif self.peek("IN"):
            self.take()
            self.take("(")
            items = [self.literal()]
            while self.peek(","):
                self.take()
                items.append(self.literal())
            self.take(")")
            test = lambda f: (  # noqa: E731
                None if left(f) is None else any(_compare("=", left(f), item) is True for item in items)
            )
        elif self.peek("LIKE"):
            self.take()
            pattern = self.literal()
            escape = None
            if self.peek("ESCAPE"):
                self.take()
                escape = self.literal()
                if not isinstance(escape, str) or len(escape) != 1:
                    raise SelectorError(SELECTOR_SYNTAX_ERROR, "ESCAPE takes one character")
            if not isinstance(pattern, str):
                raise SelectorError(SELECTOR_SYNTAX_ERROR, "LIKE takes a string")
            compiled = _like(pattern, escape)
            test = lambda f: (  # noqa: E731
                None if not isinstance(left(f), str) else compiled.fullmatch(left(f)) is not None
            )
        elif self.peek("IS"):
            self.take()
            wanted_null = not self.peek("NOT")
            if not wanted_null:
                self.take()
            self.take("NULL")
            return lambda f: (left(f) is None) == wanted_null
        elif self.tokens[self.index].kind == "op" and self.tokens[self.index].text in ("=", "<>", "<", ">", "<=", ">="):
            op = self.take().text
            right = self.value()
            return lambda f: _compare(op, left(f), right(f))
        else:
            return lambda f: left(f) if isinstance(left(f), bool) or left(f) is None else None
        return (lambda f: _not(test(f))) if negate else test

    def literal(self) -> Any:
        token = self.take()
        if token.kind == "string":
            return token.text[1:-1].replace("''", "'")
        if token.kind == "number":
            return float(token.text) if "." in token.text else int(token.text)
        raise SelectorError(SELECTOR_SYNTAX_ERROR, f"expected a literal at character {token.at + 1}")

    def value(self) -> Callable[[Fields], Any]:
        token = self.tokens[self.index]
        if token.kind == "op" and token.text == "(":
            self.take()
            self.deeper()
            inner = self.expression()
            self.depth -= 1
            self.take(")")
            return inner
        if token.kind in ("string", "number"):
            constant = self.literal()
            return lambda f: constant
        if token.kind == "word":
            word = token.text.upper()
            if word in ("TRUE", "FALSE"):
                self.take()
                return lambda f: word == "TRUE"
            if word in _KEYWORDS:
                raise SelectorError(SELECTOR_SYNTAX_ERROR, f"unexpected {token.text} at character {token.at + 1}")
            self.take()
            getter = _IDENTIFIERS.get(word)
            if getter is None:
                raise SelectorError(
                    SELECTION_NOT_AVAILABLE,
                    f"{token.text}: no such message field (mqtool's messages have no properties)",
                )
            return getter
        raise SelectorError(SELECTOR_SYNTAX_ERROR, f"unexpected {token.text or 'end'} at character {token.at + 1}")


def compile_selector(text: str) -> Test:
    """The test of a selector; SelectorError (2459 or 2551) when it cannot be used."""
    if len(text) > MAX_LENGTH:
        raise SelectorError(SELECTOR_SYNTAX_ERROR, f"the selector is longer than {MAX_LENGTH} characters")
    parser = _Parser(text)
    test = parser.expression()
    if parser.peek():
        token = parser.tokens[parser.index]
        raise SelectorError(SELECTOR_SYNTAX_ERROR, f"unexpected {token.text} at character {token.at + 1}")
    return test


def selects(test: Test, priority: int, persistent: bool, correlid: bytes) -> bool:
    """Whether a message with these descriptor fields passes the selector (unknown: no)."""
    return test({"priority": priority, "persistent": persistent, "correlid": correlid}) is True
