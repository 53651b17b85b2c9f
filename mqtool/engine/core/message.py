"""The values a put and a get exchange: message and correlation ids, the put options a
putter chooses, the result of a put, a message got, the selector of a get, and what a
handle knows of its resolved queue."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from zlib_ng.zlib_ng import crc32  # the same CRC-32 as zlib's, several times faster

from mqtool.engine import codecs
from mqtool.engine.core.reasons import MSG_TOO_BIG_FOR_Q, MSG_TOO_BIG_FOR_Q_MGR, UNEXPECTED_ERROR, MQError
from mqtool.state import ObjectRecord, SystemRecord
from mqtool.state import messages as runs

ID_LENGTH = 24
NO_ID = bytes(ID_LENGTH)  # MQMI_NONE / MQCI_NONE


def parse_id(text: str) -> bytes:
    """A message or correlation id as typed: 48 hex digits, or text of up to 24 bytes
    padded with nulls (as MQ pads a short id). ValueError when it does not fit."""
    value = text.strip()
    if len(value) == 2 * ID_LENGTH:
        try:
            return bytes.fromhex(value)
        except ValueError:
            pass
    raw = text.encode("utf-8")
    if len(raw) > ID_LENGTH:
        raise ValueError(f"{text!r} is longer than {ID_LENGTH} bytes (give 48 hex digits or up to 24 characters)")
    return raw.ljust(ID_LENGTH, b"\0")


def format_id(value: bytes) -> str:
    return value.hex().upper()


@dataclass
class PutOptions:
    """The message descriptor fields a putter chooses."""

    persistent: bool | None = None  # None: the queue's DEFPSIST
    priority: int | None = 0  # None: the queue's DEFPRTY (0 where the platform has none)
    msgid: bytes | None = None  # None: the queue manager makes one
    correlid: bytes = NO_ID
    expiry: float | None = None  # seconds from the put; None: unlimited
    header: str | None = None  # the stored header (JSON); None: the resolution's (a transmission header or "{}")


@dataclass(slots=True)
class PutResult:
    row_id: int
    msgid: bytes
    length: int
    stored: int
    codec: str
    persistent: bool
    units: int  # what the message occupies in its platform's storage (SWBs, pages)
    expiry: float | None = None  # the absolute expiry time stored (after any cap)
    priority: int = 0
    correlid: bytes = NO_ID

    @property
    def swbs(self) -> int:
        """SWBs, on a z/TPF memory queue."""
        return self.units


@dataclass(slots=True)
class Message:
    """A message got or browsed, inflated to its original bytes."""

    row_id: int
    msgid: bytes
    correlid: bytes
    priority: int
    persistent: bool
    put_time: float
    expiry: float | None
    length: int
    stored: int
    codec: str
    swept: bool
    header: dict[str, str]
    payload: bytes
    inflated: str  # "", "hardware" or "software"
    queue: str = ""  # the local queue it was on
    stored_payload: bytes = b""  # as stored (compressed or not), to put it back
    header_text: str = "{}"
    swbs: int = 0  # the storage units it held (SWBs, pages)
    checksum: int | None = None  # CRC-32 of stored_payload (None: a row written without one)


@dataclass(frozen=True)
class Selector:
    msgid: bytes | None = None
    correlid: bytes | None = None


ANY = Selector()


_SQL_TYPES = {str: "TEXT", int: "INTEGER", float: "REAL", type(None): "NULL", bytes: "BLOB"}


def damage(row: tuple[object, ...]) -> str:
    """What is wrong with a message row as a get reads it (version, sweep mark, then the
    columns id, priority, msgid, correlid, persistent, put_time, expiry,
    original_length, stored_length, codec, swept, header, payload, units, checksum);
    "" when it can be delivered. Rows are written only by the engine, so anything else
    is damage: a changed byte, a value of the wrong type or range, a header that is not
    JSON. A get runs this only on a row that its SELECT already doubted (`_SOUND` in
    handle.py states these checks in SQL, all but the checksum and the header): a check
    added here must be added there too, or a get never makes it."""
    (_, _, _, priority, msgid, correlid, persistent, put_time, expiry, length, stored_length, codec, _, header,
     stored, units, crc) = row  # fmt: skip
    if type(stored) is not bytes:
        return f"its payload is stored as {_SQL_TYPES.get(type(stored), '?')}, not as a BLOB"
    if crc is not None and crc32(stored) != crc:
        recorded = f"{crc:08X}" if type(crc) is int else repr(crc)
        return f"its payload does not match its checksum (CRC-32 {crc32(stored):08X}, recorded {recorded})"
    if type(length) is not int or length < 0:
        return f"its length {length!r} is not a length"
    if stored_length != len(stored):
        return f"its stored length {stored_length!r} is not the {len(stored)} bytes stored"
    if type(codec) is not str:
        return f"its codec is stored as {_SQL_TYPES.get(type(codec), '?')}, not as text"
    if not codec and length != len(stored):
        return f"its length {length} is not the {len(stored)} bytes stored"
    for name, value in (("message", msgid), ("correlation", correlid)):
        if type(value) is not bytes or len(value) != ID_LENGTH:
            return f"its {name} id is not {ID_LENGTH} bytes"
    if type(priority) is not int or not 0 <= priority <= 9:
        return f"its priority {priority!r} is not 0-9"
    if persistent not in (0, 1) or type(persistent) is not int:
        return f"its persistence {persistent!r} is not 0 or 1"
    if type(put_time) not in (int, float) or (expiry is not None and type(expiry) not in (int, float)):
        return "its put time or expiry is not a time"
    if type(units) is not int or units < 0:
        return f"its storage units (SWBs, pages) {units!r} are not a count"
    if type(header) is not str:
        return f"its header is stored as {_SQL_TYPES.get(type(header), '?')}, not as JSON text"
    if header != "{}":
        try:
            fields = json.loads(header)
        except ValueError:
            return "its header is not JSON"
        if type(fields) is not dict:
            return "its header is not a JSON object"
    return ""


def id_text(value: object) -> str:
    """A message id for an error line, even when a damaged row holds no bytes there."""
    return format_id(value) if isinstance(value, bytes) else "(unreadable id)"


def check_length(resolved: Resolved, length: int) -> None:
    """MQError 2030 or 2031 when a message of `length` bytes is longer than its queue's
    or its queue manager's MAXMSGL (a putter may ask before it makes the message)."""
    if length > resolved.maxmsgl:
        raise MQError(MSG_TOO_BIG_FOR_Q, f"{length} bytes, MAXMSGL of {resolved.local_name} is {resolved.maxmsgl}")
    if length > resolved.qmgr_maxmsgl:
        raise MQError(MSG_TOO_BIG_FOR_Q_MGR, f"{length} bytes, queue manager MAXMSGL is {resolved.qmgr_maxmsgl}")


