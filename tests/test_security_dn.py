"""Distinguished names and IBM's SSLPEER matching (mqtool/engine/security/dn.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqtool.engine.security import dn

NAME = dn.Name(
    (
        ("SERIALNUMBER", "4C:D0:49:D5"),
        ("CN", "QMGR.CSQ1"),
        ("OU", "IBM"),
        ("OU", "WEBSPHERE"),
        ("O", "Example Corp, Ltd"),
        ("L", "Hursley"),
        ("C", "GB"),
    )
)


@pytest.mark.parametrize(
    "pattern",
    [
        "CN=QMGR.CSQ1",
        "CN=qmgr.csq1",  # values match whatever their case
        "CN=QMGR.*",
        "CN=*CSQ1",
        "CN=*GR.CS*",
        "CN=*",
        "C=GB, CN=QMGR.CSQ1",  # any order
        "CN=QMGR.CSQ1;OU=IBM ; C=GB",  # semicolons, blanks around separators
        "OU=IBM",
        "OU=IBM,OU=WEBSPHERE",  # several OUs: the first ones, in order
        'O="Example Corp, Ltd"',  # quoted: the comma is a character
        r"O=Example Corp\, Ltd",  # escaped comma
        "SERIALNUMBER=4C:D0:49:D5",
    ],
)
def test_patterns_that_match(pattern: str) -> None:
    assert dn.parse_pattern(pattern).matches(NAME)


@pytest.mark.parametrize(
    "pattern",
    [
        "CN=QMGR.CSQ2",
        "CN=QMGR",  # no wildcard: the whole value
        "OU=WEBSPHERE",  # the first OU is IBM
        "OU=WEBSPHERE,OU=IBM",  # OUs in order
        "OU=IBM,OU=WEBSPHERE,OU=MORE",  # more OUs than the certificate has
        "ST=Hampshire",  # an attribute the certificate lacks
        "O=Example Corp",
        "DC=com",
    ],
)
def test_patterns_that_do_not_match(pattern: str) -> None:
    assert not dn.parse_pattern(pattern).matches(NAME)


@pytest.mark.parametrize(
    ("pattern", "fragment"),
    [
        ("cn=QMGR", "upper case"),
        ("CN =QMGR", "blank before"),
        ("XX=1", "not an attribute type"),
        ("CN=A*B", "wildcard"),
        ("CN=A,CN=B", "more than once"),
        ("CN=A,", "ends with a separator"),
        ("", "no attribute"),
        ("QMGR", "not TYPE=value"),
        ('CN="open', "not closed"),
        ("CN=", "no value"),
        ("CN=A\\", "backslash at the end"),
        ('CN="A" B', "after a quoted value"),
    ],
)
def test_invalid_patterns_say_why(pattern: str, fragment: str) -> None:
    with pytest.raises(dn.DNError) as caught:
        dn.parse_pattern(pattern)
    assert fragment in caught.value.reason


def test_synonyms_name_the_same_attribute() -> None:
    name = dn.Name((("CN", "A"), ("ST", "Hampshire"), ("UID", "u1")))
    for pattern in ("SP=Hampshire", "S=Hampshire", "ST=Hampshire", "USERID=u1", "UID=u1"):
        assert dn.parse_pattern(pattern).matches(name), pattern


def test_quoted_asterisk_is_a_character() -> None:
    assert dn.parse_pattern('CN="A*"').matches(dn.Name((("CN", "A*"),)))
    assert not dn.parse_pattern('CN="A*"').matches(dn.Name((("CN", "AB"),)))
    assert dn.parse_pattern(r"CN=A\*").matches(dn.Name((("CN", "A*"),)))


def test_hostile_sizes_are_refused_quickly() -> None:
    with pytest.raises(dn.DNError, match="attributes"):
        dn.parse_pattern(",".join(["OU=x"] * 10_000)[: dn.MAX_TEXT])
    with pytest.raises(dn.DNError, match="longer than"):
        dn.parse_pattern(",".join(["OU=x"] * 10_000))
    with pytest.raises(dn.DNError):
        dn.parse_pattern("CN=" + "*" * 5000)


def test_certificate_names_read_most_specific_first_with_the_serial() -> None:
    name = dn.of_certificate((("C", "GB"), ("O", "IBM"), ("OU", "MQ"), ("CN", "QM1")), "10:CF")
    assert name.text() == "SERIALNUMBER=10:CF,CN=QM1,OU=MQ,O=IBM,C=GB"
    assert dn.of_certificate((("O", "A, B"),)).text() == r"O=A\, B"
    assert dn.parse_name(r"O=A\, B").values("O") == ["A, B"]


# -- properties ------------------------------------------------------------------------

VALUE = (
    st.text(
        alphabet=st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop0123456789 .-'/()"), min_size=1, max_size=12
    )
    .map(str.strip)
    .filter(bool)
)
KINDS = st.sampled_from(["CN", "O", "L", "C", "ST", "T", "PC", "STREET"])
NAMES = st.builds(
    lambda pairs, ous: dn.Name(tuple(pairs) + tuple(("OU", ou) for ou in ous)),
    st.lists(st.tuples(KINDS, VALUE), min_size=1, max_size=5, unique_by=lambda p: p[0]),
    st.lists(VALUE, max_size=4),
)


def _quote(value: str) -> str:
    return '"' + value.replace('"', '""') + '"'


@given(NAMES)
def test_a_name_matches_the_pattern_of_itself(name: dn.Name) -> None:
    pattern = ",".join(f"{kind}={_quote(value)}" for kind, value in name.attributes)
    assert dn.parse_pattern(pattern).matches(name)


@given(NAMES, st.randoms())
def test_order_of_different_attributes_does_not_matter(name: dn.Name, rnd) -> None:  # type: ignore[no-untyped-def]
    pairs = [f"{kind}={_quote(value)}" for kind, value in name.attributes if kind != "OU"]
    ous = [f"OU={_quote(value)}" for kind, value in name.attributes if kind == "OU"]
    rnd.shuffle(pairs)
    assert dn.parse_pattern(",".join(pairs + ous)).matches(name)


@given(NAMES, st.data())
def test_wildcards_at_either_end(name: dn.Name, data: st.DataObject) -> None:
    kind, value = data.draw(st.sampled_from([p for p in name.attributes if p[0] != "OU"]))
    cut = data.draw(st.integers(1, len(value)))
    head, tail = value[:cut].strip(), value[cut - 1 :].strip()
    assert dn.parse_pattern(f"{kind}=*").matches(name)
    if head:
        assert dn.parse_pattern(f"{kind}={head}*").matches(name)
        assert dn.parse_pattern(f"{kind}=*{head}*").matches(name)
        assert not dn.parse_pattern(f"{kind}=#{head}*").matches(name) or value.startswith("#")
    if tail:
        assert dn.parse_pattern(f"{kind}=*{tail}").matches(name)
        assert not dn.parse_pattern(f"{kind}=*{tail}#").matches(name)


@given(NAMES, VALUE)
def test_a_changed_value_does_not_match(name: dn.Name, other: str) -> None:
    kind, value = name.attributes[0]
    if other.upper() == value.upper():
        return
    assert not dn.parse_pattern(f"{kind}={_quote(other)}").matches(name)


@given(st.text(max_size=300))
def test_any_text_parses_or_is_refused_with_a_reason(text: str) -> None:
    try:
        pattern = dn.parse_pattern(text)
    except dn.DNError as exc:
        assert exc.reason
    else:
        assert pattern.elements
