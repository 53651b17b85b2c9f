"""Typed records read from and written to the store."""

from __future__ import annotations

from typing import Any

# A leaf module of no other import: the records are written out, not dataclasses (it says why).
from mqtool.record import Record

# Values that a copy of a dict shares safely with the original (none can be changed in place).
PLAIN_TYPES = frozenset((str, int, float, bool, type(None)))


class SystemRecord(Record):
    """A system of the complex: a z/TPF system or a z/OS queue manager."""

    _FIELDS = ("name", "platform", "attrs", "position")

    def __init__(self, name: str, platform: str, attrs: dict[str, Any] | None = None, position: int = 0) -> None:
        self.name = name
        self.platform = platform  # 'ztpf' or 'zos'
        self.attrs = {} if attrs is None else attrs
        self.position = position

    def own_copy(self) -> SystemRecord | None:
        """A copy whose settings one command may change without touching this record's
        (a shared list's); None when a setting holds a dict or a list (read the store's
        own then)."""
        for value in self.attrs.values():
            if type(value) not in PLAIN_TYPES:
                return None
        return SystemRecord(self.name, self.platform, dict(self.attrs), self.position)

    @property
    def cpu(self) -> str:
        return str(self.attrs.get("cpu", "z15"))

    @property
    def has_accelerator(self) -> bool:
        """The Integrated Accelerator for zEDC exists on z15 and later."""
        return cpu_generation(self.cpu) >= 15


class ObjectRecord(Record):
    """One defined object (queue manager, queue, channel, page set, ...)."""

    _FIELDS = ("system", "type", "name", "attrs", "status", "created", "altered")

    def __init__(
        self,
        system: str,
        type: str,
        name: str,
        attrs: dict[str, Any] | None = None,
        status: dict[str, Any] | None = None,
        created: float = 0.0,
        altered: float = 0.0,
    ) -> None:
        self.system = system
        self.type = type
        self.name = name
        self.attrs = {} if attrs is None else attrs
        self.status = {} if status is None else status
        self.created = created
        self.altered = altered


CPU_MODELS = ("z13", "z14", "z15", "z16", "z17")


def cpu_generation(model: str) -> int:
    return int(model[1:]) if model in CPU_MODELS else 0
