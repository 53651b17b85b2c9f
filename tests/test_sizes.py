"""Sizes as typed (mqtool/sizes.py): bytes, and K/M/G units counted in 1024s."""

from __future__ import annotations

import pytest

from mqtool.sizes import SizeError, parse_size


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("0", 0),
        ("1024", 1024),
        ("32KB", 32768),
        ("32kb", 32768),
        ("32 KiB", 32768),
        ("32K", 32768),
        ("4MB", 4194304),
        ("1MiB", 1048576),
        ("1.5MB", 1572864),
        (".5K", 512),
        ("2GB", 2 * 1024**3),
        ("10B", 10),
        (" 7 ", 7),
    ],
)
def test_sizes_read(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "not a size: '' (a number of bytes, or with a unit: 32KB, 4MB, 1MiB)"),
        ("abc", "not a size: 'abc'"),
        ("-5", "not a size: '-5'"),
        ("2e9", "not a size: '2e9'"),
        ("4 TB", "unknown unit 'TB' in '4 TB'; units: B, KB, MB, GB (or KiB, MiB, GiB; all in 1024s)"),
        ("0.1KB", "'0.1KB' is not a whole number of bytes"),
        ("\u0663KB", "not a size"),  # digits are ASCII digits
        ("1.2.3", "not a size"),
    ],
)
def test_bad_sizes_say_why(text: str, reason: str) -> None:
    with pytest.raises(SizeError) as error:
        parse_size(text)
    assert str(error.value).startswith(reason)
