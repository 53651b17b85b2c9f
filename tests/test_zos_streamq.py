"""Streaming queue restrictions at DEFINE and ALTER: the rules over the whole set of
queues (loops, chains, transmission queues, model queues, SYSTEM. names), alias
resolution, and that a refused command changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

from mqtool.commands.zos.rules import resolve


def zos(mq: Any, *commands: str) -> str:
    result = mq("--system", "CSQ1", "cmd", *commands)
    return str(result.output)


def test_the_seed_command(mq: Any) -> None:
    out = zos(
        mq,
        "DEF QL(QUEUE1)",
        "DEF QL(QUEUE2)",
        "ALTER QLOCAL(QUEUE1) STREAMQ(QUEUE2) STRMQOS(MUSTDUP)",
        "DIS QL(QUEUE1) STREAMQ STRMQOS",
    )
    assert out.splitlines()[2:] == [
        "CSQ9022I -CSQ1 CSQMAQLC ' ALTER QLOCAL' NORMAL COMPLETION",
        "CSQM293I -CSQ1 CSQMDRTC 1 QLOCAL FOUND MATCHING REQUEST CRITERIA",
        "CSQM201I -CSQ1 CSQMDRTC DISPLAY QLOCAL DETAILS",
        "QUEUE(QUEUE1)",
        "TYPE(QLOCAL)",
        "QSGDISP(QMGR)",
        "STREAMQ(QUEUE2)",
        "STRMQOS(MUSTDUP)",
        "END QLOCAL DETAILS",
        "CSQ9022I -CSQ1 CSQMDRTS ' DISPLAY QLOCAL' NORMAL COMPLETION",
    ]


def test_resolve_follows_aliases_and_stops_at_alias_loops() -> None:
    world = {
        "A": ("QALIAS", {"TARGET": "B"}),
        "B": ("QALIAS", {"TARGET": "Q"}),
        "Q": ("QLOCAL", {}),
        "X": ("QALIAS", {"TARGET": "Y"}),
        "Y": ("QALIAS", {"TARGET": "X"}),
    }
    assert resolve(world, "A") == (["A", "B"], "Q")
    assert resolve(world, "Q") == ([], "Q")
    assert resolve(world, "NEW") == ([], "NEW")
    assert resolve(world, "X") == (["X", "Y"], "X")


SETUP = ("DEF QL(Q1)", "DEF QL(Q2)", "ALT QL(Q1) STREAMQ(Q2)")


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("ALT QL(Q2) STREAMQ(Q2)", "STREAMQ(Q2) NOT ALLOWED - Q2 WOULD STREAM TO ITSELF"),
        ("ALT QL(Q2) STREAMQ(Q1)", "STREAMQ(Q1) NOT ALLOWED - Q2 STREAMS TO Q1, WHICH STREAMS TO Q2: A STREAMING LOOP"),
        ("DEF QL(Q0) STREAMQ(Q1)", "STREAMQ(Q1) NOT ALLOWED - Q0 STREAMS TO Q1, WHICH STREAMS TO Q2: NO CHAINS"),
        ("ALT QL(Q2) STREAMQ(Q3)", "STREAMQ(Q3) NOT ALLOWED - Q1 STREAMS TO Q2, WHICH STREAMS TO Q3: NO CHAINS"),
        (
            "ALT QL(Q1) USAGE(XMITQ)",
            "USAGE(XMITQ) NOT ALLOWED - Q1 HAS STREAMQ(Q2) AND A TRANSMISSION QUEUE CANNOT STREAM",
        ),
        (
            "DEF QL(X1) USAGE(XMITQ) STREAMQ(Q2)",
            "STREAMQ(Q2) NOT ALLOWED - X1 IS A TRANSMISSION QUEUE (USAGE(XMITQ)), WHICH CANNOT STREAM",
        ),
        (
            "DEF QM(Q2M) STREAMQ(Q1)",
            "STREAMQ(Q1) NOT ALLOWED - Q2M STREAMS TO Q1, WHICH STREAMS TO Q2: NO CHAINS",
        ),
        (
            "ALT QL(Q1) STREAMQ(SYSTEM.DEAD.QUEUE)",
            "STREAMQ(SYSTEM.DEAD.QUEUE) NOT ALLOWED - A STREAMQ CANNOT NAME A SYSTEM. QUEUE, "
            "EXCEPT SYSTEM.DEFAULT.LOCAL.QUEUE",
        ),
        (
            "ALT QL(SYSTEM.DEFAULT.MODEL.QUEUE) STREAMQ(Q2)",
            None,
        ),
    ],
)
def test_rejected_forms(mq: Any, command: str, reason: str | None) -> None:
    zos(mq, *SETUP)
    out = zos(mq, command)
    if reason is None:
        # SYSTEM.DEFAULT.MODEL.QUEUE is a model queue: ALTER QLOCAL names the wrong type.
        assert out.splitlines()[0].startswith("CSQM110I")
        return
    lines = out.splitlines()
    assert lines[0].split(" ", 3)[3] == reason
    assert lines[1].startswith("CSQ9023E -CSQ1")
    # Nothing changed: Q1 still streams to Q2 and nothing else streams.
    streams = [
        line for line in zos(mq, "DIS Q(*) STREAMQ").splitlines() if line.startswith("STREAMQ(") and "( )" not in line
    ]
    assert streams == ["STREAMQ(Q2)"]


def test_a_model_queue_defined_under_a_streamed_name(mq: Any) -> None:
    zos(mq, "DEF QL(SRC) STREAMQ(COPIES)")
    assert zos(mq, "DEF QM(COPIES)").splitlines()[0] == (
        "CSQM181E -CSQ1 CSQMAQMD QMODEL(COPIES) NOT ALLOWED - SRC STREAMS TO COPIES, A MODEL QUEUE, "
        "WHICH CANNOT RECEIVE STREAMED MESSAGES"
    )
    assert zos(mq, "DEF QL(COPIES)") == "CSQ9022I -CSQ1 CSQMAQLC ' DEFINE QLOCAL' NORMAL COMPLETION\n"


def test_an_alias_retargeted_into_a_loop(mq: Any) -> None:
    zos(mq, "DEF QL(Q1)", "DEF QL(Q2)", "DEF QA(VIA) TARGET(Q2)", "ALT QL(Q1) STREAMQ(VIA)")
    assert zos(mq, "ALT QA(VIA) TARGET(Q1)").splitlines()[0] == (
        "CSQM181E -CSQ1 CSQMAQAL TARGET(Q1) NOT ALLOWED - Q1 STREAMS TO VIA, WHICH RESOLVES TO Q1: A STREAMING LOOP"
    )


@pytest.mark.parametrize(
    "command",
    [
        "DEF QR(REMOTE.COPIES) RNAME(COPIES) RQMNAME(QM2)",
        "DEF QA(ALIAS.COPIES) TARGET(Q2)",
        "DEF QL(XMIT.COPIES) USAGE(XMITQ)",
    ],
)
def test_remote_alias_and_transmission_queues_may_receive_copies(mq: Any, command: str) -> None:
    zos(mq, "DEF QL(Q1)", "DEF QL(Q2)", command)
    target = command.split("(")[1].split(")")[0]
    assert zos(mq, f"ALT QL(Q1) STREAMQ({target})") == "CSQ9022I -CSQ1 CSQMAQLC ' ALTER QLOCAL' NORMAL COMPLETION\n"


def test_the_system_queues_ibm_allows_may_stream(mq: Any) -> None:
    out = zos(
        mq,
        "DEF QL(Q2)",
        "ALT QL(SYSTEM.DEFAULT.LOCAL.QUEUE) STREAMQ(Q2)",
        "DEF QL(SYSTEM.ADMIN.CHANNEL.EVENT) STREAMQ(Q2)",
        "DEF QL(SYSTEM.OTHER) STREAMQ(Q2)",
    )
    assert out.splitlines()[1:] == [
        "CSQ9022I -CSQ1 CSQMAQLC ' ALTER QLOCAL' NORMAL COMPLETION",
        "CSQ9022I -CSQ1 CSQMAQLC ' DEFINE QLOCAL' NORMAL COMPLETION",
        "CSQM181E -CSQ1 CSQMAQLC STREAMQ(Q2) NOT ALLOWED - SYSTEM.OTHER IS A SYSTEM QUEUE, WHICH CANNOT HAVE A STREAMQ",
        "CSQ9023E -CSQ1 CSQMAQLC ' DEFINE QLOCAL' ABNORMAL COMPLETION",
    ]
