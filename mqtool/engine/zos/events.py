"""Configuration events (IBM MQ for z/OS CONFIGEV): with the queue manager's CONFIGEV
ENABLED, a DEFINE writes a Create object event, an ALTER a Change object pair (the
object before, then after), a DELETE a Delete object event, and REFRESH QMGR
TYPE(CONFIGEV) one Refresh object event per object it selects. Each is a PCF message
(pcf.py) with MQMD Format MQEVENT, in the code page and encoding of z/OS trigger
messages, put on SYSTEM.ADMIN.CONFIG.EVENT in the command's own transaction, so that a
command that fails or a process killed before the commit leaves no event.

As IBM documents, the command does not depend on the event: when the event queue
refuses the put (PUT(DISABLED), full, too long) the event is lost and the command
still succeeds. A missing event queue is defined first, as IBM's sample definitions
define it (a local queue, persistent by default)."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from mqtool.engine.core import mqtm
from mqtool.engine.core.reasons import MQError
from mqtool.engine.zos import configmap as cm
from mqtool.engine.zos import pcf

if TYPE_CHECKING:
    from mqtool.clock import Clock
    from mqtool.state import ObjectRecord, Store, Transaction

EVENT_QUEUE = "SYSTEM.ADMIN.CONFIG.EVENT"
EVENT_QUEUE_ATTRS = {"DESCR": "Configuration event queue", "DEFPSIST": "YES"}
MQCMD_CONFIG_EVENT = 43
CREATE, CHANGE, DELETE, REFRESH = 2367, 2368, 2369, 2370  # MQRC_CONFIG_*_OBJECT
MQCACF_EVENT_USER_ID, MQIACF_EVENT_ORIGIN, MQCACF_EVENT_Q_MGR = 3045, 1011, 3047
MQIACF_OBJECT_TYPE = 1016
MQEVO_CONSOLE, MQEVO_INTERNAL = 1, 5
# The user an mqtool console command runs as (mqtool has no sign-on).
EVENT_USER = "MQTOOL"
HEADER = json.dumps(
    {"ccsid": mqtm.ZOS_CCSID, "encoding": mqtm.ZOS_ENCODING, "format": pcf.MQFMT_EVENT},
    sort_keys=True,
    separators=(",", ":"),
)
Stamp = Callable[[float], tuple[str, str]]
CRASH_VARIABLE = "MQTOOL_TEST_CONFIGEV_CRASH"  # tests only: SIGKILL after the events are put, before the commit


def reported(obj: str) -> bool:
    """True for the object types whose changes make a configuration event."""
    return obj in cm.OBJECTS


def _value(row: cm.Row, value: Any) -> pcf.Parameter | None:
    ident, kind, words = row
    if kind == "ST":
        return pcf.Parameter(pcf.MQCFT_STRING, ident, "" if value is None else str(value))
    if kind == "SL":
        items = value if isinstance(value, (list, tuple)) else [v for v in str(value or "").split(",") if v]
        return pcf.Parameter(pcf.MQCFT_STRING_LIST, ident, tuple(str(v).strip() for v in items))
    if isinstance(value, bool):
        value = "YES" if value else "NO"
    if isinstance(value, int):
        return pcf.Parameter(pcf.MQCFT_INTEGER, ident, value)
    text = str(value).strip().upper()
    if words is not None and text in words:
        return pcf.Parameter(pcf.MQCFT_INTEGER, ident, words[text])
    if text.lstrip("-").isdigit():
        return pcf.Parameter(pcf.MQCFT_INTEGER, ident, int(text))
    return None  # a word with no documented constant: left out


def object_name(record: ObjectRecord) -> str:
    """The name an event gives the object: a channel authentication record's profile."""
    if record.type == cm.CHLAUTH_STORE:
        return str(record.attrs.get("profile", record.name))
    return record.name


