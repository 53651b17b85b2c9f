"""The ZMQSC verbs beyond the seeds (MOVEMSGS, MIGRATE, DBREBUILD), triggering
(TRIGTYPE, PROCESS), the processor of a channel (CPU) and DISPLAY CHL STATUS, as an
operator meets them through `mqtool cmd` on a complex of two processors: TPF1 (CPU-B)
and TPF2 (CPU-C), both with queue manager TPFQM."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mqtool.state import Store
from tests.conftest import MQ


def lines(mq: MQ, *commands: str, system: str | None = None) -> list[str]:
    args = ["--system", system] if system else []
    result = mq(*args, "cmd", *commands)
    return result.output.splitlines()


def messages(mq: MQ, system: str, queue: str) -> list[tuple[bytes, int, int, float]]:
    """(msgid, priority, persistent, put time) of a queue's messages, in get order."""
    store = Store.open(mq.state_dir)
    try:
        rows = store.conn.execute(
            "SELECT msgid, priority, persistent, put_time FROM messages WHERE system = ? AND queue = ? ORDER BY id",
            (system, queue),
        ).fetchall()
    finally:
        store.close()
    return [(bytes(row[0]), int(row[1]), int(row[2]), float(row[3])) for row in rows]


@pytest.fixture
def two(mq: MQ) -> MQ:
    """TPF1 (CPU-B) and TPF2 (CPU-C) with queue manager TPFQM and queue Q1 on both;
    three messages on TPF2's Q1, its queue manager stopped (a deactivated processor)."""
    assert mq("system", "add", "TPF2", "--platform", "ztpf", "--processor", "C", "--qmgr", "TPFQM").exit_code == 0
    lines(mq, "ZMQSC DEFINE QL-Q1")
    lines(mq, "ZMQSC DEFINE QL-Q1", system="TPF2")
    for priority, data in ((0, "first"), (5, "urgent"), (0, "second")):
        put = mq("--system", "TPF2", "put", "Q1", "--data", data, "--priority", str(priority), "--persistent", "-q")
        assert put.exit_code == 0, put.output
    lines(mq, "ZMQSC STOP QMGR", system="TPF2")
    return mq


# -- MOVEMSGS -------------------------------------------------------------------------------


def test_movemsgs_moves_every_message_keeping_its_descriptor(two: MQ) -> None:
    before = messages(two, "TPF2", "Q1")
    out = lines(two, "ZMQSC MOVEMSGS Q-Q1 CPU-C")
    assert out[1] == "MQSC0411I 10.41.22 3 MESSAGE(S) MOVED FROM Q-Q1 OF CPU-C TO CPU-B+"
    assert messages(two, "TPF2", "Q1") == []
    assert messages(two, "TPF1", "Q1") == before  # ids, priority (get order), persistence, put time
    got = two("get", "Q1", "--all")
    assert got.output.splitlines()[:3] == ["urgent", "first", "second"]


