"""`mqtool apply`: makes the systems of a complex document (the YAML or JSON that
`mqtool export` writes) match it. The plan compares each object of the document with
the store: DEFINE what is missing, ALTER only the attributes that differ (ZMQSC has no
REPLACE, and an ALTER keeps what it does not name), DELETE what the document leaves out
with --prune; systems that do not exist are added and settings that differ altered.
The commands run through Session.execute, one transaction each, in an order that
respects the references between objects (the queue manager first; a transmission
queue before the sender channel or remote queue naming it; a stream target before the
queue streaming to it; an alias target before the alias; storage classes and page sets
before their users; deletes the other way round).

The engine of the plan is data: `plan()` reads the store and returns a Plan that the
CLI prints and `execute()` runs; the platforms differ only in the Dialect below.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mqtool import tables
from mqtool.apply.document import Document, DocumentError, Problem
from mqtool.engine.core.subscriptions import is_runtime
from mqtool.state import ObjectRecord, Store, SystemRecord, Transaction

CREATED, UPDATED, UNCHANGED, DELETED = "CREATED", "UPDATED", "UNCHANGED", "DELETED"
ADD, SET, DEFINE, ALTER, DELETE = "ADD", "SET", "DEFINE", "ALTER", "DELETE"
SYSTEM = "SYSTEM"  # the object type of a system's own actions (add, settings)
CHLAUTH = "CHLAUTH"  # z/OS channel authentication records (SET CHLAUTH), named by their identity


class ApplyError(Exception):
    """A plan that must not run (a queue holding messages without --purge ...): one line."""


# -- the platforms -------------------------------------------------------------------------


@dataclass(frozen=True)
class Dialect:
    """What differs between z/TPF and z/OS for apply: object types in plan order, the
    types that share the queue namespace, the attributes that name other objects, the
    objects that come and go with the system, and how commands are written."""

    platform: str
    table_name: str
    order: tuple[str, ...]  # object types, in the order a plan defines them
    queues: tuple[str, ...]
    references: dict[str, tuple[tuple[str, str], ...]]  # type -> (keyword, namespace of what it names)
    local: str  # the local queue type (its messages need PURGE)
    more_tables: dict[str, str] = field(default_factory=dict)  # type -> the table of a type of another command

    @property
    def table(self) -> tables.Table:
        return tables.load(self.table_name)

    def table_for(self, type_: str) -> tables.Table:
        """The table that holds object type `type_` (ZMQID's CHANNEL on z/TPF)."""
        return tables.load(self.more_tables.get(type_, self.table_name))

    def knows(self, type_: str) -> bool:
        # A type a document holds, and a plan orders: a stored row of any other type (one
        # the table has and no document does, or one no table has) is left as it is.
        return (type_ in self.table.objects or type_ in self.more_tables) and type_ in self.order

    def namespace(self, type_: str) -> str:
        return "QUEUE" if type_ in self.queues else type_

    def refs(self, type_: str, attrs: dict[str, Any]) -> Iterator[tuple[str, str, str]]:
        """(keyword, namespace, name) for each object the attributes name."""
        for keyword, namespace in self.references.get(type_, ()):
            value = attrs.get(keyword)
            if value is not None and str(value).strip() != "":
                yield keyword, namespace, str(value)


ZTPF = Dialect(
    platform="ztpf",
    table_name="ztpf_mq",
    order=("QMGR", "QL", "QR", "QA", "CHL", "CHANNEL"),
    queues=("QL", "QA", "QR"),
    references={
        "QMGR": (("DEADQ", "QUEUE"),),
        "QA": (("TARGQ", "QUEUE"),),
        "QR": (("XMITQ", "QUEUE"),),
        "CHL": (("XMITQ", "QUEUE"),),
    },
    local="QL",
    more_tables={"CHANNEL": "ztpf_mqid"},  # ZMQID: the MQI channel directory
)
ZOS = Dialect(
    platform="zos",
    table_name="zos",
    order=(
        "BUFFPOOL",
        "PSID",
        "STGCLASS",
        "AUTHINFO",
        "PROCESS",
        "NAMELIST",
        "QMGR",
        "QLOCAL",
        "QMODEL",
        "QREMOTE",
        "QALIAS",
        "CHANNEL",
        "TOPIC",
        "SUB",
    ),
    queues=("QLOCAL", "QMODEL", "QALIAS", "QREMOTE"),
    references={
        "QMGR": (("DEADQ", "QUEUE"), ("DEFXMITQ", "QUEUE"), ("CONNAUTH", "AUTHINFO")),
        "QLOCAL": (("STGCLASS", "STGCLASS"), ("STREAMQ", "QUEUE"), ("INITQ", "QUEUE"), ("PROCESS", "PROCESS")),
        "QMODEL": (("STGCLASS", "STGCLASS"), ("STREAMQ", "QUEUE"), ("INITQ", "QUEUE"), ("PROCESS", "PROCESS")),
        "QALIAS": (("TARGET", "QUEUE"),),
        "QREMOTE": (("XMITQ", "QUEUE"),),
        "CHANNEL": (("XMITQ", "QUEUE"),),
        "STGCLASS": (("PSID", "PSID"),),
        "TOPIC": (("MDURMDL", "QUEUE"), ("MNDURMDL", "QUEUE")),
        "SUB": (("DEST", "QUEUE"), ("TOPICOBJ", "TOPIC")),
        "PSID": (("BUFFPOOL", "BUFFPOOL"),),
    },
    local="QLOCAL",
)
DIALECTS = {"ztpf": ZTPF, "zos": ZOS}
NUMBERED = ("PSID", "BUFFPOOL")  # objects named by a number (page sets, buffer pools)


# -- the plan ---------------------------------------------------------------------------------


@dataclass
class Action:
    """One command of the plan (or a system-level change, which is no dialect command)."""

    system: str
    platform: str
    verb: str
    type: str
    name: str
    attrs: dict[str, Any] = field(default_factory=dict)  # what the command writes
    text: str = ""  # the dialect command, or `mqtool system ...` for a system action
    path: tuple[Any, ...] = ()  # where the object is in the document
    rank: tuple[Any, ...] = ()
    record: SystemRecord | None = None  # ADD and SET: the system as it will be
    before: dict[str, Any] = field(default_factory=dict)  # ALTER, DELETE: the object's attributes now
    number: int = 0

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.system, DIALECTS[self.platform].namespace(self.type), self.name)

    def describe(self) -> str:
        return f"{self.type} {self.name}" if self.type != SYSTEM else f"system {self.name}"


