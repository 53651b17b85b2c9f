"""The payload generator: exact sizes, reproducible bytes, well-formed documents, realistic ratios."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import zlib
from pathlib import Path
from xml.etree import ElementTree

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.engine import payload
from mqtool.engine.payload import PATTERNS, PatternError, generate, min_document_size

SIZES = [0, 1, 2, 5, 69, 70, 115, 116, 199, 200, 201, 1023, 1024, 1025, 2048, 3000, 65536, 200000]
# Just above one and two whole record corpora: the multi-copy paths.
LARGE = [payload._CORPUS_BYTES + 1, 2 * payload._CORPUS_BYTES + 777]

# A change here changes every golden transcript that puts generated messages:
# update these only on purpose.
PINNED = {
    ("xml", 2048, 7, 3): "ea0d15f1bee2f2e02c99bc496697ec111c76329f400593ad2f651b69c0e187ed",
    ("json", 2048, 7, 3): "c9d67b24b881ffa91787593318c9d157e1978ae4a2ba46df068c07011c2598e9",
    ("text", 2048, 7, 3): "900b32283e798524371d8ef8ea9817e57ef25d252348dbd84db9154181f8fcf5",
    ("random", 2048, 7, 3): "a2c06b66875f55ffe5e72da8e6b0956bad4b0216d1235b7f9a7e93c233c39a8b",
}


def reduction(data: bytes) -> float:
    return 1 - len(zlib.compress(data, 6)) / len(data)


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("size", SIZES + LARGE)
def test_exact_size(pattern: str, size: int) -> None:
    assert len(generate(pattern, size, seed=3, index=5)) == size


@pytest.mark.parametrize("pattern", PATTERNS)
def test_same_arguments_same_bytes_even_after_the_cache_is_rebuilt(pattern: str) -> None:
    first = [generate(pattern, 2048, seed=11, index=i) for i in range(5)]
    payload._records.cache_clear()
    payload._text.cache_clear()
    payload._noise.cache_clear()
    assert [generate(pattern, 2048, seed=11, index=i) for i in range(5)] == first


@pytest.mark.parametrize("key", PINNED)
def test_pinned_bytes(key: tuple[str, int, int, int]) -> None:
    pattern, size, seed, index = key
    assert hashlib.sha256(generate(pattern, size, seed, index)).hexdigest() == PINNED[key]


def test_bytes_do_not_depend_on_hash_randomisation() -> None:
    script = (
        "import hashlib; from mqtool.engine.payload import generate, PATTERNS; "
        "print(hashlib.sha256(b''.join(generate(p, 3000, 5, i) for p in PATTERNS for i in range(3))).hexdigest())"
    )
    root = Path(__file__).resolve().parents[1]
    digests = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={"PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(root)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for hash_seed in ("1", "2")
    }
    assert len(digests) == 1


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("size", [200, 2048, 200000])
def test_each_index_is_a_different_message(pattern: str, size: int) -> None:
    messages = {generate(pattern, size, seed=7, index=i) for i in range(100)}
    assert len(messages) == 100


def test_seeds_are_different_streams() -> None:
    assert generate("xml", 2048, seed=1) != generate("xml", 2048, seed=2)


def test_documents_are_whole_from_a_size_under_200() -> None:
    assert min_document_size("xml", 0) == 111
    assert min_document_size("json", 0) == 65
    assert min_document_size("xml", 10**12) == 123
    assert min_document_size("text") == min_document_size("random") == 0
    with pytest.raises(PatternError):
        min_document_size("yaml")


@pytest.mark.parametrize("size", [s for s in SIZES if s >= 111] + LARGE)
def test_xml_is_well_formed(size: int) -> None:
    for index in (0, 1, 10**9):
        if size < min_document_size("xml", index):
            continue
        document = generate("xml", size, seed=1, index=index)
        assert document.startswith(b"<?xml")
        root = ElementTree.fromstring(document)
        assert root.tag.endswith("Batch")
        assert root.get("seq") == str(index)


@pytest.mark.parametrize("size", [s for s in SIZES if s >= 65] + LARGE)
def test_json_is_well_formed(size: int) -> None:
    for index in (0, 1, 10**9):
        if size < min_document_size("json", index):
            continue
        document = json.loads(generate("json", size, seed=1, index=index))
        assert document["batch"]["seq"] == index
        assert document["records"][-1]["type"] == "trailer"


@pytest.mark.parametrize("pattern", ["xml", "json"])
def test_smaller_messages_are_the_start_of_a_document(pattern: str) -> None:
    for size in range(1, min_document_size(pattern, 4)):
        assert generate(pattern, size, seed=2, index=4) == generate(pattern, 1024, seed=2, index=4)[:size]
    assert generate("xml", 5, seed=2, index=4) == b"<?xml"


def test_text_is_printable_ascii() -> None:
    text = generate("text", 20000, seed=4).decode("ascii")
    assert all(ch.isprintable() or ch == "\n" for ch in text)
    assert text[0].isupper()


def test_random_is_incompressible() -> None:
    assert reduction(generate("random", 2048, seed=9)) < 0.01
    assert reduction(generate("random", 200000, seed=9)) < 0.01


@pytest.mark.parametrize(
    ("size", "low", "high"),
    [
        # The seed deck measured 53% at 3000 bytes and 78% at 200000 for real XML.
        (3000, 0.48, 0.58),
        (200000, 0.75, 0.82),
    ],
)
def test_xml_compresses_like_real_xml(size: int, low: float, high: float) -> None:
    ratios = [reduction(generate("xml", size, seed=0, index=i)) for i in range(10)]
    assert low <= sum(ratios) / len(ratios) <= high


def test_larger_messages_compress_better() -> None:
    means = [
        sum(reduction(generate("xml", size, seed=0, index=i)) for i in range(5)) / 5
        for size in (3000, 12000, 32768, 200000)
    ]
    assert means == sorted(means)


@pytest.mark.parametrize("pattern", ["XML", "binary", "", None])
def test_unknown_pattern(pattern: str) -> None:
    with pytest.raises(PatternError, match="unknown payload pattern"):
        generate(pattern, 100)


def test_negative_size() -> None:
    with pytest.raises(PatternError):
        generate("xml", -1)
    assert issubclass(PatternError, ValueError)


# Seeds come from a small set: every new seed builds its corpora (about 50 ms).
@settings(max_examples=60, deadline=None)
@given(
    pattern=st.sampled_from(PATTERNS),
    size=st.integers(min_value=0, max_value=70000),
    seed=st.sampled_from([0, 1, -3, 2**40]),
    index=st.integers(min_value=0, max_value=2**40),
)
def test_any_size_seed_and_index(pattern: str, size: int, seed: int, index: int) -> None:
    data = generate(pattern, size, seed, index)
    assert len(data) == size
    assert generate(pattern, size, seed, index) == data
    if pattern == "xml" and size >= min_document_size("xml", index):
        ElementTree.fromstring(data)
    elif pattern == "json" and size >= min_document_size("json", index):
        json.loads(data)
