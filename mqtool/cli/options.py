"""Option types shared by the subcommands: whole numbers and decimals read by mqtool's
one rule (mqtool/inputs.py: ASCII digits, bounded, never NaN or infinity), instead of
click's IntRange and FloatRange, which take `٣`, `1_000`, `nan` and `inf`."""

from __future__ import annotations

from typing import Any

import click

from mqtool import inputs


class Whole(click.ParamType):
    """A whole number low..high (`high` None: at most inputs.MAX_DIGITS digits)."""

    name = "integer"

    def __init__(self, low: int = 0, high: int | None = None) -> None:
        self.low = low
        self.high = high

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        try:
            return inputs.whole(str(value), self.low, self.high)
        except inputs.InputError as exc:
            self.fail(str(exc), param, ctx)

    def __repr__(self) -> str:
        return f"Whole({self.low}, {self.high})"


class Decimal(click.ParamType):
    """A number with an optional fraction, low..high."""

    name = "number"

    def __init__(self, low: float = 0.0, high: float | None = None, unit: str = "") -> None:
        self.low = low
        self.high = high
        self.unit = unit

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        try:
            return inputs.decimal(str(value), self.low, self.high, self.unit)
        except inputs.InputError as exc:
            self.fail(str(exc), param, ctx)

    def __repr__(self) -> str:
        return f"Decimal({self.low}, {self.high})"
