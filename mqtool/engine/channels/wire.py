"""Channel compression on the wire: which technique a channel pair negotiates at start
(COMPMSG), how one message leaves the sending side (compressed with the technique,
sent as stored, or inflated first) and how the receiving side turns it back into the
original bytes without ever inflating past a bound.

Pure functions over bytes: the channel engine and `mqtool estimate` both call them, so
what a planner is told is what a running channel does.

Rules (seed 000 and IBM MQ, spec ztpf-mq.md section 5):
- A receiver declares what it accepts: NONE, ZLIBFAST, ZLIBHIGH or ANY (ZLIBFAST and
  ZLIBHIGH, plus RLE on z/OS). A z/TPF receiver takes one value, a z/OS one a list.
- The sender lists what it supports in priority order; the first technique of the
  sender's list that the receiver accepts is used; none: no compression.
- A message is compressed on the wire only when its original length is at least the
  transmission queue's COMPSIZE (0: every message, mqtool's choice).
- A message stored compressed on the transmission queue (z/TPF queue compression, zlib
  format) is sent as stored when the channel's technique is a zlib one; otherwise it is
  inflated to its original size first (and compressed again with RLE if that was
  negotiated and the message is eligible).
- A compressed form that is not smaller than the original is not used (the message
  goes uncompressed), as MQ does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from mqtool.engine import codecs

NONE = "NONE"
ZLIB_TECHNIQUES = ("ZLIBFAST", "ZLIBHIGH")
CHANNEL_TECHNIQUES = ("ZLIBFAST", "ZLIBHIGH", "RLE")
# Stored codecs a zlib channel technique can send as they are (same zlib format).
ZLIB_STORED = ("QUEUE", "ZLIBFAST", "ZLIBHIGH", "DEFLATE")


def accepted(receiver: Iterable[str] | str, platform: str) -> tuple[str, ...]:
    """The techniques a receiving channel accepts, from its COMPMSG value(s)."""
    values = [receiver] if isinstance(receiver, str) else list(receiver)
    found: list[str] = []
    for value in (str(v).upper() for v in values):
        if value == "ANY":
            candidates: tuple[str, ...] = CHANNEL_TECHNIQUES if platform == "zos" else ZLIB_TECHNIQUES
        elif value in CHANNEL_TECHNIQUES and (value != "RLE" or platform == "zos"):
            candidates = (value,)
        else:
            candidates = ()
        found.extend(c for c in candidates if c not in found)
    return tuple(found)


def negotiate(sender: Iterable[str] | str, receiver: Iterable[str] | str, receiver_platform: str) -> str:
    """The technique a sender and receiver agree on at channel start: the first of the
    sender's list that the receiver accepts; NONE when there is none."""
    offered = [sender] if isinstance(sender, str) else list(sender)
    allowed = accepted(receiver, receiver_platform)
    for technique in (str(v).upper() for v in offered):
        if technique in allowed:
            return technique
    return NONE


def eligible(technique: str, original_length: int, compsize: int) -> bool:
    """Whether a message is compressed on the wire: a technique was negotiated and the
    message is at least the transmission queue's COMPSIZE long (0: every message)."""
    return technique != NONE and original_length >= compsize


@dataclass(frozen=True)
class Sent:
    """One message as it goes on the wire."""

    data: bytes  # the bytes on the wire (the message data part)
    codec: str  # the technique they are compressed with; "" when not compressed
    original_length: int
    inflated: bool  # a stored-compressed message had to be inflated first
    compressed_now: bool  # the channel compressed it (CPU spent on the sending side)


def send(stored: bytes, stored_codec: str, original_length: int, technique: str, compsize: int) -> Sent:
    """How a message stored as (`stored`, `stored_codec`) leaves a channel that
    negotiated `technique`, with the transmission queue's `compsize`. Raises
    codecs.CodecError when a stored compressed message does not inflate."""
    if eligible(technique, original_length, compsize):
        if stored_codec and stored_codec in ZLIB_STORED and technique in ZLIB_TECHNIQUES:
            return Sent(stored, technique, original_length, inflated=False, compressed_now=False)
        original = _original(stored, stored_codec, original_length)
        packed = codecs.compress(technique, original)
        if len(packed) < len(original):
            return Sent(packed, technique, original_length, inflated=bool(stored_codec), compressed_now=True)
        return Sent(original, "", original_length, inflated=bool(stored_codec), compressed_now=True)
    original = _original(stored, stored_codec, original_length)
    return Sent(original, "", original_length, inflated=bool(stored_codec), compressed_now=False)


def receive(data: bytes, codec: str, declared_length: int) -> bytes:
    """The original bytes of a message received with `codec`, never producing more than
    `declared_length` bytes (the inflation guard: a compression bomb stops there).
    codecs.CodecError (or CodecLimitError) when the data is corrupt or inflates to
    another length than declared."""
    if not codec:
        if len(data) != declared_length:
            raise codecs.CodecError(f"message of {len(data)} bytes declared as {declared_length}")
        return data
    original = codecs.decompress(codec, data, max_length=declared_length)
    if len(original) != declared_length:
        raise codecs.CodecError(f"{codec}: inflates to {len(original)} bytes, declared {declared_length}")
    return original


def _original(stored: bytes, stored_codec: str, original_length: int) -> bytes:
    if not stored_codec:
        return stored
    return receive(stored, stored_codec, original_length)


@dataclass(frozen=True)
class Carried:
    """One message carried over a channel: how it went on the wire, and the bytes the
    receiving side inflated (None when it was not to be inflated), with the
    microseconds each side spent."""

    codec: str  # the technique on the wire; "" when not compressed
    wire_length: int
    inflated: bool  # a stored-compressed message had to be inflated before sending
    compressed_now: bool  # the sending side compressed it
    original: bytes | None
    send_us: int
    receive_us: int


class CarryError(Exception):
    """The wire work of a message failed: on the sending side (a message stored
    compressed does not inflate) or the receiving side (the data received does not)."""

    def __init__(self, side: str, error: codecs.CodecError) -> None:
        super().__init__(side, error)
        self.side = side
        self.error = error


def carry(
    stored: bytes | memoryview, stored_codec: str, length: int, technique: str, compsize: int, inflate: bool,
    perf: Callable[[], float] = time.perf_counter,
) -> Carried:  # fmt: skip
    """Both ends' work on one message: `send` on the sending side, then `receive` on the
    receiving side (when `inflate`, or when the message went uncompressed), never
    beyond its declared length. `perf` times each side (a frozen clock gives 0)."""
    started = perf()
    try:
        out = send(stored, stored_codec, length, technique, compsize)  # type: ignore[arg-type]
    except codecs.CodecError as error:
        raise CarryError("send", error) from None
    middle = perf()
    original: bytes | None = None
    if inflate or not out.codec:
        try:
            original = receive(out.data, out.codec, length)
        except codecs.CodecError as error:
            raise CarryError("receive", error) from None
    ended = perf()
    return Carried(out.codec, len(out.data), out.inflated, out.compressed_now, original,
                   int((middle - started) * 1_000_000), int((ended - middle) * 1_000_000))  # fmt: skip
