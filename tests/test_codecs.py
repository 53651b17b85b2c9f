"""The codec table: round trips, corrupt input, the inflation guard, library compatibility, RLE."""

from __future__ import annotations

import tracemalloc
import zlib
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from zlib_ng import zlib_ng

from mqtool.engine import codecs
from mqtool.engine.codecs import TECHNIQUES, CodecError, CodecLimitError, compress, decompress
from mqtool.engine.payload import generate

DEFLATE_FAMILY = [t for t in TECHNIQUES if t != "RLE"]
XML = generate("xml", 32768, seed=1)

try:
    from isal import isal_zlib
except ImportError:  # pragma: no cover - isal is optional
    isal_zlib = None
needs_isal = pytest.mark.skipif(isal_zlib is None, reason="isal is not installed")


@pytest.fixture(params=[True, False], ids=["preferred", "fallback"])
def table(request: pytest.FixtureRequest) -> Iterator[bool]:
    """Runs a test with the isal rows on (when installed) and with the zlib-ng fallback."""
    in_use = codecs.use_isal(request.param)
    yield in_use
    codecs.use_isal(True)


# ---------------------------------------------------------------- round trips
@settings(max_examples=150, deadline=None)
@given(technique=st.sampled_from(TECHNIQUES), data=st.binary(max_size=3000), use_isal=st.booleans())
def test_any_bytes_round_trip(technique: str, data: bytes, use_isal: bool) -> None:
    codecs.use_isal(use_isal)
    try:
        packed = compress(technique, data)
        assert decompress(technique, packed) == data
        assert decompress(technique, packed, max_length=len(data)) == data
        if data:
            with pytest.raises(CodecLimitError):
                decompress(technique, packed, max_length=len(data) - 1)
    finally:
        codecs.use_isal(True)


@pytest.mark.parametrize("technique", TECHNIQUES)
@pytest.mark.parametrize("pattern", ["xml", "json", "text", "random"])
def test_generated_payloads_round_trip(technique: str, pattern: str, table: bool) -> None:
    for size in (0, 1, 2048, 200000):
        data = generate(pattern, size, seed=2)
        assert decompress(technique, compress(technique, data), max_length=size) == data


@pytest.mark.parametrize("technique", TECHNIQUES)
def test_output_is_deterministic(technique: str, table: bool) -> None:
    assert compress(technique, XML) == compress(technique, bytes(XML))


@pytest.mark.parametrize("technique", DEFLATE_FAMILY)
def test_documents_get_smaller(technique: str, table: bool) -> None:
    assert len(compress(technique, XML)) < 0.4 * len(XML)


def test_gzip_header_is_the_same_on_every_platform(table: bool) -> None:
    packed = compress("GZIP", XML)
    assert packed[:4] == b"\x1f\x8b\x08\x00"  # deflate, no optional fields
    assert packed[4:8] == b"\x00\x00\x00\x00"  # no modification time
    assert packed[9] == 255  # OS "unknown", not the build platform's code


def test_deflate_is_the_zlib_format_and_gzip_the_gzip_format() -> None:
    assert zlib.decompress(compress("DEFLATE", XML)) == XML
    assert zlib.decompress(compress("GZIP", XML), wbits=31) == XML
    with pytest.raises(zlib.error):
        zlib.decompress(compress("DEFLATE", XML), wbits=-15)


