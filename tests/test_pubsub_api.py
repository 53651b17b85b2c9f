"""Subscriptions that applications make (MQSUB): `mqtool get --topic` with its
non-durable and durable subscriptions and their managed queues, the refusals with IBM's
reason codes, the clean-up after a subscriber that ended without closing, subscription
expiry, export and apply leaving them out, a REST publication reaching a live
subscriber, and the topic manager's statistics (`mqtool smf topic`) with exact figures.
Whole-process tests: a subscriber process receives what another process publishes; a
subscriber killed with SIGKILL leaves nothing behind once another command ran; SIGTERM
ends it cleanly."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.engine.core import subscriptions
from mqtool.engine.platforms import model
from mqtool.state import Store
from tests.conftest import FROZEN, MQ, query

Q = "-CSQ1"


def subs(mq: MQ) -> list[str]:
    """The names of the subscriptions (DISPLAY SUB(*)), the default one left out."""
    shown = mq("cmd", f"{Q} DISPLAY SUB(*) SUMMARY").output
    return [name for name in re.findall(r"^SUB\((.*)\)$", shown, re.M) if name != "SYSTEM.DEFAULT.SUB"]


def managed_queues(mq: MQ) -> list[str]:
    shown = mq("cmd", f"{Q} DISPLAY QLOCAL(SYSTEM.MANAGED.*)").output
    return re.findall(r"^QUEUE\((.*)\)$", shown, re.M)


def owners(state: Path) -> list[tuple[Any, ...]]:
    return query(state, "SELECT system, name, pid FROM sub_owners")


# ------------------------------------------------------------------ mqtool get --topic


def test_get_topic_receives_the_retained_publication_and_ends(mq: MQ) -> None:
    put = mq("--system", "CSQ1", "put", "--topic", "Prices/Fruit", "--data", "1.20", "--retain", "-q")
    assert put.exit_code == 0, put.output
    got = mq("--system", "CSQ1", "get", "--topic", "Prices/#", "--all")
    assert got.exit_code == 0, got.output
    assert got.stdout == "1.20\n"
    assert got.stderr.splitlines() == [
        "MQT0160I Subscribed to topic 'Prices/#': non-durable subscription API.5355422000000002, SUBID "
        "435351204353513120202020202020205355422000000002; publications arrive on "
        "SYSTEM.MANAGED.NDURABLE.5355422000000002; 1 retained publication delivered",
        "MQT0161I Subscription API.5355422000000002 ended; its queue SYSTEM.MANAGED.NDURABLE.5355422000000002 removed",
        "MQT0111I Got 1 message from topic 'Prices/#'",
    ]
    assert subs(mq) == [] and managed_queues(mq) == []
    assert owners(mq.state_dir) == []


def test_get_topic_new_only_skips_retained_publications(mq: MQ) -> None:
    mq("--system", "CSQ1", "put", "--topic", "Prices/Fruit", "--data", "1.20", "--retain", "-q")
    got = mq("--system", "CSQ1", "get", "--topic", "Prices/#", "--new-only", "-q")
    assert got.exit_code == 1 and got.stdout == ""
    assert "MQT0120E Get from topic 'Prices/#' failed: MQRC 2033 (MQRC_NO_MSG_AVAILABLE)" in got.stderr
    assert subs(mq) == []


def test_get_topic_selector_picks_publications(mq: MQ) -> None:
    mq("--system", "CSQ1", "put", "--topic", "P/a", "--data", "low", "--retain", "-q")
    mq("--system", "CSQ1", "put", "--topic", "P/b", "--data", "high", "--priority", "8", "--retain", "-q")
    got = mq("--system", "CSQ1", "get", "--topic", "P/+", "--selector", "JMSPriority > 5", "--all", "-q")
    assert got.exit_code == 0 and got.stdout == "high\n"


def test_a_durable_subscription_keeps_publications_until_taken_up_again(mq: MQ) -> None:
    first = mq("--system", "CSQ1", "get", "--topic", "Orders/#", "--durable", "--subname", "orders", "--all")
    assert first.exit_code == 0, first.output
    assert "durable subscription orders" in first.stderr
    assert "MQT0162I Subscription orders closed; it stays (durable) with its queue SYSTEM.MANAGED.DURABLE." in (
        first.stderr
    )
    mq("--system", "CSQ1", "put", "--topic", "Orders/EU", "--data", "one", "--data", "two", "--persistent", "-q")
    shown = mq("cmd", f"{Q} DISPLAY SBSTATUS('orders') DURABLE SUBTYPE NUMMSGS ACTCONN").output
    assert "DURABLE(YES)" in shown and "SUBTYPE(API)" in shown and "NUMMSGS(2)" in shown
    assert f"ACTCONN({'0' * 48})" in shown
    again = mq("--system", "CSQ1", "get", "--topic", "Orders/#", "--durable", "--subname", "orders", "--count", "1")
    assert again.exit_code == 0 and again.stdout == "one\n"
    assert "resumed durable subscription orders" in again.stderr and "1 message on it" in again.stderr
    browse = mq("--system", "CSQ1", "get", "--topic", "Orders/#", "--durable", "--subname", "orders", "--browse",
                "--all", "-q")  # fmt: skip
    assert browse.stdout == "two\n"
    last = mq("--system", "CSQ1", "get", "--topic", "Orders/#", "--durable", "--subname", "orders", "--all",
              "--remove")  # fmt: skip
    assert last.stdout == "two\n" and "MQT0161I Subscription orders ended" in last.stderr
    assert subs(mq) == [] and managed_queues(mq) == []


def test_an_administrative_subscription_is_taken_up_from_its_destination(mq: MQ) -> None:
    mq("cmd", f"{Q} DEFINE QLOCAL(AUDIT)", f"{Q} DEFINE SUB(AUDIT) TOPICSTR('A/#') DEST(AUDIT)")
    mq("--system", "CSQ1", "put", "--topic", "A/b", "--data", "x", "-q")
    got = mq("--system", "CSQ1", "get", "--topic", "A/#", "--durable", "--subname", "AUDIT", "--all")
    assert got.stdout == "x\n" and "publications arrive on AUDIT" in got.stderr
    assert subs(mq) == ["AUDIT"]


@pytest.mark.parametrize(
    ("setup", "args", "reason"),
    [
        ([f"{Q} ALTER QMGR PSMODE(DISABLED)"], ["--topic", "a"], "MQRC 2531 (MQRC_PUBSUB_INHIBITED)"),
        ([f"{Q} DEFINE TOPIC(T) TOPICSTR('a') SUB(DISABLED)"], ["--topic", "a/#"], "MQRC 2503 (MQRC_SUB_INHIBITED)"),
        ([f"{Q} DEFINE TOPIC(T) TOPICSTR('a') DURSUB(NO)"], ["--topic", "a", "--durable", "--subname", "S"],
         "MQRC 2436 (MQRC_DURABILITY_NOT_ALLOWED)"),
        ([f"{Q} DEFINE TOPIC(T) TOPICSTR('a') MNDURMDL(NONE)"], ["--topic", "a"],
         "MQRC 2522 (MQRC_INVALID_DESTINATION)"),
        ([f"{Q} ALTER QMODEL(SYSTEM.DURABLE.MODEL.QUEUE) DEFTYPE(TEMPDYN)"], ["--topic", "a", "--durable",
         "--subname", "S"], "MQRC 2522 (MQRC_INVALID_DESTINATION)"),
        ([f"{Q} DEFINE QLOCAL(D)", f"{Q} DEFINE SUB(S) TOPICSTR('a') DEST(D)"], ["--topic", "a", "--subname", "S"],
         "MQRC 2432 (MQRC_SUB_ALREADY_EXISTS)"),
        ([f"{Q} DEFINE QLOCAL(D)", f"{Q} DEFINE SUB(S) TOPICSTR('a') DEST(D)"], ["--topic", "b", "--durable",
         "--subname", "S"], "MQRC 2510 (MQRC_TOPIC_NOT_ALTERABLE)"),
        ([], ["--topic", "a", "--durable", "--subname", "SYSTEM.DEFAULT.SUB"], "MQRC 2523 (MQRC_INVALID_SUBSCRIPTION)"),
        ([], ["--topic", "a", "--selector", "JMSPriority >"], "MQRC 2459 (MQRC_SELECTOR_SYNTAX_ERROR)"),
        ([], ["--topic", "a", "--selector", "JMSPriority > 1 AND " * 600 + "1 = 1"],
         "MQRC 2459 (MQRC_SELECTOR_SYNTAX_ERROR): the selector is longer than 10240 characters"),
    ],
)  # fmt: skip
def test_get_topic_refused_with_ibms_reason(mq: MQ, setup: list[str], args: list[str], reason: str) -> None:
    if setup:
        assert mq("cmd", *setup).exit_code == 0
    before = (subs(mq), managed_queues(mq))
    result = mq("--system", "CSQ1", "get", *args)
    assert result.exit_code == 1, result.output
    assert reason in result.stderr and "MQT0120E Subscribe to topic" in result.stderr
    assert (subs(mq), managed_queues(mq)) == before


def test_a_subscription_held_by_a_live_process_is_in_use(mq: MQ) -> None:
    mq("cmd", f"{Q} DISPLAY QMGR")
    store = Store.open(mq.state_dir)
    try:
        with store.transaction() as tx:
            request = subscriptions.Request("a/#", "HELD", durable=True)
            subscriptions.subscribe(tx, Clock.from_setting(FROZEN), "CSQ1", model("zos"), request)
    finally:
        store.close()
    result = mq("--system", "CSQ1", "get", "--topic", "a/#", "--durable", "--subname", "HELD")
    assert result.exit_code == 1 and "MQRC 2429 (MQRC_SUBSCRIPTION_IN_USE)" in result.stderr
    refused = mq("cmd", f"{Q} DELETE SUB(HELD)")
    assert "X'0000097D'" in refused.output and refused.exit_code != 0


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["Q1", "--topic", "a"], "give a QUEUE or --topic STRING (one of them)"),
        ([], "give a QUEUE or --topic STRING (one of them)"),
        (["Q1", "--durable"], "--durable applies to --topic only"),
        (["--topic", "a", "--durable"], "--durable needs --subname NAME"),
        (["--topic", "a", "--remove"], "--remove applies to --durable"),
        (["--topic", "a", "--browse"], "--browse of a topic needs --durable"),
        (["--topic", "a\x01"], "the topic string contains a control character"),
        (["--topic", "a/" * 5200], "the topic string is longer than 10240 characters"),
        (["--topic", "a", "--subname", "n" * 10241], "--subname: 1 to 10240 characters"),
        (
            ["--topic", "a", "--wait", "soon"],
            "soon is not a number (digits 0-9, a fraction after a point), or 'unlimited'",
        ),
        (["--topic", "a", "--wait", "-1"], "-1 is not a number (digits 0-9, a fraction after a point), or 'unlimited'"),
    ],
)
def test_get_topic_usage_errors(mq: MQ, args: list[str], problem: str) -> None:
    result = mq("--system", "CSQ1", "get", *args)
    assert result.exit_code == 2 and problem in result.output


def test_ztpf_has_no_subscriptions(mq: MQ) -> None:
    result = mq("--system", "TPF1", "get", "--topic", "a")
    assert result.exit_code == 2 and "z/TPF MQ has no publish/subscribe" in result.output


# ------------------------------------------------------------------ the clean-up after a dead holder


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait(timeout=60)
    return process.pid


def test_the_next_command_removes_a_dead_subscribers_subscriptions(mq: MQ) -> None:
    """A holder that ended without closing (its row in sub_owners names a process that is
    gone): its non-durable subscription goes with its queue and messages, its durable
    one stays, let go (ACTCONN zeros)."""
    mq("cmd", f"{Q} DISPLAY QMGR")
    store = Store.open(mq.state_dir)
    clock = Clock.from_setting(FROZEN)
    try:
        with store.transaction() as tx:
            dead = subscriptions.Owner(_dead_pid(), "")
            for request in (subscriptions.Request("a/#"), subscriptions.Request("a/#", "KEPT", durable=True)):
                subscriptions.subscribe(tx, clock, "CSQ1", model("zos"), request, dead)
    finally:
        store.close()
    assert len(owners(mq.state_dir)) == 2
    mq("--system", "CSQ1", "put", "--topic", "a/b", "--data", "x", "-q")  # this command cleans up first
    assert subs(mq) == ["KEPT"]
    assert [name for name in managed_queues(mq) if "NDURABLE" in name] == []
    assert owners(mq.state_dir) == []
    shown = mq("cmd", f"{Q} DISPLAY SBSTATUS(KEPT) ACTCONN").output
    assert f"ACTCONN({'0' * 48})" in shown


def test_a_reused_process_id_is_not_the_holder(mq: MQ) -> None:
    """The holder's start time is kept with its process id: a live process that got the
    same id later is not taken for it."""
    owner = subscriptions.Owner(os.getpid(), "1")  # this process, but not started then
    assert not owner.alive()
    assert subscriptions.Owner.me().alive()


# ------------------------------------------------------------------ expiry, export, apply


def test_a_subscription_ends_when_its_expiry_passes(mq: MQ, tmp_path: Path) -> None:
    script = tmp_path / "expiry.mqsc"
    script.write_text(
        ".system CSQ1\nDEFINE SUB(E) TOPICSTR('e') DESTCLAS(MANAGED) EXPIRY(300)\n"
        ".put topic=e data=x\n.advance 29s\nDISPLAY SUB(E) SUMMARY\n.advance 1s\nDISPLAY SUB(E) SUMMARY\n"
        "DISPLAY QLOCAL(SYSTEM.MANAGED.*)\n"
    )
    out = mq("run", str(script)).output.splitlines()
    assert out.count("SUB(E)") == 1  # shown before it expires, not after
    assert "CSQM297I -CSQ1 CSQMDRTS NO SUB FOUND MATCHING REQUEST CRITERIA" in out
    assert managed_queues(mq) == [] and subs(mq) == []


def test_export_and_apply_leave_applications_subscriptions_alone(mq: MQ, tmp_path: Path) -> None:
    mq("--system", "CSQ1", "get", "--topic", "x/#", "--durable", "--subname", "APPSUB", "--all", "-q")
    mq("cmd", f"{Q} DEFINE QLOCAL(D)", f"{Q} DEFINE SUB(ADMINSUB) TOPICSTR('y') DEST(D)")
    exported = mq("export", "--system", "CSQ1", "--format", "commands").output
    assert "ADMINSUB" in exported and "APPSUB" not in exported and "SYSTEM.MANAGED" not in exported
    document = tmp_path / "complex.yaml"
    assert mq("export", "--format", "yaml", "--all", "-o", str(document)).exit_code == 0
    applied = mq("apply", "--prune", str(document))
    assert applied.exit_code == 0, applied.output
    assert "APPSUB" not in applied.output and "SYSTEM.MANAGED" not in applied.output
    assert sorted(subs(mq)) == ["ADMINSUB", "APPSUB"]
    assert len(managed_queues(mq)) == 1


# ------------------------------------------------------------------ REST


def test_a_rest_publication_reaches_a_live_non_durable_subscriber(state_dir: Path) -> None:
    """The REST API makes no subscriptions (IBM's messaging API has no subscribe
    resource); what it publishes reaches those applications hold."""
    from mqtool.rest.service import RestService
    from tests.test_rest_api import APP, V2, Client, configure

    configure(state_dir)
    clock = Clock.from_setting(FROZEN)
    store = Store.open(state_dir)
    ensure_complex(store, clock.timestamp())
    try:
        with store.transaction() as tx:
            held = subscriptions.subscribe(tx, clock, "CSQ1", model("zos"), subscriptions.Request("Price/#"))
        with RestService(state_dir, clock) as service:
            client = Client(service.port)
            url = f"{V2}/messaging/qmgr/CSQ1/topic/Price/Fruit/message"
            status, _, body = client.request("POST", url, b"1.20", user=APP,
                                             headers={"Content-Type": "text/plain;charset=utf-8"})  # fmt: skip
            assert (status, body) == (201, b"")
            status, _, body = client.request("DELETE", f"{V2}/messaging/qmgr/CSQ1/queue/{held.queue}/message", user=APP)
            assert (status, body) == (200, b"1.20")
    finally:
        store.close()


# ------------------------------------------------------------------ statistics

TOPIC_SCRIPT = """.system CSQ1
START TRACE(STAT) CLASS(1)
DEFINE QLOCAL(Q1)
DEFINE QLOCAL(Q2)
DEFINE SUB(A) TOPICSTR('a/#') DEST(Q1)
DEFINE SUB(B) TOPICSTR('a/+') DEST(Q2) SELECTOR('JMSPriority > 5')
.put topic=a/x count=3
.put topic=a/x count=1 priority=7
.put topic=b data=nobody
.subscribe topic=a/#
.put topic=a/y data=hi retain=yes
.get topic=a/# count=all
.unsubscribe topic=a/#
.subscribe topic=a/y name=D durable=yes
.unsubscribe name=D
DELETE SUB(B)
.advance 60s
"""

TOPIC_TEXT = """CSQ1,CSQ1,2021/03/09,15:42:22,VRM:940,
From 2021/03/09,15:41:22 to 2021/03/09,15:42:22, duration 60 seconds.
QTSTSTOT Subscription requests......................4
QTSTSDUR Durable subscription requests..............3
QTSTSHIG Subscriptions high water, API..............1
QTSTSHIG Subscriptions high water, ADMIN............2
QTSTSHIG Subscriptions high water, PROXY............0
QTSTSLOW Subscriptions low water, API...............0
QTSTSLOW Subscriptions low water, ADMIN.............0
QTSTSLOW Subscriptions low water, PROXY.............0
QTSTSEXP Subscriptions expired......................0
QTSTTMSG Messages put to subscriber queues..........8
QTSTSPHW Most subscribers of one publication........3
QTSTPTOT Publication requests, API..................6
QTSTPTOT Publication requests, ADMIN................0
QTSTPTOT Publication requests, PROXY................0
QTSTPTHI Publish high water (copies)................2
QTSTPTLO Publish low water (copies).................0
QTSTPNOS Publications to no subscriber..............1
QTSTETHW Longest publish (seconds)..................0.000000
QTSTETTO Total publish time (seconds)...............0.000000
QMSTSUB MQSUB requests..............................2
QMSTSUBR MQSUBRQ requests...........................0
QMSTPUBS Publications...............................6
"""


def test_smf_topic_counts_publications_and_subscriptions(mq: MQ, tmp_path: Path) -> None:
    """Two administrative and two API subscriptions (three durable), six publications:
    eight copies put (three a/x to A, one priority 7 a/x to A and B, a/y to A and the API
    subscription, the retained a/y to D), one publication nobody matched, three
    subscriptions matched by a/y, and the interval's high and low numbers of each type."""
    script = tmp_path / "topic.mqsc"
    script.write_text(TOPIC_SCRIPT)
    assert mq("run", str(script)).exit_code == 0
    text = mq("smf", "topic", "--system", "CSQ1")
    assert text.exit_code == 0 and text.output == TOPIC_TEXT
    records = json.loads(mq("smf", "topic", "--format", "json").output)
    assert len(records) == 1
    assert records[0] | {} == {
        "smf_id": "CSQ1", "queue_manager": "CSQ1", "interval_start": "2021-03-09T15:41:22+00:00",
        "interval_end": "2021-03-09T15:42:22+00:00", "duration_seconds": 60,
        "QTSTSTOT": 4, "QTSTSDUR": 3, "QTSTSHIG_API": 1, "QTSTSHIG_ADMIN": 2, "QTSTSHIG_PROXY": 0,
        "QTSTSLOW_API": 0, "QTSTSLOW_ADMIN": 0, "QTSTSLOW_PROXY": 0, "QTSTSEXP": 0, "QTSTTMSG": 8, "QTSTSPHW": 3,
        "QTSTPTOT_API": 6, "QTSTPTOT_ADMIN": 0, "QTSTPTOT_PROXY": 0, "QTSTPTHI": 2, "QTSTPTLO": 0, "QTSTPNOS": 1,
        "QTSTETHW": 0.0, "QTSTETTO": 0.0, "QMSTSUB": 2, "QMSTSUBR": 0, "QMSTPUBS": 6,
    }  # fmt: skip
    csv_lines = mq("smf", "topic", "--format", "csv").output.splitlines()
    assert csv_lines[0].endswith(",QTSTSTOT,QTSTSDUR,QTSTSHIG_API,QTSTSHIG_ADMIN,QTSTSHIG_PROXY,QTSTSLOW_API,"
                                 "QTSTSLOW_ADMIN,QTSTSLOW_PROXY,QTSTSEXP,QTSTTMSG,QTSTSPHW,QTSTPTOT_API,"
                                 "QTSTPTOT_ADMIN,QTSTPTOT_PROXY,QTSTPTHI,QTSTPTLO,QTSTPNOS,QTSTETHW,QTSTETTO,"
                                 "QMSTSUB,QMSTSUBR,QMSTPUBS")  # fmt: skip
    assert csv_lines[1] == ("CSQ1,CSQ1,2021-03-09 15:41:22,2021-03-09 15:42:22,60,4,3,1,2,0,0,0,0,0,8,3,6,0,0,2,0,1,"
                            "0.0,0.0,2,0,6")  # fmt: skip


