"""IBM MQ's generic IP addresses (CHLAUTH ADDRESS and ADDRLIST): an IPv4 or IPv6 address
whose parts may be a range (`192.0.2.1-20`) and one of which may be `*`, standing for
one or more whole parts (`192.0.*`, `192.*.2`, `*`).

`parse` checks a pattern (bounded: MAX_PATTERN characters); `matches` tests a concrete
address, an IPv4-mapped IPv6 address counting as its IPv4 address (a dual-stack
listener sees those); `specificity` orders patterns that match the same address from
the most specific (an exact address) down to `*`. Host names are not taken: mqtool does
not look up names (IBM does that only with QMGR REVDNS).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

MAX_PATTERN = 128
ANY = "*"


class AddressError(ValueError):
    """A pattern that is not a generic IP address."""


@dataclass(frozen=True)
class Part:
    low: int
    high: int
    wild: bool = False  # `*`: one or more whole parts


@dataclass(frozen=True)
class AddressPattern:
    text: str
    version: int  # 4, 6, or 0 for `*` (any address of either)
    parts: tuple[Part, ...]

    def expanded(self) -> tuple[Part, ...] | None:
        """The parts with `*` spread over the parts it stands for (4 or 8 in all)."""
        size = 4 if self.version == 4 else 8
        wild = [index for index, part in enumerate(self.parts) if part.wild]
        if not wild:
            return self.parts if len(self.parts) == size else None
        spread = size - (len(self.parts) - 1)
        if spread < 1:
            return None
        at = wild[0]
        top = 255 if self.version == 4 else 0xFFFF
        return (*self.parts[:at], *([Part(0, top, True)] * spread), *self.parts[at + 1 :])

    def matches(self, address: str) -> bool:
        forms = concrete(address)
        if not forms:
            return False
        if self.version == 0:
            return True
        parts = self.expanded()
        return parts is not None and any(
            version == self.version and all(part.low <= n <= part.high for part, n in zip(parts, numbers, strict=True))
            for version, numbers in forms
        )

    def specificity(self) -> tuple[int, ...]:
        """Compared left to right: an exact part (3) beats a range (2), which beats `*` (1)."""
        parts = self.expanded() or ()
        return tuple(1 if part.wild else 3 if part.low == part.high else 2 for part in parts) or (0,)


def _number(text: str, base: int, top: int, pattern: str) -> int:
    digits = "0123456789" if base == 10 else "0123456789abcdefABCDEF"
    if not text or len(text) > (3 if base == 10 else 4) or any(char not in digits for char in text):
        raise AddressError(f"{pattern} is not a generic IP address (part {text!r})")
    value = int(text, base)
    if value > top:
        raise AddressError(f"{pattern}: part {text} is above {top if base == 10 else 'FFFF'}")
    return value


def parse(text: str) -> AddressPattern:
    """A generic IP address; AddressError when it is not one."""
    pattern = text.strip()
    if not pattern or len(pattern) > MAX_PATTERN:
        raise AddressError(f"an address pattern is 1-{MAX_PATTERN} characters")
    if pattern == ANY:
        return AddressPattern(pattern, 0, (Part(0, 0, True),))
    if ":" in pattern:
        version, base, top, separator = 6, 16, 0xFFFF, ":"
        if "::" in pattern:
            if "*" in pattern or "-" in pattern:
                raise AddressError(f"{pattern}: write an IPv6 pattern with * or ranges in full, without ::")
            try:
                pattern = ipaddress.IPv6Address(pattern).exploded
            except ValueError as exc:
                raise AddressError(f"{text} is not an IPv6 address") from exc
    elif all(char in "0123456789.*-" for char in pattern):
        version, base, top, separator = 4, 10, 255, "."
    else:
        raise AddressError(f"{text} is not a generic IP address (mqtool does not match host names)")
    parts = []
    for piece in pattern.split(separator):
        if piece == ANY:
            parts.append(Part(0, top, True))
            continue
        low_text, dash, high_text = piece.partition("-")
        low = _number(low_text, base, top, text)
        high = _number(high_text, base, top, text) if dash else low
        if high < low:
            raise AddressError(f"{text}: range {piece} runs backwards")
        parts.append(Part(low, high))
    if sum(part.wild for part in parts) > 1:
        raise AddressError(f"{text}: only one * in an address pattern")
    result = AddressPattern(pattern if version == 6 and "::" in text else text.strip(), version, tuple(parts))
    if result.expanded() is None:
        size = 4 if version == 4 else 8
        raise AddressError(f"{text}: an IPv{version} pattern has {size} parts, or fewer with one *")
    return result


def concrete(address: str) -> list[tuple[int, tuple[int, ...]]]:
    """The (version, parts) forms of a real address: an IPv4-mapped IPv6 address has
    both its IPv4 and its IPv6 form; [] when it is not an address."""
    try:
        parsed = ipaddress.ip_address(address.strip().split("%")[0])
    except ValueError:
        return []
    if isinstance(parsed, ipaddress.IPv4Address):
        return [(4, tuple(parsed.packed))]
    packed = parsed.packed
    forms = [(6, tuple(int.from_bytes(packed[i : i + 2], "big") for i in range(0, 16, 2)))]
    if parsed.ipv4_mapped is not None:
        forms.insert(0, (4, tuple(parsed.ipv4_mapped.packed)))
    return forms


def matches(pattern: str, address: str) -> bool:
    """Whether `address` matches the generic address `pattern` (AddressError when the
    pattern is not one)."""
    return parse(pattern).matches(address)