@dataclass
class Outcome:
    """What happens to one object (or system) of the document or the store."""

    system: str
    type: str
    name: str
    outcome: str
    changed: list[str] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)

    def line(self) -> str:
        what = f"{self.system} {self.type} {self.name}" if self.type != SYSTEM else f"system {self.name}"
        detail = f": {', '.join(self.changed)}" if self.changed else ""
        return f"{self.outcome:<9} {what}{detail}"

    def json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"system": self.system, "type": self.type, "name": self.name, "outcome": self.outcome}
        if self.changed:
            out["changed"] = self.changed
        return out


@dataclass
class Plan:
    source: str
    actions: list[Action] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    left_alone: int = 0  # objects of the document's systems that it does not name (no --prune)

    def counts(self) -> dict[str, int]:
        counted = {CREATED: 0, UPDATED: 0, DELETED: 0, UNCHANGED: 0}
        for outcome in self.outcomes:
            counted[outcome.outcome] += 1
        return counted

    def summary(self) -> str:
        c = self.counts()
        text = f"{c[CREATED]} to create, {c[UPDATED]} to update, {c[DELETED]} to delete, {c[UNCHANGED]} unchanged"
        if self.left_alone:
            text += f"; {self.left_alone} not in the document left alone (--prune deletes them)"
        return text

    def lines(self) -> list[str]:
        """The plan as a command file: dialect commands, `.system` before z/TPF blocks
        (z/OS commands carry their CPF), and system changes as comments."""
        out: list[str] = []
        current = None
        for action in self.actions:
            if action.type == SYSTEM:
                out.append(f"* {action.text}")
                continue
            if action.platform == "ztpf" and action.system != current:
                out.append(f".system {action.system}")
                current = action.system
            out.append(action.text)
        return out


@dataclass
class _System:
    """One system of the document while it is planned."""

    name: str
    dialect: Dialect
    path: tuple[Any, ...]
    record: SystemRecord  # as it will be (settings applied)
    current: dict[tuple[str, str], dict[str, Any]]  # (type, name) -> attributes now (or after ADD)
    depth: Callable[[str], int]
    wanted: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # full desired attributes
    given: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # as the document gives them


def plan(store: Store, document: Document, prune: bool = False, purge: bool = False) -> Plan:
    """The plan that makes the store match the document. DocumentError for a document
    that cannot be applied (with its place), ApplyError for a store it must not touch."""
    result = Plan(document.source)
    problems: list[Problem] = []
    planned: list[_System] = []
    with store.transaction(write=False) as tx:
        known = {s.name: s for s in tx.systems()}
        for number, (name, wanted) in enumerate(document.data["systems"].items()):
            system = _system(tx, document, known, name, wanted, result, problems)
            if system is None:
                continue
            _objects(document, system, wanted, result, problems, prune, purge, number)
            if "chlauth" in wanted and system.dialect.platform != "zos":
                text = f"{name}: z/TPF MQ has no channel authentication records (chlauth is a z/OS list)"
                problems.append(document.problem(("systems", name, "chlauth"), text, key=True))
            elif "chlauth" in wanted:
                _chlauth(tx, document, system, known.get(name), wanted["chlauth"], result, problems, prune)
            planned.append(system)
    if problems:
        raise DocumentError(document.source, problems)
    for system in planned:
        problems += _references(document, system, result)
    if problems:
        raise DocumentError(document.source, problems)
    result.actions = _order(document, result.actions)
    for index, action in enumerate(result.actions):
        action.number = index
    return result