def test_smf_topic_counts_expired_subscriptions_and_only_with_class_1(mq: MQ, tmp_path: Path) -> None:
    script = tmp_path / "expired.mqsc"
    script.write_text(
        ".system CSQ1\nDEFINE SUB(BEFORE) TOPICSTR('z') DESTCLAS(MANAGED)\n.put topic=z data=uncounted\n"
        "START TRACE(STAT) CLASS(1)\nDEFINE SUB(E) TOPICSTR('e') DESTCLAS(MANAGED) EXPIRY(100)\n"
        ".put topic=z data=counted\n.advance 60s\nSTOP TRACE(STAT)\n.put topic=z data=uncounted\n"
    )
    assert mq("run", str(script)).exit_code == 0
    records = json.loads(mq("smf", "topic", "--format", "json").output)
    assert [(r["QTSTSTOT"], r["QTSTSEXP"], r["QTSTPTOT_API"], r["QTSTTMSG"], r["QTSTSHIG_ADMIN"],
             r["QTSTSLOW_ADMIN"]) for r in records] == [(1, 1, 1, 1, 2, 1), (0, 0, 0, 0, 1, 1)]  # fmt: skip
    # The second record is the partial interval STOP TRACE ends (none of its time passed).
    assert records[1]["duration_seconds"] == 0
    empty = mq("smf", "topic", "--system", "CSQ1")
    assert empty.exit_code == 0 and "QTSTSEXP Subscriptions expired......................1" in empty.output


