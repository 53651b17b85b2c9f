"""The counters behind ZHTPS STATS for one HTTP server, safe to update from the
server's event loop while another thread drains them into the store.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal

__all__ = ["HttpStats"]

_FLOAT_FIELDS = frozenset({"compress_seconds_total", "reduction_percent_total"})


@dataclass
class HttpStats:
    """Statistics of one z/TPF HTTP server (ztpf-http.md section 2).

    `active` is a gauge (connections open now); every other field only grows
    until a reset. Besides the figures of the display there is
    `reduction_percent_total`, the sum of each compressed response's percent size
    reduction, so AVG COMPRESSION RATIO is the mean per response as the spec
    defines it, not a ratio of byte totals that would weight big bodies more.

    Moving counters into the store: the server owns one HttpStats and updates it
    on its event loop; a persisting layer (any thread) periodically calls
    `drain_delta()`, which atomically returns what happened since the previous
    drain and zeroes it here, and applies that delta to the stored copy with
    `absorb()` inside one store transaction. Because each event lands in exactly
    one delta, several processes can add their deltas to one stored record
    without double counting. In a delta, `active` is the gauge's current value
    (it replaces the stored one) and `hwmark` is the highest `active` seen since
    the previous drain (the stored one keeps the maximum). If the transaction
    fails, `absorb(delta, keep_active=True)` puts the delta back into the live
    object so nothing is lost.
    """

    active: int = 0
    hwmark: int = 0
    refused: int = 0
    reused: int = 0
    timed_out: int = 0
    url_errors: int = 0
    hardware_count: int = 0
    software_count: int = 0
    none_count: int = 0
    compressed_bytes_before: int = 0
    compressed_bytes_after: int = 0
    compress_seconds_total: float = 0.0
    reduction_percent_total: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    # ------------------------------------------------------------ server events
    def connection_opened(self) -> None:
        """A connection was accepted and will be served."""
        with self._lock:
            self.active += 1
            self.hwmark = max(self.hwmark, self.active)

    def connection_closed(self) -> None:
        """A served connection ended (for whatever reason)."""
        with self._lock:
            self.active = max(0, self.active - 1)

    def refused_connection(self) -> None:
        """A connection was closed at once because MAXCONN were open."""
        with self._lock:
            self.refused += 1

    def reused_request(self) -> None:
        """A request arrived on a connection that had already served one."""
        with self._lock:
            self.reused += 1

    def timed_out_connection(self) -> None:
        """A connection was closed by the TIMEOUT."""
        with self._lock:
            self.timed_out += 1

    def url_error(self) -> None:
        """A request named a path that does not exist or is not allowed."""
        with self._lock:
            self.url_errors += 1

    def response(
        self,
        path: Literal["hw", "sw"] | None,
        size_before: int,
        size_after: int,
        seconds: float,
    ) -> None:
        """One response was sent, compressed by `path` or (None) not compressed.

        The sizes and time are only recorded for compressed responses.
        """
        with self._lock:
            if path is None:
                self.none_count += 1
                return
            if path == "hw":
                self.hardware_count += 1
            else:
                self.software_count += 1
            self.compressed_bytes_before += size_before
            self.compressed_bytes_after += size_after
            self.compress_seconds_total += seconds
            if size_before > 0:
                self.reduction_percent_total += 100.0 * (size_before - size_after) / size_before

    # ---------------------------------------------------------- derived figures
    @property
    def compressed_count(self) -> int:
        """Responses compressed by either path."""
        return self.hardware_count + self.software_count

    @property
    def avg_ratio(self) -> float:
        """AVG COMPRESSION RATIO: mean percent size reduction per compressed
        response (negative when compression made bodies bigger); 0 when none."""
        with self._lock:
            count = self.compressed_count
            return self.reduction_percent_total / count if count else 0.0

    @property
    def avg_time_ms(self) -> float:
        """AVG TIME TO COMPRESS: mean milliseconds per compressed response."""
        with self._lock:
            count = self.compressed_count
            return 1000.0 * self.compress_seconds_total / count if count else 0.0

    @property
    def avg_size(self) -> float:
        """AVG SIZE (BEFORE COMPRESSION): mean body bytes of compressed responses
        (a float; the display truncates it)."""
        with self._lock:
            count = self.compressed_count
            return self.compressed_bytes_before / count if count else 0.0

    # ------------------------------------------------------ store and transfer
    def to_dict(self) -> dict[str, int | float]:
        """The counters as a JSON-ready mapping (a consistent snapshot)."""
        with self._lock:
            return {f.name: getattr(self, f.name) for f in _COUNTERS}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HttpStats:
        """Rebuilds counters from `to_dict()` output.

        Missing keys count as 0 and unknown keys are ignored, so records written
        by an older or newer mqtool still load. A value of the wrong type raises
        TypeError and a negative count ValueError.
        """
        values: dict[str, Any] = {}
        for f in _COUNTERS:
            if f.name not in data:
                continue
            value = data[f.name]
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise TypeError(f"HTTP statistics field {f.name}: not a number")
            if f.name not in _FLOAT_FIELDS and not isinstance(value, int):
                raise TypeError(f"HTTP statistics field {f.name}: not an integer")
            if f.name != "reduction_percent_total" and value < 0:
                raise ValueError(f"HTTP statistics field {f.name}: negative")
            values[f.name] = float(value) if f.name in _FLOAT_FIELDS else value
        return cls(**values)

    def snapshot(self) -> HttpStats:
        """An independent copy taken under the lock."""
        return HttpStats.from_dict(self.to_dict())

    def drain_delta(self) -> HttpStats:
        """Returns the counts since the previous drain and zeroes them here.

        See the class docstring for how a delta is applied; the live object
        keeps `active`, and its `hwmark` restarts from the current `active`.
        """
        with self._lock:
            delta = HttpStats.from_dict({f.name: getattr(self, f.name) for f in _COUNTERS})
            for f in _COUNTERS:
                if f.name not in ("active", "hwmark"):
                    setattr(self, f.name, 0.0 if f.name in _FLOAT_FIELDS else 0)
            self.hwmark = self.active
            return delta

    def absorb(self, delta: HttpStats, *, keep_active: bool = False) -> None:
        """Adds a delta from `drain_delta()` into these counters (see class doc).

        `active` takes the delta's value unless `keep_active` (used to return a
        delta to the live object, whose own gauge is newer).
        """
        if delta is self:
            raise ValueError("cannot absorb HTTP statistics into themselves")
        incoming = delta.to_dict()
        with self._lock:
            for name, value in incoming.items():
                if name == "active":
                    if not keep_active:
                        self.active = int(value)
                elif name == "hwmark":
                    self.hwmark = max(self.hwmark, int(value), self.active)
                else:
                    setattr(self, name, getattr(self, name) + value)

    def reset(self) -> None:
        """ZHTPS STATS RESET: zero every counter; HWMARK restarts at ACTIVE."""
        with self._lock:
            for f in _COUNTERS:
                if f.name != "active":
                    setattr(self, f.name, 0.0 if f.name in _FLOAT_FIELDS else 0)
            self.hwmark = self.active


# The persisted fields: every dataclass field except the lock.
_COUNTERS = tuple(f for f in fields(HttpStats) if f.init)
