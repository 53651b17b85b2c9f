"""Export of a z/OS queue manager's definitions as MQSC commands (with its CPF) that
recreate them on a new queue manager: `commands(tx, system)`.

Only what differs from a new queue manager is written: new objects in full (attributes
that differ from the keyword table's defaults), built-in objects as ALTER of what
changed, built-in objects that are gone as DELETE. The order replays without errors:
page sets, storage classes, authentication information, the queue manager, queues,
channels, then the system default objects (which give later DEFINEs their defaults, so
they change last), channel authentication records (SET CHLAUTH ... ACTION(REPLACE) as
dmpmqcfg writes them; ACTION(REMOVE) for a back-stop record that is gone), then
deletions. SET LOG and SET ARCHIVE values are run-time and are not exported (a comment
names any in effect).
"""

from __future__ import annotations

import re
from typing import Any

from mqtool.definitions import ExportLine
from mqtool.engine.core.subscriptions import is_runtime
from mqtool.state import ObjectRecord, SystemRecord, Transaction

from . import QUEUE_TYPES, manager, object_spec
from .builtin import BUILTINS, DEFAULT_OBJECTS, TYPE_KEYWORDS, builtin_attrs, settable, table_defaults

_PLAIN_NAME = re.compile(r"^[A-Z0-9./_%]+$")
QUEUE_ORDER = ("QLOCAL", "QMODEL", "QALIAS", "QREMOTE")
NEVER_WRITTEN = ("QSGDISP",)  # always QMGR here
NUMBERED = ("PSID", "BUFFPOOL")  # objects named by a number, written with two digits
CHLAUTH_WORDS = ("USERSRC", "CHCKCLNT", "WARN")  # SET CHLAUTH keywords whose values are words
CHLAUTH_DEFAULTS = {"CHCKCLNT": "ASQMGR", "WARN": "NO"}


def quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def value_syntax(obj: str, keyword: str, value: Any) -> str:
    """A value as MQSC takes it back: text and addresses quoted, names quoted when they
    are not plain upper case, lists with commas."""
    spec = object_spec(obj).keywords[keyword]
    if spec.type == "names":
        return ",".join(v if _PLAIN_NAME.match(str(v)) else quote(str(v)) for v in value) or "' '"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    text = str(value)
    if spec.type in ("text", "conname"):
        return quote(text)
    if spec.type == "name" and (text == "" or not _PLAIN_NAME.match(text)):
        return quote(text)
    return text


def keyword_syntax(obj: str, keyword: str, value: Any) -> str:
    """`KEYWORD(value)`, or for a switch the word alone (TRIGGER, NOTRIGGER)."""
    spec = object_spec(obj).keywords[keyword]
    if spec.type == "switch":
        return keyword if value == "YES" else str(spec.negation)
    return f"{keyword}({value_syntax(obj, keyword, value)})"


def _name(obj: str, name: str) -> str:
    if obj in NUMBERED:
        return f"{int(name):02d}"
    return name if _PLAIN_NAME.match(name) else quote(name)


def _applies(obj: str, keyword: str, attrs: dict[str, Any]) -> bool:
    spec = object_spec(obj).keywords[keyword]
    return all(str(attrs.get(attr)) in allowed for attr, allowed in spec.only_for.items())


def _changes(obj: str, attrs: dict[str, Any], base: dict[str, Any]) -> list[str]:
    """KEYWORD(value) for each stored attribute that differs from `base`."""
    out = []
    for keyword in settable(obj):
        if keyword in NEVER_WRITTEN or keyword in TYPE_KEYWORDS.values() or not _applies(obj, keyword, attrs):
            continue
        if keyword in attrs and attrs[keyword] != base.get(keyword):
            out.append(keyword_syntax(obj, keyword, attrs[keyword]))
    return out


def command(cpf: str, verb: str, record: ObjectRecord, changes: list[str], replace: bool = False) -> ExportLine:
    """`CPF VERB TYPE(name) [CHLTYPE(t)] KEYWORD(value) ... [REPLACE]`; the queue manager has no name."""
    if record.type == "QMGR":
        head = f"{cpf} {verb} QMGR"
    else:
        head = f"{cpf} {verb} {record.type}({_name(record.type, record.name)})"
    kind = TYPE_KEYWORDS.get(record.type)
    if kind is not None and verb != "DELETE":
        head += f" {kind}({record.attrs.get(kind)})"
    return ExportLine(head, [*changes, *(["REPLACE"] if replace else [])], record.type, record.name)


def commands(tx: Transaction, system: SystemRecord, all_attributes: bool = False) -> list[str]:
    """Replayable MQSC commands, each with the system's CPF, that recreate its definitions;
    `all_attributes` writes every attribute (as dmpmqcfg does), not only the changed ones."""
    return [line.text for line in lines(tx, system, all_attributes)]