def test_smf_topic_without_records(mq: MQ) -> None:
    result = mq("smf", "topic")
    assert result.exit_code == 0
    assert result.output.startswith("No topic manager statistics records on CSQ1: START TRACE(STAT) CLASS(1)")


# ------------------------------------------------------------------ whole processes

PATIENCE = 120.0


def _env(state: Path) -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("MQTOOL_")} | {"MQTOOL_STATE": str(state)}


def _mqtool(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "mqtool", *args], env=_env(state), capture_output=True, text=True,
                          timeout=PATIENCE)  # fmt: skip


def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def _api_subscriptions(state: Path) -> list[str]:
    store = Store.open(state)
    try:
        with store.transaction(write=False) as tx:
            return [r.name for r in tx.objects("CSQ1", "SUB") if r.status.get("subtype") == "API"]
    finally:
        store.close()


def _subscriber(state: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "mqtool", "--system", "CSQ1", "get", *args],
        env=_env(state), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    state = tmp_path / "state"
    assert _mqtool(state, "cmd", f"{Q} DISPLAY QMGR").returncode == 0
    return state


@pytest.mark.slow
def test_a_subscriber_process_receives_what_another_process_publishes(store_dir: Path) -> None:
    subscriber = _subscriber(store_dir, "--topic", "Live/#", "--count", "3", "--wait", str(PATIENCE))
    try:
        _until(lambda: len(_api_subscriptions(store_dir)) == 1, "the subscription")
        for number in range(3):
            published = _mqtool(store_dir, "--system", "CSQ1", "put", "--topic", f"Live/{number}", "--data",
                                f"message {number}", "-q")  # fmt: skip
            assert published.returncode == 0, published.stderr
        out, err = subscriber.communicate(timeout=PATIENCE)
    finally:
        if subscriber.poll() is None:
            subscriber.kill()
            subscriber.wait()
    assert subscriber.returncode == 0, err
    assert out.splitlines() == ["message 0", "message 1", "message 2"]
    assert "MQT0161I Subscription API." in err
    assert _api_subscriptions(store_dir) == []  # ended by the subscriber itself


