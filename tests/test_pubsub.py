"""Publish/subscribe: topic-string matching against a simple reference matcher
(hypothesis), the selector, `mqtool put --topic` and `.put topic=` from the CLI, the REST
API's topic publish, runCommandJSON's pub/sub qualifiers, z/TPF's refusals, and a
publication to several subscribers killed with SIGKILL (all of them have it or none)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.core import topics
from mqtool.engine.core.reasons import SELECTION_NOT_AVAILABLE, SELECTOR_SYNTAX_ERROR
from mqtool.engine.core.selector import SelectorError, compile_selector, selects
from mqtool.session import Session
from mqtool.state import Store
from tests.conftest import FROZEN

# ------------------------------------------------------------------ matching


def reference(pattern: str, topic: str) -> bool:
    """A plain recursive matcher of WSCHEMA(TOPIC): `#` any levels, `+` one level."""

    def match(p: list[str], t: list[str]) -> bool:
        if not p:
            return not t
        if p[0] == "#":
            return any(match(p[1:], t[i:]) for i in range(len(t) + 1))
        if not t:
            return False
        return (p[0] == "+" or p[0] == t[0]) and match(p[1:], t[1:])

    return match(pattern.split("/"), topic.split("/"))


LEVEL = st.sampled_from(["a", "b", "c", "", "Sport"])
PATTERN_LEVEL = st.sampled_from(["a", "b", "c", "", "Sport", "#", "+"])


@settings(max_examples=400, deadline=None)
@given(st.lists(PATTERN_LEVEL, min_size=1, max_size=6), st.lists(LEVEL, min_size=1, max_size=6))
def test_topic_matching_agrees_with_a_reference_matcher(pattern: list[str], topic: list[str]) -> None:
    p, t = "/".join(pattern), "/".join(topic)
    assert topics.matches(p, t) == reference(p, t)


def test_character_wildcards_and_their_escape() -> None:
    assert topics.matches("Sport*", "Sports/Football", "CHAR")
    assert topics.matches("Sport?/Football", "Sports/Football", "CHAR")
    assert not topics.matches("Sport?", "Sports/Football", "CHAR")
    assert topics.matches("100%*", "100*", "CHAR") and not topics.matches("100%*", "1000", "CHAR")


def test_block_stops_less_specific_wildcards_only() -> None:
    blockers = ("a/b",)
    assert topics.blocked("a/#", "a/b/c", "TOPIC", blockers)
    assert topics.blocked("#", "a/b", "TOPIC", blockers)
    assert not topics.blocked("a/b/#", "a/b/c", "TOPIC", blockers)
    assert not topics.blocked("a/b/c", "a/b/c", "TOPIC", blockers)


def test_asparent_ends_at_the_base_topic() -> None:
    objects = {"": ("SYSTEM.BASE.TOPIC", {"DEFPRTY": 3}), "x": ("X", {"DEFPRTY": "ASPARENT", "PUB": "DISABLED"})}
    node = topics.resolve("x/y", objects)
    assert node.attrs["DEFPRTY"] == 3 and node.attrs["PUB"] == "DISABLED" and node.admin == ""
    assert topics.resolve("x", objects).admin == "X"
    # Without SYSTEM.BASE.TOPIC (a store from before pub/sub) IBM's shipped values apply.
    assert topics.resolve("z", {}).attrs["PMSGDLV"] == "ALLDUR"


# ------------------------------------------------------------------ selectors


@pytest.mark.parametrize(
    ("text", "priority", "persistent", "wanted"),
    [
        ("JMSPriority > 4", 5, False, True),
        ("JMSPriority > 4", 4, False, False),
        ("Root.MQMD.Priority BETWEEN 2 AND 3 OR JMSDeliveryMode = 'PERSISTENT'", 9, True, True),
        ("NOT (JMSPriority IN (1, 2, 3))", 2, False, False),
        ("JMSDeliveryMode LIKE 'NON%'", 0, False, True),
        ("JMSCorrelationID IS NULL", 0, False, False),
    ],
)
def test_selectors_on_the_message_descriptor(text: str, priority: int, persistent: bool, wanted: bool) -> None:
    assert selects(compile_selector(text), priority, persistent, bytes(24)) is wanted


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Colour = 'red'", SELECTION_NOT_AVAILABLE),
        ("JMSPriority >", SELECTOR_SYNTAX_ERROR),
        ("JMSPriority = 'x", SELECTOR_SYNTAX_ERROR),
        ("(" * 200 + "JMSPriority = 1" + ")" * 200, SELECTOR_SYNTAX_ERROR),
        ("NOT " * 500 + "TRUE", SELECTOR_SYNTAX_ERROR),
    ],
)
def test_selectors_refused_with_ibms_reasons(text: str, reason: int) -> None:
    with pytest.raises(SelectorError) as caught:
        compile_selector(text)
    assert caught.value.reason == reason


# ------------------------------------------------------------------ CLI


def setup_subscribers(mq: Any, count: int = 3) -> None:
    commands = []
    for number in range(count):
        commands += [f"-CSQ1 DEFINE QLOCAL(S{number})", f"-CSQ1 DEFINE SUB(S{number}) TOPICSTR('a/#') DEST(S{number})"]
    result = mq("cmd", *commands)
    assert result.exit_code == 0, result.output


def test_put_topic_delivers_a_copy_to_each_subscriber(mq: Any) -> None:
    setup_subscribers(mq)
    result = mq("--system", "CSQ1", "put", "--topic", "a/b", "--data", "one", "--data", "two", "--persistent")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[-2] == "MQT0101I Put 2 messages to topic 'a/b': 6 bytes, stored 6; 0 compressed, 2 persistent"
    assert lines[-1] == "MQT0104I Published 2 messages on topic 'a/b': 6 copies delivered to subscriptions' queues"
    shown = mq("cmd", "-CSQ1 DIS QL(S0) CURDEPTH", "-CSQ1 DIS QL(S1) CURDEPTH", "-CSQ1 DIS QL(S2) CURDEPTH").output
    assert re.findall(r"CURDEPTH\((\d+)\)", shown) == ["2", "2", "2"]
    got = mq("--system", "CSQ1", "get", "S1", "--all", "-q")
    assert got.output.splitlines() == ["one", "two"]


def test_put_topic_refusals(mq: Any) -> None:
    assert mq("--system", "CSQ1", "put", "--topic", "a/#", "--data", "x").exit_code == 2
    assert mq("--system", "CSQ1", "put", "Q", "--topic", "a", "--data", "x").exit_code == 2
    assert mq("--system", "CSQ1", "put", "Q", "--retain", "--data", "x").exit_code == 2
    result = mq("--system", "TPF1", "put", "--topic", "a/b", "--data", "x")
    assert result.exit_code == 2
    assert "z/TPF MQ has no publish/subscribe" in result.output
    mq("cmd", "-CSQ1 ALTER QMGR PSMODE(DISABLED)")
    result = mq("--system", "CSQ1", "put", "--topic", "a/b", "--data", "x")
    assert result.exit_code == 1 and "MQRC 2531 (MQRC_PUBSUB_INHIBITED)" in result.output


def test_directive_put_topic(mq: Any, tmp_path: Path) -> None:
    setup_subscribers(mq, 2)
    script = tmp_path / "pub.mqsc"
    script.write_text(".system CSQ1\n.put topic=a/x count=3 size=10 retain=yes\n.put S0 topic=a/x data=y\n")
    result = mq("run", str(script))
    assert "MQT0104I Published 3 messages on topic 'a/x': 6 copies delivered to subscriptions' queues; " in (
        result.output
    )
    assert "MQT0003E Directive .put: usage: .put QUEUE|topic=STRING" in result.output


def test_ztpf_has_no_topic_objects(mq: Any) -> None:
    result = mq("cmd", "ZMQSC DEFINE TOPIC-X", "ZMQSC DISPLAY SUB-X")
    assert "MQSC" in result.output and "TOPIC" in result.output
    assert result.exit_code != 0


def test_json_qualifiers_of_pubsub(mq: Any) -> None:
    setup_subscribers(mq, 1)
    mq("cmd", "-CSQ1 DEFINE TOPIC(T.A) TOPICSTR('a')")
    for line, key in (
        ("-CSQ1 DIS TOPIC(T.A)", "topicstr"),
        ("-CSQ1 DIS SUB(S0)", "subid"),
        ("-CSQ1 DIS TPSTATUS('a') ALL", "subcount"),
        ("-CSQ1 DIS SBSTATUS(S0)", "nummsgs"),
        ("-CSQ1 DIS PUBSUB", "tpcount"),
    ):
        document = json.loads(mq("cmd", "--format", "json", line).output)
        assert document["overallCompletionCode"] == 0, (line, document)
        assert key in document["commandResponse"][0]["parameters"], (line, document)


# ------------------------------------------------------------------ REST


def test_rest_publish_on_a_topic(state_dir: Path) -> None:
    from mqtool.rest.service import RestService
    from tests.test_rest_api import APP, MQSC, V2, Client, configure

    configure(state_dir)
    with RestService(state_dir, Clock.from_setting(FROZEN)) as service:
        client = Client(service.port)
        for command in ("DEFINE QLOCAL(RQ1)", "DEFINE QLOCAL(RQ2)", "DEFINE SUB(R1) TOPICSTR('Price/+') DEST(RQ1)",
                        "DEFINE SUB(R2) TOPICSTR('Price/#') DEST(RQ2)"):  # fmt: skip
            assert client.run(command)["overallCompletionCode"] == 0
        url = f"{V2}/messaging/qmgr/CSQ1/topic/Price/Fruit/message"
        headers = {"Content-Type": "text/plain;charset=utf-8"}
        status, _, body = client.request("POST", url, b"1.20", user=APP, headers=headers)
        assert (status, body) == (201, b"")
        for queue in ("RQ1", "RQ2"):
            status, _, body = client.request("DELETE", f"{V2}/messaging/qmgr/CSQ1/queue/{queue}/message", user=APP)
            assert (status, body) == (200, b"1.20")
        status, _, _ = client.request("GET", url, user=APP)
        assert status == 405
        status, _, body = client.request("POST", f"{V2}/messaging/qmgr/TPFQM/topic/a/message", b"x", user=APP,
                                         headers=headers)  # fmt: skip
        assert status == 404 and b"MQT0368E" in body
        status, _, body = client.request("POST", f"{V2}/messaging/qmgr/CSQ1/topic/%23/message", b"x", user=APP,
                                         headers=headers)  # fmt: skip
        assert status == 400
        assert client.run("ALTER QMGR PSMODE(DISABLED)", MQSC)["overallCompletionCode"] == 0
        status, _, body = client.request("POST", url, b"x", user=APP, headers=headers)
        assert status == 500 and b"2531" in body


# ------------------------------------------------------------------ kill -9

SUBSCRIBERS = 8
PATIENCE = 60.0


@pytest.mark.slow
def test_a_publication_killed_midway_reaches_all_subscribers_or_none(tmp_path: Path) -> None:
    """`mqtool put --topic` of persistent messages to 8 subscribers, killed with SIGKILL
    at several moments: every subscriber's queue holds the same messages (the whole
    publication or nothing of it), and those acknowledged are there."""
    state = tmp_path / "state"
    clock = Clock()
    store = Store.open(state)
    ensure_complex(store, clock.timestamp())
    session = Session(store, clock)
    for number in range(SUBSCRIBERS):
        assert session.execute(f"-CSQ1 DEFINE QLOCAL(K{number})").status == "ok"
        assert session.execute(f"-CSQ1 DEFINE SUB(K{number}) TOPICSTR('k/#') DEST(K{number})").status == "ok"
    store.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")} | {"MQTOOL_STATE": str(state)}
    acknowledged = 0
    for kill in range(3):
        process = subprocess.Popen(
            [sys.executable, "-m", "mqtool", "--system", "CSQ1", "put", "--topic", "k/x", "--pattern", "text",
             "--size", "200", "--count", "400", "--persistent", "--seed", str(kill)],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        assert process.stdout is not None
        deadline = time.monotonic() + PATIENCE
        seen = 0
        while seen < 5 + 20 * kill and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            seen += line.startswith(b"MQT0102I")
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=PATIENCE)
        acknowledged += seen
    store = Store.open(state)
    with store.transaction(write=False) as tx:
        depths = [
            tx.conn.execute(
                "SELECT depth FROM queue_figures WHERE system = 'CSQ1' AND queue = ?", (f"K{n}",)
            ).fetchone()[0]
            for n in range(SUBSCRIBERS)
        ]
        payloads = [
            [row[0] for row in tx.conn.execute(
                "SELECT checksum FROM messages WHERE system = 'CSQ1' AND queue = ? ORDER BY id", (f"K{n}",))]
            for n in range(SUBSCRIBERS)
        ]  # fmt: skip
    store.close()
    assert len(set(depths)) == 1, depths
    assert depths[0] >= acknowledged
    assert all(p == payloads[0] for p in payloads)
