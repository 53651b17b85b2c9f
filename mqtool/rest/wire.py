"""The REST listener's lean request reader: the plainest requests, which are nearly
all of them (HTTP/1.1, POST, GET or DELETE, a Content-Length body or none, one Host,
headers of printable ASCII), are read and answered without h11's event machinery,
which cost more per request than the REST API's own work. Anything else is handed, with
every byte read so far, to h11 as the HTTP server reads it (server.RestConnection), so
h11 remains the judge of every request that is not plain: chunked bodies, Expect,
Connection: close, HTTP/1.0, bare LF line ends, obs-fold, non-ASCII bytes, a head or
body over its bound (431, 413), malformed lines (400).

`plain_request` accepts only what h11 accepts too, and parses it as h11 does (names
lower-cased, values without the blanks around them); `response_head` writes a
response head byte for byte as h11 writes it for such a request (tests/test_rest_wire.py
compares them).
"""

from __future__ import annotations

import http
import re
from dataclasses import dataclass

import h11

_METHODS = frozenset({b"POST", b"GET", b"DELETE"})
_TOKEN = re.compile(rb"[-!#$%&'*+.^_`|~0-9a-zA-Z]+")
_TARGET = re.compile(rb"[\x21-\x7e]+")
_VALUE = re.compile(rb"[\x20-\x7e\t]*")
_OUT_NAME = re.compile(r"[-!#$%&'*+.^_`|~0-9a-zA-Z]+")
_OUT_VALUE = re.compile(r"[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?")
# Headers whose every use is left to h11 (framing, continuation, upgrades).
_LEFT_TO_H11 = frozenset({b"transfer-encoding", b"expect", b"upgrade", b"te", b"trailer"})
_MAX_LENGTH_DIGITS = 18
_PHRASES = {status.value: status.phrase.encode("ascii") for status in http.HTTPStatus}
# Header lines read (raw line -> name and value, or () when not plain) and written
# ((name, value) -> line) before: clients send the same few lines again and again.
# Only lines up to _LINE_KEPT bytes are kept, at most _LINES_KEPT of each (then emptied),
# and never a line that carries a secret (credentials, session cookies): those are judged
# every time, so no password or token outlives the request that brought it.
_LINES: dict[bytes, tuple[bytes, bytes] | tuple[()]] = {}
_OUT_LINES: dict[tuple[str, str], bytes] = {}
_LINE_KEPT = 256
_SECRET_NAMES = frozenset({b"authorization", b"proxy-authorization", b"cookie", b"set-cookie"})
_LINES_KEPT = 1024


@dataclass(frozen=True)
class PlainRequest:
    """A request head as routing reads it (the attributes of h11.Request it uses)."""

    method: bytes
    target: bytes
    headers: list[tuple[bytes, bytes]]
    http_version: bytes = b"1.1"


def head_end(buffer: bytes | bytearray) -> int:
    """Where the head in `buffer` ends (the index after its blank line); 0 while it is
    incomplete; -1 when its lines end with a bare LF (left to h11)."""
    end = buffer.find(b"\r\n\r\n")
    bare = buffer.find(b"\n\n")
    if bare >= 0 and (end < 0 or bare < end):
        return -1
    return 0 if end < 0 else end + 4


def plain_request(head: bytes, body_limit: int) -> tuple[PlainRequest, int] | None:
    """The request and its body's length, when the head (request line, header lines,
    the blank line) is a plain one the lean reader may answer; None otherwise."""
    lines = head[:-4].split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3:
        return None
    method, target, version = parts
    if method not in _METHODS or version != b"HTTP/1.1" or not _TARGET.fullmatch(target):
        return None
    headers: list[tuple[bytes, bytes]] = []
    length: int | None = None
    hosts = 0
    for line in lines[1:]:
        header = _LINES.get(line)
        if header is None:
            header = _header_line(line)
            if len(line) <= _LINE_KEPT and (not header or header[0] not in _SECRET_NAMES):
                if len(_LINES) >= _LINES_KEPT:
                    _LINES.clear()
                _LINES[line] = header
        if not header:
            return None
        name, value = header
        if name == b"content-length":
            if length is not None or not value.isdigit() or len(value) > _MAX_LENGTH_DIGITS:
                return None
            length = int(value)
        elif name == b"host":
            hosts += 1
        elif name == b"connection":
            if value.lower() != b"keep-alive":  # close, upgrade ...: h11 decides
                return None
        elif name in _LEFT_TO_H11:
            return None
        headers.append((name, value))
    if hosts != 1 or (length or 0) > body_limit:
        return None
    return PlainRequest(method, target, headers), length or 0


def _header_line(line: bytes) -> tuple[bytes, bytes] | tuple[()]:
    """A header line's name (lower case) and value (without the blanks around it);
    () when it is not a plain one."""
    raw_name, colon, raw_value = line.partition(b":")
    if not colon or not _TOKEN.fullmatch(raw_name) or not _VALUE.fullmatch(raw_value):
        return ()
    return raw_name.lower(), raw_value.strip(b" \t")


def response_head(status: int, headers: list[tuple[str, str]]) -> bytes:
    """The status line and headers as h11 writes them for a plain request's response
    (which always carries its Content-Length: without it, h11 would frame the body
    otherwise); h11.LocalProtocolError for that, and for a header h11 would refuse."""
    parts = [b"HTTP/1.1 %d %s\r\n" % (status, _PHRASES[status])]
    if not any(name.lower() == "content-length" for name, _ in headers):
        raise h11.LocalProtocolError("a plain request's response carries its Content-Length")
    for header in headers:
        line = _OUT_LINES.get(header)
        if line is None:
            name, value = header
            if not _OUT_NAME.fullmatch(name) or (value and not _OUT_VALUE.fullmatch(value)):
                raise h11.LocalProtocolError(f"illegal header {name!r}")
            line = b"%s: %s\r\n" % (name.encode("ascii"), value.encode("ascii"))
            if len(line) <= _LINE_KEPT and name.lower().encode("ascii") not in _SECRET_NAMES:
                if len(_OUT_LINES) >= _LINES_KEPT:
                    _OUT_LINES.clear()
                _OUT_LINES[header] = line
        parts.append(line)
    parts.append(b"\r\n")
    return b"".join(parts)
