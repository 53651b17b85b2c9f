"""z/TPF MQ (ZMQSC): lexing, error messages in the ZMQSC style, and what the verb
modules share (the queue manager, defaults from the table, the response framing)."""

from __future__ import annotations

from typing import Any

from mqtool.complex import PLATFORM_NAMES
from mqtool.parse import ztpf
from mqtool.parse.command import Command, LexError
from mqtool.response import FAILED, SYNTAX, Response
from mqtool.state import ObjectRecord, SystemRecord, Transaction
from mqtool.tables import Table, ValidationError, load

DIALECT = "ztpf_mq"
QUEUE_TYPES = ("QL", "QA", "QR")
SYSTEM_QUEUES = ("DEAD.LETTER.QUEUE", "SPECIAL.RECOVERY.QUEUE")


def response(status: str = "ok", display: bool = False) -> Response:
    return Response(status=status, display=display, framing="ztpf")


def failure(msg_id: str, status: str = FAILED, **fields: Any) -> Response:
    result = response(status)
    result.add(msg_id, **fields)
    return result


def lex(text: str) -> Command:
    return ztpf.lex(text, DIALECT)


def lex_error(error: LexError, text: str) -> Response:
    if error.kind == "quote":
        return failure("MQSC0024E", SYNTAX, token=error.token)
    if error.kind == "empty":
        return failure("MQSC0011E", SYNTAX, verb="(NONE)", allowed=", ".join(load(DIALECT).verbs))
    return failure("MQSC0027E", SYNTAX, token=error.token)


def validation_error(error: ValidationError, command: Command, table: Table) -> Response:
    obj = (table.object(command.object or "") or None) if command.object else None
    obj_name = obj.name if obj else (command.object or "")
    if error.kind == "unknown_verb":
        return failure("MQSC0011E", SYNTAX, verb=error.keyword, allowed=error.allowed)
    if error.kind == "unknown_object":
        verb = table.verb(command.verb)
        return failure(
            "MQSC0012E",
            SYNTAX,
            object=error.keyword or "(NONE)",
            verb=verb.name if verb else command.verb,
            allowed=error.allowed,
        )
    if error.kind == "unknown_keyword":
        return failure("MQSC0013E", SYNTAX, keyword=error.keyword, object=obj_name, allowed=error.allowed)
    if error.kind == "bad_value":
        return failure("MQSC0014E", SYNTAX, value=error.value or "(NONE)", keyword=error.keyword, allowed=error.allowed)
    if error.kind == "duplicate":
        return failure("MQSC0015E", SYNTAX, keyword=error.keyword)
    if error.kind == "missing":
        return failure("MQSC0016E", SYNTAX, keyword=error.keyword, detail=f"FOR DEFINE {obj_name}")
    if error.kind == "missing_name":
        return failure("MQSC0026E", SYNTAX, object=error.keyword)
    if error.kind == "bad_name":
        return failure("MQSC0021E", SYNTAX, name=error.value, object=error.keyword, reason=error.detail.upper())
    if error.kind == "not_alterable":
        return failure("MQSC0020E", SYNTAX, keyword=error.keyword, object=obj_name, name=command.name or "")
    return failure("MQSC0022E", SYNTAX, keyword=error.keyword, detail=error.detail.upper())


def wrong_system(target: SystemRecord | None, systems: list[SystemRecord], text: str) -> Response:
    if target is None:
        result = Response(status=FAILED)
        result.add("MQT0007E", platform="z/TPF")
        return result
    result = Response(status=FAILED)
    # The current system is z/OS: answer in the plain tool framing, naming a way out.
    result.add("MQSC0025E", system=target.name, platform=PLATFORM_NAMES[target.platform].upper())
    return result


# -- shared by the verb modules ----------------------------------------------------


def qmgr(tx: Transaction, system: SystemRecord) -> ObjectRecord | None:
    found = tx.objects(system.name, "QMGR")
    return found[0] if found else None


def defaults_for(table: Table, obj: str, manager: ObjectRecord | None) -> dict[str, Any]:
    """The table defaults of an object type, with `=QMGR.X` taken from the queue manager."""
    values: dict[str, Any] = {}
    for spec in table.objects[obj].keywords.values():
        if spec.type == "flag" or spec.default is None:
            continue
        default = spec.default
        if isinstance(default, str) and default.startswith("=QMGR."):
            key = default[len("=QMGR.") :]
            source = manager.attrs if manager is not None else {}
            default = source.get(key, table.objects["QMGR"].keywords[key].default)
        values[spec.name] = list(default) if isinstance(default, list) else default
    return values


def find_queue(tx: Transaction, system: SystemRecord, name: str) -> ObjectRecord | None:
    """The queue of any type (QL, QA, QR) with that name: queue names are unique."""
    for type_ in QUEUE_TYPES:
        record = tx.get_object(system.name, type_, name)
        if record is not None:
            return record
    return None


def bootstrap(tx: Transaction, system: SystemRecord, now: float) -> None:
    """A new z/TPF system with a `qmgr` setting gets that queue manager defined."""
    name = system.attrs.get("qmgr")
    if name and not tx.objects(system.name, "QMGR"):
        define_qmgr(tx, system, str(name), {}, now)


def define_qmgr(tx: Transaction, system: SystemRecord, name: str, attrs: dict[str, Any], now: float) -> None:
    """Defines the queue manager and its system queues (DEAD.LETTER.QUEUE, SPECIAL.RECOVERY.QUEUE)."""
    table = load(DIALECT)
    values = defaults_for(table, "QMGR", None) | attrs
    tx.put_object(ObjectRecord(system.name, "QMGR", name, values, {"state": "STARTED"}, now, now))
    manager = tx.get_object(system.name, "QMGR", name)
    for queue in SYSTEM_QUEUES:
        if tx.get_object(system.name, "QL", queue) is None:
            queue_attrs = defaults_for(table, "QL", manager)
            tx.put_object(ObjectRecord(system.name, "QL", queue, queue_attrs, {}, now, now))
