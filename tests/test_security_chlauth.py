"""Generic IP addresses and channel authentication records: SET CHLAUTH's actions and
IBM's precedence when several records match (mqtool/engine/security/addresses.py,
chlauth.py)."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mqtool.engine.security import addresses, chlauth, dn
from mqtool.engine.security.chlauth import Connection, Record

# -- addresses -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "address", "expected"),
    [
        ("192.168.1.5", "192.168.1.5", True),
        ("192.168.1.5", "192.168.1.6", False),
        ("192.168.*.1-20", "192.168.77.20", True),
        ("192.168.*.1-20", "192.168.77.21", False),
        ("192.168.*", "192.168.3.4", True),
        ("192.*.4", "192.1.2.4", True),
        ("192.*.4", "192.1.2.5", False),
        ("*", "10.0.0.1", True),
        ("*", "2001:db8::1", True),
        ("10.0.0.0-255", "10.0.0.200", True),
        ("127.0.0.1", "::ffff:127.0.0.1", True),  # a dual-stack listener's view of IPv4
        ("2001:DB8:0:0:0:0:0:*", "2001:db8::ff", True),
        ("2001:DB8:*", "2001:db9::1", False),
        ("2001:db8::1", "2001:DB8:0:0:0:0:0:1", True),
        ("2001:DB8:0:0:0:0:0:1-F", "2001:db8::10", False),
        ("192.168.1.1", "not-an-address", False),
    ],
)
def test_generic_addresses(pattern: str, address: str, expected: bool) -> None:
    assert addresses.matches(pattern, address) is expected


@pytest.mark.parametrize(
    "pattern",
    [
        "",
        "192.168.1",  # three parts without *
        "192.168.1.1.1",
        "192.168.1.256",
        "192.168.20-10.1",  # backwards
        "1.*.2.*",  # two asterisks
        "host.example.com",
        "192.168.1.1/24",
        "2001:db8::*",  # :: with a wildcard
        "1" * 200,
        "\x00",
        "10.0.0.0001",
    ],
)
def test_garbage_address_patterns_are_refused(pattern: str) -> None:
    with pytest.raises(addresses.AddressError):
        addresses.parse(pattern)


@given(st.text(max_size=200))
def test_any_text_is_an_address_pattern_or_refused(text: str) -> None:
    try:
        pattern = addresses.parse(text)
    except addresses.AddressError as exc:
        assert str(exc)
    else:
        assert pattern.matches("10.1.2.3") in (True, False)


@given(st.ip_addresses(v=4), st.integers(0, 3), st.integers(0, 3))
def test_ipv4_patterns_match_what_they_describe(address: ipaddress.IPv4Address, wild: int, ranged: int) -> None:
    parts = str(address).split(".")
    pattern_parts = list(parts)
    number = int(parts[ranged])
    pattern_parts[ranged] = f"{max(0, number - 3)}-{min(255, number + 3)}"
    assert addresses.matches(".".join(pattern_parts), str(address))
    spread = [*pattern_parts[:wild], "*", *pattern_parts[wild + 1 :]]
    assert addresses.matches(".".join(spread), str(address))
    outside = list(parts)
    outside[ranged] = str((number + 128) % 256)
    assert not addresses.matches(".".join(parts), ".".join(outside))


@given(st.ip_addresses(v=6))
def test_ipv6_addresses_match_themselves_and_star(address: ipaddress.IPv6Address) -> None:
    assert addresses.matches(address.exploded, str(address))
    assert addresses.matches(":".join(address.exploded.split(":")[:4]) + ":*", str(address))


def test_specificity_orders_exact_range_star() -> None:
    order = ["192.168.1.5", "192.168.1.1-20", "192.168.1.*", "192.168.*", "*"]
    keys = [addresses.parse(p).specificity() for p in order]
    assert keys == sorted(keys, reverse=True)


# -- records and SET CHLAUTH ------------------------------------------------------------------


def test_profiles_match_like_generic_channel_names() -> None:
    assert chlauth.generic_match("SYSTEM.*", "SYSTEM.ADMIN.SVRCONN")
    assert chlauth.generic_match("*", "")
    assert chlauth.generic_match("A*B*C", "AXXBYYC")
    assert not chlauth.generic_match("A*B*C", "AXXC")
    assert not chlauth.generic_match("TO.QM1", "TO.QM2")
    assert not chlauth.generic_match("ab*", "AB.X")  # names are case sensitive
    assert chlauth.generic_match("**", "X")


def test_most_specific_profile_left_to_right() -> None:
    profiles = ["*", "SYSTEM.*", "SYSTEM.ADMIN.*", "SYSTEM.ADMIN.SVRCONN"]
    assert sorted(profiles, key=chlauth.specificity_key) == profiles
    assert max(["AB.*", "AB.C*"], key=chlauth.specificity_key) == "AB.C*"


def test_add_replace_remove_removeall() -> None:
    records: list[Record] = []
    first = Record("APP.*", chlauth.ADDRESSMAP, address="10.*", usersrc=chlauth.MAP, mcauser="APPUSER")
    records = chlauth.change(records, first)
    with pytest.raises(chlauth.ChlauthError) as caught:
        chlauth.change(records, first)
    assert caught.value.kind == "exists"
    replaced = Record("APP.*", chlauth.ADDRESSMAP, address="10.*", usersrc=chlauth.NOACCESS)
    records = chlauth.change(records, replaced, chlauth.REPLACE)
    assert records == [replaced]
    other = Record("APP.*", chlauth.ADDRESSMAP, address="11.*", usersrc=chlauth.CHANNEL)
    records = chlauth.change(records, other)
    assert len(records) == 2
    records = chlauth.change(records, Record("APP.*", chlauth.ADDRESSMAP, address="10.*"), chlauth.REMOVE)
    assert records == [other]
    with pytest.raises(chlauth.ChlauthError) as caught:
        chlauth.change(records, Record("APP.*", chlauth.ADDRESSMAP, address="10.*"), chlauth.REMOVE)
    assert caught.value.kind == "notfound"
    assert chlauth.change(records, Record("APP.*", chlauth.ADDRESSMAP), chlauth.REMOVEALL) == []


def test_block_lists_grow_with_add_and_shrink_with_remove() -> None:
    records = chlauth.change([], Record("*", chlauth.BLOCKUSER, userlist=("A",)))
    records = chlauth.change(records, Record("*", chlauth.BLOCKUSER, userlist=("B", "A")))
    assert records[0].userlist == ("A", "B")
    records = chlauth.change(records, Record("*", chlauth.BLOCKUSER, userlist=("A",)), chlauth.REMOVE)
    assert records[0].userlist == ("B",)
    records = chlauth.change(records, Record("*", chlauth.BLOCKUSER, userlist=("B",)), chlauth.REMOVE)
    assert records == []
    records = chlauth.change([], Record("*", chlauth.BLOCKADDR, addrlist=("10.0.0.1",)))
    records = chlauth.change(records, Record("*", chlauth.BLOCKADDR, addrlist=("10.0.0.2",)), chlauth.REPLACE)
    assert records[0].addrlist == ("10.0.0.2",)


@pytest.mark.parametrize(
    ("record", "keyword"),
    [
        (Record("APP", chlauth.BLOCKADDR, addrlist=("1.2.3.4",)), "CHLAUTH"),  # BLOCKADDR on '*' only
        (Record("*", chlauth.BLOCKADDR), "ADDRLIST"),
        (Record("*", chlauth.BLOCKADDR, addrlist=("garbage",)), "ADDRLIST"),
        (Record("*", chlauth.BLOCKUSER), "USERLIST"),
        (Record("*", chlauth.BLOCKUSER, userlist=("has blank",)), "USERLIST"),
        (Record("*", chlauth.BLOCKUSER, userlist=tuple(f"U{i}" for i in range(101))), "USERLIST"),
        (Record("*", chlauth.BLOCKADDR, addrlist=tuple(f"10.0.{i // 250}.{i % 250}" for i in range(257))), "ADDRLIST"),
        (Record("*", chlauth.ADDRESSMAP, usersrc=chlauth.CHANNEL), "ADDRESS"),
        (Record("*", chlauth.ADDRESSMAP, address="*"), "MCAUSER"),  # MAP needs MCAUSER
        (Record("*", chlauth.ADDRESSMAP, address="*", usersrc=chlauth.NOACCESS, mcauser="X"), "MCAUSER"),
        (Record("*", chlauth.SSLPEERMAP, sslpeer="cn=lower", usersrc=chlauth.CHANNEL), "SSLPEER"),
        (Record("*", chlauth.USERMAP, usersrc=chlauth.CHANNEL), "CLNTUSER"),
        (Record("*", chlauth.QMGRMAP, usersrc=chlauth.CHANNEL), "QMNAME"),
        (Record("bad profile", chlauth.QMGRMAP, qmname="Q", usersrc=chlauth.CHANNEL), "CHLAUTH"),
        (Record("*", chlauth.QMGRMAP, qmname="Q", usersrc=chlauth.MAP, mcauser="A" * 13), "MCAUSER"),
    ],
)
def test_invalid_records_name_the_keyword(record: Record, keyword: str) -> None:
    with pytest.raises(chlauth.ChlauthError) as caught:
        chlauth.change([], record)
    assert caught.value.kind == "invalid"
    assert caught.value.keyword == keyword


def test_records_are_bounded() -> None:
    records = [
        Record(f"P{i}", chlauth.ADDRESSMAP, address="*", usersrc=chlauth.CHANNEL) for i in range(chlauth.MAX_RECORDS)
    ]
    with pytest.raises(chlauth.ChlauthError) as caught:
        chlauth.change(records, Record("NEW", chlauth.ADDRESSMAP, address="*", usersrc=chlauth.CHANNEL))
    assert caught.value.kind == "full"


def test_records_survive_the_store_form() -> None:
    record = Record("*", chlauth.BLOCKUSER, userlist=("A", "B"), descr="x")
    assert Record.from_dict(record.to_dict()) == record
    assert record.key() == "*\tBLOCKUSER"


# -- deciding --------------------------------------------------------------------------------

BACKSTOP = chlauth.backstop()


def conn(channel: str, address: str = "10.1.2.3", **fields: object) -> Connection:
    values: dict[str, object] = {"qmname": "CSQ1"} | fields
    return Connection(channel, address, **values)  # type: ignore[arg-type]


def test_backstop_refuses_system_channels_and_privileged_users() -> None:
    decision = chlauth.decide(BACKSTOP, conn("SYSTEM.DEF.SVRCONN", client=True, client_user="alice"))
    assert not decision.allowed and decision.reason == chlauth.BY_NOACCESS and decision.msg_id == "CSQX777E"
    admin = chlauth.decide(BACKSTOP, conn("SYSTEM.ADMIN.SVRCONN", client=True, client_user="alice"))
    assert admin.allowed and admin.mcauser == "alice" and admin.record == BACKSTOP[0]
    # A receiver with a blank MCAUSER runs as the channel initiator: a privileged user.
    rcvr = chlauth.decide(BACKSTOP, conn("TO.CSQ1", remote_qmgr="QM2"))
    assert not rcvr.allowed and rcvr.reason == chlauth.BY_USER and rcvr.mcauser == "CSQ1CHIN"
    assert rcvr.msg_id == "CSQX776E" and rcvr.blocking == BACKSTOP[2]
    assert chlauth.decide(BACKSTOP, conn("TO.CSQ1", remote_qmgr="QM2", channel_mcauser="MQAPP")).allowed


def test_no_records_allow_everything() -> None:
    decision = chlauth.decide([], conn("ANY.CHANNEL", remote_qmgr="QM2"))
    assert decision.allowed and decision.record is None and decision.mcauser == "CSQ1CHIN"


def test_blockaddr_comes_first() -> None:
    records = [
        *BACKSTOP,
        Record("*", chlauth.BLOCKADDR, addrlist=("10.1.*",)),
        Record("TO.CSQ1", chlauth.ADDRESSMAP, address="*", usersrc=chlauth.MAP, mcauser="MQAPP"),
    ]
    decision = chlauth.decide(records, conn("TO.CSQ1"))
    assert not decision.allowed and decision.reason == chlauth.BY_ADDRESS and decision.msg_id == "CSQX782E"
    assert chlauth.blocked_address(records, "10.1.9.9") is records[3]
    assert chlauth.decide(records, conn("TO.CSQ1", address="10.2.0.1")).mcauser == "MQAPP"


def test_most_specific_profile_wins_then_type_order() -> None:
    generic = Record("TO.*", chlauth.ADDRESSMAP, address="*", usersrc=chlauth.MAP, mcauser="GENERIC")
    specific = Record("TO.CSQ1", chlauth.QMGRMAP, qmname="QM2", usersrc=chlauth.MAP, mcauser="BYQMGR")
    by_address = Record("TO.CSQ1", chlauth.ADDRESSMAP, address="10.1.2.3", usersrc=chlauth.MAP, mcauser="BYADDR")
    by_peer = Record("TO.CSQ1", chlauth.SSLPEERMAP, sslpeer="CN=QM2", usersrc=chlauth.MAP, mcauser="BYPEER")
    peer = dn.Name((("CN", "QM2"),))
    assert chlauth.decide([generic, specific], conn("TO.CSQ1", remote_qmgr="QM2")).mcauser == "BYQMGR"
    records = [generic, specific, by_address]
    assert chlauth.decide(records, conn("TO.CSQ1", remote_qmgr="QM2")).mcauser == "BYADDR"
    records.append(by_peer)
    assert chlauth.decide(records, conn("TO.CSQ1", remote_qmgr="QM2", peer=peer)).mcauser == "BYPEER"
    assert chlauth.decide(records, conn("TO.CSQ1", remote_qmgr="QM2")).mcauser == "BYADDR"  # no certificate
    assert chlauth.decide(records, conn("TO.CSQ1", address="10.9.9.9", remote_qmgr="QM3")).mcauser == "GENERIC"


def test_most_specific_address_and_peer_within_a_type() -> None:
    wide = Record("C", chlauth.ADDRESSMAP, address="10.*", usersrc=chlauth.MAP, mcauser="WIDE")
    narrow = Record("C", chlauth.ADDRESSMAP, address="10.1.2.1-9", usersrc=chlauth.MAP, mcauser="NARROW")
    assert chlauth.decide([wide, narrow], conn("C")).mcauser == "NARROW"
    loose = Record("C", chlauth.SSLPEERMAP, sslpeer="O=IBM", usersrc=chlauth.MAP, mcauser="LOOSE")
    tight = Record("C", chlauth.SSLPEERMAP, sslpeer="CN=QM2,O=IBM", usersrc=chlauth.MAP, mcauser="TIGHT")
    peer = dn.Name((("CN", "QM2"), ("O", "IBM")))
    assert chlauth.decide([loose, tight], conn("C", peer=peer)).mcauser == "TIGHT"


def test_usermap_for_clients_qmgrmap_for_queue_managers() -> None:
    user = Record("APP.SVRCONN", chlauth.USERMAP, clntuser="alice", usersrc=chlauth.MAP, mcauser="APPUSER")
    qmgr = Record("APP.SVRCONN", chlauth.QMGRMAP, qmname="QM*", usersrc=chlauth.MAP, mcauser="QMUSER")
    client = conn("APP.SVRCONN", client=True, client_user="alice")
    assert chlauth.decide([user, qmgr], client).mcauser == "APPUSER"
    assert chlauth.decide([user, qmgr], conn("APP.SVRCONN", remote_qmgr="QM7")).mcauser == "QMUSER"
    assert chlauth.decide([user], conn("APP.SVRCONN", client=True, client_user="Alice")).record is None


def test_a_channels_own_blockuser_record_overrides_the_star_one() -> None:
    records = [*BACKSTOP, Record("ADMIN.CHAN", chlauth.BLOCKUSER, userlist=("nobody",))]
    assert chlauth.decide(records, conn("ADMIN.CHAN", client=True, client_user="CSQ1CHIN")).allowed
    assert not chlauth.decide(records, conn("ADMIN.CHAN", client=True, client_user="nobody")).allowed
    assert not chlauth.decide(records, conn("OTHER", client=True, client_user="CSQ1MSTR")).allowed


def test_warn_yes_lets_the_channel_run_and_says_which_record() -> None:
    warn = Record("SYSTEM.*", chlauth.ADDRESSMAP, address="*", usersrc=chlauth.NOACCESS, warn="YES")
    decision = chlauth.decide([warn], conn("SYSTEM.X", client=True, client_user="bob"))
    assert decision.allowed and decision.warned == (warn,) and decision.mcauser == "bob"
    block = Record("*", chlauth.BLOCKADDR, addrlist=("*",), warn="YES")
    assert chlauth.decide([block], conn("X")).warned == (block,)


def test_runcheck_shows_the_deciding_record() -> None:
    check = chlauth.runcheck(BACKSTOP, conn("SYSTEM.DEF.SVRCONN", client=True, client_user="bob"))
    assert check.record == BACKSTOP[1] and not check.decision.allowed
    check = chlauth.runcheck(BACKSTOP, conn("APP", client=True, client_user="bob"))
    assert check.record is None and check.decision.allowed and check.decision.mcauser == "bob"
    check = chlauth.runcheck(BACKSTOP, conn("APP", client=True, client_user="CSQ1CHIN"))
    assert check.record == BACKSTOP[2]


@given(
    st.lists(
        st.builds(
            Record,
            profile=st.sampled_from(["*", "A*", "A.B", "A.*", "*B"]),
            type=st.sampled_from(chlauth.MAPPING),
            address=st.sampled_from(["", "*", "10.*", "10.1.2.3", "10.1.2.1-5"]),
            sslpeer=st.sampled_from(["CN=X", "O=Y"]),
            clntuser=st.sampled_from(["u", "v"]),
            qmname=st.sampled_from(["Q*", "QM1"]),
            usersrc=st.sampled_from([chlauth.MAP, chlauth.NOACCESS, chlauth.CHANNEL]),
            mcauser=st.just("M"),
        ),
        max_size=12,
    ),
    st.sampled_from(["A.B", "AB", "X"]),
    st.booleans(),
)
def test_decide_is_total_and_deterministic(records: list[Record], channel: str, client: bool) -> None:
    connection = conn(channel, client=client, client_user="u", remote_qmgr="QM1", peer=dn.Name((("CN", "X"),)))
    first = chlauth.decide(records, connection)
    assert first == chlauth.decide(list(records), connection)
    if first.record is not None:
        assert chlauth.generic_match(first.record.profile, channel)


def test_console_messages_of_a_decision_fill_the_catalogue_texts() -> None:
    from mqtool import messages

    warn = Record("SYSTEM.*", chlauth.ADDRESSMAP, address="*", usersrc=chlauth.NOACCESS, warn="YES")
    records = [warn, *BACKSTOP[2:], Record("*", chlauth.BLOCKADDR, addrlist=("10.9.*",))]
    lines = [
        messages.line(msg_id, **fields)
        for decision in (
            chlauth.decide(records, conn("SYSTEM.X", client=True, client_user="CSQ1CHIN")),
            chlauth.decide(records, conn("APP", address="10.9.0.1")),
            chlauth.decide(BACKSTOP, conn("SYSTEM.DEF.SVRCONN", client=True, client_user="bob")),
            chlauth.decide([], conn("APP", client=True, client_user="bob")),
        )
        for msg_id, fields in decision.console("SYSTEM.X", "10.1.2.3")
    ]
    assert lines == [
        "CSQX787I Channel SYSTEM.X from 10.1.2.3 would have been blocked by CHLAUTH('SYSTEM.*') TYPE(ADDRESSMAP) "
        "ADDRESS(*) USERSRC(NOACCESS), WARN(YES)",
        "CSQX776E Channel SYSTEM.X from 10.1.2.3 was blocked by user ID CSQ1CHIN",
        "CSQX782E Connection from 10.1.2.3 was blocked by CHLAUTH('*') TYPE(BLOCKADDR) ADDRLIST(10.9.*)",
        "CSQX777E Channel SYSTEM.X from 10.1.2.3 was blocked by CHLAUTH('SYSTEM.*') TYPE(ADDRESSMAP) ADDRESS(*) "
        "USERSRC(NOACCESS)",
    ]