def parameters(record: ObjectRecord, qmgr: str, stamp: Stamp, origin: int = MQEVO_CONSOLE) -> list[pcf.Parameter]:
    """The event data of one object: origin, identity, then its attributes in the
    table's order."""
    objtype, name_id = cm.OBJECTS[record.type]
    out = [
        pcf.Parameter(pcf.MQCFT_STRING, MQCACF_EVENT_USER_ID, EVENT_USER),
        pcf.Parameter(pcf.MQCFT_INTEGER, MQIACF_EVENT_ORIGIN, origin),
        pcf.Parameter(pcf.MQCFT_STRING, MQCACF_EVENT_Q_MGR, qmgr),
        pcf.Parameter(pcf.MQCFT_INTEGER, MQIACF_OBJECT_TYPE, objtype),
        pcf.Parameter(pcf.MQCFT_STRING, name_id, object_name(record)),
    ]
    if record.type in cm.Q_TYPES:
        out.append(pcf.Parameter(pcf.MQCFT_INTEGER, cm.MQIA_Q_TYPE, cm.Q_TYPES[record.type]))
    if record.type != cm.CHLAUTH_STORE:  # a record has no disposition of its own
        out.append(pcf.Parameter(pcf.MQCFT_INTEGER, cm.MQIA_QSG_DISP, cm.MQQSGD_Q_MGR))
    for keyword, row in cm.ATTRIBUTES[record.type].items():
        if keyword in record.attrs:
            parameter = _value(row, record.attrs[keyword])
            if parameter is not None:
                out.append(parameter)
    altdate, alttime = stamp(record.altered)
    out.append(pcf.Parameter(pcf.MQCFT_STRING, cm.MQCA_ALTERATION_DATE, altdate))
    out.append(pcf.Parameter(pcf.MQCFT_STRING, cm.MQCA_ALTERATION_TIME, alttime))
    if record.type in ("QLOCAL", "QMODEL"):
        crdate, crtime = stamp(record.created)
        out.append(pcf.Parameter(pcf.MQCFT_STRING, cm.MQCA_CREATION_DATE, crdate))
        out.append(pcf.Parameter(pcf.MQCFT_STRING, cm.MQCA_CREATION_TIME, crtime))
    return out


class Writer:
    """Puts configuration events of one system inside one transaction."""

    def __init__(self, store: Store, clock: Clock, tx: Transaction, system: str, stamp: Stamp) -> None:
        self.store, self.clock, self.tx, self.system, self.stamp = store, clock, tx, system, stamp
        self.written = 0

    def _message(self, reason: int, record: ObjectRecord, seq: int = 1, control: int = pcf.MQCFC_LAST) -> bytes:
        header = pcf.Header(MQCMD_CONFIG_EVENT, reason, seq=seq, control=control)
        return pcf.pack(pcf.PCFMessage(header, parameters(record, self.system, self.stamp)))

    def _ensure_queue(self) -> None:
        if self.tx.find_object(self.system, ("QLOCAL", "QMODEL", "QALIAS", "QREMOTE"), EVENT_QUEUE) is not None:
            return
        from mqtool.state import ObjectRecord

        base = self.tx.get_object(self.system, "QLOCAL", "SYSTEM.DEFAULT.LOCAL.QUEUE")
        attrs = (dict(base.attrs) if base is not None else {}) | EVENT_QUEUE_ATTRS
        now = self.clock.timestamp()
        self.tx.put_object(ObjectRecord(self.system, "QLOCAL", EVENT_QUEUE, attrs, {}, now, now))

    def _put(self, payloads: Iterable[bytes]) -> int:
        """Puts the messages through one internal handle (a Change pair with one
        correlation id); a refused put loses that event, as on z/OS. How many were put."""
        from mqtool.engine.core.message import NO_ID, PutOptions
        from mqtool.engine.platforms import open_queue

        self._ensure_queue()
        items = list(payloads)
        options = PutOptions(priority=None, correlid=NO_ID if len(items) < 2 else self._correl(), header=HEADER)
        handle = open_queue(self.store, self.clock, self.system, EVENT_QUEUE, "zos")
        handle.ledger.make_internal()  # the queue manager's own put, not an application's handle
        put = 0
        try:
            handle.open(self.tx)
        except MQError:
            items = []
        try:
            for payload in items:
                try:
                    handle.put(self.tx, payload, options)
                except MQError:
                    continue
                put += 1
        finally:
            if items:
                handle.close(self.tx)
        self.written += put
        if os.environ.get(CRASH_VARIABLE):
            os.kill(os.getpid(), signal.SIGKILL)
        return put

    def _correl(self) -> bytes:
        """A correlation id shared by a Change pair: the clock and a count, 24 bytes."""
        stamp = int(self.clock.timestamp() * 1_000_000)
        return f"CFGEV{stamp:016d}{self.written:03d}".encode("ascii")[:24].ljust(24, b"\0")

    def created(self, record: ObjectRecord) -> None:
        self._put([self._message(CREATE, record)])

    def changed(self, before: ObjectRecord, after: ObjectRecord) -> None:
        first = self._message(CHANGE, before, 1, pcf.MQCFC_NOT_LAST)
        self._put([first, self._message(CHANGE, after, 2, pcf.MQCFC_LAST)])

    def deleted(self, record: ObjectRecord) -> None:
        self._put([self._message(DELETE, record)])

    def refreshed(self, records: Iterable[ObjectRecord]) -> int:
        return self._put(self._message(REFRESH, record) for record in records)