def lines(tx: Transaction, system: SystemRecord, all_attributes: bool = False) -> list[ExportLine]:
    """The lines of `commands`, each with the object it describes."""
    cpf = str(system.attrs.get("cpf", "-" + system.name))
    qmgr = manager(tx, system, 0.0)
    default_objects = set(DEFAULT_OBJECTS.values())
    present = {
        (r.type, r.name): r
        for type_ in (
            *QUEUE_TYPES,
            "CHANNEL",
            "STGCLASS",
            "PSID",
            "BUFFPOOL",
            "PROCESS",
            "NAMELIST",
            "TOPIC",
            "SUB",
            "AUTHINFO",
        )
        for r in tx.objects(system.name, type_)
        # a managed subscription's queue (DEFINE SUB makes it), an application's subscription
        if not is_runtime(r)
    }
    out: list[ExportLine] = []
    late: list[ExportLine] = []  # the system default objects

    def emit(records: list[ObjectRecord]) -> None:
        for record in records:
            if record.attrs.get("DEFTYPE") == "TEMPDYN" and record.type == "QLOCAL":
                continue  # a temporary dynamic queue goes with the handle that made it
            base = builtin_attrs(record.type, record.name)
            if base is None:
                base = {} if all_attributes else table_defaults(record.type)
                changes = _changes(record.type, record.attrs, base)
                out.append(command(cpf, "DEFINE", record, changes, replace=record.type != "PSID"))
                continue
            changes = _changes(record.type, record.attrs, {} if all_attributes else base)
            # ALTER takes no keyword fixed at DEFINE (a topic's TOPICSTR, a subscription's SELECTOR).
            spec = object_spec(record.type).keywords
            by_word = {**{k.negation: k for k in spec.values() if k.negation}, **spec}
            changes = [c for c in changes if "ALTER" in by_word[c.split("(", 1)[0]].verbs]
            if changes:
                target = late if record.name in default_objects else out
                target.append(command(cpf, "ALTER", record, changes))

    def of_type(type_: str) -> list[ObjectRecord]:
        found = [r for (t, _), r in present.items() if t == type_]
        return sorted(found, key=lambda r: int(r.name) if type_ in NUMBERED else r.name)

    def deleted(types: tuple[str, ...]) -> None:
        """DELETE for the built-in objects of these types that are gone."""
        for type_ in types:
            for builtin_type, name, attrs in BUILTINS:
                if builtin_type == type_ and (type_, name) not in present:
                    out.append(command(cpf, "DELETE", ObjectRecord(system.name, type_, name, dict(attrs)), []))

    emit(of_type("BUFFPOOL"))  # page sets name their buffer pools
    emit(of_type("PSID"))
    emit(of_type("STGCLASS"))
    emit(of_type("AUTHINFO"))  # before QMGR CONNAUTH names one
    emit(of_type("PROCESS"))  # before the queues that name them
    emit(of_type("NAMELIST"))
    qmgr_changes = _changes("QMGR", qmgr.attrs, {} if all_attributes else table_defaults("QMGR"))
    if qmgr_changes:
        out.append(command(cpf, "ALTER", qmgr, qmgr_changes))
    # Deleted built-in queues and channels go first: their names may be in use again.
    deleted((*QUEUE_ORDER, "CHANNEL", "AUTHINFO"))
    for type_ in QUEUE_ORDER:
        emit(of_type(type_))
    emit(of_type("CHANNEL"))
    # Topic objects, then the subscriptions that name them and their queues.
    deleted(("SUB", "TOPIC"))
    emit(of_type("TOPIC"))
    emit(of_type("SUB"))
    out += late
    out += _chlauth(tx, system, cpf, all_attributes)
    # A storage class goes once no queue (default objects included) names it, a page set
    # once no storage class does.
    deleted(("STGCLASS", "PSID", "BUFFPOOL"))
    out += [ExportLine(note) for note in _runtime_note(qmgr)]
    return out


def _chlauth(tx: Transaction, system: SystemRecord, cpf: str, all_attributes: bool) -> list[ExportLine]:
    """SET CHLAUTH ... ACTION(REPLACE) for each record a new queue manager would not have
    as it is (all of them with `all_attributes`, as dmpmqcfg writes them), and ACTION(REMOVE)
    for a back-stop record that is gone."""
    from mqtool.engine.security import chlauth as rules

    from .chlauth import records

    have = records(tx, system)
    backstop = rules.backstop()
    out = []
    for record in have:
        if all_attributes or record not in backstop:
            out.append(set_chlauth_line(cpf, record, "REPLACE"))
    keys = {record.key() for record in have}
    for record in backstop:
        if record.key() not in keys:
            out.append(set_chlauth_line(cpf, record, "REMOVE"))
    return out


def set_chlauth_line(cpf: str, record: Any, action: str) -> ExportLine:
    """One SET CHLAUTH command: REPLACE with what the record has, REMOVE with its identity."""
    from .chlauth import ALLOWED, FIELDS, IDENTITY

    kind = record.type
    keywords = (
        [*ALLOWED[kind], "DESCR", "CUSTOM"] if action == "REPLACE" else [k for k in ALLOWED[kind] if k in IDENTITY]
    )
    words = []
    for keyword in keywords:
        value = getattr(record, FIELDS[keyword])
        if keyword in ("ADDRLIST", "USERLIST"):
            words.append(f"{keyword}({','.join(quote(item) for item in value)})")
        elif value and CHLAUTH_DEFAULTS.get(keyword) != value:
            words.append(f"{keyword}({value if keyword in CHLAUTH_WORDS else quote(str(value))})")
    head = f"{cpf} SET CHLAUTH({quote(record.profile)}) TYPE({kind})"
    return ExportLine(head, [*words, f"ACTION({action})"], "CHLAUTH", record.profile)


def _runtime_note(qmgr: ObjectRecord) -> list[str]:
    notes = []
    for label, key in (("SET LOG", "log_set"), ("SET ARCHIVE", "archive_set")):
        values = qmgr.status.get(key) or {}
        if values:
            shown = " ".join(
                f"{k}({','.join(map(str, v)) if isinstance(v, list) else v})" for k, v in sorted(values.items())
            )
            notes.append(f"* {label} values in effect are run-time, lost at restart, and not exported: {shown}")
    return notes
