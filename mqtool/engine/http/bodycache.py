"""Bodies the HTTP server would otherwise make again for every response: the
generated /sample/N documents and the compressed form of a body, each kept in a
cache bounded in bytes (least recently used first out), shared by the servers of
one process and safe to use from the event loop and its worker threads.

A compressed body is keyed by its technique, the codec table row that compresses
it (library, level, format) and the whole uncompressed body, so a changed file, a
refreshed COMP or another codec table never gets a stale answer; equal bodies
share one entry whatever URL they came from. ZHTPS STATS counts every compressed
response as before; its AVG TIME TO COMPRESS is the time each response spent getting
its compressed body, so a body found in the cache counts the lookup (mqtool's
choice, see mqtool-http(7)).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

from mqtool.engine import codecs
from mqtool.engine.payload import generate

__all__ = [
    "BODY_CACHE_BYTES",
    "CACHED_BODY_LIMIT",
    "BoundedCache",
    "clear",
    "compressed",
    "compressed_if_kept",
    "sample",
    "sample_if_kept",
]

#: The most bytes each cache holds (bodies and compressed bodies counted whole).
BODY_CACHE_BYTES = 16 * 1024 * 1024
#: Bodies larger than this are never kept (they are compressed in a worker thread
#: or streamed; one entry must not push out every other).
CACHED_BODY_LIMIT = 256 * 1024

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """A least-recently-used mapping holding at most `limit` bytes, each entry
    weighing what `weigh(key, value)` says. An entry heavier than the whole limit
    is not kept."""

    def __init__(self, limit: int, weigh: Callable[[K, V], int]) -> None:
        self.limit = limit
        self._weigh = weigh
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()
        #: bytes held now
        self.size = 0
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> V | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return entry[0]

    def put(self, key: K, value: V) -> None:
        weight = self._weigh(key, value)
        if weight > self.limit:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.size -= old[1]
            self._entries[key] = (value, weight)
            self.size += weight
            while self.size > self.limit:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.size -= dropped

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self.size = 0


_CompressedKey = tuple[str, codecs.CodecRow, bytes]

# body (in the key) + compressed body + a little for the entry itself
_compressed: BoundedCache[_CompressedKey, bytes] = BoundedCache(
    BODY_CACHE_BYTES, lambda key, value: len(key[2]) + len(value) + 200
)
_samples: BoundedCache[int, bytes] = BoundedCache(BODY_CACHE_BYTES, lambda key, value: len(value) + 100)


def compressed(technique: str, body: bytes) -> bytes:
    """`body` compressed with `technique` (the same bytes as codecs.compress), from
    the cache when it holds them. Bodies over CACHED_BODY_LIMIT are compressed
    every time."""
    out = compressed_if_kept(technique, body)
    if out is None:
        out = codecs.compress(technique, body)
        if len(body) <= CACHED_BODY_LIMIT:
            _compressed.put((technique, codecs.row(technique), body), out)
    return out


def compressed_if_kept(technique: str, body: bytes) -> bytes | None:
    """What `compressed()` would return, if the cache has it (a lookup only)."""
    if len(body) > CACHED_BODY_LIMIT:
        return None
    return _compressed.get((technique, codecs.row(technique), body))


def sample(size: int) -> bytes:
    """The /sample/`size` document (`generate("xml", size)`), kept when it is at
    most CACHED_BODY_LIMIT bytes."""
    body = sample_if_kept(size)
    if body is None:
        body = generate("xml", size)
        if size <= CACHED_BODY_LIMIT:
            _samples.put(size, body)
    return body


def sample_if_kept(size: int) -> bytes | None:
    """The /sample/`size` document if the cache has it."""
    return _samples.get(size) if size <= CACHED_BODY_LIMIT else None


def clear() -> None:
    """Empties both caches (tests, and a process that wants its memory back)."""
    _compressed.clear()
    _samples.clear()