def test_movemsgs_refusals_change_nothing(two: MQ) -> None:
    lines(two, "ZMQSC DEFINE QL-XQ USAGE-XMITQ", "ZMQSC DEFINE QL-SHARED COMMON-YES", "ZMQSC DEFINE QA-AL TARGQ-Q1")
    cases = {
        "ZMQSC MOVEMSGS Q-Q1": "MQSC0016E 10.41.22 KEYWORD CPU REQUIRED FOR MOVEMSGS+",
        "ZMQSC MOVEMSGS Q-Q1 CPU-CC": "MQSC0014E 10.41.22 VALUE CC NOT VALID FOR CPU - ALLOWED UP TO 1 CHARACTERS+",
        "ZMQSC MOVEMSGS Q-Q1 CPU-%": "MQSC0014E 10.41.22 VALUE % NOT VALID FOR CPU - ALLOWED A PROCESSOR ID "
        "(1 LETTER OR DIGIT)+",
        "ZMQSC MOVEMSGS Q-Q1 CPU-B": "MQSC0417E 10.41.22 CPU-B IS THIS PROCESSOR - MOVEMSGS MOVES MESSAGES FROM "
        "ANOTHER ONE+",
        "ZMQSC MOVEMSGS Q-Q1 CPU-D": "MQSC0413E 10.41.22 NO PROCESSOR CPU-D WITH QMGR-TPFQM IN THE COMPLEX+",
        "ZMQSC MOVEMSGS Q-XQ CPU-C": "MQSC0415E 10.41.22 Q-XQ ON CPU-C IS NOT DEFINED - MOVEMSGS MOVES A NORMAL "
        "LOCAL MEMORY QUEUE+",
        "ZMQSC MOVEMSGS Q-NONE CPU-C": "MQSC0415E 10.41.22 Q-NONE ON CPU-C IS NOT DEFINED - MOVEMSGS MOVES A NORMAL "
        "LOCAL MEMORY QUEUE+",
        "ZMQSC MOVEMSGS Q-Q1 CPU-C PURGE": "MQSC0013E 10.41.22 KEYWORD PURGE NOT VALID FOR Q - VALID KEYWORDS ARE "
        "CPU, FORCE+",
        "ZMQSC MOVEMSGS QL-Q1 CPU-C": "MQSC0012E 10.41.22 OBJECT QL NOT VALID FOR MOVEMSGS - VALID OBJECTS ARE Q+",
        "ZMQSC MOVEMSGS Q-Q* CPU-C": "MQSC0021E 10.41.22 NAME Q* NOT VALID FOR Q - A GENERIC NAME (ENDING IN *) "
        "IS VALID ONLY WITH DISPLAY+",
    }
    for command, answer in cases.items():
        assert lines(two, command)[1] == answer, command
    # The queue must be a normal memory queue on both processors.
    lines(two, "ZMQSC START QMGR", system="TPF2")
    lines(two, "ZMQSC DEFINE QL-XQ USAGE-XMITQ", "ZMQSC DEFINE QL-SHARED COMMON-YES", system="TPF2")
    lines(two, "ZMQSC DEFINE QA-AL TARGQ-Q1", system="TPF2")
    assert lines(two, "ZMQSC MOVEMSGS Q-Q1 CPU-C")[1] == (
        "MQSC0414E 10.41.22 CPU-C (TPF2) IS ACTIVE - QUEUE MANAGER TPFQM IS STARTED THERE - MOVEMSGS NEEDS A "
        "DEACTIVATED PROCESSOR+"
    )
    lines(two, "ZMQSC STOP QMGR", system="TPF2")
    assert "A TRANSMISSION QUEUE (USAGE-XMITQ)" in lines(two, "ZMQSC MOVEMSGS Q-XQ CPU-C")[1]
    assert "A PROCESSOR SHARED QUEUE (COMMON-YES)" in lines(two, "ZMQSC MOVEMSGS Q-SHARED CPU-C")[1]
    assert "Q-AL ON CPU-C IS A QA" in lines(two, "ZMQSC MOVEMSGS Q-AL CPU-C")[1]
    assert len(messages(two, "TPF2", "Q1")) == 3 and messages(two, "TPF1", "Q1") == []


def test_movemsgs_is_all_or_nothing_and_force_moves_what_fits(two: MQ) -> None:
    lines(two, "ZMQSC ALTER QL-Q1 MAXDEPTH-2")
    two("put", "Q1", "--data", "here", "-q")
    out = lines(two, "ZMQSC MOVEMSGS Q-Q1 CPU-C")
    assert out[1].startswith("MQSC0416E 10.41.22 MOVEMSGS NOT PROCESSED - MESSAGE ")
    assert out[1].endswith(
        "MQRC 2053 (MQRC_Q_FULL): Q1 HOLDS MAXDEPTH 2 MESSAGES - NO MESSAGES MOVED - FORCE MOVES WHAT CAN BE MOVED+"
    )
    assert len(messages(two, "TPF2", "Q1")) == 3 and len(messages(two, "TPF1", "Q1")) == 1
    out = lines(two, "ZMQSC MOVEMSGS Q-Q1 CPU-C FORCE")
    assert out[1].startswith("MQSC0412W 10.41.22 1 MESSAGE(S) MOVED FROM Q-Q1 OF CPU-C TO CPU-B - 2 LEFT THERE: ")
    assert len(messages(two, "TPF2", "Q1")) == 2 and len(messages(two, "TPF1", "Q1")) == 2


def test_movemsgs_leaves_a_damaged_message_only_with_force(two: MQ) -> None:
    store = Store.open(two.state_dir)
    try:
        with store.transaction() as tx:
            first = tx.conn.execute(
                "SELECT min(id) FROM messages WHERE system = 'TPF2' AND queue = 'Q1' AND priority = 0"
            ).fetchone()[0]
            tx.conn.execute("UPDATE messages SET payload = x'00' WHERE id = ?", (first,))
    finally:
        store.close()
    out = lines(two, "ZMQSC MOVEMSGS Q-Q1 CPU-C")
    assert out[1].startswith("MQSC0416E") and "IS DAMAGED" in out[1]
    out = lines(two, "ZMQSC MOVEMSGS Q-Q1 CPU-C FORCE")
    assert out[1].startswith("MQSC0412W 10.41.22 2 MESSAGE(S) MOVED") and "1 LEFT THERE" in out[1]


