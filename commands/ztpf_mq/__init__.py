"""z/TPF MQ (ZMQSC): lexing, error messages in the ZMQSC style, and what the verb
modules share (the queue manager, defaults from the table, the response framing)."""

from __future__ import annotations

import re
from typing import Any

from mqtool.parse import ztpf
from mqtool.parse.command import Command, LexError
from mqtool.response import FAILED, SYNTAX, Response
from mqtool.state import ObjectRecord, SystemRecord, Transaction
from mqtool.tables import Table, ValidationError, load

DIALECT = "ztpf_mq"
QUEUE_TYPES = ("QL", "QA", "QR")
SYSTEM_QUEUES = ("DEAD.LETTER.QUEUE", "SPECIAL.RECOVERY.QUEUE")
# The object types of the queue manager's definitions (ZMQID's directory entries, type
# CHANNEL, belong to the system's MQI client, not to its queue manager).
QMGR_TYPES = ("QMGR", *QUEUE_TYPES, "CHL")


def response(status: str = "ok", display: bool = False) -> Response:
    return Response(status=status, display=display, framing="ztpf")


def failure(msg_id: str, status: str = FAILED, **fields: Any) -> Response:
    result = response(status)
    result.add(msg_id, **fields)
    return result


def lex(text: str, dialect: str = DIALECT) -> Command:
    """A ZMQSC line (or, with `dialect`, a line of another z/TPF MQ table: ZMQID)."""
    command = ztpf.lex(text, dialect)
    # A bare object word (`DISPLAY MQP`, `DEFINE QL`) is the object without a name, so
    # the validator can say "NAME REQUIRED" instead of "object not valid".
    if command.object is None and command.params and command.params[0].value is None:
        word = command.params[0].keyword
        if load(dialect).object(word) is not None:
            command.object = word
            command.params.pop(0)
    return command


def lex_error(error: LexError, text: str) -> Response:
    if error.kind == "quote":
        return failure("MQSC0024E", SYNTAX, token=error.token)
    if error.kind == "empty":
        return failure("MQSC0011E", SYNTAX, verb="(NONE)", allowed=", ".join(load(DIALECT).verbs))
    result = failure("MQSC0027E", SYNTAX, token=error.token)
    hint = _zos_manner(error.token, text)
    if hint is not None:
        result.add("MQSC0041E", token=error.token, ztpf=hint[0], zos=hint[1])
    return result


_PARENTHESES = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)\((.*)\)$")


def _zos_manner(token: str, text: str) -> tuple[str, str] | None:
    """QLOCAL(PAYQ) written as MQSC for z/OS writes it: the ZMQSC form (QL-PAYQ,
    MAXDEPTH-5) and, for a z/OS object type, the z/OS command (the line without ZMQSC,
    which goes to the current z/OS system)."""
    match = _PARENTHESES.match(token)
    if match is None:
        return None
    word, value = match.group(1).upper(), match.group(2)
    ztpf, zos = load(DIALECT), load("zos")
    zos_object = zos.object(word)
    # The same object type under another name: the z/OS QLOCAL has the alias QL.
    names = (word, *((zos_object.name, *zos_object.aliases) if zos_object else ()))
    ztpf_object = next((found for name in names if (found := ztpf.object(name)) is not None), None)
    form = f"{ztpf_object.name if ztpf_object else word}-{value}"
    rest = text.split(None, 1)[1].strip() if zos_object is not None else ""
    return form, f" - FOR Z/OS ENTER {rest}" if rest else ""


# The syntax errors of the ZMQSC table, by ValidationError kind; ZMQID has its own ids
# for the same texts (commands/ztpf_mqid).
SYNTAX_IDS = {
    "unknown_verb": "MQSC0011E",
    "unknown_object": "MQSC0012E",
    "unknown_keyword": "MQSC0013E",
    "bad_value": "MQSC0014E",
    "duplicate": "MQSC0015E",
    "missing": "MQSC0016E",
    "missing_name": "MQSC0026E",
    "bad_name": "MQSC0021E",
    "not_alterable": "MQSC0020E",
    "other": "MQSC0022E",
}


