"""The definitions of a z/TPF system as replayable ZMQSC commands (`mqtool export`),
written from the keyword table: what DISPLAY shows, DEFINE accepts and export writes
are the same rows.

Order: the queue manager, the system queues it created (ALTER, only when changed),
local queues, remote definitions (they name transmission queues), aliases (they name
local or remote queues), channels (they name transmission queues). Names sort within a
type. Keywords follow the table order.
"""

from __future__ import annotations

import re
from typing import Any

from mqtool.state import ObjectRecord, SystemRecord, Transaction
from mqtool.tables import KeywordSpec, ObjectSpec, Table, load

from . import DIALECT, SYSTEM_QUEUES, defaults_for, qmgr

DEFINE_ORDER = ("QL", "QR", "QA", "CHL")
_PLAIN = re.compile(r"^[A-Z0-9./_%]+$")


def quote(value: str) -> str:
    """A value as typed on the console: in quotes when it holds anything but upper-case
    letters, digits and `. / _ %` (blanks, lower case, parentheses, commas, a trailing
    `-` or `+` that a command file would read as a continuation); `''` for a quote."""
    if _PLAIN.match(value):
        return value
    return "'" + value.replace("'", "''") + "'"


def format_value(value: Any) -> str:
    if isinstance(value, bool):
        return "YES" if value else "NO"
    if isinstance(value, (list, tuple)):
        return ",".join(quote(str(item)) for item in value)
    if isinstance(value, int):
        return str(value)
    return quote(str(value))


def inherited(spec: KeywordSpec) -> bool:
    """A default such as `=QMGR.COMPSIZE`: copied from the queue manager at DEFINE."""
    return isinstance(spec.default, str) and spec.default.startswith("=")


def applies(spec: KeywordSpec, attrs: dict[str, Any]) -> bool:
    return all(attrs.get(attr) in allowed for attr, allowed in spec.only_for.items())


def written_keywords(obj: ObjectSpec) -> list[KeywordSpec]:
    """The keywords of an object type that describe its definition."""
    return [k for k in obj.keywords.values() if k.type != "flag" and k.display and "DEFINE" in k.verbs]


def attributes(
    table: Table,
    record: ObjectRecord,
    base: dict[str, Any],
    all_attributes: bool = False,
) -> dict[str, Any]:
    """The attributes to write for `record`, in table order: every one with
    `all_attributes`; otherwise those that differ from `base` (what a DEFINE without
    them would give), plus the inherited ones, whose default depends on the queue
    manager of the system the commands are replayed into. Attributes the table does
    not know are kept as they are, so nothing is lost."""
    spec = table.objects.get(record.type)
    if spec is None:
        return dict(record.attrs)
    out: dict[str, Any] = {}
    for keyword in written_keywords(spec):
        if keyword.name not in record.attrs or not applies(keyword, record.attrs):
            continue
        value = record.attrs[keyword.name]
        if all_attributes or inherited(keyword) or value != base.get(keyword.name, keyword.default):
            out[keyword.name] = value
    known = set(spec.keywords)
    out.update({key: value for key, value in record.attrs.items() if key not in known})
    return out


def command_line(verb: str, obj: str, name: str, attrs: dict[str, Any]) -> str:
    words = ["ZMQSC", verb, f"{obj}-{quote(name)}"]
    words += [f"{keyword}-{format_value(value)}" for keyword, value in attrs.items()]
    return " ".join(words)


def commands(tx: Transaction, system: SystemRecord, all_attributes: bool = False) -> list[str]:
    """Command lines that recreate the definitions of `system` in a z/TPF system that
    has no queue manager yet; an empty list when `system` has none either."""
    table = load(DIALECT)
    manager = qmgr(tx, system)
    if manager is None:
        return []
    lines = [
        command_line(
            "DEFINE",
            "QMGR",
            manager.name,
            attributes(table, manager, defaults_for(table, "QMGR", None), all_attributes),
        )
    ]
    queue_base = defaults_for(table, "QL", manager)
    for name in SYSTEM_QUEUES:
        record = tx.get_object(system.name, "QL", name)
        if record is None:
            continue
        changed = {
            key: value
            for key, value in attributes(table, record, queue_base, all_attributes).items()
            if all_attributes or value != queue_base.get(key)
        }
        if changed:
            lines.append(command_line("ALTER", "QL", name, changed))
    for obj in DEFINE_ORDER:
        base = defaults_for(table, obj, manager)
        for record in tx.objects(system.name, obj):
            if obj == "QL" and record.name in SYSTEM_QUEUES:
                continue
            lines.append(command_line("DEFINE", obj, record.name, attributes(table, record, base, all_attributes)))
    return lines