# ------------------------------------------------------------ corrupt input
@pytest.mark.parametrize("technique", DEFLATE_FAMILY)
def test_truncated_data(technique: str, table: bool) -> None:
    packed = compress(technique, XML)
    for cut in (0, 1, 2, len(packed) // 2, len(packed) - 1):
        with pytest.raises(CodecError):
            decompress(technique, packed[:cut])


@pytest.mark.parametrize("technique", DEFLATE_FAMILY)
def test_trailing_bytes(technique: str, table: bool) -> None:
    with pytest.raises(CodecError, match="after the end"):
        decompress(technique, compress(technique, XML) + b"junk")


@pytest.mark.parametrize("technique", DEFLATE_FAMILY)
def test_flipped_checksum(technique: str, table: bool) -> None:
    packed = bytearray(compress(technique, XML))
    # The last byte belongs to the Adler-32 (zlib) or to the length check (gzip).
    packed[-1] ^= 0x01
    with pytest.raises(CodecError):
        decompress(technique, bytes(packed))


def test_data_of_the_other_format_is_rejected() -> None:
    with pytest.raises(CodecError):
        decompress("DEFLATE", compress("GZIP", XML))
    with pytest.raises(CodecError):
        decompress("GZIP", compress("DEFLATE", XML))


@pytest.mark.parametrize("name", ["ZLIB", "zlibfast", "", "LZ4", None])
def test_unknown_technique(name: str) -> None:
    with pytest.raises(CodecError, match="unknown compression technique"):
        compress(name, b"data")
    with pytest.raises(CodecError, match="unknown compression technique"):
        decompress(name, b"data")
    with pytest.raises(CodecError):
        codecs.library_name(name)


@settings(max_examples=200, deadline=None)
@given(
    technique=st.sampled_from(TECHNIQUES),
    position=st.integers(min_value=0),
    xor=st.integers(min_value=1, max_value=255),
    use_isal=st.booleans(),
)
def test_damaged_data_raises_only_codec_error(technique: str, position: int, xor: int, use_isal: bool) -> None:
    codecs.use_isal(use_isal)
    try:
        packed = bytearray(compress(technique, generate("json", 3000, seed=5)))
        packed[position % len(packed)] ^= xor
        try:
            decompress(technique, bytes(packed), max_length=100000)
        except CodecError:
            pass
    finally:
        codecs.use_isal(True)


@settings(max_examples=200, deadline=None)
@given(technique=st.sampled_from(TECHNIQUES), junk=st.binary(max_size=500))
def test_arbitrary_bytes_raise_only_codec_error(technique: str, junk: bytes) -> None:
    try:
        decompress(technique, junk, max_length=100000)
    except CodecError:
        pass


def test_negative_max_length_is_a_caller_error() -> None:
    with pytest.raises(ValueError):
        decompress("QUEUE", compress("QUEUE", b"x"), max_length=-1)


# ------------------------------------------------------------ inflation guard
def zero_bomb(wbits: int, megabytes: int = 100) -> bytes:
    """100 MB of zeros deflated to about 100 KB, built without holding the 100 MB."""
    packer = zlib_ng.compressobj(9, zlib_ng.DEFLATED, wbits)
    block = bytes(1 << 20)
    parts = [packer.compress(block) for _ in range(megabytes)]
    parts.append(packer.flush())
    return b"".join(parts)


@pytest.fixture(scope="module")
def bombs() -> dict[int, bytes]:
    return {15: zero_bomb(15), 31: zero_bomb(31)}


@pytest.mark.parametrize("technique", DEFLATE_FAMILY)
def test_a_bomb_stops_at_max_length_without_inflating(technique: str, table: bool, bombs: dict[int, bytes]) -> None:
    bomb = bombs[31 if technique == "GZIP" else 15]
    assert len(bomb) < 200_000
    tracemalloc.start()
    try:
        with pytest.raises(CodecLimitError):
            decompress(technique, bomb, max_length=1 << 20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The limit plus the compressed input and small change, never the 100 MB.
    assert peak < 4 << 20


def test_the_limit_is_exact(bombs: dict[int, bytes]) -> None:
    small = zero_bomb(15, megabytes=2)
    assert decompress("QUEUE", small, max_length=2 << 20) == bytes(2 << 20)
    with pytest.raises(CodecLimitError):
        decompress("QUEUE", small, max_length=(2 << 20) - 1)


def test_limit_error_is_a_codec_error() -> None:
    assert issubclass(CodecLimitError, CodecError)
    assert issubclass(CodecError, ValueError)


# ------------------------------------------------------ library compatibility
@needs_isal
@pytest.mark.parametrize("wbits", [15, 31])
def test_isal_and_zlib_ng_read_each_other(wbits: int) -> None:
    assert isal_zlib is not None
    for level in range(4):
        assert zlib_ng.decompress(isal_zlib.compress(XML, level, wbits), wbits) == XML
    for level in (1, 6, 9):
        assert isal_zlib.decompress(zlib_ng.compress(XML, level, wbits), wbits) == XML


@needs_isal
@pytest.mark.parametrize("technique", DEFLATE_FAMILY)
def test_output_of_either_table_reads_with_the_other(technique: str) -> None:
    codecs.use_isal(True)
    preferred = compress(technique, XML)
    codecs.use_isal(False)
    try:
        fallback = compress(technique, XML)
        assert decompress(technique, preferred) == XML
    finally:
        codecs.use_isal(True)
    assert decompress(technique, fallback) == XML


@needs_isal
def test_queue_payload_written_by_isal_reads_as_queue() -> None:
    assert isal_zlib is not None
    assert decompress("QUEUE", isal_zlib.compress(XML, 2, 15)) == XML
    assert isal_zlib.decompress(compress("QUEUE", XML)) == XML
    assert zlib.decompress(compress("QUEUE", XML)) == XML


def test_library_names(table: bool) -> None:
    assert codecs.library_name("RLE") == "mqtool"
    assert codecs.library_name("QUEUE") == "zlib-ng"
    assert codecs.library_name("ZLIBFAST") == ("isal" if table else "zlib-ng")
    assert codecs.isal_in_use() == table
    for technique in TECHNIQUES:
        assert codecs.describe(technique).startswith(f"{technique}: ")


def test_fallback_is_all_zlib_ng() -> None:
    assert {row.library for row in codecs.FALLBACK.values()} == {"zlib-ng", "mqtool"}
    assert set(codecs.PREFERRED) == set(codecs.FALLBACK) == set(TECHNIQUES)
    for technique in TECHNIQUES:
        assert codecs.PREFERRED[technique].format == codecs.FALLBACK[technique].format


# ----------------------------------------------------------------------- RLE
@pytest.mark.parametrize(
    ("data", "encoded"),
    [
        (b"", b""),
        (b"A", b"\x00A"),
        (b"AA", b"\x01AA"),
        (b"AAA", b"\x80A"),
        (b"AAAB", b"\x80A\x00B"),
        (b"BAAAA", b"\x00B\x81A"),
        (b"A" * 130, b"\xffA"),
        (b"A" * 131, b"\xffA\x00A"),  # the 1-byte tail goes out as a literal
        (b"A" * 132 + b"B", b"\xffA\x02AAB"),
        (b"A" * 133, b"\xffA\x80A"),
        (b"\x80\x80\x80", b"\x80\x80"),
    ],
)
def test_rle_encoding(data: bytes, encoded: bytes) -> None:
    assert compress("RLE", data) == encoded
    assert decompress("RLE", encoded) == data


def test_rle_literal_runs_split_at_128() -> None:
    data = bytes(range(256))
    encoded = compress("RLE", data)
    assert encoded == b"\x7f" + data[:128] + b"\x7f" + data[128:]
    assert decompress("RLE", encoded) == data
    assert len(compress("RLE", bytes(range(129)))) == 131


def test_rle_shrinks_runs_and_grows_at_most_one_in_128() -> None:
    assert len(compress("RLE", bytes(100000))) == 2 * -(-100000 // 130)
    noise = generate("random", 128 * 100, seed=3)
    assert len(compress("RLE", noise)) <= len(noise) + 101


@pytest.mark.parametrize("broken", [b"\x05abc", b"\x00", b"\x80", b"\x00A\x81"])
def test_rle_truncated(broken: bytes) -> None:
    with pytest.raises(CodecError):
        decompress("RLE", broken)


def test_rle_limit() -> None:
    encoded = compress("RLE", bytes(10000))
    assert decompress("RLE", encoded, max_length=10000) == bytes(10000)
    with pytest.raises(CodecLimitError):
        decompress("RLE", encoded, max_length=9999)
    with pytest.raises(CodecLimitError):
        decompress("RLE", b"\x02abc", max_length=2)
