"""Content-coding negotiation for the z/TPF HTTP server: RFC 9110 Accept-Encoding
parsing, the z/TPF choice among the COMP codings, and the COMPSIZEHW/SW size test.
"""

from __future__ import annotations

import re
from typing import Literal

__all__ = [
    "CODINGS",
    "CompressionPath",
    "choose_coding",
    "decide",
    "parse_accept_encoding",
]

#: The content codings the z/TPF server can produce (zlib: gzip and deflate).
CODINGS: tuple[str, ...] = ("gzip", "deflate")

CompressionPath = Literal["hw", "sw"]

# RFC 9110 token characters. Spelled out in ASCII because `\w` and `\d` in Python
# regular expressions also match non-ASCII letters and digits.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
# RFC 9110 section 12.4.2 qvalue: 0..1 with at most three decimals ("1." is legal).
_QVALUE = re.compile(r"(?:0(?:\.[0-9]{0,3})?|1(?:\.0{0,3})?)")
# Deprecated aliases that name a coding the server knows (IANA registry).
_ALIASES = {"x-gzip": "gzip"}
# RFC 9110 optional whitespace is only space and tab; str.strip() would also eat
# vertical tabs, form feeds and Unicode spaces, which are not whitespace to HTTP.
_OWS = " \t"


def _weight(params: list[str]) -> float:
    """The weight of one entry from its parameters; 0.0 when they are not one valid q.

    Anything but exactly one well-formed `q=` parameter makes the entry
    unacceptable (weight 0) rather than dropping it: a dropped entry would let a
    `*` weight apply to that coding, turning a broken "no" into a "yes".
    """
    if not params:
        return 1.0
    if len(params) != 1:
        return 0.0
    name, sep, value = params[0].partition("=")
    if not sep or name.strip(_OWS).lower() != "q":
        return 0.0
    value = value.strip(_OWS)
    if not _QVALUE.fullmatch(value):
        return 0.0
    return float(value)


def parse_accept_encoding(header: str | None) -> dict[str, float] | None:
    """Parses an Accept-Encoding value into {coding: weight}.

    Returns None when the header is absent or empty (or blank): the client then
    gets no content coding. Coding names are lower-cased and `x-gzip` becomes
    `gzip`. An entry whose weight is malformed (not 0..1, more than three
    decimals, not a number, a parameter other than `q`, several `q`) is kept with
    weight 0, i.e. explicitly unacceptable. An entry whose coding name is not a
    valid token is dropped, since it names nothing. A coding listed more than once
    takes its lowest weight. Never raises, whatever the input.
    """
    if header is None or not header.strip(_OWS):
        return None
    weights: dict[str, float] = {}
    for element in header.split(","):
        name, *params = element.split(";")
        name = name.strip(_OWS)
        if not _TOKEN.fullmatch(name):
            # Empty list elements are legal (RFC 9110 5.6.1); invalid names are not.
            continue
        coding = name.lower()
        coding = _ALIASES.get(coding, coding)
        weight = _weight(params)
        weights[coding] = min(weight, weights.get(coding, weight))
    return weights


def _compresses(http_version: str) -> bool:
    """True for HTTP/1.1 and later; z/TPF never compresses for HTTP/1.0 sessions."""
    text = http_version.strip()
    if text.upper().startswith("HTTP/"):
        text = text[5:]
    major, _, minor = text.partition(".")
    if not major.isascii() or not major.isdigit():
        return False
    if minor and (not minor.isascii() or not minor.isdigit()):
        return False
    return (int(major), int(minor or "0")) >= (1, 1)


def choose_coding(header: str | None, comp: tuple[str, ...], http_version: str) -> str | None:
    """The content coding for one response ('gzip', 'deflate') or None for identity.

    `comp` is the server's COMP list in priority order and `http_version` the
    request's version ("1.1" or "HTTP/1.1"). Rules (ztpf-http.md section 4): no
    coding for HTTP/1.0 or without a header; a COMP coding weighs its own entry,
    else the `*` entry, else 0; the highest weight above 0 wins and a tie goes to
    the coding earlier in COMP; `identity` (its own entry, else 0) strictly above
    the winner means no coding. When nothing is acceptable the identity form is
    sent, never 406, even under `*;q=0` (RFC 9110 allows it).
    """
    if not _compresses(http_version):
        return None
    weights = parse_accept_encoding(header)
    if weights is None:
        return None
    star = weights.get("*", 0.0)
    best: str | None = None
    best_weight = 0.0
    for coding in comp:
        coding = coding.lower()
        if coding not in CODINGS:
            continue
        weight = weights.get(coding, star)
        # Strictly greater: an equal weight later in COMP never displaces an
        # earlier one, which is the z/TPF tie rule.
        if weight > best_weight:
            best, best_weight = coding, weight
    if best is None:
        return None
    if weights.get("identity", 0.0) > best_weight:
        return None
    return best


def decide(
    body_len: int,
    coding: str | None,
    hardware: bool,
    compsizehw: int,
    compsizesw: int,
) -> CompressionPath | None:
    """Which path compresses a body of `body_len` bytes: 'hw', 'sw' or None.

    One threshold decides (ztpf-http.md section 4 step 5). With the accelerator
    and COMPSIZEHW > 0, COMPSIZEHW alone: hardware when body >= COMPSIZEHW, else
    no compression; COMPSIZESW is for "when hardware is not available" (the
    seed), and "if both have valid values, hardware is used" (IBM). Otherwise
    (no accelerator, or COMPSIZEHW 0) software when 0 < COMPSIZESW <= body. A
    value of 0 disables its path. No coding chosen means no compression at all.
    """
    if coding is None:
        return None
    if hardware and compsizehw > 0:
        return "hw" if body_len >= compsizehw else None
    if compsizesw > 0 and body_len >= compsizesw:
        return "sw"
    return None
