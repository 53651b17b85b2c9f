"""IBM MQ for z/OS commands that mqtool recognises but does not implement: they answer
MQT0400E with CSQ9023E, so that an operator reads "not available here" and not
"CSQ9001E ... is invalid", which means a typing error. The list is the `unavailable`
section of the keyword table (IBM's MQSC command reference for z/OS)."""

from __future__ import annotations

from mqtool.parse.command import Command
from mqtool.response import FAILED, SYNTAX, Response
from mqtool.tables import Table

from . import PARSER_CSECT, failure, table


def _section(tbl: Table) -> tuple[dict[str, list[str]], dict[str, str]]:
    raw = tbl.raw.get("unavailable") or {}
    commands = {str(verb): [str(o) for o in objects or []] for verb, objects in (raw.get("commands") or {}).items()}
    synonyms = {str(k): str(v) for k, v in (raw.get("synonyms") or {}).items()}
    return commands, synonyms


def _verb(word: str, tbl: Table) -> str | None:
    """The IBM verb a word names (a verb mqtool has, or one it only recognises)."""
    commands, synonyms = _section(tbl)
    upper = word.upper()
    known = tbl.verb(upper)
    if known is not None:
        return known.name
    upper = synonyms.get(upper, upper)
    return upper if upper in commands else None


def objects_of(word: str, tbl: Table) -> set[str]:
    """The object words (with IBM's synonyms) that IBM's verb `word` takes and mqtool
    does not build."""
    verb = _verb(word, tbl)
    commands, synonyms = _section(tbl)
    if verb is None:
        return set()
    objects = set(commands.get(verb) or [])
    return objects | {short for short, full in synonyms.items() if full in objects}


def recognised(word: str) -> bool:
    """Whether a line's first word is an IBM MQ for z/OS verb mqtool only recognises."""
    tbl = table()
    return tbl.verb(word) is None and _verb(word, tbl) is not None


def answer(command: Command, tbl: Table) -> Response | None:
    """MQT0400E for a verb, or a verb and object, that IBM MQ for z/OS has and mqtool
    does not; CSQ9001E naming the object when an IBM verb is given an object it does
    not take; None when the verb is not IBM's."""
    verb = _verb(command.verb, tbl)
    if verb is None:
        return None
    commands, synonyms = _section(tbl)
    objects = commands.get(verb)
    if command.object is None:
        if tbl.verb(verb) is not None or objects is None:
            return None  # a verb of mqtool's without its object: the table's own message
        return _not_available(command, verb)
    word = command.object.upper()
    known = tbl.object(word)
    obj = known.name if known is not None else synonyms.get(word, word)
    if objects is not None and obj in objects:
        return _not_available(command, f"{verb} {obj}")
    if tbl.verb(verb) is None:
        return failure(command, "CSQ9001E", SYNTAX, keyword=command.object)
    return None


def _not_available(command: Command, words: str) -> Response:
    result = Response(status=FAILED, framing="zos", verb_words=words, csect=PARSER_CSECT)
    result.add("MQT0400E", command=words)
    return result