def test_movemsgs_needs_this_queue_manager_running(two: MQ) -> None:
    lines(two, "ZMQSC STOP QMGR")
    out = lines(two, "ZMQSC MOVEMSGS Q-Q1 CPU-C")
    assert out[1].startswith("MQSC0416E 10.41.22 MOVEMSGS NOT PROCESSED - Q-Q1 MQRC 2059")
    assert len(messages(two, "TPF2", "Q1")) == 3


def test_movemsgs_of_an_empty_queue_moves_nothing(two: MQ) -> None:
    lines(two, "ZMQSC DEFINE QL-EMPTY", "ZMQSC START QMGR", system="TPF2")
    lines(two, "ZMQSC DEFINE QL-EMPTY", "ZMQSC STOP QMGR", system="TPF2")
    lines(two, "ZMQSC DEFINE QL-EMPTY")
    assert lines(two, "ZMQSC MOVEMSGS Q-EMPTY CPU-C")[1] == (
        "MQSC0411I 10.41.22 0 MESSAGE(S) MOVED FROM Q-EMPTY OF CPU-C TO CPU-B+"
    )


@pytest.mark.slow
def test_movemsgs_killed_in_the_middle_moves_nothing_twice_and_loses_nothing(two: MQ) -> None:
    """SIGKILL inside the unit of work, after two of three messages moved: nothing moved
    (the rows are where they were); the move entered again moves each exactly once."""
    before = messages(two, "TPF2", "Q1")
    env = {key: value for key, value in os.environ.items() if not key.startswith("MQTOOL_")}
    env |= {"MQTOOL_STATE": str(two.state_dir), "MQTOOL_TEST_MOVE_CRASH": "2"}
    killed = subprocess.run(
        [sys.executable, "-m", "mqtool", "cmd", "ZMQSC MOVEMSGS Q-Q1 CPU-C"],
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert killed.returncode == -signal.SIGKILL, killed
    assert b"MQSC0411I" not in killed.stdout  # nothing was reported done
    assert messages(two, "TPF2", "Q1") == before and messages(two, "TPF1", "Q1") == []
    assert lines(two, "ZMQSC DIS QL-Q1")[-4:-1] == ["CURDEPTH 0", "SWBS 0", "COMPRESSED 0"]
    out = lines(two, "ZMQSC MOVEMSGS Q-Q1 CPU-C")
    assert out[1].startswith("MQSC0411I 10.41.22 3 MESSAGE(S) MOVED")
    after = messages(two, "TPF1", "Q1")
    assert after == before and len({row[0] for row in after}) == 3
    assert messages(two, "TPF2", "Q1") == []


def test_movemsgs_triggers_the_target_queue(two: MQ) -> None:
    lines(two, "ZMQSC ALTER QL-Q1 TRIGTYPE-FIRST PROCESS-ORD1")
    lines(two, "ZMQSC MOVEMSGS Q-Q1 CPU-C")
    console = two("console").output
    assert console.count("MQSC0431I") == 1
    assert "QL-Q1 TRIGGERED (TRIGTYPE-FIRST) - PROGRAM ORD1 ACTIVATED WITH MQTM FOR QL-Q1" in console


# -- MIGRATE ---------------------------------------------------------------------------------


def test_migrate_begin_blocks_definitions_until_commit(mq: MQ) -> None:
    lines(mq, "ZMQSC DEFINE QL-MEM", "ZMQSC DEFINE QL-COMMONQ COMMON-YES", "ZMQSC DEFINE QL-NOSWEEP SWEEP-NO")
    assert lines(mq, "ZMQSC MIGRATE BEGIN")[1] == (
        "MQSC0401I 10.41.22 MIGRATION MODE STARTED FOR QMGR-TPFQM - 4 PROCESSOR UNIQUE QUEUE(S) MIGRATED WITH SWEEP-NO+"
    )
    shown = lines(mq, "ZMQSC DIS QL-MEM", "ZMQSC DIS QL-COMMONQ", "ZMQSC DIS QMGR")
    assert shown.count("SWEEP NO") == 1 and shown.count("SWEEP YES") == 1 and "MIGRATION ACTIVE" in shown
    refused = {
        "ZMQSC DEFINE QL-NEW": "ZMQSC DEFINE QL-NEW",
        "ZMQSC DEF QA-A TARGQ-MEM": "ZMQSC DEFINE QA-A",
        "ZMQSC ALTER QL-MEM MAXDEPTH-5": "ZMQSC ALTER QL-MEM",
        "ZMQSC DELETE QL-MEM": "ZMQSC DELETE QL-MEM",
        "ZMQSC DELETE QMGR": "ZMQSC DELETE QMGR-TPFQM",
        "ZMQSC DBREBUILD": "ZMQSC DBREBUILD",
    }
    for command, named in refused.items():
        assert lines(mq, command)[1] == (
            f"MQSC0405E 10.41.22 {named} NOT ALLOWED IN MIGRATION MODE - ENTER ZMQSC MIGRATE COMMIT OR FALLBACK FIRST+"
        ), command
    # The queue manager itself, displays, puts and gets go on.
    assert lines(mq, "ZMQSC ALTER QMGR DESCR-'in migration'")[1].startswith("MQSC0001I")
    assert mq("put", "MEM", "--data", "x", "-q").exit_code == 0
    assert lines(mq, "ZMQSC MIGRATE BEG")[1] == "MQSC0407E 10.41.22 QMGR-TPFQM IS ALREADY IN MIGRATION MODE+"
    assert lines(mq, "ZMQSC MIGRATE COMM")[1] == "MQSC0402I 10.41.22 MIGRATION COMMITTED FOR QMGR-TPFQM ON CPU-B+"
    assert "MIGRATION COMMITTED" in lines(mq, "ZMQSC DIS QMGR")
    assert lines(mq, "ZMQSC DEFINE QL-NEW")[1] == "MQSC0001I 10.41.22 DEFINE QL-NEW COMPLETED+"
    # COMMIT keeps SWEEP-NO on the migrated queues, as TPF does.
    assert "SWEEP NO" in lines(mq, "ZMQSC DIS QL-MEM")


def test_migrate_commit_and_fallback_rules(mq: MQ) -> None:
    assert lines(mq, "ZMQSC MIGRATE COMMIT")[1] == (
        "MQSC0406E 10.41.22 QMGR-TPFQM IS NOT IN MIGRATION MODE - ENTER ZMQSC MIGRATE BEGIN FIRST+"
    )
    assert lines(mq, "ZMQSC MIGRATE FALLBACK")[1].startswith("MQSC0406E")
    assert lines(mq, "ZMQSC MIGRATE")[1].startswith("MQSC0012E 10.41.22 OBJECT (NONE) NOT VALID FOR MIGRATE")
    assert lines(mq, "ZMQSC MIGRATE BEGIN FORCE")[1] == (
        "MQSC0013E 10.41.22 KEYWORD FORCE NOT VALID FOR BEGIN - VALID KEYWORDS ARE NONE+"
    )
    assert lines(mq, "ZMQSC MIGRATE BEGIN-X")[1] == "MQSC0014E 10.41.22 VALUE X NOT VALID FOR BEGIN - ALLOWED NO VALUE+"
    lines(mq, "ZMQSC DEFINE QL-MEM SWEEP-YES", "ZMQSC DEFINE QL-KEPT SWEEP-NO")
    lines(mq, "ZMQSC MIGRATE BEGIN")
    mq("put", "DEAD.LETTER.QUEUE", "--data", "undelivered", "-q")
    assert lines(mq, "ZMQSC MIGRATE COMMIT")[1] == (
        "MQSC0404E 10.41.22 MIGRATE COMMIT NOT PROCESSED - DEAD-LETTER QUEUE DEAD.LETTER.QUEUE HOLDS 1 MESSAGE(S) - "
        "ENTER WITH FORCE+"
    )
    assert lines(mq, "ZMQSC MIGRATE FALL")[1] == (
        "MQSC0403I 10.41.22 MIGRATION FALLBACK COMPLETED FOR QMGR-TPFQM - 4 QUEUE(S) RESTORED+"
    )
    assert "SWEEP YES" in lines(mq, "ZMQSC DIS QL-MEM") and "SWEEP NO" in lines(mq, "ZMQSC DIS QL-KEPT")
    assert "MIGRATION FALLBACK" in lines(mq, "ZMQSC DIS QMGR")
    lines(mq, "ZMQSC MIGRATE BEGIN")
    assert lines(mq, "ZMQSC MIGRATE COMMIT FORCE")[1].startswith("MQSC0402I")


def test_migrate_commit_waits_for_every_active_processor(mq: MQ) -> None:
    mq("system", "add", "TPF2", "--platform", "ztpf", "--processor", "C", "--qmgr", "TPFQM")
    mq("system", "add", "TPF3", "--platform", "ztpf", "--processor", "D", "--qmgr", "TPFQM")
    mq("system", "add", "OTHER", "--platform", "ztpf", "--processor", "E", "--qmgr", "OTHERQM")
    lines(mq, "ZMQSC MIGRATE BEGIN")
    assert lines(mq, "ZMQSC MIGRATE COMMIT")[1] == (
        "MQSC0408E 10.41.22 MIGRATE COMMIT NOT PROCESSED - CPU-C (TPF2) IS ACTIVE AND NOT IN MIGRATION MODE - "
        "ENTER ZMQSC MIGRATE BEGIN THERE+"
    )
    lines(mq, "ZMQSC MIGRATE BEGIN", system="TPF2")
    lines(mq, "ZMQSC STOP QMGR", system="TPF3")  # an inactive processor need not migrate
    assert lines(mq, "ZMQSC MIGRATE COMMIT")[1] == (
        "MQSC0402I 10.41.22 MIGRATION COMMITTED FOR QMGR-TPFQM ON CPU-B, CPU-C+"
    )
    assert "MIGRATION COMMITTED" in lines(mq, "ZMQSC DIS QMGR", system="TPF2")
    assert "MIGRATION NONE" in lines(mq, "ZMQSC DIS QMGR", system="TPF3")
    assert "MIGRATION NONE" in lines(mq, "ZMQSC DIS QMGR", system="OTHER")


# -- DBREBUILD -------------------------------------------------------------------------------


def test_dbrebuild_rebuilds_a_wrong_directory_entry(mq: MQ) -> None:
    lines(mq, "ZMQSC DEFINE QL-Q1", "ZMQSC DEFINE QL-Q2")
    mq("put", "Q1", "--data", "abc", "--count", "3", "-q")
    assert lines(mq, "ZMQSC DBREBUILD")[1] == (
        "MQSC0421I 10.41.22 DBREBUILD COMPLETED FOR QMGR-TPFQM - 4 LOCAL QUEUE(S), 5 DEFINITION(S), 3 MESSAGE(S) "
        "CHECKED+"
    )
    store = Store.open(mq.state_dir)
    try:
        with store.transaction() as tx:
            qkey = tx.conn.execute("SELECT qkey FROM queue_marks WHERE system = 'TPF1' AND queue = 'Q1'").fetchone()[0]
            tx.conn.execute("UPDATE messages SET depth = 99, held_swbs = 7 WHERE id = ?", (qkey << 44,))
            tx.conn.execute(  # a queue deleted while its directory entry (head row) stayed
                "INSERT INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time, "
                "original_length, stored_length, payload, depth, held_swbs, compressed, next_seq, sweep_mark) "
                "VALUES (4000 << 44, '', 'GONE', 0, x'', x'', 0, 0, 0, 0, x'', 0, 0, 0, 1, 0)"
            )
            tx.conn.execute(
                "INSERT INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time, "
                "original_length, stored_length, payload, swbs) "
                "VALUES ((4000 << 44) | (9 << 40) | 1, 'TPF1', 'GONE', 0, zeroblob(24), zeroblob(24), 0, 0, 1, 1, "
                "x'41', 1)"
            )
            second = tx.conn.execute("SELECT max(id) FROM messages WHERE system = 'TPF1' AND queue = 'Q1'").fetchone()[
                0
            ]
            tx.conn.execute("UPDATE messages SET payload = x'58595A' WHERE id = ?", (second,))
    finally:
        store.close()
    assert "CURDEPTH 99" in lines(mq, "ZMQSC DIS QL-Q1")
    out = lines(mq, "ZMQSC DBREBUILD")
    assert out[1:] == [
        "MQSC0422W 10.41.22 QL-Q1 DIRECTORY REBUILT - DEPTH 99 TO 3, SWBS 7 TO 3",
        "MQSC0423W 10.41.22 1 MESSAGE(S) OF 1 UNDEFINED QUEUE(S) REMOVED",
        "MQSC0424W 10.41.22 QL-Q1 HOLDS 1 DAMAGED MESSAGE(S) - A GET REFUSES THEM WITH MQRC 2195",
        "MQSC0421I 10.41.22 DBREBUILD COMPLETED FOR QMGR-TPFQM - 4 LOCAL QUEUE(S), 5 DEFINITION(S), 3 MESSAGE(S) "
        "CHECKED+",
    ]
    assert "CURDEPTH 3" in lines(mq, "ZMQSC DIS QL-Q1")
    assert lines(mq, "ZMQSC DBREBUILD")[1].startswith("MQSC0424W")  # the damaged message stays


def test_dbrebuild_forms(mq: MQ) -> None:
    assert lines(mq, "ZMQSC DBREBUILD QMGR")[1].startswith("MQSC0421I")
    assert lines(mq, "ZMQSC DBREBUILD QMGR-TPFQM")[1].startswith("MQSC0421I")
    assert lines(mq, "ZMQSC DBREBUILD QMGR-OTHER")[1] == "MQSC0018E 10.41.22 QMGR-OTHER NOT FOUND+"
    assert lines(mq, "ZMQSC DBREBUILD QL-X")[1].startswith("MQSC0012E 10.41.22 OBJECT QL NOT VALID FOR DBREBUILD")
    lines(mq, "ZMQSC DELETE QMGR PURGE")
    assert lines(mq, "ZMQSC DBREBUILD")[1].startswith("MQSC0010E")


# -- triggering ------------------------------------------------------------------------------


def test_trigger_first_activates_the_program_when_the_queue_was_empty(mq: MQ) -> None:
    lines(mq, "ZMQSC DEFINE QL-ORDERS TRIGTYPE-FIRST PROCESS-ORD1", "ZMQSC DEFINE QL-PLAIN")
    for _ in range(2):
        mq("put", "ORDERS", "--data", "o", "--count", "3", "-q")  # 0 -> 1 once, then not while not empty
    mq("put", "PLAIN", "--data", "p", "-q")
    assert mq("console").output.count("MQSC0431I") == 1
    mq("get", "ORDERS", "--all")
    mq("put", "ORDERS", "--data", "again", "-q")
    console = mq("console").output
    assert console.count("PROGRAM ORD1 ACTIVATED WITH MQTM FOR QL-ORDERS") == 2


def test_trigger_without_process_calls_cuir_and_not_when_get_disabled(mq: MQ) -> None:
    lines(mq, "ZMQSC DEFINE QL-T TRIGTYPE-FIRST GET-DISABLED", "ZMQSC DEFINE QA-TA TARGQ-T")
    mq("put", "TA", "--data", "x", "-q")
    assert "MQSC0431I" not in mq("console").output
    lines(mq, "ZMQSC CLEAR QL-T", "ZMQSC ALTER QL-T GET-ENABLED")
    mq("put", "TA", "--data", "x", "-q")  # through the alias: the local queue triggers
    assert "QL-T TRIGGERED (TRIGTYPE-FIRST) - PROGRAM CUIR ACTIVATED" in mq("console").output


def test_a_put_that_fails_triggers_nothing(mq: MQ) -> None:
    lines(mq, "ZMQSC DEFINE QL-SMALL TRIGTYPE-FIRST MAXMSGL-4")
    assert mq("put", "SMALL", "--data", "too long", "-q").exit_code != 0
    assert "MQSC0431I" not in mq("console").output


def test_trigger_keywords_are_checked(mq: MQ) -> None:
    cases = {
        "ZMQSC DEFINE QL-X TRIGTYPE-EVERY": "MQSC0014E 10.41.22 VALUE EVERY NOT VALID FOR TRIGTYPE - ALLOWED NONE, "
        "FIRST+",
        "ZMQSC DEFINE QL-X PROCESS-1ABC": "MQSC0014E 10.41.22 VALUE 1ABC NOT VALID FOR PROCESS - ALLOWED A Z/TPF "
        "PROGRAM NAME (4 LETTERS OR DIGITS, A LETTER FIRST)+",
        "ZMQSC DEFINE QL-X PROCESS-AB": "MQSC0014E 10.41.22 VALUE AB NOT VALID FOR PROCESS - ALLOWED A Z/TPF "
        "PROGRAM NAME (4 LETTERS OR DIGITS, A LETTER FIRST)+",
        "ZMQSC DEFINE QL-X PROCESS-ABCDE": "MQSC0014E 10.41.22 VALUE ABCDE NOT VALID FOR PROCESS - ALLOWED UP TO 4 "
        "CHARACTERS+",
        "ZMQSC DEFINE QL-X TRIGGER": "MQSC0013E",
        "ZMQSC DEFINE PROCESS-P1": "MQSC0012E 10.41.22 OBJECT PROCESS NOT VALID FOR DEFINE - VALID OBJECTS ARE QMGR, "
        "QL, QA, QR, CHL+",
    }
    for command, answer in cases.items():
        assert lines(mq, command)[1].startswith(answer), command
    assert lines(mq, "ZMQSC DIS QL-X")[1].startswith("MQSC0018E")


# -- channels: CPU and DISPLAY CHL STATUS -----------------------------------------------------------


def test_channel_cpu_defaults_to_this_processor_and_starts_only_there(mq: MQ) -> None:
    lines(mq, "ZMQSC DEFINE CHL-IN CHLTYPE-RCVR", "ZMQSC DEFINE CHL-ELSEWHERE CHLTYPE-RCVR CPU-C")
    lines(mq, "ZMQSC DEFINE CHL-ANYWHERE CHLTYPE-RCVR CPU-ALL")
    assert "CPU B" in lines(mq, "ZMQSC DIS CHL-IN") and "CPU C" in lines(mq, "ZMQSC DIS CHL-ELSEWHERE")
    assert lines(mq, "ZMQSC START CHL-ELSEWHERE")[1] == (
        "MQSC0356E 10.41.22 CHL-ELSEWHERE IS DEFINED FOR CPU-C - ENTER THE COMMAND ON CPU-C+"
    )
    assert lines(mq, "ZMQSC START CHL-ANYWHERE")[1] == "MQSC0330I 10.41.22 START CHL-ANYWHERE ACCEPTED+"
    assert lines(mq, "ZMQSC ALTER CHL-ELSEWHERE CPU-B")[1].startswith("MQSC0001I")
    assert lines(mq, "ZMQSC START CHL-ELSEWHERE")[1].startswith("MQSC0330I")
    assert lines(mq, "ZMQSC ALTER CHL-IN CPU-XY")[1] == (
        "MQSC0014E 10.41.22 VALUE XY NOT VALID FOR CPU - ALLOWED A PROCESSOR ID (1 LETTER OR DIGIT) OR ALL+"
    )
    exported = mq("export").output
    assert "ZMQSC DEFINE CHL-IN CHLTYPE-RCVR BATCHSZ-50 MAXMSGL-4194304\n" in exported  # its own processor: left out
    assert "ZMQSC DEFINE CHL-ANYWHERE CHLTYPE-RCVR BATCHSZ-50 MAXMSGL-4194304 CPU-ALL\n" in exported


def test_display_chl_status(mq: MQ) -> None:
    lines(mq, "ZMQSC DEFINE QL-XQ USAGE-XMITQ", "ZMQSC DEFINE CHL-IN CHLTYPE-RCVR")
    lines(mq, "ZMQSC DEFINE CHL-OUT CHLTYPE-SDR CONNAME-'127.0.0.1(1415)' XMITQ-XQ")
    mq("put", "XQ", "--data", "waiting", "--count", "2", "-q")
    assert lines(mq, "ZMQSC DIS CHL-* STATUS") == [
        "CSMP0097I 10.41.22 CPU-B SS-BSS  SSU-HPN  IS-01",
        "MQSC0355I 10.41.22 START OF CHL STATUS DISPLAY",
        "CHANNEL IN",
        "CHLTYPE RCVR",
        "STATUS INACTIVE",
        "CHANNEL OUT",
        "CHLTYPE SDR",
        "CONNAME 127.0.0.1(1415)",
        "XMITQ XQ",
        "XQMSGSA 2",
        "STATUS INACTIVE",
        "END OF DISPLAY+",
    ]
    assert lines(mq, "ZMQSC DIS CHL-NO* STATUS")[1] == "MQSC0003I 10.41.22 NO CHL FOUND MATCHING NO*"
    assert lines(mq, "ZMQSC DIS CHL-NONE STATUS")[1] == "MQSC0018E 10.41.22 CHL-NONE NOT FOUND+"
    assert lines(mq, "ZMQSC DIS CHL-IN STATUS STAT")[1] == "MQSC0022E 10.41.22 KEYWORD STATUS NOT VALID WITH STAT+"
    assert lines(mq, "ZMQSC DIS QL-XQ STATUS")[1].startswith("MQSC0013E 10.41.22 KEYWORD STATUS NOT VALID FOR QL")


def test_old_channels_get_their_processor(tmp_path: Path) -> None:
    """Schema 8 gives each z/TPF channel of an older store the CPU of its system."""
    from tests.store_versions import store_at

    conn = store_at(tmp_path / "mqtool.db", 7)
    conn.execute("INSERT INTO systems VALUES ('TPF1', 'ztpf', 1, '{\"processor\": \"c\"}')")
    conn.execute("INSERT INTO systems VALUES ('TPF2', 'ztpf', 2, '{}')")
    for system in ("TPF1", "TPF2"):
        conn.execute(
            "INSERT INTO objects (system, type, name, attrs, status, created, altered) "
            "VALUES (?, 'CHL', 'IN', '{\"CHLTYPE\": \"RCVR\"}', '{}', 0, 0)",
            (system,),
        )
    conn.close()
    store = Store.open(tmp_path)
    try:
        with store.transaction(write=False) as tx:
            assert tx.get_object("TPF1", "CHL", "IN").attrs["CPU"] == "C"  # type: ignore[union-attr]
            assert tx.get_object("TPF2", "CHL", "IN").attrs["CPU"] == "B"  # type: ignore[union-attr]
    finally:
        store.close()


# -- what z/TPF does not have ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "answer"),
    [
        ("ZMQSC MOVE QL-A TOQLOCAL-B", "MQSC0011E 10.41.22 VERB MOVE NOT RECOGNIZED - VALID VERBS ARE DEFINE, ALTER,"),
        ("ZMQSC DISPLAY CHSTATUS-X", "MQSC0012E 10.41.22 OBJECT CHSTATUS NOT VALID FOR DISPLAY - VALID OBJECTS ARE"),
        ("ZMQSC DEFINE TOPIC-T", "MQSC0012E 10.41.22 OBJECT TOPIC NOT VALID FOR DEFINE - VALID OBJECTS ARE"),
        ("ZMQSC DEFINE NAMELIST-N", "MQSC0012E 10.41.22 OBJECT NAMELIST NOT VALID FOR DEFINE - VALID OBJECTS ARE"),
        ("ZMQSC RESET QSTATS-Q", "MQSC0012E 10.41.22 OBJECT QSTATS NOT VALID FOR RESET - VALID OBJECTS ARE QL, CHL+"),
        ("ZMQSC DEFINE QL-X INITQ-Y", "MQSC0013E 10.41.22 KEYWORD INITQ NOT VALID FOR QL - VALID KEYWORDS ARE"),
        ("ZMQSC DEFINE QL-X TRIGDPTH-5", "MQSC0013E 10.41.22 KEYWORD TRIGDPTH NOT VALID FOR QL - VALID KEYWORDS ARE"),
        ("ZMQSC PING CHL-X", "MQSC0011E 10.41.22 VERB PING NOT RECOGNIZED"),
        ("ZMQSC MIGRAT BEGIN", "MQSC0011E 10.41.22 VERB MIGRAT NOT RECOGNIZED"),
    ],
)
def test_what_ztpf_does_not_have_is_refused_as_ztpf_refuses_it(mq: MQ, command: str, answer: str) -> None:
    out = lines(mq, command)
    assert out[1].startswith(answer), out
    if command.startswith("ZMQSC MIGRAT "):
        assert out[2] == "MQSC0040E 10.41.22 MIGRAT NOT RECOGNIZED - DID YOU MEAN MIGRATE+"


