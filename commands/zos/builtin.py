"""The objects a new z/OS queue manager has before any command: its page sets, storage
classes, the system default objects that DEFINE takes its defaults from, the
dead-letter queue, and the back-stop channel authentication records. Export compares
against this list to write only what changed."""

from __future__ import annotations

from typing import Any

from mqtool.engine.core.topics import BASE_ATTRS
from mqtool.state import ObjectRecord, SystemRecord, Transaction
from mqtool.tables import Table

from . import table

# (type, name, attributes that differ from the keyword table's defaults). The system
# default objects keep the table's defaults, so that a DEFINE without LIKE on a new queue
# manager gives exactly the table's defaults (export relies on it).
BUILTINS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    # Buffer pools 0-3 with the keyword table's defaults (BUFFERS(1000) LOCATION(BELOW)
    # PAGECLAS(4KB)), one for each built-in page set.
    ("BUFFPOOL", "0", {}),
    ("BUFFPOOL", "1", {}),
    ("BUFFPOOL", "2", {}),
    ("BUFFPOOL", "3", {}),
    # Page sets 0-3, as the CSQ4PAGE sample sizes them (100 cylinders each), each in the
    # buffer pool of its own number.
    ("PSID", "0", {"BUFFPOOL": 0}),
    ("PSID", "1", {"BUFFPOOL": 1}),
    ("PSID", "2", {"BUFFPOOL": 2}),
    ("PSID", "3", {"BUFFPOOL": 3}),
    # SYSTEMST is the default storage class object (LIKE for DEFINE STGCLASS); SYSTEM
    # holds system queues on page set 0, DEFAULT application queues on 1, REMOTE
    # transmission queues on 3.
    ("STGCLASS", "SYSTEMST", {"PSID": 0}),
    ("STGCLASS", "SYSTEM", {"PSID": 0, "DESCR": "System queues"}),
    ("STGCLASS", "DEFAULT", {"PSID": 1, "DESCR": "Application queues"}),
    ("STGCLASS", "REMOTE", {"PSID": 3, "DESCR": "Transmission queues"}),
    ("QLOCAL", "SYSTEM.DEFAULT.LOCAL.QUEUE", {}),
    ("QMODEL", "SYSTEM.DEFAULT.MODEL.QUEUE", {}),
    ("QALIAS", "SYSTEM.DEFAULT.ALIAS.QUEUE", {}),
    ("QREMOTE", "SYSTEM.DEFAULT.REMOTE.QUEUE", {}),
    ("QLOCAL", "SYSTEM.DEAD.QUEUE", {"DESCR": "Dead-letter queue", "DEFPSIST": "YES"}),
    ("CHANNEL", "SYSTEM.DEF.SENDER", {"CHLTYPE": "SDR"}),
    ("CHANNEL", "SYSTEM.DEF.RECEIVER", {"CHLTYPE": "RCVR"}),
    ("CHANNEL", "SYSTEM.DEF.SVRCONN", {"CHLTYPE": "SVRCONN"}),
    # publish/subscribe: the root of the topic tree with IBM's values, the defaults of
    # DEFINE TOPIC and DEFINE SUB, and the model queues of managed subscription queues.
    ("TOPIC", "SYSTEM.BASE.TOPIC", {k: v for k, v in BASE_ATTRS.items() if k != "TOPICSTR"} | {"TOPICSTR": ""}),
    ("TOPIC", "SYSTEM.DEFAULT.TOPIC", {"TOPICSTR": ""}),
    ("SUB", "SYSTEM.DEFAULT.SUB", {"TOPICSTR": "", "DEST": ""}),
    (
        "QMODEL",
        "SYSTEM.DURABLE.MODEL.QUEUE",
        {"DEFTYPE": "PERMDYN", "DEFPSIST": "YES", "DESCR": "Model for managed durable subscriptions"},
    ),
    ("QMODEL", "SYSTEM.NDURABLE.MODEL.QUEUE", {"DESCR": "Model for managed non-durable subscriptions"}),
    ("CHANNEL", "SYSTEM.DEF.SERVER", {"CHLTYPE": "SVR"}),
    ("CHANNEL", "SYSTEM.DEF.REQUESTER", {"CHLTYPE": "RQSTR"}),
    # Channel security (issue 17): the default object of DEFINE AUTHINFO.
    ("AUTHINFO", "SYSTEM.DEFAULT.AUTHINFO.IDPWOS", {"AUTHTYPE": "IDPWOS"}),
)