def validation_error(
    error: ValidationError, command: Command, table: Table, ids: dict[str, str] = SYNTAX_IDS
) -> Response:
    obj = (table.object(command.object or "") or None) if command.object else None
    obj_name = obj.name if obj else (command.object or "")
    if error.kind == "unknown_verb":
        return failure(ids["unknown_verb"], SYNTAX, verb=error.keyword, allowed=error.allowed)
    if error.kind == "unknown_object":
        verb = table.verb(command.verb)
        return failure(
            ids["unknown_object"],
            SYNTAX,
            object=error.keyword or "(NONE)",
            verb=verb.name if verb else command.verb,
            allowed=error.allowed,
        )
    if error.kind == "unknown_keyword":
        return failure(ids["unknown_keyword"], SYNTAX, keyword=error.keyword, object=obj_name, allowed=error.allowed)
    if error.kind == "bad_value":
        allowed = error.allowed if not error.detail else f"{error.allowed} ({error.detail})"
        spec = table.keyword(obj, error.keyword) if obj is not None else None
        # A comma outside quotes made a list where one value belongs.
        listed = obj is not None and any(
            isinstance(p.value, list) and table.keyword(obj, p.keyword) is spec for p in command.params
        )
        if spec is not None and spec.type != "list" and listed:
            allowed = "ONE VALUE (QUOTE A VALUE THAT HOLDS COMMAS)"
        return failure(
            ids["bad_value"], SYNTAX, value=error.value or "(NONE)", keyword=error.keyword, allowed=_shout(allowed)
        )
    if error.kind == "duplicate":
        return failure(ids["duplicate"], SYNTAX, keyword=error.keyword)
    if error.kind == "missing":
        return failure(ids["missing"], SYNTAX, keyword=error.keyword, detail=f"FOR DEFINE {obj_name}")
    if error.kind == "missing_name":
        return failure(ids["missing_name"], SYNTAX, object=error.keyword)
    if error.kind == "bad_name":
        reason = error.detail
        verb = table.verb(command.verb)
        if error.value.endswith("*") and verb is not None and verb.name != "DISPLAY":
            reason = "a generic name (ending in *) is valid only with DISPLAY"
        return failure(ids["bad_name"], SYNTAX, name=error.value, object=error.keyword, reason=_shout(reason))
    if error.kind == "not_alterable":
        return failure(ids["not_alterable"], SYNTAX, keyword=error.keyword, object=obj_name, name=command.name or "")
    return failure(ids["other"], SYNTAX, keyword=error.keyword, detail=_shout(error.detail))


def _shout(text: str) -> str:
    """A reason from the tables in the console's capitals (the character classes in words)."""
    return text.replace("A-Z a-z 0-9", "letters, digits and").upper()


def wrong_system(
    target: SystemRecord | None, systems: list[SystemRecord], text: str, msg_id: str = "MQSC0025E"
) -> Response:
    result = Response(status=FAILED)
    ztpf_systems = [s.name for s in systems if s.platform == "ztpf"]
    if target is None or not ztpf_systems:
        result.add("MQT0007E", platform="z/TPF")
        return result
    # The current system is z/OS: there is no z/TPF console to frame the answer, so it
    # comes in the plain tool framing and names the way out.
    from mqtool.complex import PLATFORM_NAMES  # here: a command that runs does not load it

    words = text.split()
    result.add(
        msg_id,
        system=target.name,
        platform=PLATFORM_NAMES[target.platform].upper(),
        command=words[0].upper() if words else "ZMQSC",
        hint=" OR ".join(f".SYSTEM {name}" for name in ztpf_systems),
    )
    return result


# -- shared by the verb modules ----------------------------------------------------


def qmgr(tx: Transaction, system: SystemRecord) -> ObjectRecord | None:
    return tx.first_object(system.name, "QMGR")


def defaults_for(table: Table, obj: str, manager: ObjectRecord | None) -> dict[str, Any]:
    """The table defaults of an object type, with `=QMGR.X` taken from the queue manager."""
    values: dict[str, Any] = {}
    source = manager.attrs if manager is not None else {}
    for name, default, inherited in _default_rows(table, obj):
        if inherited is not None:
            default = source.get(inherited, default)
        values[name] = list(default) if isinstance(default, list) else default
    return values


# The rows defaults_for() reads, per object type: (keyword, table default, the queue
# manager's attribute it inherits or None). Worked out once per table object
# (tables.load reads a table once per process), so a table read again is worked out again.
_DEFAULT_ROWS: dict[tuple[int, str], tuple[Table, list[tuple[str, Any, str | None]]]] = {}


def _default_rows(table: Table, obj: str) -> list[tuple[str, Any, str | None]]:
    cached = _DEFAULT_ROWS.get((id(table), obj))
    if cached is not None and cached[0] is table:
        return cached[1]
    rows: list[tuple[str, Any, str | None]] = []
    for spec in table.objects[obj].keywords.values():
        if spec.type == "flag" or spec.default is None:
            continue
        default, inherited = spec.default, None
        if isinstance(default, str) and default.startswith("=QMGR."):
            inherited = default[len("=QMGR.") :]
            default = table.objects["QMGR"].keywords[inherited].default
        rows.append((spec.name, default, inherited))
    _DEFAULT_ROWS[(id(table), obj)] = (table, rows)
    return rows


