"""mqtool's channel wire format, version 1 (mqtool-wire(7) documents it for people).

IBM's own protocol between queue managers (the FAP) is not public: an mqtool channel
talks only to another mqtool, never to a real IBM MQ queue manager, and says so when
the bytes at the other end are not mqtool's.

A connection starts with a preamble from each side, in the clear:

    "MQTL" (4 bytes) | version (u16, big-endian) | flags (u16, 0)

then frames, each:

    length (u32, big-endian: the bytes after it) | type (1 byte) | body (length - 1 bytes)

Types: `C` control (a JSON object with an "op"), `M` one message. A frame longer than
the reader allows is refused on its length, before anything of its body is read; every
read has a bound in bytes (MAX_CONTROL for control frames and for everything before the
channel's MAXMSGL is agreed, then MAXMSGL plus MESSAGE_OVERHEAD) and in time (the
caller's deadline). Pure functions: no sockets here (link.py reads and writes).

A message frame's body: declared length (u32), codec (1 byte: 0 none, then CODECS),
descriptor length (u16), the descriptor (JSON: msgid and correlid in hex, persistence,
priority, expiry, the transmission header), then the message data as it travels
(compressed with the codec, or as it is).
"""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass
from typing import Any

MAGIC = b"MQTL"
VERSION = 1
PREAMBLE = struct.Struct(">4sHH")
HEADER = struct.Struct(">IB")  # length of (type + body), type
MESSAGE_HEAD = struct.Struct(">IBH")  # declared length, codec, descriptor length
CONTROL = b"C"
MESSAGE = b"M"
MAX_CONTROL = 64 * 1024  # a control frame, and any frame before MAXMSGL is agreed
MAX_DESCRIPTOR = 16 * 1024
MESSAGE_OVERHEAD = MESSAGE_HEAD.size + MAX_DESCRIPTOR + 1
CODECS = ("", "RLE", "ZLIBFAST", "ZLIBHIGH")  # index = the codec byte


class FrameError(Exception):
    """Bytes that are not a valid frame (or preamble) of this version; `kind` says
    which check failed: magic, version, length, type, json, message."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


def preamble(version: int = VERSION) -> bytes:
    return PREAMBLE.pack(MAGIC, version, 0)


def read_preamble(data: bytes) -> int:
    """The peer's version from its 8 preamble bytes; FrameError (magic) when the bytes
    are not mqtool's: an IBM queue manager, another program, or garbage."""
    magic, version, _flags = PREAMBLE.unpack(data)
    if magic != MAGIC:
        raise FrameError("magic", f"the first bytes are {data[:8].hex()}, not an mqtool channel peer")
    return int(version)


def frame(kind: bytes, body: bytes) -> bytes:
    return HEADER.pack(len(body) + 1, kind[0]) + body


def control(op: str, **fields: Any) -> bytes:
    body = json.dumps({"op": op, **fields}, separators=(",", ":"), sort_keys=True).encode()
    if len(body) > MAX_CONTROL:
        raise FrameError("length", f"control frame {op} of {len(body)} bytes")
    return frame(CONTROL, body)


def read_header(data: bytes, limit: int) -> tuple[bytes, int]:
    """(type, body length) of a frame header; FrameError when the length is over
    `limit` (a 4 GB length prefix is refused here) or the type unknown."""
    length, kind = HEADER.unpack(data)
    if length < 1:
        raise FrameError("length", "an empty frame")
    if length - 1 > limit:
        raise FrameError("length", f"a frame of {length - 1} bytes, more than the {limit} allowed")
    code = bytes([kind])
    if code not in (CONTROL, MESSAGE):
        raise FrameError("type", f"frame type {kind:#04x}")
    return code, length - 1


def parse_control(body: bytes) -> dict[str, Any]:
    try:
        value = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise FrameError("json", f"control frame is not JSON ({exc})") from None
    if not isinstance(value, dict) or not isinstance(value.get("op"), str):
        raise FrameError("json", "control frame without an op")
    return value


@dataclass(frozen=True)
class WireMessage:
    """One message as it travels: its descriptor, its declared (original) length, the
    codec of the data ("" when the data is the message as it is) and the data."""

    length: int
    codec: str
    descriptor: dict[str, Any]
    data: bytes


def message(item: WireMessage) -> bytes:
    descriptor = json.dumps(item.descriptor, separators=(",", ":"), sort_keys=True).encode()
    if len(descriptor) > MAX_DESCRIPTOR:
        raise FrameError("message", f"descriptor of {len(descriptor)} bytes")
    head = MESSAGE_HEAD.pack(item.length, CODECS.index(item.codec), len(descriptor))
    return HEADER.pack(1 + len(head) + len(descriptor) + len(item.data), MESSAGE[0]) + head + descriptor + item.data


def parse_message(body: bytes | memoryview, max_length: int) -> WireMessage:
    """A message frame's body; FrameError when it does not hold together or declares a
    message longer than `max_length` (the channel's MAXMSGL)."""
    view = memoryview(body)
    if len(view) < MESSAGE_HEAD.size:
        raise FrameError("message", "a message frame shorter than its header")
    length, codec, size = MESSAGE_HEAD.unpack(view[: MESSAGE_HEAD.size])
    if codec >= len(CODECS):
        raise FrameError("message", f"codec {codec}")
    if length > max_length:
        raise FrameError("message", f"a message of {length} bytes, more than the channel's MAXMSGL {max_length}")
    start = MESSAGE_HEAD.size
    if size > MAX_DESCRIPTOR or start + size > len(view):
        raise FrameError("message", "a descriptor longer than its frame")
    try:
        descriptor = json.loads(bytes(view[start : start + size]))
    except (ValueError, UnicodeDecodeError):
        raise FrameError("message", "a descriptor that is not JSON") from None
    if not isinstance(descriptor, dict):
        raise FrameError("message", "a descriptor that is not an object")
    data = bytes(view[start + size :])
    if not CODECS[codec] and len(data) != length:
        raise FrameError("message", f"{len(data)} bytes of data declared as {length}")
    return WireMessage(int(length), CODECS[codec], descriptor, data)