def test_movemsgs_moves_a_deep_queue_in_order(two: MQ) -> None:
    """More messages than one chunk of the move reads at a time, in their get order."""
    lines(two, "ZMQSC START QMGR", system="TPF2")
    put = two("--system", "TPF2", "put", "Q1", "--size", "40", "--count", "600", "--pattern", "text", "-q")
    assert put.exit_code == 0, put.output
    lines(two, "ZMQSC STOP QMGR", system="TPF2")
    before = messages(two, "TPF2", "Q1")
    assert (
        lines(two, "ZMQSC MOVEMSGS Q-Q1 CPU-C")[1]
        == "MQSC0411I 10.41.22 603 MESSAGE(S) MOVED FROM Q-Q1 OF CPU-C TO CPU-B+"
    )
    assert messages(two, "TPF1", "Q1") == before


def test_alter_chl_takes_the_channels_own_type_only(mq: MQ) -> None:
    lines(mq, "ZMQSC DEFINE CHL-IN CHLTYPE-RCVR")
    assert lines(mq, "ZMQSC ALTER CHL-IN CHLTYPE-RCVR DESCR-'from CSQ1'")[1] == (
        "MQSC0001I 10.41.22 ALTER CHL-IN COMPLETED+"
    )
    assert lines(mq, "ZMQSC ALTER CHL-IN CHLTYPE-SDR")[1] == (
        "MQSC0020E 10.41.22 KEYWORD CHLTYPE CANNOT BE ALTERED - DELETE AND REDEFINE CHL-IN+"
    )
    assert lines(mq, "ZMQSC ALTER QL-DEAD.LETTER.QUEUE COMMON-NO")[1].startswith("MQSC0020E")
    assert "DESCR from CSQ1" in lines(mq, "ZMQSC DIS CHL-IN")
