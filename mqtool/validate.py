"""Checks a lexed command against its dialect's keyword table and types its values."""

from __future__ import annotations

from typing import Any

from mqtool.parse.command import Command
from mqtool.record import Record
from mqtool.tables import (
    KeywordSpec,
    ObjectSpec,
    Table,
    ValidationError,
    VerbSpec,
    check_name,
    convert,
    keyword_rows,
    suggest,
)


class Request(Record):
    """A command that passed the table checks: canonical verb and object, typed values.
    (A written-out record, not a dataclass: mqtool/record.py says why.)"""

    _FIELDS = ("command", "verb", "object", "name", "params", "order", "select", "select_all")

    def __init__(
        self,
        command: Command,
        verb: VerbSpec,
        object: ObjectSpec | None,
        name: str | None,
        params: dict[str, Any] | None = None,
        order: list[str] | None = None,
        select: list[str] | None = None,
        select_all: bool = False,
    ) -> None:
        self.command = command
        self.verb = verb
        self.object = object
        self.name = name
        self.params = {} if params is None else params
        self.order = [] if order is None else order  # keywords in the order typed
        self.select = [] if select is None else select  # MQSC DISPLAY: attributes asked for by name
        self.select_all = select_all  # MQSC DISPLAY ... ALL

    def has(self, keyword: str) -> bool:
        return keyword in self.params

    def get(self, keyword: str, default: Any = None) -> Any:
        return self.params.get(keyword, default)


GENERIC_VERBS = ("DISPLAY",)


def validate(table: Table, command: Command) -> Request | ValidationError:
    verb = table.verb(command.verb)
    if verb is None:
        words = [word for spec in table.verbs.values() for word in (spec.name, *spec.abbrev)]
        return ValidationError(
            "unknown_verb", command.verb, allowed=", ".join(table.verbs), suggestion=suggest(command.verb, words)
        )
    obj: ObjectSpec | None = None
    if verb.objects and not (verb.object_optional and command.object is None):
        obj = table.object(command.object) if command.object else None
        if obj is None or obj.name not in verb.objects:
            words = [word for name in verb.objects for word in (name, *table.objects[name].aliases)]
            return ValidationError(
                "unknown_object",
                command.object or "",
                allowed=", ".join(verb.objects),
                # A known object type that this verb does not take is no misspelling.
                suggestion="" if table.object(command.object or "") else suggest(command.object or "", words),
            )
    name = command.name
    # A nameless object may take a name with some verbs only (DEFINE LOG(dsname)).
    named = obj is not None and verb.name in (table.raw["objects"][obj.name].get("named_verbs") or [])
    if obj is not None and obj.nameless and not named and command.object_value is not None:
        # QMGR, LOG ... take no name: ALTER QMGR(X) is as wrong as a misplaced value
        return ValidationError("bad_value", obj.name, ",".join(command.object_value), "no value")
    if obj is not None and obj.name_rule is not None and (named or not obj.nameless):
        optional = verb.name in table.raw["objects"][obj.name].get("name_optional", [])
        if name is None or name == "":
            if not optional:
                return ValidationError("missing_name", obj.name)
        else:
            generic_ok = verb.name in GENERIC_VERBS or verb.name in table.raw["objects"][obj.name].get(
                "generic_verbs", []
            )
            reason = check_name(obj.name_rule, name, generic_ok=generic_ok)
            if reason:
                return ValidationError("bad_name", obj.name, name, detail=reason)
    request = Request(command, verb, obj, name)
    seen: dict[str, str] = {}
    for param in command.params:
        spec: KeywordSpec | None = table.keyword(obj, param.keyword, verb) if obj is not None else None
        if verb.select and param.value is None:
            # DISPLAY QLOCAL(*) MAXDEPTH CURDEPTH: a bare attribute name selects it
            if spec is None and param.keyword == "ALL":
                if request.select_all:
                    return ValidationError("duplicate", param.keyword)
                request.select_all = True
                continue
            if spec is not None and spec.type != "flag" and spec.display:
                if spec.name in request.select:
                    return ValidationError("duplicate", param.keyword)
                request.select.append(spec.name)
                continue
        if spec is None:
            return ValidationError(
                "unknown_keyword",
                param.keyword,
                allowed=_keywords_for(obj, verb),
                suggestion=suggest(param.keyword, _keyword_words(obj, verb)),
            )
        if verb.name not in spec.verbs:
            return ValidationError("not_for_verb", param.keyword, detail=f"with {verb.name}")
        if spec.name in seen:
            return ValidationError("duplicate", param.keyword)
        seen[spec.name] = param.keyword
        if spec.negation and param.keyword == spec.negation:
            if param.value is not None:
                return ValidationError("bad_value", param.keyword, str(param.value), "no value")
            request.params[spec.name] = "NO" if spec.type == "switch" else False
        else:
            value, error = convert(spec, param.value)
            if error is not None:
                return error
            request.params[spec.name] = value
        if verb.name == "ALTER" and not spec.alterable and not spec.alter_same:
            return ValidationError("not_alterable", spec.name)
        request.order.append(spec.name)
    if verb.name == "DEFINE" and obj is not None:
        for spec in obj.keywords.values():
            if spec.required and spec.name not in request.params:
                return ValidationError("missing", spec.name)
    return request


def _keywords_for(obj: ObjectSpec | None, verb: VerbSpec) -> str:
    # Upper case, as everything else on the console: VALID KEYWORDS ARE NONE.
    if obj is None:
        return "NONE"
    names = [k.name for k in keyword_rows(obj, verb).values() if verb.name in k.verbs]
    return ", ".join(names) if names else "NONE"


def _keyword_words(obj: ObjectSpec | None, verb: VerbSpec) -> list[str]:
    """Every spelling of the keywords that could follow: names, abbreviations and
    negations of those for this verb (and, for a DISPLAY that selects, those shown)."""
    if obj is None:
        return []
    specs = [k for k in keyword_rows(obj, verb).values() if verb.name in k.verbs or (verb.select and k.display)]
    return [word for k in specs for word in (k.name, *k.abbrev, *([k.negation] if k.negation else []))]