@pytest.mark.slow
def test_a_killed_subscriber_leaves_no_subscription_once_another_command_ran(store_dir: Path) -> None:
    subscriber = _subscriber(store_dir, "--topic", "Kill/#", "--all", "--wait", "unlimited")
    durable = _subscriber(store_dir, "--topic", "Kill/#", "--durable", "--subname", "STAYS", "--all", "--wait",
                          "unlimited")  # fmt: skip
    try:
        _until(lambda: len(_api_subscriptions(store_dir)) == 2, "the subscriptions")
        assert _mqtool(store_dir, "--system", "CSQ1", "put", "--topic", "Kill/x", "--data", "x", "-q").returncode == 0
        for process in (subscriber, durable):
            process.send_signal(signal.SIGKILL)
        for process in (subscriber, durable):
            process.wait(timeout=PATIENCE)
    finally:
        for process in (subscriber, durable):
            if process.poll() is None:
                process.kill()
                process.wait()
    assert len(_api_subscriptions(store_dir)) == 2  # nobody has looked yet
    shown = _mqtool(store_dir, "cmd", f"{Q} DISPLAY SUB(*) SUMMARY", f"{Q} DISPLAY QLOCAL(SYSTEM.MANAGED.*)")
    names = re.findall(r"^SUB\((.*)\)$", shown.stdout, re.M)
    assert names == ["STAYS", "SYSTEM.DEFAULT.SUB"], shown.stdout
    queues = re.findall(r"^QUEUE\((.*)\)$", shown.stdout, re.M)
    assert len(queues) == 1 and queues[0].startswith("SYSTEM.MANAGED.DURABLE."), shown.stdout
    assert owners(store_dir) == []


