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
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*([A-Za-z]*)\s*$")


class SizeError(ValueError):
    """A size that cannot be read."""


def parse_size(text: str) -> int:
    """Reads a size; SizeError (saying what is accepted) when it cannot."""
    match = _SIZE.match(text)
    if not match:
        raise SizeError(f"not a size: {text!r} (a number of bytes, or with a unit: 32KB, 4MB, 1MiB)")
    number, unit = match.groups()
    factor = UNITS.get(unit.upper())
    if factor is None:
        raise SizeError(f"unknown unit {unit!r} in {text!r}; units: {UNIT_NAMES}")
    value = Fraction(number) * factor
    if value.denominator != 1:
        raise SizeError(f"{text!r} is not a whole number of bytes")
    return int(value)
