"""Sizes in bytes as people type them: `1024`, `32KB`, `4MB`, `1MiB`, `1.5GB`.

One rule for every option and directive that takes a size (`mqtool put --size`,
`.put size=`): a number (ASCII digits, an optional fraction) and an optional unit, any
case, a blank between them allowed. K, M and G count in 1024s whether written KB or
KiB, as IBM counts MAXMSGL (4 MB is 4194304 bytes); B is bytes. The result must be a
whole number of bytes.
"""

from __future__ import annotations

import re
from fractions import Fraction

from mqtool.inputs import shown

UNITS: dict[str, int] = {
    "": 1,
    "B": 1,
    "K": 1024,
    "KB": 1024,
    "KIB": 1024,
    "M": 1024**2,
    "MB": 1024**2,
    "MIB": 1024**2,
    "G": 1024**3,
    "GB": 1024**3,
    "GIB": 1024**3,
}
UNIT_NAMES = "B, KB, MB, GB (or KiB, MiB, GiB; all in 1024s)"
MAX_SIZE = 2**50  # a petabyte: larger than anything mqtool stores, far below what a conversion refuses
MAX_DIGITS = 20  # digits of the number, at the most (inputs.py: never near Python's 4,300)
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*([A-Za-z]*)\s*$")


class SizeError(ValueError):
    """A size that cannot be read."""


def parse_size(text: str) -> int:
    """Reads a size; SizeError (saying what is accepted) when it cannot."""
    match = _SIZE.match(text)
    if not match:
        raise SizeError(f"not a size: {shown(text)!r} (a number of bytes, or with a unit: 32KB, 4MB, 1MiB)")
    number, unit = match.groups()
    if len(number.partition(".")[0].lstrip("0")) > MAX_DIGITS:
        raise SizeError(f"{shown(text)} is too large (at most {MAX_SIZE:,} bytes)")
    if len(number) > 2 * MAX_DIGITS:
        raise SizeError(f"{shown(text)} is not a whole number of bytes")
    factor = UNITS.get(unit.upper())
    if factor is None:
        raise SizeError(f"unknown unit {shown(unit)!r} in {shown(text)!r}; units: {UNIT_NAMES}")
    value = Fraction(number) * factor
    if value.denominator != 1:
        raise SizeError(f"{shown(text)!r} is not a whole number of bytes")
    if value > MAX_SIZE:
        raise SizeError(f"{shown(text)} is too large (at most {MAX_SIZE:,} bytes)")
    return int(value)
