"""The definitions of a z/TPF system as replayable ZMQSC commands (`mqtool export`),
written from the keyword table: what DISPLAY shows, DEFINE accepts and export writes
are the same rows.

The queue manager comes with the system (`mqtool system add --qmgr`, or the default
complex), as a z/OS queue manager does, so its attributes are written as `ALTER QMGR`
(without a name) and the commands replay into any z/TPF system whose queue manager
has no other definitions yet, whatever its name. Order: the queue manager and the
system queues it created (ALTER, only what changed; the one that lowers MAXMSGL goes
first), local queues, remote definitions (they name transmission queues), aliases
(they name local or remote queues), channels (they name transmission queues), and
last DEADQ (it names a queue). Names sort within a type; keywords follow the table.
"""

from __future__ import annotations

import re
from typing import Any

from mqtool.definitions import ExportLine
from mqtool.state import ObjectRecord, SystemRecord, Transaction
from mqtool.tables import KeywordSpec, ObjectSpec, Table, load

from . import DIALECT, SYSTEM_QUEUES, defaults_for, processor_id, qmgr

DEFINE_ORDER = ("QL", "QR", "QA", "CHL")
MQID_TYPE = "CHANNEL"  # the entries of the MQI channel directory (ZMQID), written last
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
    return export_line(verb, obj, name, attrs).text


def export_line(verb: str, obj: str, name: str | None, attrs: dict[str, Any]) -> ExportLine:
    """`ZMQSC VERB OBJ-name KEYWORD-value ...`; the queue manager without its name, as
    the commands replay into a queue manager of any name."""
    word = "ZMQID" if obj == MQID_TYPE else "ZMQSC"  # an MQI channel directory entry is ZMQID's
    head = f"ZMQSC {verb} QMGR" if obj == "QMGR" else f"{word} {verb} {obj}-{quote(name or '')}"
    return ExportLine(head, _pairs(attrs), obj, name)


def commands(tx: Transaction, system: SystemRecord, all_attributes: bool = False) -> list[str]:
    """Command lines that recreate the definitions of `system` in a z/TPF system whose
    queue manager was just defined; an empty list when `system` has no queue manager."""
    return [line.text for line in lines(tx, system, all_attributes)]


def lines(tx: Transaction, system: SystemRecord, all_attributes: bool = False) -> list[ExportLine]:
    """The lines of `commands`, each with the object it describes."""
    table = load(DIALECT)
    manager = qmgr(tx, system)
    if manager is None:
        return mqid_lines(tx, system, all_attributes)
    qmgr_attrs = attributes(table, manager, defaults_for(table, "QMGR", None), all_attributes)
    deadq = qmgr_attrs.pop("DEADQ", None)
    # What the system queues were given when the queue manager was defined.
    queue_base = defaults_for(table, "QL", None)
    system_queues: list[ExportLine] = []
    for name in SYSTEM_QUEUES:
        record = tx.get_object(system.name, "QL", name)
        if record is None:
            continue
        fixed = [k.name for k in table.objects["QL"].keywords.values() if not k.alterable]
        changed = {
            key: value
            for key, value in attributes(table, record, queue_base, all_attributes).items()
            if key not in fixed and (all_attributes or value != queue_base.get(key))
        }
        if changed:
            system_queues.append(export_line("ALTER", "QL", name, changed))
    qmgr_line = [export_line("ALTER", "QMGR", manager.name, qmgr_attrs)] if qmgr_attrs else []
    # A queue's MAXMSGL may not exceed the queue manager's: lower the queues first, raise
    # the queue manager first.
    lowering = int(manager.attrs.get("MAXMSGL", 0)) < int(queue_base.get("MAXMSGL", 0))
    out = system_queues + qmgr_line if lowering else qmgr_line + system_queues
    for obj in DEFINE_ORDER:
        base = defaults_for(table, obj, manager)
        if obj == "CHL":
            base["CPU"] = processor_id(system)  # a channel for its own processor replays anywhere
        for record in tx.objects(system.name, obj):
            if obj == "QL" and record.name in SYSTEM_QUEUES:
                continue
            out.append(export_line("DEFINE", obj, record.name, attributes(table, record, base, all_attributes)))
    if deadq is not None:
        out.append(export_line("ALTER", "QMGR", manager.name, {"DEADQ": deadq}))
    return out + mqid_lines(tx, system, all_attributes)


def mqid_lines(tx: Transaction, system: SystemRecord, all_attributes: bool = False) -> list[ExportLine]:
    """ZMQID DEFINE of each entry of the MQI channel directory (it needs no queue manager)."""
    table = load("ztpf_mqid")
    base = table.defaults(MQID_TYPE)
    return [
        export_line("DEFINE", MQID_TYPE, record.name, attributes(table, record, base, all_attributes))
        for record in tx.objects(system.name, MQID_TYPE)
    ]


def _pairs(attrs: dict[str, Any]) -> list[str]:
    return [f"{keyword}-{format_value(value)}" for keyword, value in attrs.items()]
