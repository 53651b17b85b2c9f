"""The trigger message structures: MQTM, the message a queue manager writes to an
initiation queue (binary: MQLONG fields in the queue manager's integer encoding,
MQCHAR fields in its code page, each padded with blanks to IBM's fixed length), and
MQTMC2, the character form a trigger monitor passes to the program it starts (every
field characters, with the queue manager's name at the end).

IBM's layouts (cmqc.h): MQTM is StrucId 'TM  ' (4), Version (MQLONG, 1), QName (48),
ProcessName (48), TriggerData (64), ApplType (MQLONG), ApplId (256), EnvData (128),
UserData (128): 684 bytes. MQTMC2 is StrucId 'TMC ', Version '   2', the same five
names and data fields with ApplType as 4 characters, then QMgrName (48): 732
characters.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

MQFMT_TRIGGER = "MQTRIG  "
MQTM_STRUC_ID = "TM  "
MQTM_VERSION_1 = 1
MQTMC_STRUC_ID = "TMC "
MQTMC_VERSION_2 = "   2"
# z/OS: EBCDIC code page 500 and big-endian (MQENC_S390 785) integers, as MQGET without
# conversion returns a z/OS message.
ZOS_CCSID = 500
ZOS_ENCODING = 785
_CODECS = {500: "cp500", 37: "cp037", 819: "latin-1", 1208: "utf-8"}

# (name, length) of the character fields after Version, in order; ApplType sits between
# TriggerData and ApplId.
NAMES = (("QName", 48), ("ProcessName", 48), ("TriggerData", 64))
DATA = (("ApplId", 256), ("EnvData", 128), ("UserData", 128))
MQTM_LENGTH = 4 + 4 + sum(n for _, n in NAMES) + 4 + sum(n for _, n in DATA)  # 684
MQTMC2_LENGTH = 4 + 4 + sum(n for _, n in NAMES) + 4 + sum(n for _, n in DATA) + 48  # 732

# MQAT_* values of the APPLTYPE words (cmqc.h); DEF is stored as z/OS's default, CICS.
APPLTYPES: dict[str, int] = {
    "CICS": 1,
    "MVS": 2,
    "IMS": 3,
    "UNIX": 6,
    "OS400": 8,
    "WINDOWS": 11,
    "NSK": 13,
    "NOTESAGENT": 22,
    "WLM": 31,
}


@dataclass(frozen=True)
class TriggerMessage:
    """The fields of an MQTM."""

    qname: str
    process: str
    trigger_data: str
    appl_type: int
    appl_id: str
    env_data: str
    user_data: str
    version: int = MQTM_VERSION_1


def appl_type(value: object) -> int:
    """The MQAT number of a stored APPLTYPE (a word or a number)."""
    if isinstance(value, int):
        return value
    text = str(value).strip().upper()
    if text.isdigit():
        return int(text)
    return APPLTYPES.get(text, APPLTYPES["CICS"])


def _field(text: str, length: int, codec: str) -> bytes:
    """A fixed-length MQCHAR field: the text in the code page, cut or padded with blanks."""
    data = text.encode(codec, "replace")[:length]
    return data + " ".encode(codec) * (length - len(data))


def pack(message: TriggerMessage, ccsid: int = ZOS_CCSID, encoding: int = ZOS_ENCODING) -> bytes:
    """The MQTM bytes of a trigger message."""
    codec = _CODECS[ccsid]
    order = ">" if encoding == ZOS_ENCODING else "<"
    values = (message.qname, message.process, message.trigger_data)
    out = _field(MQTM_STRUC_ID, 4, codec) + struct.pack(order + "i", message.version)
    out += b"".join(_field(v, n, codec) for v, (_, n) in zip(values, NAMES, strict=True))
    out += struct.pack(order + "i", message.appl_type)
    data = (message.appl_id, message.env_data, message.user_data)
    out += b"".join(_field(v, n, codec) for v, (_, n) in zip(data, DATA, strict=True))
    return out


def unpack(data: bytes, ccsid: int = ZOS_CCSID, encoding: int = ZOS_ENCODING) -> TriggerMessage:
    """The fields of MQTM bytes (trailing blanks removed); ValueError when the bytes are
    not an MQTM of version 1."""
    if len(data) != MQTM_LENGTH:
        raise ValueError(f"{len(data)} bytes, not the {MQTM_LENGTH} of an MQTM")
    codec = _CODECS.get(ccsid)
    if codec is None:
        raise ValueError(f"CCSID {ccsid} is not one mqtool reads")
    order = ">" if encoding == ZOS_ENCODING else "<"
    if data[:4].decode(codec) != MQTM_STRUC_ID:
        raise ValueError(f"StrucId {data[:4]!r} is not 'TM  '")
    (version,) = struct.unpack(order + "i", data[4:8])
    if version != MQTM_VERSION_1:
        raise ValueError(f"MQTM version {version}, not 1")
    fields: list[str] = []
    at = 8
    for _, length in NAMES:
        fields.append(data[at : at + length].decode(codec).rstrip(" "))
        at += length
    (kind,) = struct.unpack(order + "i", data[at : at + 4])
    at += 4
    for _, length in DATA:
        fields.append(data[at : at + length].decode(codec).rstrip(" "))
        at += length
    qname, process, trigger_data, appl_id, env_data, user_data = fields
    return TriggerMessage(qname, process, trigger_data, kind, appl_id, env_data, user_data, version)


def _chars(text: str, length: int) -> str:
    return text[:length].ljust(length)


def character_form(message: TriggerMessage, qmgr: str) -> str:
    """The MQTMC2 of a trigger message for queue manager `qmgr`: 732 characters, ApplType
    as four digits (as IBM's trigger monitor sample writes it, zero-padded)."""
    return (
        MQTMC_STRUC_ID
        + MQTMC_VERSION_2
        + _chars(message.qname, 48)
        + _chars(message.process, 48)
        + _chars(message.trigger_data, 64)
        + f"{message.appl_type:04d}"[:4]
        + _chars(message.appl_id, 256)
        + _chars(message.env_data, 128)
        + _chars(message.user_data, 128)
        + _chars(qmgr, 48)
    )
