"""IBM MQ for z/OS commands mqtool does not implement (now only the cluster channel
types) answer MQT0400E ("recognised, not
available in mqtool") with CSQ9023E, never CSQ9001E, which means a typing error; words
that are not IBM's keep CSQ9001E. Channel commands are not in the list (the channel
engine owns them). SET, DISPLAY and DELETE POLICY are not z/OS commands at all (IBM MQ
on Multiplatforms; z/OS manages AMS policies with CSQ0UTIL): CSQ9001E, as z/OS answers,
and POLICY rows an unreleased build stored are skipped by every reader."""

from __future__ import annotations

from typing import Any

import pytest

from mqtool import tables
from mqtool.apply.plan import ZOS as ZOS_PLAN
from mqtool.state import ObjectRecord, Store
from tests.conftest import query

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


def test_every_command_of_the_list_is_built_and_only_cluster_channels_still_answer(mq: Any) -> None:
    """bread-last built the last commands the section listed (ALTER TRACE ... RESOLVE
    INDOUBT; SET, DISPLAY and DELETE POLICY, listed here once, are Multiplatforms MQSC),
    zos-last the last forms (SUSPEND and RESUME QMGR LOG, DISPLAY THREAD TYPE(REGIONS));
    what still answers MQT0400E is the cluster channel types (the section's values)."""
    assert PAIRS == []
    assert SECTION["values"] == {"CHANNEL CHLTYPE": ["CLUSSDR", "CLUSRCVR"]}
    assert zos(mq, "-CSQ1 SUSPEND QMGR LOG", "-CSQ1 RESUME QMGR LOG") == suspended("SUSPEND") + suspended("RESUME")


def suspended(verb: str) -> str:
    if verb == "SUSPEND":
        first = "CSQJ372I -CSQ1 UPDATE ACTIVITY HAS BEEN SUSPENDED FOR CSQ1 AT RBA 0000000000000200"
    else:
        first = "CSQJ373I -CSQ1 UPDATE ACTIVITY HAS BEEN RESUMED FOR CSQ1"
    return f"{first}\nCSQ9022I -CSQ1 CSQMSSQM ' {verb} QMGR' NORMAL COMPLETION\n"


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
    assert mq("cmd", "RESUME QMGR LOG").output == suspended("RESUME")


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


# -- AMS policies: Multiplatforms MQSC (zos-policy) ----------------------------------------

POLICY_COMMANDS = (
    "SET POLICY(PAY.Q) SIGNALG(SHA256) SIGNER('CN=a,O=B')",
    "SET POLICY(PAY.Q) ENCALG(AES256) RECIP('CN=b,O=B') ACTION(ADD)",
    "DISPLAY POLICY(*)",
    "DIS POLICY(PAY.Q)",
    "DELETE POLICY(PAY.Q)",
)


def _rows(state_dir: Any) -> list[tuple[Any, ...]]:
    """Every object row of the store, as stored."""
    return query(state_dir, "SELECT * FROM objects ORDER BY system, type, name")


def test_policy_commands_are_refused_as_zos_refuses_them_and_change_nothing(mq: Any) -> None:
    """IBM documents SET, DISPLAY and DELETE POLICY for IBM MQ on Multiplatforms only; a
    z/OS queue manager refuses the object word as for any object it does not have."""
    zos(mq, "DEFINE QLOCAL(PAY.Q)")
    before = _rows(mq.state_dir)
    for line in POLICY_COMMANDS:
        verb = {"DIS": "DISPLAY"}.get(line.split()[0], line.split()[0])
        for prefix in ("-CSQ1 ", ""):
            result = mq("cmd", prefix + line)
            assert result.output == (
                "CSQ9001E -CSQ1 CSQ9SCND 'POLICY' is invalid\n"
                f"CSQ9023E -CSQ1 CSQ9SCND ' {verb} POLICY' ABNORMAL COMPLETION\n"
            ), (line, result.output)
            assert result.exit_code == 10
    assert _rows(mq.state_dir) == before
    assert "POLICY" not in ZOS.objects and all("POLICY" not in verb.objects for verb in ZOS.verbs.values())


def test_policy_rows_an_unreleased_build_stored_are_skipped(mq: Any, tmp_path: Any) -> None:
    """main held SET POLICY between two merges (no release): a store it wrote may have
    POLICY rows. No migration removes them; every reader passes them by."""
    zos(mq, "DEFINE QLOCAL(PAY.Q)")
    store = Store.open(mq.state_dir)
    try:
        with store.transaction() as tx:
            attrs = {"SIGNALG": "SHA256", "ENCALG": "NONE", "SIGNER": ["CN=a,O=B"], "RECIP": [], "ENFORCE": "YES"}
            tx.put_object(ObjectRecord("CSQ1", "POLICY", "PAY.Q", attrs, {}, 1.0, 1.0))
    finally:
        store.close()
    stored = _rows(mq.state_dir)
    commands = mq("export", "--system", "CSQ1")
    assert commands.exit_code == 0 and "POLICY" not in commands.output, commands.output
    assert "DEFINE QLOCAL(PAY.Q)" in commands.output
    for form in ("yaml", "json"):
        document = mq("export", "--system", "CSQ1", "--format", form)
        assert document.exit_code == 0 and "POLICY" not in document.output, document.output
        path = tmp_path / f"doc.{form}"
        path.write_text(document.output)
        for options in (("--dry-run", "--prune"), ("--prune",)):
            applied = mq("apply", str(path), *options)
            assert applied.exit_code == 0, applied.output
            assert "POLICY" not in applied.output
    assert _rows(mq.state_dir) == stored  # apply --prune neither changed nor deleted the row
    # A plan takes the types it orders only: not a type no table has, nor one a table has
    # and no document holds (MAXSMSGS is the queue manager's MAXUMSGS).
    assert ZOS_PLAN.knows("QLOCAL") and not ZOS_PLAN.knows("POLICY") and not ZOS_PLAN.knows("MAXSMSGS")
    assert zos(mq, "DISPLAY POLICY(*)").startswith("CSQ9001E -CSQ1 CSQ9SCND 'POLICY' is invalid")
    shown = mq("--system", "CSQ1", "cmd", "DISPLAY QUEUE(PAY*)", "DISPLAY USAGE")
    assert shown.exit_code == 0 and "QUEUE(PAY.Q)" in shown.output and "POLICY" not in shown.output
    assert mq("system", "list").exit_code == 0
    # Replayed into a new store, the export makes the queue and no policy.
    (tmp_path / "export.mqsc").write_text(commands.output)
    replay = mq("--state", str(tmp_path / "other"), "run", str(tmp_path / "export.mqsc"))
    assert replay.exit_code == 0, replay.output
    assert not [row for row in _rows(tmp_path / "other") if row[1] == "POLICY"]