@pytest.mark.slow
def test_sigterm_ends_a_subscriber_cleanly(store_dir: Path) -> None:
    subscriber = _subscriber(store_dir, "--topic", "Term/#", "--all", "--wait", "unlimited")
    try:
        _until(lambda: len(_api_subscriptions(store_dir)) == 1, "the subscription")
        subscriber.send_signal(signal.SIGTERM)
        _, err = subscriber.communicate(timeout=PATIENCE)
    finally:
        if subscriber.poll() is None:
            subscriber.kill()
            subscriber.wait()
    assert subscriber.returncode == 143, err
    assert "MQT0161I Subscription API." in err
    assert _api_subscriptions(store_dir) == []  # ended by the subscriber, before any other command


def test_a_held_subscription_that_expires_ends_the_gets_from_it(mq: MQ, tmp_path: Path) -> None:
    """A durable subscription an application took up ends when its EXPIRY passes: a get
    from it then finds no queue (2085, without the hint to define one) and closing it
    finds no subscription (2428)."""
    script = tmp_path / "held.mqsc"
    script.write_text(
        ".system CSQ1\nDEFINE SUB(E) TOPICSTR('e') DESTCLAS(MANAGED) EXPIRY(10)\n"
        ".subscribe topic=e name=E durable=yes\n.advance 2s\n.get topic=e\n.unsubscribe name=E\n"
    )
    out = mq("run", str(script)).output.splitlines()
    assert "MQT0153I" not in "\n".join(out)
    assert any(
        line.startswith("MQT0120E Get from topic 'e' failed: MQRC 2085 (MQRC_UNKNOWN_OBJECT_NAME)") for line in out
    )
    assert (
        "MQT0120E Close of subscription E failed: MQRC 2428 (MQRC_NO_SUBSCRIPTION): there is no subscription "
        "named 'E'" in out
    )
