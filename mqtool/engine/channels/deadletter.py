"""The dead-letter header (MQDLH) a receiving channel puts in front of a message it
cannot deliver, so the message on the dead-letter queue says why (Reason) and where it
was going (DestQName, DestQMgrName), as IBM MQ's MQDLH version 1 does.

Layout (172 bytes): StrucId 'DLH ', Version 1, Reason, DestQName (48), DestQMgrName (48),
Encoding, CodedCharSetId, Format (8), PutApplType, PutApplName (28), PutDate (8,
YYYYMMDD), PutTime (8, HHMMSSTH). Integers are big-endian (z/OS and z/TPF encoding 785);
character fields are ASCII padded with blanks (mqtool's choice: the payloads mqtool
moves are the bytes given to it, not EBCDIC)."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import UTC, datetime

STRUC_ID = b"DLH "
VERSION = 1
ENCODING = 785  # MQENC_NATIVE on z/OS: big-endian integers
CCSID = 819  # ISO 8859-1, the character fields as written here
FORMAT_NONE = "        "  # MQFMT_NONE: the message data that follows has no format
PUT_APPL_TYPE = 2  # MQAT_MVS: the channel initiator (and the z/TPF MQ channel) put it
_LAYOUT = struct.Struct(">4sii48s48sii8si28s8s8s")
LENGTH = _LAYOUT.size  # 172


@dataclass(frozen=True)
class DeadLetterHeader:
    reason: int
    dest_queue: str
    dest_qmgr: str
    put_appl: str  # the channel that put it
    put_time: float


def _text(value: str, size: int) -> bytes:
    return value.encode("ascii", "replace")[:size].ljust(size, b" ")


def build(header: DeadLetterHeader) -> bytes:
    """The 172 bytes of the header."""
    moment = datetime.fromtimestamp(header.put_time, UTC)
    date = moment.strftime("%Y%m%d")
    time = moment.strftime("%H%M%S") + f"{moment.microsecond // 10000:02d}"
    return _LAYOUT.pack(
        STRUC_ID,
        VERSION,
        header.reason,
        _text(header.dest_queue, 48),
        _text(header.dest_qmgr, 48),
        ENCODING,
        CCSID,
        _text(FORMAT_NONE, 8),
        PUT_APPL_TYPE,
        _text(header.put_appl, 28),
        _text(date, 8),
        _text(time, 8),
    )


def parse(data: bytes) -> DeadLetterHeader | None:
    """The header at the start of a dead-letter message; None when there is none."""
    if len(data) < LENGTH or not data.startswith(STRUC_ID):
        return None
    fields = _LAYOUT.unpack_from(data)
    date, time = fields[10].decode("ascii").strip(), fields[11].decode("ascii").strip()
    try:
        moment = datetime.strptime(date + time[:6], "%Y%m%d%H%M%S").replace(tzinfo=UTC)
        when = moment.timestamp() + int(time[6:8] or 0) / 100
    except ValueError:
        when = 0.0
    return DeadLetterHeader(
        reason=int(fields[2]),
        dest_queue=fields[3].decode("ascii").strip(),
        dest_qmgr=fields[4].decode("ascii").strip(),
        put_appl=fields[9].decode("ascii").strip(),
        put_time=when,
    )