REASONS = {CREATE: "Create object", CHANGE: "Change object", DELETE: "Delete object", REFRESH: "Refresh object"}
OBJECT_TYPES = {
    1: "Q",
    2: "NAMELIST",
    3: "PROCESS",
    4: "STGCLASS",
    5: "QMGR",
    6: "CHANNEL",
    7: "AUTHINFO",
    8: "TOPIC",
    cm.MQOT_CHLAUTH: "CHLAUTH",
}
FIXED_NAMES = {
    MQCACF_EVENT_USER_ID: "EventUserId",
    MQIACF_EVENT_ORIGIN: "EventOrigin",
    MQCACF_EVENT_Q_MGR: "EventQMgr",
    MQIACF_OBJECT_TYPE: "ObjectType",
    cm.MQIA_Q_TYPE: "QType",
    cm.MQIA_QSG_DISP: "QSGDISP",
    cm.MQCA_ALTERATION_DATE: "ALTDATE",
    cm.MQCA_ALTERATION_TIME: "ALTTIME",
    cm.MQCA_CREATION_DATE: "CRDATE",
    cm.MQCA_CREATION_TIME: "CRTIME",
}
# The longest preview `describe` returns (hostile messages can hold many parameters).
MAX_PREVIEW = 4096


def _names(objtype: int) -> dict[int, tuple[str, dict[str, int] | None]]:
    """Parameter id -> (MQSC keyword, value map) for an MQOT object type."""
    kinds = [kind for kind, (ot, _) in cm.OBJECTS.items() if ot == objtype]
    out: dict[int, tuple[str, dict[str, int] | None]] = {}
    for kind in kinds:
        name_id = cm.OBJECTS[kind][1]
        out[name_id] = ("NAME", None)
        for keyword, (ident, _, words) in cm.ATTRIBUTES[kind].items():
            out.setdefault(ident, (keyword.upper(), words))
    return out


def _shown(value: pcf.Value, words: dict[str, int] | None) -> str:
    if isinstance(value, int) and words is not None:
        for word, number in words.items():
            if number == value:
                return word
    if isinstance(value, bytes):
        return "X'" + value.hex().upper() + "'"
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def describe(payload: bytes, encoding: int = mqtm.ZOS_ENCODING) -> str:
    """A configuration event in words: the header, then each parameter by name (the
    MQSC keyword where the table has one, else its number). ValueError when the bytes
    are not a PCF message."""
    message = pcf.read(payload, encoding)
    h = message.header
    kind = REASONS.get(h.reason, f"reason {h.reason}")
    control = "LAST" if h.control == pcf.MQCFC_LAST else "NOT_LAST"
    objtype = next((p.value for p in message.parameters if p.ident == MQIACF_OBJECT_TYPE), 0)
    names = _names(objtype) if isinstance(objtype, int) else {}
    parts = []
    for p in message.parameters:
        if p.ident in FIXED_NAMES:
            label, words = FIXED_NAMES[p.ident], None
            value = OBJECT_TYPES.get(p.value, str(p.value)) if p.ident == MQIACF_OBJECT_TYPE else _shown(p.value, None)  # type: ignore[arg-type]
        else:
            label, words = names.get(p.ident, (str(p.ident), None))
            value = _shown(p.value, words)
        parts.append(f"{label}({value})")
    text = f"{kind} ({h.reason}), MsgSeqNumber {h.seq} {control}, {len(message.parameters)} parameters: " + " ".join(
        parts
    )
    return text if len(text) <= MAX_PREVIEW else text[: MAX_PREVIEW - 3] + "..."