def find_queue(tx: Transaction, system: SystemRecord, name: str) -> ObjectRecord | None:
    """The queue of any type (QL, QA, QR) with that name: queue names are unique."""
    return tx.find_object(system.name, QUEUE_TYPES, name)


def bootstrap(tx: Transaction, system: SystemRecord, now: float) -> None:
    """A new z/TPF system with a `qmgr` setting gets that queue manager defined."""
    name = system.attrs.get("qmgr")
    if name and not tx.objects(system.name, "QMGR"):
        define_qmgr(tx, system, str(name), {}, now)


def define_qmgr(tx: Transaction, system: SystemRecord, name: str, attrs: dict[str, Any], now: float) -> list[str]:
    """Defines the queue manager and its system queues (DEAD.LETTER.QUEUE,
    SPECIAL.RECOVERY.QUEUE, which take their defaults from it); returns the queues created.
    The system's `qmgr` setting follows, so `mqtool system list` names it."""
    table = load(DIALECT)
    values = defaults_for(table, "QMGR", None) | attrs
    tx.put_object(ObjectRecord(system.name, "QMGR", name, values, {"state": "STARTED"}, now, now))
    manager = tx.get_object(system.name, "QMGR", name)
    created = []
    for queue in SYSTEM_QUEUES:
        if tx.get_object(system.name, "QL", queue) is None:
            queue_attrs = defaults_for(table, "QL", manager)
            tx.put_object(ObjectRecord(system.name, "QL", queue, queue_attrs, {}, now, now))
            created.append(queue)
    _set_qmgr_setting(tx, system.name, name)
    return created


def _set_qmgr_setting(tx: Transaction, system_name: str, name: str | None) -> None:
    record = tx.get_system(system_name)
    if record is None:
        return
    if name:
        record.attrs["qmgr"] = name
    else:
        record.attrs.pop("qmgr", None)
    tx.put_system(record)


def forget_qmgr(tx: Transaction, system: SystemRecord) -> None:
    """After DELETE QMGR: the system no longer names a queue manager."""
    _set_qmgr_setting(tx, system.name, None)


# -- the processors of a queue manager, and its migration mode (bread-ztpf) -----------

MIGRATION_ACTIVE = "ACTIVE"
# What DISPLAY QMGR shows when MIGRATE was never entered.
NO_MIGRATION = "NONE"
# Verbs refused in migration mode (TPF: DEFINE and ALTER of QA, QL, QR and CHL, any
# DELETE, and DBREBUILD, until MIGRATE COMMIT or FALLBACK).
_MIGRATION_BLOCKED = {"DEFINE": (*QUEUE_TYPES, "CHL"), "ALTER": (*QUEUE_TYPES, "CHL"), "DELETE": None}


def processor_id(system: SystemRecord) -> str:
    """The system's processor id (CPU- of the console header)."""
    return str(system.attrs.get("processor", "B")).upper()


def processors(tx: Transaction, system: SystemRecord, name: str) -> list[tuple[SystemRecord, ObjectRecord]]:
    """The processors of the loosely coupled complex that `system` belongs to: the z/TPF
    systems of mqtool's complex with the same subsystem and a queue manager named
    `name` (each with that queue manager's record), `system` first if it is one."""
    subsystem = str(system.attrs.get("subsystem", "BSS")).upper()
    found: list[tuple[SystemRecord, ObjectRecord]] = []
    for other in tx.systems():
        if other.platform != "ztpf" or str(other.attrs.get("subsystem", "BSS")).upper() != subsystem:
            continue
        manager = qmgr(tx, other)
        if manager is not None and manager.name == name:
            found.append((other, manager))
    found.sort(key=lambda pair: (pair[0].name != system.name, processor_id(pair[0]), pair[0].name))
    return found


def migration(manager: ObjectRecord) -> str:
    """The queue manager's migration state: NONE, ACTIVE (migration mode), COMMITTED or FALLBACK."""
    return str(manager.status.get("migration", NO_MIGRATION))


def migration_refusal(manager: ObjectRecord, verb: str, obj: str | None, name: str | None) -> Response | None:
    """MQSC0405E for a command that migration mode does not allow; None otherwise."""
    if migration(manager) != MIGRATION_ACTIVE:
        return None
    if verb in _MIGRATION_BLOCKED:
        objects = _MIGRATION_BLOCKED[verb]
        if objects is not None and obj not in objects:
            return None
    elif verb != "DBREBUILD":
        return None
    command = f"ZMQSC {verb}" + (f" {obj}-{name}" if obj and name else f" {obj}" if obj else "")
    return failure("MQSC0405E", command=command)
