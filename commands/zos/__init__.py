"""IBM MQ for z/OS (MQSC): lexing, CSQ-style error messages and the completion framing
(`CSQ9022I -CSQ1 CSQMxxxx ' VERB OBJTYPE' NORMAL COMPLETION`)."""

from __future__ import annotations

from typing import Any

from mqtool.parse import mqsc
from mqtool.parse.command import Command, LexError
from mqtool.response import FAILED, SYNTAX, Response
from mqtool.state import SystemRecord, Transaction
from mqtool.tables import Table, ValidationError, load

DIALECT = "zos"


def verb_words(command: Command, table: Table | None = None) -> str:
    """The full verb and object words echoed in CSQ9022I/CSQ9023E: ' DEFINE QLOCAL'."""
    table = table or load(DIALECT)
    verb = table.verb(command.verb)
    words = [verb.name if verb else command.verb]
    if command.object:
        obj = table.object(command.object)
        words.append(obj.full if obj else command.object)
    return " ".join(words)


def response(command: Command, csect: str = "CSQMDRTS", status: str = "ok") -> Response:
    return Response(status=status, framing="zos", verb_words=verb_words(command), csect=csect)


def failure(command: Command, msg_id: str, status: str = FAILED, csect: str = "CSQ9SCND", **fields: Any) -> Response:
    result = response(command, csect=csect, status=status)
    result.add(msg_id, **fields)
    return result


def lex(text: str) -> Command:
    return mqsc.lex(text)


def lex_error(error: LexError, text: str) -> Response:
    words = text.split()
    command = Command(text=text, dialect=DIALECT, verb=words[0].upper() if words else "")
    if error.kind == "paren":
        return failure(command, "CSQ9002E", SYNTAX, keyword=error.token)
    if error.kind == "quote":
        return failure(command, "CSQ9003E", SYNTAX, keyword=error.token)
    return failure(command, "CSQ9001E", SYNTAX, keyword=error.token or text.strip())


def validation_error(error: ValidationError, command: Command, table: Table) -> Response:
    if error.kind == "duplicate":
        return failure(command, "CSQ9000E", SYNTAX, keyword=error.keyword)
    return failure(command, "CSQ9001E", SYNTAX, keyword=error.keyword or command.object or command.verb)


def wrong_system(target: SystemRecord | None, systems: list[SystemRecord], text: str) -> Response:
    result = Response(status=FAILED)
    if target is None:
        result.add("MQT0007E", platform="z/OS")
        return result
    cpfs = [str(s.attrs.get("cpf")) for s in systems if s.platform == "zos"]
    result.add("MQT0011E", system=target.name, cpfs=", ".join(cpfs) or "none")
    return result


def bootstrap(tx: Transaction, system: SystemRecord, now: float) -> None:
    """A new z/OS queue manager: its built-in objects."""
    from mqtool.state import ObjectRecord

    table = load(DIALECT)
    if tx.get_object(system.name, "QMGR", system.name) is None:
        tx.put_object(
            ObjectRecord(system.name, "QMGR", system.name, table.defaults("QMGR"), {"state": "STARTED"}, now, now)
        )
