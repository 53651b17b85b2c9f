"""IBM MQ for z/OS commands that mqtool recognises but does not implement: they answer
MQT0400E with CSQ9023E, so that an operator reads "not available here" and not
"CSQ9001E ... is invalid", which means a typing error. The list is the `unavailable`
section of the keyword table (IBM's MQSC command reference for z/OS): its commands
(verbs and objects), the values of a keyword z/OS takes and mqtool does not build yet
(CHLTYPE(SVR)), and the verbs only other platforms have (PURGE), which z/OS refuses as
it refuses any verb it does not have."""

from __future__ import annotations

from typing import Any

from mqtool.parse.command import Command
from mqtool.response import FAILED, SYNTAX, Response
from mqtool.tables import Table, ValidationError

from . import PARSER_CSECT, failure, table, verb_words


def _section(tbl: Table) -> tuple[dict[str, list[str]], dict[str, str]]:
    raw = tbl.raw.get("unavailable") or {}
    commands = {str(verb): [str(o) for o in objects or []] for verb, objects in (raw.get("commands") or {}).items()}
    synonyms = {str(k): str(v) for k, v in (raw.get("synonyms") or {}).items()}
    return commands, synonyms


def _elsewhere(tbl: Table) -> set[str]:
    """MQSC verbs of IBM MQ on other platforms only (PURGE)."""
    return {str(verb).upper() for verb in (tbl.raw.get("unavailable") or {}).get("elsewhere") or []}


def _verb(word: str, tbl: Table) -> str | None:
    """The IBM verb a word names (a verb mqtool has, or one it only recognises)."""
    commands, synonyms = _section(tbl)
    upper = word.upper()
    known = tbl.verb(upper)
    if known is not None:
        return known.name
    upper = synonyms.get(upper, upper)
    return upper if upper in commands else None


def ibm_verb(word: str) -> str | None:
    """The IBM MQ for z/OS verb a word names (DEF: DEFINE, PING: PING), whether mqtool
    implements it or only recognises it; None for a word that is no verb."""
    return _verb(word, table())


def recognised(word: str) -> bool:
    """Whether a line's first word is an MQSC verb mqtool only recognises: one of IBM MQ
    for z/OS's that mqtool does not implement, or one of another platform's, which the
    z/OS queue manager then refuses (so a line starting with it reaches the z/OS
    dialect, with or without a CPF)."""
    tbl = table()
    return tbl.verb(word) is None and (_verb(word, tbl) is not None or word.upper() in _elsewhere(tbl))


def objects_of(word: str, tbl: Table) -> set[str]:
    """The object words (with IBM's synonyms) that IBM's verb `word` takes and mqtool
    does not build."""
    verb = _verb(word, tbl)
    commands, synonyms = _section(tbl)
    if verb is None:
        return set()
    objects = set(commands.get(verb) or [])
    return objects | {short for short, full in synonyms.items() if full in objects}


def answer(command: Command, tbl: Table) -> Response | None:
    """MQT0400E for a verb, or a verb and object, that IBM MQ for z/OS has and mqtool
    does not; CSQ9001E naming the object when an IBM verb is given an object it does
    not take, and naming the verb when only another platform has it; None when the
    verb is not IBM's."""
    if command.verb.upper() in _elsewhere(tbl) and tbl.verb(command.verb) is None:
        return failure(command, "CSQ9001E", SYNTAX, keyword=command.verb)
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


def not_available(command: Command, words: str) -> Response:
    """MQT0400E for a form of a command that mqtool has (`words`: the form, in full words); the
    completion line echoes the verb and object, as for any command."""
    result = Response(status=FAILED, framing="zos", verb_words=verb_words(command), csect=PARSER_CSECT)
    result.add("MQT0400E", command=words)
    return result


def value(error: ValidationError, command: Command, tbl: Table) -> Response | None:
    """MQT0400E for a keyword value that IBM MQ for z/OS takes and mqtool does not build
    yet (DEFINE CHANNEL(X) CHLTYPE(SVR)); None for any other bad value."""
    if error.kind != "bad_value" or command.object is None:
        return None
    obj = tbl.object(command.object)
    verb = tbl.verb(command.verb)
    if obj is None or verb is None:
        return None
    spec = obj.keywords.get(error.keyword)
    wanted = str(error.value).upper()
    if spec is None or wanted not in not_built(tbl, obj.name, spec.name):
        return None
    return _not_available(command, f"{verb.name} {obj.full} {spec.name}({wanted})", f"{verb.name} {obj.full}")


def not_built(tbl: Table, obj: str, keyword: str) -> list[str]:
    """The values of an object's keyword that z/OS takes and mqtool does not build yet."""
    raw: dict[str, Any] = (tbl.raw.get("unavailable") or {}).get("values") or {}
    return [str(item) for item in raw.get(f"{obj} {keyword}") or []]


def _not_available(command: Command, words: str, completion: str | None = None) -> Response:
    """MQT0400E naming `words`, then CSQ9023E echoing the verb and object (`completion`,
    when a value was what is not available)."""
    result = Response(status=FAILED, framing="zos", verb_words=completion or words, csect=PARSER_CSECT)
    result.add("MQT0400E", command=words)
    return result