# The object DEFINE takes unspecified attributes from (LIKE overrides it).
DEFAULT_OBJECTS: dict[str, str] = {
    "QLOCAL": "SYSTEM.DEFAULT.LOCAL.QUEUE",
    "QMODEL": "SYSTEM.DEFAULT.MODEL.QUEUE",
    "QALIAS": "SYSTEM.DEFAULT.ALIAS.QUEUE",
    "QREMOTE": "SYSTEM.DEFAULT.REMOTE.QUEUE",
    "STGCLASS": "SYSTEMST",
    "SDR": "SYSTEM.DEF.SENDER",
    "RCVR": "SYSTEM.DEF.RECEIVER",
    "SVRCONN": "SYSTEM.DEF.SVRCONN",
    "TOPIC": "SYSTEM.DEFAULT.TOPIC",
    "SUB": "SYSTEM.DEFAULT.SUB",
    "SVR": "SYSTEM.DEF.SERVER",
    "RQSTR": "SYSTEM.DEF.REQUESTER",
    "AUTHINFO": "SYSTEM.DEFAULT.AUTHINFO.IDPWOS",
}
# The keyword that says an object's kind, given on DEFINE and ALTER and fixed at DEFINE.
TYPE_KEYWORDS = {"CHANNEL": "CHLTYPE", "AUTHINFO": "AUTHTYPE"}

SETTABLE_VERBS = ("DEFINE", "ALTER")


def settable(obj: str) -> list[str]:
    """The keywords of an object type that are stored as its attributes, in table order."""
    return list(_derived(obj)[0])


def settable_set(obj: str) -> frozenset[str]:
    """settable(obj) as a set, for membership tests on the command path."""
    return _derived(obj)[1]


def table_defaults(obj: str) -> dict[str, Any]:
    """The keyword table's defaults of the stored attributes of an object type (a new
    dict each call: callers change it)."""
    values = dict(_derived(obj)[2])
    for name, value in values.items():
        if isinstance(value, list):
            values[name] = list(value)
    return values


# What settable() and table_defaults() derive from an object type's table row, worked out
# once per table: the key is the table object itself (tables.load reads it once per
# process), so a table read again is derived again.
_DERIVED: dict[str, tuple[Table, tuple[tuple[str, ...], frozenset[str], dict[str, Any]]]] = {}


def _derived(obj: str) -> tuple[tuple[str, ...], frozenset[str], dict[str, Any]]:
    current = table()
    cached = _DERIVED.get(obj)
    if cached is not None and cached[0] is current:
        return cached[1]
    spec = current.objects[obj]
    names = tuple(
        k.name
        for k in spec.keywords.values()
        if k.type != "flag" and k.display and any(v in k.verbs for v in SETTABLE_VERBS)
    )
    defaults: dict[str, Any] = {}
    for name in names:
        default = spec.keywords[name].default
        if default is not None:
            defaults[name] = list(default) if isinstance(default, list) else default
    derived = (names, frozenset(names), defaults)
    _DERIVED[obj] = (current, derived)
    return derived


def builtin_attrs(obj: str, name: str) -> dict[str, Any] | None:
    """The attributes a built-in object is created with, or None for other objects."""
    for type_, builtin, attrs in BUILTINS:
        if type_ == obj and builtin == name:
            return table_defaults(obj) | attrs
    if obj == "QMGR":
        return table_defaults("QMGR")
    return None


def define_builtins(tx: Transaction, system: SystemRecord, now: float) -> None:
    """Creates the queue manager and its built-in objects, once."""
    if tx.get_object(system.name, "QMGR", system.name) is not None:
        return
    status = {"state": "STARTED", "started": now}  # the log's position is in zos_log
    tx.put_object(ObjectRecord(system.name, "QMGR", system.name, table_defaults("QMGR"), status, now, now))
    for type_, name, attrs in BUILTINS:
        if tx.get_object(system.name, type_, name) is None:
            values = table_defaults(type_) | attrs
            tx.put_object(ObjectRecord(system.name, type_, name, values, {}, now, now))
    from .chlauth import add_backstop

    add_backstop(tx, system, now)  # IBM's default channel authentication records
