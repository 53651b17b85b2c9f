"""CONNAME is read when a channel starts (mqtool/engine/channels/conname.py), as IBM MQ
reads it: host names, IPv4 and IPv6 addresses with an optional port (1414 when none),
and connection lists tried in order."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mqtool.engine.channels.conname import Address, ConnameError, parse_list, parse_one
from tests.test_channels import Complex


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("qm1.example.com", [Address("qm1.example.com", 1414)]),
        ("192.0.2.7(1415)", [Address("192.0.2.7", 1415)]),
        ("fe80::1(1414)", [Address("fe80::1", 1414)]),
        ("fe80:43e4:0204:acff:fe97:2c34:fde0:3485", [Address("fe80:43e4:0204:acff:fe97:2c34:fde0:3485", 1414)]),
        ("::ffff:192.0.2.7(65535)", [Address("::ffff:192.0.2.7", 65535)]),
        ("qm1(1414),qm2(1415)", [Address("qm1", 1414), Address("qm2", 1415)]),
        ("qm1( 1414 ), qm2", [Address("qm1", 1414), Address("qm2", 1414)]),
        ("host_1.example(1)", [Address("host_1.example", 1)]),
    ],
)
def test_ibm_forms(text: str, expected: list[Address]) -> None:
    assert parse_list(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "blank"),
        ("   ", "blank"),
        (" host(1414)", "starts with a blank"),
        ("<host>(1414)", "not a host name"),
        ("host(99999)", "no port 1-65535"),
        ("host(0)", "no port 1-65535"),
        ("host(1414", "not host(port)"),
        ("host(14)14", "not host(port)"),
        ("host(\u0661\u0664)", "no port 1-65535"),
        ("qm1(1414),,qm2", "empty name"),
        ("fe80::zz(1414)", "not an IPv6 address"),
        ("-bad.host", "not a host name"),
        ("a" * 300, "longer than 264 characters"),
        ("a" * 256 + "(1)", "not a host name"),
    ],
)
def test_what_is_no_connection_name(text: str, reason: str) -> None:
    with pytest.raises(ConnameError, match=re.escape(reason)):
        parse_list(text)


def test_addresses_compare_as_the_network_does() -> None:
    assert Address("QM1.Example.COM", 1414).key == Address("qm1.example.com", 1414).key
    assert Address("fe80:0:0::1", 1414).key == Address("FE80::1", 1414).key
    assert Address("qm1", 1414).key != Address("qm1", 1415).key
    assert parse_one("127.0.0.1(1414)") == Address("127.0.0.1", 1414)
    with pytest.raises(ConnameError, match="a list of 2 addresses"):
        parse_one("a,b")


def test_a_connection_list_reaches_the_first_address_that_listens(tmp_path: Path) -> None:
    plex = Complex(tmp_path)
    plex.channel(compmsg="NONE")
    # the first name of the list has no listener; TPF2 listens at the second
    plex.cmd("ZMQSC ALTER CHL-C CONNAME-'nowhere.example(1414),127.0.0.1(1415)'", "ZMQSC START CHL-C", ".advance 1s")
    assert plex.status("TPF1").state == "RUNNING"
    plex.cmd(".put DEST.R count=3 size=100", ".advance 1s")
    assert plex.depth("TPF2", "DEST") == 3


def test_a_template_defines_and_the_channel_runs_once_filled_in(tmp_path: Path) -> None:
    plex = Complex(tmp_path)
    plex.channel(compmsg="NONE")
    plex.cmd("ZMQSC ALTER CHL-C CONNAME-'<host>(1415)'", "ZMQSC START CHL-C", ".advance 1s")
    assert plex.status("TPF1").state == "RETRYING"
    assert any("CONNAME <host>(1415) NOT VALID" in line for line in plex.console())
    plex.cmd("ZMQSC STOP CHL-C", "ZMQSC ALTER CHL-C CONNAME-'127.0.0.1(1415)'", "ZMQSC START CHL-C", ".advance 1s")
    assert plex.status("TPF1").state == "RUNNING"
