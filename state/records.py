"""Typed records read from and written to the store."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class SystemRecord:
    """A system of the complex: a z/TPF system or a z/OS queue manager."""

    name: str
    platform: str  # 'ztpf' or 'zos'
    attrs: dict[str, Any] = field(default_factory=dict)
    position: int = 0

    @property
    def cpu(self) -> str:
        return str(self.attrs.get("cpu", "z15"))

    @property
    def has_accelerator(self) -> bool:
        """The Integrated Accelerator for zEDC exists on z15 and later."""
        return cpu_generation(self.cpu) >= 15


@dataclass
class ObjectRecord:
    """One defined object (queue manager, queue, channel, page set, ...)."""

    system: str
    type: str
    name: str
    attrs: dict[str, Any] = field(default_factory=dict)
    status: dict[str, Any] = field(default_factory=dict)
    created: float = 0.0
    altered: float = 0.0


CPU_MODELS = ("z13", "z14", "z15", "z16", "z17")


def cpu_generation(model: str) -> int:
    return int(model[1:]) if model in CPU_MODELS else 0
