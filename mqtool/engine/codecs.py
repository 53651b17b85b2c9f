"""The one codec table: every compression technique mqtool knows, and how it runs.

Techniques, in the mainframe's words: ZLIBFAST and ZLIBHIGH (MQ channel
compression, COMPMSG), RLE (MQ run-length encoding), QUEUE (z/TPF queue
compression, COMPSIZE; the zEDC accelerator's deflate), GZIP and DEFLATE (HTTP
content codings; 'deflate' is the zlib format, RFC 9110). Every zlib-format row can
read every other's output, whichever library wrote it. Decompression is bounded:
with max_length it never produces, nor allocates, more than max_length + 1 bytes
(the inflation guard against compression bombs). A gzip stream must be one member.

Choice of library: zlib-ng is the baseline and a hard dependency; isal is used
where it wins and is importable. `python benchmarks/bench_codecs.py` measures and
checks this table; its rule: qualify with a size reduction no more than 0.5 points
below the technique's zlib-ng baseline level at every size of xml, json and text;
win on compress speed; displace the baseline only when 20% faster (run-to-run noise
on the shared 2-CPU development machine is about that). Measured on generated xml
(best of 5; zlib-ng 2.3.3, isal 1.9.1 with ISA-L 2.32.1), compress MB/s /
decompress MB/s / size reduction:

    library     2 KB               32 KB               200 KB
    zlib-ng 1   201 / 352 / 32.7%  309 / 563 / 63.9%   308 / 732 / 68.3%
    zlib-ng 5    75 / 278 / 47.3%  156 / 645 / 74.2%   155 / 792 / 78.8%
    zlib-ng 6    74 / 231 / 47.3%  145 / 642 / 74.3%   132 / 803 / 79.1%
    zlib-ng 9    57 / 266 / 47.7%   72 / 599 / 74.3%    67 / 815 / 79.0%
    isal 0      510 / 499 / 31.6%  753 / 838 / 64.9%   799 / 934 / 69.4%
    isal 1      197 / 344 / 46.5%  655 / 831 / 70.6%   783 / 998 / 74.4%
    isal 3      168 / 337 / 46.7%  353 / 851 / 71.6%   384 / 1034 / 75.7%

Decision:
- ZLIBFAST: isal 1 (baseline zlib-ng 1): 1.56x the speed over all payloads and a
  far better ratio (zlib-ng 1 is weak on small messages). isal 0 is faster still
  but 1.1 points worse than zlib-ng 1 on 2 KB xml. Without isal: zlib-ng 1.
- ZLIBHIGH: zlib-ng 6 (baseline zlib-ng 9): level 9 compresses no smaller than
  level 6 on these payloads and is 1.8x slower; isal's best level (3) is 2.7
  points worse at 32 KB.
- QUEUE, GZIP, DEFLATE: zlib-ng 6, the baseline. isal 3 is 2.7 points worse at
  32 KB xml; zlib-ng 5 qualifies but is only 1.11x faster.
So isal runs ZLIBFAST only. The RLE row is this module's own code (byte RLE:
45 MB/s compress, about 0.8% growth on documents, which have no byte runs).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import ModuleType

from zlib_ng import zlib_ng

__all__ = [
    "FALLBACK",
    "PREFERRED",
    "TECHNIQUES",
    "CodecError",
    "CodecLimitError",
    "CodecRow",
    "Compressor",
    "compress",
    "decompress",
    "describe",
    "isal_in_use",
    "library_name",
    "row",
    "use_isal",
]

_isal_zlib: ModuleType | None
_isal_version = ""
try:  # isal is optional: faster on x86-64, but not a hard dependency.
    import isal as _isal_package
    from isal import isal_zlib as _isal_zlib

    _isal_version = f"{_isal_package.__version__} (ISA-L {_isal_package.ISAL_VERSION})"
except ImportError:  # pragma: no cover - depends on the installation
    _isal_zlib = None


class CodecError(ValueError):
    """Data that cannot be decompressed with the technique, or an unknown technique."""


class CodecLimitError(CodecError):
    """Decompressing would produce more than the allowed length (the inflation guard)."""


@dataclass(frozen=True)
class CodecRow:
    """How one technique runs: which library, at which level, in which format."""

    library: str  # "zlib-ng", "isal" or "mqtool" (the built-in RLE)
    level: int
    format: str  # "zlib" (RFC 1950), "gzip" (RFC 1952) or "rle"


TECHNIQUES: tuple[str, ...] = ("ZLIBFAST", "ZLIBHIGH", "RLE", "QUEUE", "GZIP", "DEFLATE")

# The table chosen by benchmarks/bench_codecs.py (figures in the module docstring).
PREFERRED: Mapping[str, CodecRow] = {
    "ZLIBFAST": CodecRow("isal", 1, "zlib"),
    # zlib-ng 9 compressed no smaller than 6 on any measured payload, at 1.75x the CPU.
    "ZLIBHIGH": CodecRow("zlib-ng", 6, "zlib"),
    "RLE": CodecRow("mqtool", 0, "rle"),
    "QUEUE": CodecRow("zlib-ng", 6, "zlib"),
    "GZIP": CodecRow("zlib-ng", 6, "gzip"),
    # RFC 9110 'deflate' is the zlib format (RFC 1950), not a raw deflate stream.
    "DEFLATE": CodecRow("zlib-ng", 6, "zlib"),
}

# Without isal, its rows fall back to the zlib-ng baseline level of their technique.
# zlib-ng is a hard dependency, so this table always works.
FALLBACK: Mapping[str, CodecRow] = {
    **PREFERRED,
    "ZLIBFAST": CodecRow("zlib-ng", 1, "zlib"),
}

_WBITS = {"zlib": 15, "gzip": 31}
_GZIP_OS_UNKNOWN = 255
_GZIP_OS_BYTE = 9

_active: dict[str, CodecRow] = {}


def use_isal(enabled: bool) -> bool:
    """Chooses the preferred table (isal where it won) or the all-zlib-ng fallback.

    Returns whether isal is now in use; asking for it without isal installed
    quietly keeps the fallback. ZLIBFAST sizes differ between the two, so anything
    that prints them byte for byte (golden transcripts) should pin one.
    """
    wanted = PREFERRED if enabled and _isal_zlib is not None else FALLBACK
    _active.clear()
    _active.update(wanted)
    return isal_in_use()


def isal_in_use() -> bool:
    return any(r.library == "isal" for r in _active.values())


use_isal(True)


def row(technique: str) -> CodecRow:
    """The active table row of a technique; CodecError if there is no such technique."""
    try:
        return _active[technique]
    except (KeyError, TypeError):
        raise CodecError(
            f"unknown compression technique {technique!r}; expected one of {', '.join(TECHNIQUES)}"
        ) from None


def _module(library: str) -> ModuleType:
    if library == "isal" and _isal_zlib is not None:
        return _isal_zlib
    return zlib_ng


def library_name(technique: str) -> str:
    """The library that runs a technique: `zlib-ng`, `isal` or `mqtool` (RLE)."""
    return row(technique).library


def describe(technique: str) -> str:
    """One line for debug output, with versions: what a technique really runs."""
    r = row(technique)
    if r.library == "mqtool":
        return f"{technique}: mqtool byte run-length encoding"
    if r.library == "isal" and _isal_zlib is not None:
        version = f"isal {_isal_version}"
    else:
        version = f"zlib-ng {zlib_ng.ZLIBNG_VERSION}"
    return f"{technique}: {version} level {r.level}, {r.format} format"


# ------------------------------------------------------------------------ API
def compress(technique: str, data: bytes) -> bytes:
    """Compresses data; the same input always gives the same bytes (same table)."""
    r = row(technique)
    if r.format == "rle":
        return _rle_encode(data)
    out = _module(r.library).compress(data, r.level, _WBITS[r.format])
    if r.format == "gzip":
        out = _os_unknown(out, 0)
    return out


def _os_unknown(out: bytes, offset: int) -> bytes:
    """`out`, which starts `offset` bytes into a gzip stream, with the header's OS
    byte (offset 9) set to 255 "unknown": zlib writes the build platform's (3 on
    Unix, 10 on Windows ...), and the output must be the same everywhere."""
    at = _GZIP_OS_BYTE - offset
    if 0 <= at < len(out):
        out = out[:at] + bytes((_GZIP_OS_UNKNOWN,)) + out[at + 1 :]
    return out


class Compressor:
    """Compresses one stream in pieces, for bodies too large to hold whole: call
    `compress(piece)` for each piece and `flush()` once at the end; the outputs
    joined are one stream in the technique's format, which `decompress()` reads.
    Same table row, level and format as `compress()`; the RLE row has no
    streaming form (CodecError)."""

    def __init__(self, technique: str) -> None:
        r = row(technique)
        if r.format == "rle":
            raise CodecError(f"{technique} cannot be compressed in pieces")
        lib = _module(r.library)
        self._packer = lib.compressobj(r.level, lib.DEFLATED, _WBITS[r.format])
        self._gzip = r.format == "gzip"
        self._written = 0

    def compress(self, data: bytes | memoryview) -> bytes:
        return self._out(self._packer.compress(data))

    def flush(self) -> bytes:
        """The rest of the stream; the compressor cannot be used after it."""
        return self._out(self._packer.flush())

    def _out(self, out: bytes) -> bytes:
        if self._gzip and self._written <= _GZIP_OS_BYTE:
            out = _os_unknown(out, self._written)
        self._written += len(out)
        return out


def decompress(technique: str, data: bytes, max_length: int | None = None) -> bytes:
    """Inflates data, never producing (or allocating) more than max_length bytes.

    CodecError for corrupt, truncated or trailing data and for an unknown
    technique; CodecLimitError when the original would be longer than max_length.
    """
    r = row(technique)
    if max_length is not None and max_length < 0:
        raise ValueError(f"max_length must be 0 or more, not {max_length}")
    if r.format == "rle":
        return _rle_decode(data, max_length)
    lib = _module(r.library)
    inflater = lib.decompressobj(_WBITS[r.format])
    # One byte more than allowed is enough to know the limit is exceeded; zlib's
    # max_length bounds the output buffer, so a bomb is never inflated in memory.
    limit = 0 if max_length is None else max_length + 1
    try:
        out = inflater.decompress(data, limit)
    except (lib.error, ValueError, OverflowError) as exc:
        raise CodecError(f"{technique}: corrupt compressed data ({exc})") from None
    if max_length is not None and len(out) > max_length:
        raise CodecLimitError(f"{technique}: decompressed data exceeds {max_length} bytes")
    if not inflater.eof:
        raise CodecError(f"{technique}: compressed data is truncated")
    if inflater.unused_data:
        raise CodecError(f"{technique}: {len(inflater.unused_data)} bytes after the end of data")
    return out


# ------------------------------------------------------------------------ RLE
# Byte run-length encoding, PackBits style. A control byte c is followed by:
#   c = 0x00..0x7F  c + 1 literal bytes (1..128);
#   c = 0x80..0xFF  one byte to be repeated c - 0x80 + 3 times (3..130).
# Runs shorter than 3 stay literal, so the worst case grows by 1 byte in 128.
_RUN = re.compile(rb"(.)\1{2,}", re.DOTALL)
_MAX_LITERAL = 128
_MIN_RUN, _MAX_RUN = 3, 130


def _literal(out: bytearray, chunk: bytes) -> None:
    for at in range(0, len(chunk), _MAX_LITERAL):
        piece = chunk[at : at + _MAX_LITERAL]
        out.append(len(piece) - 1)
        out += piece


def _rle_encode(data: bytes) -> bytes:
    data = bytes(data)
    out = bytearray()
    literal_from = 0
    for match in _RUN.finditer(data):
        start, end = match.span()
        _literal(out, data[literal_from:start])
        length, value = end - start, data[start]
        while length >= _MIN_RUN:
            count = min(length, _MAX_RUN)
            out += bytes((0x80 + count - _MIN_RUN, value))
            length -= count
        # A tail of 1-2 equal bytes goes out with the next literal.
        literal_from = end - length
    _literal(out, data[literal_from:])
    return bytes(out)


def _rle_decode(data: bytes, max_length: int | None = None) -> bytes:
    data = bytes(data)
    out = bytearray()
    limit = len(data) * _MAX_RUN if max_length is None else max_length
    at, end = 0, len(data)
    while at < end:
        control = data[at]
        if control < 0x80:
            count = control + 1
            if at + 1 + count > end:
                raise CodecError("RLE: literal run is truncated")
            piece = data[at + 1 : at + 1 + count]
            at += 1 + count
        else:
            if at + 1 >= end:
                raise CodecError("RLE: repeat run is missing its byte")
            count = control - 0x80 + _MIN_RUN
            piece = data[at + 1 : at + 2] * count
            at += 2
        if len(out) + count > limit:
            raise CodecLimitError(f"RLE: decoded data exceeds {max_length} bytes")
        out += piece
    return bytes(out)
