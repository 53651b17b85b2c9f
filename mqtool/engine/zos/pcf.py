"""Programmable Command Format (PCF) event messages: the MQCFH header and the
parameter structures MQCFIN (integer), MQCFST (string), MQCFIL (integer list), MQCFSL
(string list) and MQCFBS (byte string), packed and read in the queue manager's integer
encoding and code page (z/OS: big-endian, EBCDIC 500, as mqtm.py packs an MQTM).

IBM's layouts (cmqcfc.h): MQCFH is nine MQLONGs (Type, StrucLength 36, Version,
Command, MsgSeqNumber, Control, CompCode, Reason, ParameterCount). Every parameter
starts Type, StrucLength, Parameter; MQCFIN adds Value (16 bytes); MQCFST adds
CodedCharSetId, StringLength and the string padded to a multiple of 4; MQCFIL adds
Count and the values; MQCFSL adds CodedCharSetId, Count, StringLength and the strings
(each StringLength long); MQCFBS adds StringLength and the bytes.

`read` is for bytes anyone may have put on a queue: every length is checked against
what is left, the parameter count and every list are bounded, and what does not read
is a ValueError, never an exception of another kind."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from mqtool.engine.core.mqtm import _CODECS, ZOS_CCSID, ZOS_ENCODING

MQFMT_EVENT = "MQEVENT "
MQCFT_INTEGER, MQCFT_STRING, MQCFT_INTEGER_LIST, MQCFT_STRING_LIST = 3, 4, 5, 6
MQCFT_EVENT, MQCFT_BYTE_STRING = 7, 9
MQCFH_STRUC_LENGTH = 36
MQCFH_VERSION_2 = 2  # the version of a configuration event's header
MQCFC_LAST, MQCFC_NOT_LAST = 1, 0

# What the reader takes at most: parameters in one message, items in one list.
MAX_PARAMETERS = 4096
MAX_ITEMS = 4096

Value = int | str | bytes | tuple[int, ...] | tuple[str, ...]


@dataclass(frozen=True)
class Parameter:
    """One PCF parameter: its structure type (MQCFT_*), id and value."""

    kind: int
    ident: int
    value: Value


@dataclass
class Header:
    """The MQCFH fields."""

    command: int
    reason: int
    comp_code: int = 1  # MQCC_WARNING, as every event
    seq: int = 1
    control: int = MQCFC_LAST
    kind: int = MQCFT_EVENT
    version: int = MQCFH_VERSION_2
    count: int = 0


@dataclass
class PCFMessage:
    header: Header
    parameters: list[Parameter] = field(default_factory=list)


def _padded(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 4)


def pack(message: PCFMessage, ccsid: int = ZOS_CCSID, encoding: int = ZOS_ENCODING) -> bytes:
    """The bytes of a PCF message (ParameterCount is the number of parameters given)."""
    codec = _CODECS[ccsid]
    order = ">" if encoding == ZOS_ENCODING else "<"
    h = message.header
    fields = (h.kind, MQCFH_STRUC_LENGTH, h.version, h.command, h.seq, h.control, h.comp_code, h.reason)
    out = [struct.pack(order + "9i", *fields, len(message.parameters))]
    for p in message.parameters:
        out.append(_pack_parameter(p, codec, ccsid, order))
    return b"".join(out)


def _pack_parameter(p: Parameter, codec: str, ccsid: int, order: str) -> bytes:
    if p.kind == MQCFT_INTEGER:
        assert isinstance(p.value, int)
        return struct.pack(order + "4i", p.kind, 16, p.ident, p.value)
    if p.kind == MQCFT_STRING:
        text = str(p.value).encode(codec, "replace")
        body = _padded(text)
        return struct.pack(order + "5i", p.kind, 20 + len(body), p.ident, ccsid, len(text)) + body
    if p.kind == MQCFT_INTEGER_LIST:
        values = tuple(int(v) for v in p.value)  # type: ignore[union-attr]
        return struct.pack(order + f"4i{len(values)}i", p.kind, 16 + 4 * len(values), p.ident, len(values), *values)
    if p.kind == MQCFT_STRING_LIST:
        items = [str(v).encode(codec, "replace") for v in p.value]  # type: ignore[union-attr]
        width = max((len(i) for i in items), default=0)
        body = _padded(b"".join(i + " ".encode(codec) * (width - len(i)) for i in items))
        head = struct.pack(order + "6i", p.kind, 24 + len(body), p.ident, ccsid, len(items), width)
        return head + body
    if p.kind == MQCFT_BYTE_STRING:
        data = bytes(p.value)  # type: ignore[arg-type]
        body = _padded(data)
        return struct.pack(order + "4i", p.kind, 16 + len(body), p.ident, len(data)) + body
    raise ValueError(f"parameter type {p.kind} is not one mqtool writes")


def read(data: bytes, encoding: int = ZOS_ENCODING) -> PCFMessage:
    """The header and parameters of PCF bytes; ValueError when they do not read."""
    order = ">" if encoding == ZOS_ENCODING else "<"
    if len(data) < MQCFH_STRUC_LENGTH:
        raise ValueError(f"{len(data)} bytes, fewer than an MQCFH's 36")
    kind, length, version, command, seq, control, comp, reason, count = struct.unpack(order + "9i", data[:36])
    if length != MQCFH_STRUC_LENGTH:
        raise ValueError(f"MQCFH StrucLength {length}, not 36")
    if not 0 <= count <= MAX_PARAMETERS:
        raise ValueError(f"ParameterCount {count} is outside 0-{MAX_PARAMETERS}")
    header = Header(command, reason, comp, seq, control, kind, version, count)
    message = PCFMessage(header)
    at = MQCFH_STRUC_LENGTH
    for number in range(count):
        parameter, at = _read_parameter(data, at, order, number + 1)
        message.parameters.append(parameter)
    if at != len(data):
        raise ValueError(f"{len(data) - at} bytes after the last parameter")
    return message


def _text(raw: bytes, ccsid: int) -> str:
    codec = _CODECS.get(ccsid)
    if codec is None:
        raise ValueError(f"CCSID {ccsid} is not one mqtool reads")
    return raw.decode(codec, "replace").rstrip(" \0")


def _read_parameter(data: bytes, at: int, order: str, number: int) -> tuple[Parameter, int]:
    if at + 12 > len(data):
        raise ValueError(f"parameter {number} is cut short")
    kind, length, ident = struct.unpack(order + "3i", data[at : at + 12])
    if length < 16 or length % 4 or at + length > len(data):
        raise ValueError(f"parameter {number} has StrucLength {length}, which does not fit")
    body = data[at : at + length]
    end = at + length
    if kind == MQCFT_INTEGER:
        if length != 16:
            raise ValueError(f"parameter {number}: an MQCFIN is 16 bytes, not {length}")
        return Parameter(kind, ident, struct.unpack(order + "i", body[12:16])[0]), end
    if kind == MQCFT_STRING:
        if length < 20:
            raise ValueError(f"parameter {number}: an MQCFST is at least 20 bytes")
        ccsid, size = struct.unpack(order + "2i", body[12:20])
        if not 0 <= size <= length - 20:
            raise ValueError(f"parameter {number}: StringLength {size} does not fit")
        return Parameter(kind, ident, _text(body[20 : 20 + size], ccsid)), end
    if kind == MQCFT_INTEGER_LIST:
        (count,) = struct.unpack(order + "i", body[12:16])
        if not 0 <= count <= MAX_ITEMS or 16 + 4 * count > length:
            raise ValueError(f"parameter {number}: Count {count} does not fit")
        return Parameter(kind, ident, struct.unpack(order + f"{count}i", body[16 : 16 + 4 * count])), end
    if kind == MQCFT_STRING_LIST:
        if length < 24:
            raise ValueError(f"parameter {number}: an MQCFSL is at least 24 bytes")
        ccsid, count, size = struct.unpack(order + "3i", body[12:24])
        if not 0 <= count <= MAX_ITEMS or size < 0 or 24 + count * size > length:
            raise ValueError(f"parameter {number}: Count {count} of StringLength {size} does not fit")
        items = tuple(_text(body[24 + i * size : 24 + (i + 1) * size], ccsid) for i in range(count))
        return Parameter(kind, ident, items), end
    if kind == MQCFT_BYTE_STRING:
        (size,) = struct.unpack(order + "i", body[12:16])
        if not 0 <= size <= length - 16:
            raise ValueError(f"parameter {number}: StringLength {size} does not fit")
        return Parameter(kind, ident, bytes(body[16 : 16 + size])), end
    raise ValueError(f"parameter {number} has type {kind}, not one of MQCFIN/ST/IL/SL/BS")
