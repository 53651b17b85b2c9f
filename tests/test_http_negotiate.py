"""Accept-Encoding parsing, the z/TPF coding choice and the COMPSIZEHW/SW size test."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqtool.engine.http.negotiate import (
    choose_coding,
    decide,
    parse_accept_encoding,
)

COMP = ("gzip", "deflate")


# The seed's acceptance cases (ztpf-http.md section 4), COMP-gzip,deflate.
@pytest.mark.parametrize(
    ("header", "chosen"),
    [
        ("deflate; q=1.0, gzip; q=0.5", "deflate"),
        ("deflate; q=1.0, gzip; q=1.0", "gzip"),
        ("deflate; q=0.5, gzip; q=0.5, identity; q=1.0", None),
    ],
)
def test_seed_cases(header: str, chosen: str | None) -> None:
    assert choose_coding(header, COMP, "1.1") == chosen


@pytest.mark.parametrize(
    ("header", "chosen"),
    [
        (None, None),  # absent
        ("", None),  # empty: no content coding wanted
        ("   ", None),  # blank
        ("gzip", "gzip"),
        ("deflate", "deflate"),
        ("GZIP", "gzip"),  # names are case-insensitive
        ("DeFlAtE;Q=0.9", "deflate"),  # so is the q
        (" gzip ;q=0.8 ", "gzip"),
        ("\tgzip\t;\tq=0.8\t,\tdeflate ; q = 0.9", "deflate"),
        ("gzip;q=0", None),  # q=0 is "not acceptable"
        ("gzip;q=0, deflate", "deflate"),
        ("gzip;q=0.000, deflate;q=0.001", "deflate"),
        ("gzip;q=0.5, deflate;q=0.5", "gzip"),  # tie: COMP order
        ("deflate;q=0.5, gzip;q=0.5", "gzip"),  # still COMP order
        ("identity;q=1.0, gzip;q=0.8", None),  # identity strictly higher
        ("identity;q=0.8, gzip;q=0.8", "gzip"),  # equal is not strictly higher
        ("identity, gzip", "gzip"),
        ("identity", None),
        ("*", "gzip"),  # first in COMP
        ("*;q=0.3, deflate;q=0.4", "deflate"),
        ("*;q=0.5, gzip;q=0", "deflate"),  # explicit q=0 beats *
        ("*;q=0", None),  # nothing acceptable: identity sent, never 406
        ("*;q=0, identity", None),
        ("x-gzip", "gzip"),  # deprecated alias
        ("X-GZIP;q=0.9, deflate;q=0.5", "gzip"),
        ("notgzip", None),  # not a substring match
        ("br", None),  # unsupported coding
        ("br, zstd;q=0.9, compress", None),
        ("br;q=1.0, gzip;q=0.1", "gzip"),  # unknown codings are ignored
        ("gzip;q=1.0001", None),  # more than three decimals
        ("gzip;q=0.0001", None),
        ("gzip;q=1.5", None),  # above 1
        ("gzip;q=2", None),
        ("gzip;q=-0.5", None),
        ("gzip;q=abc", None),
        ("gzip;q=", None),
        ("gzip;q", None),
        ("gzip;q=.5", None),  # a qvalue needs its leading digit
        ("gzip;q=0.5;q=0.6", None),  # two weights: malformed
        ("gzip;level=9", None),  # a parameter other than q: malformed
        ("gzip;q=1.", "gzip"),  # "1." is a legal qvalue
        ("gzip;q=1.000", "gzip"),
        ("gzip;q=\u0661", None),  # a non-ASCII digit is not a digit to HTTP
        ("*;q=1, gzip;q=abc", "deflate"),  # malformed means 0, not "use *"
        ("gzip;q=0, gzip", None),  # duplicates take the lowest weight
        ("gzip, gzip;q=0", None),
        ("gzip;q=0.4, gzip;q=0.9, deflate;q=0.5", "deflate"),
        (",,, gzip ,,", "gzip"),  # empty list elements are legal
        (",", None),
        ("g zip", None),  # not a token
        (";q=1", None),
    ],
)
def test_choice(header: str | None, chosen: str | None) -> None:
    assert choose_coding(header, COMP, "1.1") == chosen


def test_comp_order_decides_ties_either_way() -> None:
    header = "gzip;q=0.5, deflate;q=0.5"
    assert choose_coding(header, ("gzip", "deflate"), "1.1") == "gzip"
    assert choose_coding(header, ("deflate", "gzip"), "1.1") == "deflate"
    assert choose_coding("*", ("deflate", "gzip"), "1.1") == "deflate"


def test_only_codings_in_comp_are_chosen() -> None:
    assert choose_coding("gzip", ("deflate",), "1.1") is None
    assert choose_coding("gzip, deflate;q=0.1", ("deflate",), "1.1") == "deflate"
    assert choose_coding("gzip", (), "1.1") is None
    assert choose_coding("*", (), "1.1") is None


@pytest.mark.parametrize(
    ("version", "compresses"),
    [
        ("1.0", False),
        ("HTTP/1.0", False),
        ("0.9", False),
        ("1.1", True),
        ("HTTP/1.1", True),
        ("2", True),
        ("", False),
        ("garbage", False),
        ("1.x", False),
    ],
)
def test_http_version(version: str, compresses: bool) -> None:
    assert (choose_coding("gzip", COMP, version) == "gzip") is compresses


def test_parse_shapes() -> None:
    assert parse_accept_encoding(None) is None
    assert parse_accept_encoding("") is None
    assert parse_accept_encoding(" \t ") is None
    assert parse_accept_encoding(",") == {}
    assert parse_accept_encoding("GZip;Q=0.5, X-Gzip;q=0.25, br, *;q=0") == {
        "gzip": 0.25,
        "br": 1.0,
        "*": 0.0,
    }
    assert parse_accept_encoding("deflate;q=1.5, identity;q=0.001") == {
        "deflate": 0.0,
        "identity": 0.001,
    }


@given(st.text())
def test_parser_never_raises(header: str) -> None:
    weights = parse_accept_encoding(header)
    if weights is not None:
        assert all(0.0 <= weight <= 1.0 for weight in weights.values())
        assert all(name == name.lower() for name in weights)
    assert choose_coding(header, COMP, "1.1") in (None, "gzip", "deflate")


_PIECES = st.sampled_from(
    [
        *("gzip", "deflate", "identity", "*", "x-gzip", "br", ";", ",", "q", "=", " ", "0"),
        *("1", ".", "5", "\t", "GZIP", ";q=", "0.500", "1.0001", "%", "\x00", "\u00e9"),
    ]
)


@given(st.lists(_PIECES, max_size=30).map("".join))
def test_header_like_text_never_raises(header: str) -> None:
    assert choose_coding(header, COMP, "1.1") in (None, "gzip", "deflate")
    assert choose_coding(header, ("deflate",), "HTTP/1.1") in (None, "deflate")


@pytest.mark.parametrize(
    ("body", "hardware", "hw", "sw", "path"),
    [
        (20000, True, 20000, 0, "hw"),  # at the threshold counts
        (19999, True, 20000, 0, None),
        (19999, True, 20000, 1000, None),  # with the accelerator COMPSIZEHW alone decides
        (5000, True, 20000, 1000, None),  # issue 8: a z15 never falls through to COMPSIZESW
        (19999, False, 20000, 1000, "sw"),  # no accelerator: COMPSIZESW decides
        (50000, False, 20000, 1000, "sw"),  # no accelerator: software only
        (50000, False, 20000, 0, None),
        (50000, True, 0, 1000, "sw"),  # COMPSIZEHW 0: never in hardware
        (50000, True, 0, 0, None),  # both 0: never
        (999, True, 20000, 1000, None),
        (0, True, 1, 1, None),
        (5000, True, 1000, 1000, "hw"),  # both valid: hardware wins
    ],
)
def test_decide(body: int, hardware: bool, hw: int, sw: int, path: str | None) -> None:
    assert decide(body, "gzip", hardware, hw, sw) == path


def test_decide_without_a_coding_never_compresses() -> None:
    assert decide(10**6, None, True, 1, 1) is None