def _system(
    tx: Transaction,
    document: Document,
    known: dict[str, SystemRecord],
    name: str,
    wanted: dict[str, Any],
    result: Plan,
    problems: list[Problem],
) -> _System | None:
    """The system's own actions (add, settings) and its objects as they are now."""
    from mqtool.complex import SettingError, add_command_line, check_system, check_system_name, defaults

    platform = str(wanted["platform"])
    dialect = DIALECTS[platform]
    path = ("systems", name)
    try:
        if check_system_name(platform, name) != name:
            raise SettingError(f"{name!r} is not a valid system name: upper case, as mqtool keeps it")
    except SettingError as exc:
        problems.append(document.problem(path, str(exc), key=True))
        return None
    existing = known.get(name)
    if existing is not None and existing.platform != platform:
        problems.append(document.problem((*path, "platform"), f"system {name} is {existing.platform}, not {platform}"))
        return None
    settings = _settings(document, platform, wanted.get("settings") or {}, path, problems)
    qmgr_doc = _qmgr_name(document, dialect, wanted, settings, path, problems)
    base = dict(existing.attrs) if existing is not None else defaults(platform)
    if existing is None and platform == "zos":
        base["cpf"] = "-" + name
    attrs = dict(base)
    changed: list[str] = []
    for key, value in settings.items():
        if key in ("log", "archive"):
            merged = dict(attrs.get(key) or {}) | value
            if merged != attrs.get(key):
                changed += [f"{key}.{k}" for k, v in value.items() if (attrs.get(key) or {}).get(k) != v]
            attrs[key] = merged
        elif key != "qmgr" and attrs.get(key) != value:
            changed.append(key)
            attrs[key] = value
    current_qmgr = _ztpf_qmgr(tx, name) if existing is not None and platform == "ztpf" else None
    if existing is None and qmgr_doc:
        attrs["qmgr"] = qmgr_doc
    record = SystemRecord(name, platform, attrs)
    others = [s for s in known.values() if s.name != name]
    try:
        check_system(record, others)
    except SettingError as exc:
        problems.append(document.problem((*path, "settings"), str(exc)))
        return None
    if current_qmgr and qmgr_doc and current_qmgr != qmgr_doc:
        problems.append(
            document.problem(
                (*path, "settings", "qmgr"),
                f"system {name} has queue manager {current_qmgr}; a queue manager cannot be renamed "
                f"(ZMQSC DELETE QMGR removes it)",
            )
        )
        return None
    if existing is None:
        action = Action(name, platform, ADD, SYSTEM, name, path=path, record=record)
        action.text = add_command_line(record, qmgr_doc)
        result.actions.append(action)
        result.outcomes.append(Outcome(name, SYSTEM, name, CREATED, actions=[action]))
        current = _new_system_objects(record, qmgr_doc)
        depth: Callable[[str], int] = lambda queue: 0  # noqa: E731 - a new system holds no messages
    else:
        if changed:
            action = Action(name, platform, SET, SYSTEM, name, path=(*path, "settings"), record=record)
            action.text = _alter_line(name, existing, record, changed)
            result.actions.append(action)
            result.outcomes.append(Outcome(name, SYSTEM, name, UPDATED, changed, [action]))
        # What applications make and take away again (their subscriptions, managed queues)
        # is not configuration: neither compared nor pruned.
        current = {
            (r.type, r.name): dict(r.attrs) for r in tx.objects(name) if dialect.knows(r.type) and not is_runtime(r)
        }
        depths = {row[0]: int(row[1]) for row in tx.conn.execute(
            "SELECT queue, depth FROM queue_figures WHERE system = ?", (name,))}  # fmt: skip
        depth = lambda queue: depths.get(queue, 0)  # noqa: E731
    return _System(name, dialect, path, record, current, depth)


def _ztpf_qmgr(tx: Transaction, system: str) -> str | None:
    found = tx.objects(system, "QMGR")
    return found[0].name if found else None


def _settings(
    document: Document, platform: str, given: dict[str, Any], path: tuple[Any, ...], problems: list[Problem]
) -> dict[str, Any]:
    """The document's settings checked as `mqtool system add|alter` checks them."""
    from mqtool.complex import ARCHIVE_DEFAULTS, LOG_DEFAULTS, SettingError, check_parameter, check_setting

    out: dict[str, Any] = {}
    for key, value in given.items():
        where = (*path, "settings", key)
        try:
            if key in ("log", "archive"):
                known = LOG_DEFAULTS if key == "log" else ARCHIVE_DEFAULTS
                out[key] = {k: check_parameter(key, k, _text(v), known) for k, v in value.items()}
            else:
                out[key] = check_setting(platform, key, _text(value))
        except SettingError as exc:
            problems.append(document.problem(where, f"{key}: {exc}"))
    return out


def _text(value: Any) -> str:
    return ",".join(str(v) for v in value) if isinstance(value, list) else str(value)


def _qmgr_name(
    document: Document,
    dialect: Dialect,
    wanted: dict[str, Any],
    settings: dict[str, Any],
    path: tuple[Any, ...],
    problems: list[Problem],
) -> str | None:
    """z/TPF: the queue manager the document gives (settings.qmgr and objects.QMGR agree)."""
    if dialect.platform != "ztpf":
        return None
    named = list((wanted.get("objects") or {}).get("QMGR") or {})
    setting = settings.get("qmgr")
    if len(named) > 1:
        problems.append(document.problem((*path, "objects", "QMGR"), "a z/TPF system has at most one queue manager"))
    if named and setting and named[0] != setting:
        problems.append(
            document.problem(
                (*path, "objects", "QMGR", named[0]), f"the queue manager is {setting} in settings.qmgr", key=True
            )
        )
    return str(setting) if setting else (named[0] if named else None)


