"""The HTTP server's caches of generated and compressed bodies (issue 19): bounded in
bytes, keyed by content, technique and codec row. What clients and ZHTPS STATS see of
them is in test_http_server.py."""

from __future__ import annotations

import gzip
from collections.abc import Iterator

import pytest

from mqtool.engine import codecs
from mqtool.engine.http import bodycache
from mqtool.engine.http.bodycache import BoundedCache
from mqtool.engine.payload import generate


@pytest.fixture(autouse=True)
def empty_caches() -> Iterator[None]:
    bodycache.clear()
    yield
    bodycache.clear()


def test_bounded_cache_keeps_at_most_its_limit_least_recently_used_out() -> None:
    cache: BoundedCache[str, bytes] = BoundedCache(100, lambda key, value: len(value))
    cache.put("a", b"x" * 40)
    cache.put("b", b"y" * 40)
    assert cache.get("a") == b"x" * 40  # a is now the most recently used
    cache.put("c", b"z" * 40)  # 120 > 100: b goes, not a
    assert (cache.get("b"), cache.size, len(cache)) == (None, 80, 2)
    assert cache.get("a") and cache.get("c")
    cache.put("huge", b"h" * 101)  # heavier than the whole limit: never kept
    assert cache.get("huge") is None and cache.size == 80
    cache.put("a", b"x" * 10)  # replacing an entry counts its new weight only
    assert cache.size == 50


def test_compressed_is_the_codec_output_and_is_kept_per_content_and_technique() -> None:
    body = generate("xml", 20_000)
    assert bodycache.compressed_if_kept("GZIP", body) is None
    out = bodycache.compressed("GZIP", body)
    assert out == codecs.compress("GZIP", body)
    assert bodycache.compressed_if_kept("GZIP", bytes(body)) == out  # equal content, another object
    assert bodycache.compressed_if_kept("DEFLATE", body) is None
    assert bodycache.compressed_if_kept("GZIP", body[:-1] + b"!") is None
    assert codecs.decompress("DEFLATE", bodycache.compressed("DEFLATE", body)) == body


def test_the_codec_row_is_part_of_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    body = generate("xml", 5_000)
    bodycache.compressed("GZIP", body)
    other = codecs.CodecRow("zlib-ng", 1, "gzip")
    assert other != codecs.row("GZIP")
    monkeypatch.setitem(codecs._active, "GZIP", other)
    assert bodycache.compressed_if_kept("GZIP", body) is None
    assert bodycache.compressed("GZIP", body) == codecs.compress("GZIP", body)


def test_bodies_over_the_limit_are_never_kept() -> None:
    body = generate("text", bodycache.CACHED_BODY_LIMIT + 1)
    assert gzip.decompress(bodycache.compressed("GZIP", body)) == body
    assert bodycache.compressed_if_kept("GZIP", body) is None
    assert bodycache.sample_if_kept(bodycache.CACHED_BODY_LIMIT + 1) is None
    assert bodycache.sample(3000) == generate("xml", 3000)
    assert bodycache.sample_if_kept(3000) == generate("xml", 3000)


def test_the_caches_stay_within_their_bound_under_many_bodies() -> None:
    for size in range(200_000, 200_100):
        bodycache.compressed("GZIP", bodycache.sample(size))
    for cache in (bodycache._compressed, bodycache._samples):
        assert 0 < cache.size <= bodycache.BODY_CACHE_BYTES
        assert len(cache) < 100  # the oldest went
