"""DISPLAY ... WHERE(keyword operator value): the filter of MQSC displays, with IBM's
rules (the DISPLAY QUEUE, DISPLAY CHANNEL, DISPLAY QSTATUS and DISPLAY CHSTATUS
pages of the MQSC reference):

- the keyword is an attribute the display shows, less those IBM excludes (QSGDISP
  always, TYPE on QSTATUS, and a keyword that already selects the objects, such as
  TYPE(QLOCAL) or CHLTYPE(SDR)); an object that does not have the attribute is not
  shown;
- LT GT EQ NE LE GE compare a number, or a string that is not generic; an attribute
  with a set of values (PUT, USAGE) takes only EQ and NE, with one of its values;
- LK and NL match, or do not match, a generic string (ABC*, one trailing asterisk; a
  string without one is matched exactly); they are for character attributes only;
- CT and EX: the list attribute contains, or does not contain, the item; CTG and EXG
  the same with a generic item.

The filter works on the values the display shows (computed ones such as CURDEPTH
included), so it follows whatever a DISPLAY learns to show. A word that stands for a
number (CAPEXPRY NOLIMIT, EXPRYINT OFF) matches EQ and NE only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqtool import inputs
from mqtool.response import Response
from mqtool.tables import FILTER_OPERATORS, KeywordSpec, ObjectSpec

from . import syntax

ORDERING = ("LT", "GT", "EQ", "NE", "LE", "GE")
GENERIC = ("LK", "NL")
LISTS = ("CT", "EX", "CTG", "EXG")
NEVER = ("QSGDISP",)  # IBM: QSGDISP (and CMDSCOPE, which mqtool does not have) cannot filter
NEVER_FOR = {"QSTATUS": ("TYPE",)}
MQLONG_MAX = 2_147_483_647  # a numeric attribute is an MQLONG: a larger value can match none


@dataclass(frozen=True)
class Filter:
    keyword: str
    operator: str
    value: str  # as typed, a generic one with its trailing *
    kind: str  # number, word, string, list

    def matches(self, shown: Any) -> bool:
        """Whether an attribute value as the display shows it passes the filter."""
        text = "" if shown is None else str(shown).strip()
        if self.kind == "list":
            items = [item.strip() for item in text.split(",") if item.strip()]
            if self.operator in ("CT", "EX"):
                found = self.value in items
            else:
                found = any(_generic_match(self.value, item) for item in items)
            return found if self.operator in ("CT", "CTG") else not found
        if self.operator in GENERIC:
            found = _generic_match(self.value, text)
            return found if self.operator == "LK" else not found
        if self.kind == "number":
            if not (text.isascii() and text.isdigit()):
                return False  # a word (NOLIMIT, OFF) is no number to compare with
            return _compare(self.operator, int(text), int(self.value))
        return _compare(self.operator, text, self.value)


def _generic_match(pattern: str, text: str) -> bool:
    if pattern.endswith("*"):
        return text.startswith(pattern[:-1])
    return text == pattern


def _compare(operator: str, left: Any, right: Any) -> bool:
    if operator == "LT":
        return bool(left < right)
    if operator == "GT":
        return bool(left > right)
    if operator == "LE":
        return bool(left <= right)
    if operator == "GE":
        return bool(left >= right)
    if operator == "EQ":
        return bool(left == right)
    return bool(left != right)


def parse(req: Any, spec: ObjectSpec, words: list[str]) -> Filter | Response:
    """The filter of a request's WHERE(...), or the CSQ9030E response that says what is wrong."""

    def bad(value: str, allowed: str) -> Response:
        return syntax(req, "CSQ9030E", keyword="WHERE", value=value, allowed=allowed)

    shown = " ".join(words)
    if len(words) != 3:
        return bad(shown, "keyword operator value, e.g. WHERE(CURDEPTH GT 0)")
    keyword_word, operator, value = words[0].upper(), words[1].upper(), words[2]
    keyword = _filter_keyword(spec, keyword_word)
    # A keyword that selects the objects (TYPE, CHLTYPE) cannot filter them as well.
    excluded = (*NEVER, *NEVER_FOR.get(spec.name, ()), *(k for k in req.params if k != "WHERE"))
    if keyword is None or keyword.name in excluded:
        return bad(keyword_word, f"an attribute that DISPLAY {spec.full} shows, except {', '.join(excluded)}")
    if operator not in FILTER_OPERATORS:
        return bad(operator, " ".join(FILTER_OPERATORS))
    generic = value.endswith("*")
    if "*" in value[:-1]:
        return bad(value, "one asterisk, at the end of a generic value")
    name = keyword.name
    if keyword.type == "list":
        if operator not in LISTS:
            return bad(f"{name} {operator}", f"CT, EX, CTG or EXG: {name} is a list")
        if operator in ("CT", "EX") and generic:
            return bad(value, "CTG or EXG for a generic value")
        item = keyword.value_abbrev.get(value.upper(), value.upper())
        if not generic and keyword.values and item not in keyword.values:
            return bad(value, keyword.describe_values())
        return Filter(name, operator, item if not generic else value.upper(), "list")
    if operator in LISTS:
        return bad(f"{name} {operator}", f"LT GT EQ NE LE GE LK NL: {name} is not a list")
    if keyword.type == "int":
        if operator in GENERIC or generic:
            return bad(value, f"a number: {name} has numeric values, which cannot be generic")
        if value.upper() in keyword.words:
            if operator not in ("EQ", "NE"):
                return bad(f"{operator} {value}", f"EQ or NE with {value.upper()}")
            return Filter(name, operator, value.upper(), "word")
        try:
            number = inputs.whole(value, 0, MQLONG_MAX)
        except inputs.InputError:
            return bad(inputs.shown(value), f"a number 0-{MQLONG_MAX} for {name}")
        return Filter(name, operator, str(number), "number")
    if keyword.type == "enum":
        if operator not in ("EQ", "NE"):
            return bad(f"{name} {operator}", f"EQ or NE: {name} takes one of {keyword.describe_values()}")
        item = keyword.value_abbrev.get(value.upper(), value.upper())
        if keyword.values and item not in keyword.values:
            return bad(value, keyword.describe_values())
        return Filter(name, operator, item, "word")
    if generic and operator not in GENERIC:
        return bad(f"{operator} {value}", "LK or NL for a generic value")
    # A blank value (' ') is an empty one, as the display's ( ) is.
    return Filter(name, operator, value.strip(), "string")


def _filter_keyword(spec: ObjectSpec, word: str) -> KeywordSpec | None:
    found = spec.keywords.get(word)
    if found is None:
        found = next((k for k in spec.keywords.values() if word in k.abbrev), None)
    if found is None or found.type in ("flag", "filter") or not found.display:
        return None
    return found