def inflate(codec: str, stored: bytes, length: int, msgid: bytes) -> bytes:
    """The original bytes of a stored message; MQError 2195 when they cannot be had."""
    if not codec:
        return stored
    try:
        data = codecs.decompress(codec, stored, max_length=length)
    except codecs.CodecError as exc:
        raise MQError(
            UNEXPECTED_ERROR, f"stored compressed data of message {format_id(msgid)} does not inflate ({exc})"
        ) from None
    if len(data) != length:
        raise MQError(
            UNEXPECTED_ERROR,
            f"message {format_id(msgid)} inflates to {len(data)} bytes, not its original {length}",
        )
    return data


@dataclass
class Resolved:
    """What a handle knows about its queue between definition changes."""

    system: SystemRecord
    qmgr: ObjectRecord
    opened: ObjectRecord
    local: ObjectRecord
    path: list[ObjectRecord]  # the opened queue, an alias's target, a transmission queue
    header: str  # the transmission header of a remote put ("{}" otherwise)
    put_error: int
    get_error: int
    default_persistent: bool
    default_priority: int
    maxmsgl: int
    qmgr_maxmsgl: int
    maxdepth: int | None  # None: no limit
    capexpry: float | None  # seconds: the lowest CAPEXPRY along the path, None for none
    qkey: int  # the local queue's number: its messages' row ids (state/messages.py)
    space: Any = None  # the platform's settings of this resolution (StorageModel.space)
    trigger: Any = None  # the local queue's trigger settings (core/triggers.py), None when it cannot trigger
    temporary: bool = False  # a temporary dynamic queue: no persistent messages
    blocked: dict[str, str] = field(default_factory=dict)  # "put"/"get" -> the queue that inhibits it
    # Derived once per resolution, so a put does no arithmetic on the settings.
    local_name: str = field(init=False)
    low: int = field(init=False)  # its run of row ids: low (the head row) < message ids < high
    high: int = field(init=False)

    def __post_init__(self) -> None:
        self.local_name = self.local.name
        self.low, self.high = runs.span(self.qkey)