def _alter_line(name: str, before: SystemRecord, after: SystemRecord, changed: list[str]) -> str:
    """The `mqtool system alter` command that makes the settings change."""
    import shlex

    words = ["mqtool", "system", "alter", name]
    for key in changed:
        group, _, parameter = key.partition(".")
        if parameter:
            words += [f"--{group}", f"{parameter}={_text(after.attrs[group][parameter])}"]
        else:
            words += [f"--{key}", _text(after.attrs[key])]
    return " ".join(shlex.quote(word) for word in words)


def _new_system_objects(record: SystemRecord, qmgr: str | None) -> dict[tuple[str, str], dict[str, Any]]:
    """The objects a system has as soon as it is added (its bootstrap)."""
    if record.platform == "zos":
        from mqtool.commands.zos.builtin import BUILTINS, table_defaults

        out = {("QMGR", record.name): table_defaults("QMGR")}
        out |= {(type_, name): table_defaults(type_) | attrs for type_, name, attrs in BUILTINS}
        return out
    if not qmgr:
        return {}
    return _ztpf_qmgr_objects(qmgr, {})


def _ztpf_qmgr_objects(qmgr: str, attrs: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """What ZMQSC DEFINE QMGR creates: the queue manager and its system queues."""
    from mqtool.commands.ztpf_mq import SYSTEM_QUEUES, defaults_for

    table = ZTPF.table
    manager = ObjectRecord("", "QMGR", qmgr, defaults_for(table, "QMGR", None) | attrs)
    out = {("QMGR", qmgr): manager.attrs}
    for queue in SYSTEM_QUEUES:
        out[("QL", queue)] = defaults_for(table, "QL", manager)
    return out


# -- objects ------------------------------------------------------------------------------------


def _view(dialect: Dialect, type_: str, attrs: dict[str, Any]) -> dict[str, Any]:
    """The attributes of an object that a document describes (export's keywords that
    apply to it), in table order."""
    from mqtool.commands.ztpf_mq.export import applies, written_keywords

    spec = dialect.table_for(type_).objects[type_]
    return {k.name: attrs[k.name] for k in written_keywords(spec) if k.name in attrs and applies(k, attrs)}


def _full(dialect: Dialect, type_: str, given: dict[str, Any], qmgr: dict[str, Any]) -> dict[str, Any]:
    """What an object of the document is in full: its DEFINE defaults (a z/TPF default
    such as =QMGR.MAXMSGL taken from the queue manager as the document wants it) and
    the attributes it gives."""
    if dialect.platform == "ztpf":
        from mqtool.commands.ztpf_mq import defaults_for

        manager = ObjectRecord("", "QMGR", "", qmgr)
        return defaults_for(dialect.table_for(type_), type_, manager) | given
    return dialect.table.defaults(type_) | given


def _objects(
    document: Document,
    system: _System,
    wanted: dict[str, Any],
    result: Plan,
    problems: list[Problem],
    prune: bool,
    purge: bool,
    number: int,
) -> None:
    dialect = system.dialect
    objects = wanted.get("objects") or {}
    qmgr_name = next(iter(objects.get("QMGR") or {}), None)
    current_qmgr = next((attrs for (t, _), attrs in system.current.items() if t == "QMGR"), None)
    if dialect.platform == "ztpf" and qmgr_name is not None and current_qmgr is None:
        # The system has no queue manager yet: DEFINE QMGR creates it with its system queues.
        given = dict(objects["QMGR"][qmgr_name])
        late = {k: given.pop(k) for k in ("DEADQ",) if k in given}
        action = _command(system, DEFINE, "QMGR", qmgr_name, given, ("systems", system.name, "objects", "QMGR"))
        result.actions.append(action)
        system.current |= _ztpf_qmgr_objects(qmgr_name, given)
        outcome = Outcome(system.name, "QMGR", qmgr_name, CREATED, actions=[action])
        if late:
            outcome.actions.append(_late(system, qmgr_name, late))
            result.actions.append(outcome.actions[-1])
        result.outcomes.append(outcome)
        system.wanted[("QMGR", qmgr_name)] = _full(dialect, "QMGR", objects["QMGR"][qmgr_name], {})
    qmgr_wanted = _full(dialect, "QMGR", (objects.get("QMGR") or {}).get(qmgr_name, {}), {})
    if qmgr_name is None and current_qmgr is not None:
        qmgr_wanted = dict(current_qmgr)
    by_namespace = {(dialect.namespace(t), n): (t, n) for (t, n) in system.current}
    replaced: set[tuple[str, str]] = set()
    done = {("QMGR", name) for name in [qmgr_name] if ("QMGR", name) in system.wanted}
    for type_ in dialect.order:
        for name, given in sorted((objects.get(type_) or {}).items()):
            key = (type_, name)
            path = ("systems", system.name, "objects", type_, name)
            full = _full(dialect, type_, given, qmgr_wanted)
            system.given[key] = given
            if key in done:
                continue  # the queue manager that DEFINE QMGR creates, above
            system.wanted[key] = full
            now_key = by_namespace.get((dialect.namespace(type_), name))
            desired = _view(dialect, type_, full)
            if now_key is None:
                missing = [
                    k.name
                    for k in dialect.table_for(type_).objects[type_].keywords.values()
                    if k.required and k.name not in full
                ]
                if missing:
                    problems.append(
                        document.problem(
                            path, f"{type_} {name}: {', '.join(missing)} is required to define it", key=True
                        )
                    )
                    continue
                if (
                    dialect.platform == "ztpf"
                    and type_ not in ("QMGR", *dialect.more_tables)
                    and qmgr_name is None
                    and current_qmgr is None
                ):
                    text = f"{type_} {name}: system {system.name} has no queue manager; the document gives none"
                    text += " (objects.QMGR)"
                    problems.append(document.problem(path, text, key=True))
                    continue
                action = _command(system, DEFINE, type_, name, _define_attrs(system, type_, full, objects), path)
                result.actions.append(action)
                result.outcomes.append(Outcome(system.name, type_, name, CREATED, actions=[action]))
                continue
            now = system.current[now_key]
            existing = _view(dialect, now_key[0], dialect.table_for(now_key[0]).defaults(now_key[0]) | now)
            fixed = _fixed(dialect, type_)
            changed = [k for k, v in desired.items() if existing.get(k) != v]
            if now_key[0] != type_ or any(k in fixed for k in changed):
                reason = (
                    f"it is a {now_key[0]} now"
                    if now_key[0] != type_
                    else f"{', '.join(k for k in changed if k in fixed)} cannot be altered"
                )
                if not prune:
                    problems.append(
                        document.problem(
                            path,
                            f"{type_} {name}: {reason}, so it must be deleted and defined again; --prune allows that",
                            key=True,
                        )
                    )
                    continue
                delete = _delete(system, now_key, purge)
                create = _command(system, DEFINE, type_, name, _define_attrs(system, type_, full, objects), path)
                result.actions += [delete, create]
                result.outcomes.append(Outcome(system.name, now_key[0], name, DELETED, actions=[delete]))
                result.outcomes.append(Outcome(system.name, type_, name, CREATED, actions=[create]))
                replaced.add(now_key)
                continue
            if not changed:
                result.outcomes.append(Outcome(system.name, type_, name, UNCHANGED))
                continue
            attrs = {k: desired[k] for k in changed}
            split = type_ == "QMGR" and dialect.platform == "ztpf"
            late = {k: attrs.pop(k) for k in ("DEADQ",) if split and k in attrs}
            outcome = Outcome(system.name, type_, name, UPDATED, changed)
            if attrs:
                outcome.actions.append(_command(system, ALTER, type_, name, attrs, path))
            if late:
                outcome.actions.append(_late(system, name, late))
            result.actions += outcome.actions
            result.outcomes.append(outcome)
    named = {(t, n) for t in objects for n in objects[t]}
    protected = _protected(system)
    for key in sorted(system.current, key=lambda k: (dialect.order.index(k[0]), k[1])):
        if key in named or key in replaced or key in protected:
            continue
        if not prune:
            result.left_alone += 1
            continue
        delete = _delete(system, key, purge)
        result.actions.append(delete)
        result.outcomes.append(Outcome(system.name, key[0], key[1], DELETED, actions=[delete]))


def _chlauth(
    tx: Transaction,
    document: Document,
    system: _System,
    existing: SystemRecord | None,
    items: list[Any],
    result: Plan,
    problems: list[Problem],
    prune: bool,
) -> None:
    """z/OS channel authentication records: the document's list is what the queue
    manager should have. A record it lists that is missing or differs is set (SET CHLAUTH
    ... ACTION(REPLACE)); one the queue manager has and the list does not is removed
    with --prune (ACTION(REMOVE)) and left alone without it, as objects are."""
    from mqtool.commands.zos.chlauth import backstop_or_records, from_document
    from mqtool.commands.zos.export import set_chlauth_line

    cpf = str(system.record.attrs.get("cpf") or "-" + system.name)
    now = {record.key(): record for record in backstop_or_records(tx, existing)}
    wanted: dict[str, Any] = {}
    for index, item in enumerate(items):
        path = ("systems", system.name, "chlauth", index)
        try:
            record = from_document(item)
        except ValueError as exc:
            problems.append(document.problem(path, f"chlauth record {index + 1}: {exc}"))
            continue
        if record.key() in wanted:
            problems.append(document.problem(path, f"chlauth record {index + 1}: the same record as an earlier one"))
            continue
        wanted[record.key()] = (record, path)
    for key, (record, path) in wanted.items():
        label = f"{record.profile} TYPE({record.type})"
        if now.get(key) == record:
            result.outcomes.append(Outcome(system.name, CHLAUTH, label, UNCHANGED))
            continue
        action = Action(system.name, "zos", SET, CHLAUTH, key, path=path)
        action.text = set_chlauth_line(cpf, record, "REPLACE").text
        result.actions.append(action)
        outcome = CREATED if key not in now else UPDATED
        result.outcomes.append(Outcome(system.name, CHLAUTH, label, outcome, actions=[action]))
    for key, record in now.items():
        if key in wanted:
            continue
        if not prune:
            result.left_alone += 1
            continue
        action = Action(system.name, "zos", SET, CHLAUTH, key, path=("systems", system.name, "chlauth"))
        action.text = set_chlauth_line(cpf, record, "REMOVE").text
        result.actions.append(action)
        label = f"{record.profile} TYPE({record.type})"
        result.outcomes.append(Outcome(system.name, CHLAUTH, label, DELETED, actions=[action]))


def _protected(system: _System) -> set[tuple[str, str]]:
    """Objects that go only with their system: the queue manager (and z/TPF's system queues)."""
    from mqtool.commands.ztpf_mq import SYSTEM_QUEUES

    out = {key for key in system.current if key[0] == "QMGR"}
    if system.dialect.platform == "ztpf":
        out |= {("QL", queue) for queue in SYSTEM_QUEUES}
    return out


def _fixed(dialect: Dialect, type_: str) -> set[str]:
    """Attributes fixed at DEFINE: ALTER cannot change them."""
    fixed = {k.name for k in dialect.table_for(type_).objects[type_].keywords.values() if not k.alterable}
    if dialect.platform == "zos" and type_ in ("CHANNEL", "AUTHINFO"):
        fixed.add("CHLTYPE" if type_ == "CHANNEL" else "AUTHTYPE")  # ALTER names the object's own type
    return fixed


def _define_attrs(system: _System, type_: str, full: dict[str, Any], objects: dict[str, Any]) -> dict[str, Any]:
    """The attributes a DEFINE writes: those that differ from what the DEFINE would give
    without them. z/TPF writes the inherited ones (=QMGR.X) always, as export does;
    z/OS also writes those that differ from its system default object now or as the
    document wants it, so the order of the commands does not matter."""
    dialect = system.dialect
    spec = dialect.table_for(type_).objects[type_]
    desired = _view(dialect, type_, full)
    if dialect.platform == "ztpf":
        from mqtool.commands.ztpf_mq.export import inherited

        return {k: v for k, v in desired.items() if inherited(spec.keywords[k]) or v != spec.keywords[k].default}
    from mqtool.commands.zos.builtin import DEFAULT_OBJECTS, table_defaults

    base = table_defaults(type_)
    model_name = DEFAULT_OBJECTS.get(str(full.get("CHLTYPE")) if type_ == "CHANNEL" else type_, "")
    model_type = type_ if type_ != "CHANNEL" else "CHANNEL"
    now = system.current.get((model_type, model_name)) or {}
    wanted = (objects.get(model_type) or {}).get(model_name) or {}
    bases = (base, base | now, base | wanted)
    out = {}
    for keyword, value in desired.items():
        if keyword in ("CHLTYPE", "AUTHTYPE", "QSGDISP"):
            continue
        if any(b.get(keyword) != value for b in bases):
            out[keyword] = value
    return out


def _command(system: _System, verb: str, type_: str, name: str, attrs: dict[str, Any], path: Any) -> Action:
    action = Action(system.name, system.dialect.platform, verb, type_, name, attrs, path=tuple(path))
    if verb == ALTER:
        action.before = dict(system.current.get((type_, name)) or {})
    action.text = _text_of(system, action)
    return action


def _late(system: _System, qmgr: str, attrs: dict[str, Any]) -> Action:
    """z/TPF ALTER QMGR DEADQ: after the queue it names exists (as export writes it last)."""
    path = ("systems", system.name, "objects", "QMGR", qmgr, "DEADQ")
    action = _command(system, ALTER, "QMGR", qmgr, attrs, path)
    action.rank = ("late",)
    return action


def _delete(system: _System, key: tuple[str, str], purge: bool) -> Action:
    type_, name = key
    depth = system.depth(name) if type_ == system.dialect.local else 0
    if depth and not purge:
        raise ApplyError(
            f"{type_} {name} of {system.name} holds {depth} message{'s' if depth != 1 else ''}, and the plan "
            "deletes it; --purge deletes it with its messages"
        )
    action = Action(system.name, system.dialect.platform, DELETE, type_, name, path=("systems", system.name))
    action.before = dict(system.current[key])
    action.attrs = {"PURGE": True} if depth else {}
    action.text = _text_of(system, action)
    return action


def _text_of(system: _System, action: Action) -> str:
    """The dialect command of an object action."""
    if system.dialect.platform == "ztpf":
        from mqtool.commands.ztpf_mq.export import export_line, quote

        if action.verb == DELETE:
            word = "ZMQID" if action.type in system.dialect.more_tables else "ZMQSC"
            return f"{word} DELETE {action.type}-{quote(action.name)}" + (" PURGE" if action.attrs else "")
        line = export_line(action.verb, action.type, action.name, action.attrs)
        if action.verb == DEFINE and action.type == "QMGR":
            line.head = f"ZMQSC DEFINE QMGR-{quote(action.name)}"
        return line.text
    from mqtool.commands.zos.export import command, keyword_syntax

    cpf = str(system.record.attrs.get("cpf", "-" + system.name))
    if action.verb == DELETE:
        record = ObjectRecord(system.name, action.type, action.name, {})
        return command(cpf, DELETE, record, ["PURGE"] if action.attrs else []).text
    full = system.wanted.get((action.type, action.name)) or system.current.get((action.type, action.name)) or {}
    record = ObjectRecord(system.name, action.type, action.name, full)
    changes = [keyword_syntax(action.type, k, v) for k, v in action.attrs.items()]
    return command(cpf, action.verb, record, changes).text


# -- references between objects ------------------------------------------------------------------


def _references(document: Document, system: _System, result: Plan) -> list[Problem]:
    """Objects the document's objects name must exist once the plan has run (z/TPF
    checks TARGQ, XMITQ and DEADQ when the command runs; z/OS storage classes and page
    sets): a problem at the attribute, before anything runs."""
    dialect = system.dialect
    deleted = {(o.type, o.name) for o in result.outcomes if o.system == system.name and o.outcome == DELETED}
    final = {
        (dialect.namespace(t), n): t for (t, n) in [*(k for k in system.current if k not in deleted), *system.wanted]
    }
    problems = []
    required = {"ztpf": ("TARGQ", "XMITQ", "DEADQ"), "zos": ("STGCLASS", "PSID", "BUFFPOOL")}[dialect.platform]
    for (type_, name), full in system.wanted.items():
        for keyword, namespace, target in dialect.refs(type_, full):
            if keyword not in required:
                continue
            target_name = str(int(target)) if namespace in NUMBERED and str(target).isdigit() else target
            if (namespace, target_name) not in final:
                given = system.given.get((type_, name), {})
                path = ("systems", system.name, "objects", type_, name, *([keyword] if keyword in given else []))
                kind = "queue" if namespace == "QUEUE" else namespace
                text = f"{type_} {name}: {keyword} names {kind} {target}, which the plan leaves undefined"
                problems.append(document.problem(path, text))
    return problems


def _order(document: Document, actions: list[Action]) -> list[Action]:
    """The actions in an order that respects their dependencies (a stable topological
    sort, ties broken by system, phase, object type and name); a cycle is an error at
    the first object in it."""
    systems_order = {name: index for index, name in enumerate(document.data["systems"])}
    for action in actions:
        dialect = DIALECTS[action.platform]
        if action.type == SYSTEM:
            phase = 0 if action.verb == ADD else 1
            type_rank = 0
        elif action.verb == DEFINE and action.type == "QMGR":
            phase, type_rank = 2, 0
        elif action.type == CHLAUTH:
            # after the objects a record could name (MCAUSER is a user, not an object)
            phase, type_rank = 3, len(dialect.order)
        elif action.verb == DELETE:
            phase, type_rank = 4, len(dialect.order) - dialect.order.index(action.type)
        elif action.rank == ("late",):
            phase, type_rank = 5, 0
        else:
            phase, type_rank = 3, dialect.order.index(action.type)
        action.rank = (systems_order.get(action.system, 0), phase, type_rank, action.name, action.verb)
    edges = _edges(actions)
    indegree = {id(a): 0 for a in actions}
    for _before, after, _why in edges:
        indegree[id(after)] += 1
    following: dict[int, list[Action]] = {id(a): [] for a in actions}
    for before, after, _why in edges:
        following[id(before)].append(after)
    ready = [(a.rank, index, a) for index, a in enumerate(actions) if indegree[id(a)] == 0]
    heapq.heapify(ready)
    ordered: list[Action] = []
    position = {id(a): index for index, a in enumerate(actions)}
    while ready:
        _rank, _index, action = heapq.heappop(ready)
        ordered.append(action)
        for after in following[id(action)]:
            indegree[id(after)] -= 1
            if indegree[id(after)] == 0:
                heapq.heappush(ready, (after.rank, position[id(after)], after))
    if len(ordered) < len(actions):
        raise DocumentError(document.source, [_cycle(document, [a for a in actions if indegree[id(a)] > 0], edges)])
    return ordered


Edge = tuple[Action, Action, str]


def _edges(actions: list[Action]) -> list[Edge]:
    """(before, after, why) for every dependency between two actions of the plan."""
    edges: list[Edge] = []
    by_key: dict[tuple[str, str, str], list[Action]] = {}
    for action in actions:
        by_key.setdefault(action.key, []).append(action)
    firsts: dict[str, list[Action]] = {}
    for action in actions:
        if action.type == SYSTEM or (action.verb == DEFINE and action.type == "QMGR"):
            firsts.setdefault(action.system, []).append(action)
    for action in actions:
        # A system's addition, its settings and z/TPF's DEFINE QMGR come first.
        for first in firsts.get(action.system, []):
            if first is not action and (first.rank[1] < action.rank[1]):
                edges.append((first, action, "the system and its queue manager first"))
        if action.type == SYSTEM:
            continue
        dialect = DIALECTS[action.platform]
        if action.verb in (DEFINE, ALTER):
            # What an action names is defined (or altered, USAGE-XMITQ ...) before it.
            for keyword, namespace, target in dialect.refs(action.type, action.attrs):
                name = str(int(target)) if namespace in NUMBERED and target.isdigit() else target
                for other in by_key.get((action.system, namespace, name), []):
                    if other.verb in (DEFINE, ALTER) and other is not action:
                        edges.append((other, action, f"{keyword}({target})"))
        if action.verb == DELETE:
            # A name goes before it is defined again (another type, a fixed attribute).
            for other in by_key.get(action.key, []):
                if other.verb == DEFINE:
                    edges.append((action, other, "defined again"))
    edges += _releases(actions, by_key)
    edges += _maxmsgl(actions)
    return edges


def _releases(actions: list[Action], by_key: dict[tuple[str, str, str], list[Action]]) -> list[Edge]:
    """What stops naming an object (an ALTER to another name, a DELETE) goes before the
    object is deleted, or before its USAGE changes."""
    edges: list[Edge] = []
    for action in actions:
        if action.type == SYSTEM or action.verb == DEFINE:
            continue
        dialect = DIALECTS[action.platform]
        for keyword, namespace, target in dialect.refs(action.type, action.before):
            if action.verb == ALTER and keyword not in action.attrs:
                continue
            name = str(int(target)) if namespace in NUMBERED and target.isdigit() else target
            for other in by_key.get((action.system, namespace, name), []):
                if other.verb == DELETE or (other.verb == ALTER and "USAGE" in other.attrs):
                    edges.append((action, other, f"{keyword}({target}) no longer"))
    return edges


def _maxmsgl(actions: list[Action]) -> list[Edge]:
    """z/TPF: a queue's MAXMSGL may not exceed the queue manager's. A queue manager that
    raises it goes before the queues and channels that use more; one that lowers it after
    the queues that come down (or go)."""
    edges: list[Edge] = []
    for qmgr in actions:
        if qmgr.platform != "ztpf" or qmgr.type != "QMGR" or qmgr.verb != ALTER or "MAXMSGL" not in qmgr.attrs:
            continue
        before = int(qmgr.before.get("MAXMSGL", 0))
        raising = int(qmgr.attrs["MAXMSGL"]) > before
        for other in actions:
            if other.system != qmgr.system or other.type not in ("QL", "CHL"):
                continue
            if raising and other.verb in (DEFINE, ALTER) and "MAXMSGL" in other.attrs:
                edges.append((qmgr, other, "MAXMSGL raised first"))
            elif not raising and other.type == "QL" and (other.verb == DELETE or "MAXMSGL" in other.attrs):
                edges.append((other, qmgr, "MAXMSGL lowered last"))
    return edges


def _cycle(document: Document, stuck: list[Action], edges: list[Edge]) -> Problem:
    """The first dependency cycle among the actions that could not be ordered."""
    inside = {id(a) for a in stuck}
    following: dict[int, list[tuple[Action, str]]] = {}
    for before, after, why in edges:
        if id(before) in inside and id(after) in inside:
            following.setdefault(id(before), []).append((after, why))
    start = min(stuck, key=lambda a: a.rank)
    path: list[tuple[Action, str]] = []
    seen: dict[int, int] = {}
    current, why = start, ""
    while id(current) not in seen:
        seen[id(current)] = len(path)
        path.append((current, why))
        current, why = following[id(current)][0]
    loop = [*path[seen[id(current)] :], (current, why)]
    steps = " -> ".join(f"{a.describe()}" + (f" [{w}]" if w else "") for a, w in loop)
    first = loop[0][0]
    return document.problem(
        first.path, f"dependency cycle: {steps}; break it with a second document or command", key=True
    )


# -- running the plan ----------------------------------------------------------------------------


@dataclass
class Failure:
    """The command that failed, with its response; the commands before it stay applied."""

    action: Action
    outcome: Any  # mqtool.session.Outcome
    applied: int


def execute(
    session: Any,
    plan: Plan,
    done: Callable[[Outcome], None],
    step: Callable[[], None] | None = None,
    dry_run: bool = False,
) -> Failure | None:
    """Runs the plan's actions in order, each its own transaction: object commands
    through `session.execute`, system changes as `mqtool system add|alter` make them.
    `done` hears of an object's outcome once its last command has committed (with
    `dry_run`, in the same order, running nothing)."""
    from mqtool.response import OK

    owner: dict[int, Outcome] = {}
    left: dict[int, int] = {}
    for outcome in plan.outcomes:
        left[id(outcome)] = len(outcome.actions)
        for action in outcome.actions:
            owner[id(action)] = outcome
    for index, action in enumerate(plan.actions):
        if dry_run:
            pass
        elif action.type == SYSTEM:
            _system_action(session, action)
        else:
            session.current = action.system
            result = session.execute(action.text)
            if result.status != OK:
                return Failure(action, result, index)
        if step is not None:
            step()
        outcome = owner[id(action)]
        left[id(outcome)] -= 1
        if left[id(outcome)] == 0:
            done(outcome)
    return None


def _system_action(session: Any, action: Action) -> None:
    """Adds a system (with its bootstrap objects) or changes its settings, in one transaction."""
    from mqtool.complex import bootstrap_system, check_system

    assert action.record is not None
    with session.store.transaction() as tx:
        others = [s for s in tx.systems() if s.name != action.name]
        record = SystemRecord(action.name, action.platform, dict(action.record.attrs))
        check_system(record, others)
        if action.verb == ADD:
            tx.put_system(record)
            bootstrap_system(tx, record, session.clock.timestamp())
        else:
            existing = tx.get_system(action.name)
            assert existing is not None
            existing.attrs = record.attrs
            tx.put_system(existing)
