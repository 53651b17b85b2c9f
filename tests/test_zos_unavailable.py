"""IBM MQ for z/OS commands mqtool does not implement (now only forms and values of
commands it has) answer MQT0400E ("recognised, not
available in mqtool") with CSQ9023E, never CSQ9001E, which means a typing error; words
that are not IBM's keep CSQ9001E. Channel commands are not in the list (the channel
engine owns them)."""

from __future__ import annotations

from typing import Any

import pytest

from mqtool import tables

ZOS = tables.load("zos")
SECTION = ZOS.raw["unavailable"]
PAIRS = [(verb, obj) for verb, objects in SECTION["commands"].items() for obj in objects]
CHANNEL_COMMANDS = {
    ("START", "CHANNEL"),
    ("STOP", "CHANNEL"),
    ("START", "CHINIT"),
    ("STOP", "CHINIT"),
    ("DISPLAY", "CHINIT"),
    ("START", "LISTENER"),
    ("STOP", "LISTENER"),
    ("RESET", "CHANNEL"),
    ("RESOLVE", "CHANNEL"),
    ("PING", "CHANNEL"),
}


def zos(mq: Any, *commands: str) -> str:
    return str(mq("--system", "CSQ1", "cmd", *commands).output)


def test_every_command_of_the_list_is_built_and_log_suspension_still_answers(mq: Any) -> None:
    """bread-last built the last commands the section listed (ALTER TRACE ... SET POLICY);
    what still answers MQT0400E is a form of a command mqtool has (SUSPEND and RESUME QMGR
    LOG) and the cluster channel types (the section's values)."""
    assert PAIRS == []
    assert SECTION["values"] == {"CHANNEL CHLTYPE": ["CLUSSDR", "CLUSRCVR"]}
    assert zos(mq, "-CSQ1 SUSPEND QMGR LOG", "-CSQ1 RESUME QMGR LOG") == suspended("SUSPEND") + suspended("RESUME")


def suspended(verb: str) -> str:
    return (
        f"MQT0400E -CSQ1 CSQ9SCND '{verb} QMGR LOG' is an IBM MQ for z/OS command: recognised, not available in "
        f"mqtool\nCSQ9023E -CSQ1 CSQ9SCND ' {verb} QMGR' ABNORMAL COMPLETION\n"
    )


def test_words_that_are_not_ibms_are_still_invalid(mq: Any) -> None:
    assert zos(mq, "-CSQ1 REFRESH CLUSTERS(X)", "DISPLAY TOPICS(X)", "-CSQ1 SUSPENDD QMGR") == (
        "CSQ9001E -CSQ1 CSQ9SCND 'CLUSTERS' is invalid\n"
        "MQT0015I -CSQ1 CSQ9SCND Did you mean 'CLUSTER'?\n"
        "CSQ9023E -CSQ1 CSQ9SCND ' REFRESH CLUSTERS' ABNORMAL COMPLETION\n"
        "CSQ9001E -CSQ1 CSQ9SCND 'TOPICS' is invalid\n"
        "MQT0015I -CSQ1 CSQ9SCND Did you mean 'TOPIC'?\n"
        "CSQ9023E -CSQ1 CSQ9SCND ' DISPLAY TOPICS' ABNORMAL COMPLETION\n"
        "CSQ9001E -CSQ1 CSQ9SCND 'SUSPENDD' is invalid\n"
        "MQT0015I -CSQ1 CSQ9SCND Did you mean 'SUSPEND'?\n"
        "CSQ9023E -CSQ1 CSQ9SCND ' SUSPENDD QMGR' ABNORMAL COMPLETION\n"
    )


def test_without_a_cpf_they_go_to_the_current_zos_system(mq: Any) -> None:
    assert zos(mq, "SUSPEND QMGR LOG") == suspended("SUSPEND")
    # With a z/TPF current system it goes to the only z/OS system (SPEC section 3).
    assert mq("cmd", "SUSPEND QMGR LOG").output == suspended("SUSPEND")


def test_the_list_holds_only_what_the_table_lacks() -> None:
    """A command the table implements has left the list (a merge that adds one must
    remove it here)."""
    implemented = [(verb, obj) for verb, obj in PAIRS if ZOS.verb(verb) and obj in ZOS.verbs[verb].objects]
    assert implemented == []
    assert not [verb for verb in SECTION["commands"] if ZOS.verb(verb) is None and SECTION["commands"][verb] == []]
    assert set(SECTION["synonyms"].values()) <= set(SECTION["commands"]) | {obj for _, obj in PAIRS}


@pytest.mark.parametrize("pair", sorted(CHANNEL_COMMANDS))
def test_every_channel_command_is_implemented_or_answered(pair: tuple[str, str]) -> None:
    """The channel engine implements START/STOP CHANNEL and CHINIT, RESET and RESOLVE
    CHANNEL; the rest of IBM's channel commands (PING, the listener) are answered."""
    verb, obj = pair
    implemented = ZOS.verb(verb) is not None and obj in ZOS.verbs[verb].objects
    assert implemented != (pair in PAIRS)


def test_the_dialect_page_lists_them() -> None:
    from pathlib import Path

    page = (Path(__file__).parent.parent / "man" / "mqtool-zos.7").read_text(encoding="utf-8")
    section = page.split('.SH "COMMANDS NOT AVAILABLE"', 1)[1].split("\n.SH ", 1)[0]
    listed: dict[str, list[str]] = {}
    lines = section.splitlines()
    for at, line in enumerate(lines):
        if line.startswith(".B ") and at and lines[at - 1] == ".TP":
            words = " ".join(lines[at + 1 : at + 4]).split(".TP")[0]
            listed[line[3:]] = [w.strip() for w in words.replace("\n", " ").split(",") if w.strip()]
    assert {verb: sorted(objects) for verb, objects in listed.items()} == {
        verb: sorted(objects) for verb, objects in SECTION["commands"].items()
    }
