"""The z/OS storage model: page sets that fill and grow, streaming queues (every rule of
spec zos-mq.md section 4), CAPEXPRY and the expiry task, units of work, handles in
QSTATUS; property tests that a MUSTDUP put never leaves the two queues apart; and
whole-process tests: kill -9 during streamed persistent puts, several processes
putting and getting on one z/OS queue."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_engine_queue import Engine
from test_engine_reliability import browse_all, every_message_once, mqtool, run
from test_golden import GOLDEN, run_golden

from mqtool.engine.core.message import PutOptions, format_id
from mqtool.engine.core.reasons import PAGESET_ERROR, PAGESET_FULL, MQError
from mqtool.engine.core.streams import get_stream, put_stream
from mqtool.engine.platforms import open_queue
from mqtool.engine.zos.handles import live_handles
from mqtool.engine.zos.pages import pages_for

FROZEN = "2021-03-09T15:41:22Z"


class Zos(Engine):
    """A fresh store with the default complex, driven in process on CSQ1; its puts go
    through put_stream (committed as mqtool put commits them) and count."""

    def __init__(self, state_dir: Path) -> None:
        super().__init__(state_dir, "CSQ1")

    def put(self, queue: str, *payloads: bytes, **options: Any) -> int:  # type: ignore[override]
        handle = self.handle(queue)
        items = [(payload, PutOptions(**options)) for payload in payloads]
        result = put_stream(handle, items, lambda _: None)
        if result.error is not None:
            raise result.error
        return result.count

    def browse(self, queue: str) -> list[tuple[bytes, bytes, bytes]]:
        found: list[tuple[bytes, bytes, bytes]] = []
        result = get_stream(
            self.handle(queue), lambda m: found.append((m.msgid, m.correlid, m.payload)), None, browse=True
        )
        assert result.error is None
        return found

    def depth(self, queue: str) -> int:
        lines = self.cmd(f"DISPLAY QSTATUS({queue}) CURDEPTH")
        return int(next(line for line in lines if line.startswith("CURDEPTH("))[9:-1])

    def console(self) -> list[str]:
        with self.store.transaction(write=False) as tx:
            return [row[3] for row in tx.console_since("CSQ1")]


@pytest.fixture
def zos(tmp_path: Path) -> Zos:
    return Zos(tmp_path / "state")


def small_pageset(zos: Zos, pages: int, expand: str = "NONE", psid: int = 5) -> None:
    zos.cmd(f"DEFINE PSID({psid:02d}) PAGES({pages}) EXPAND({expand})", f"DEFINE STGCLASS(PS{psid}) PSID({psid})")


# -- page sets ------------------------------------------------------------------------
def test_a_full_page_set_refuses_with_2192_and_frees_pages_when_messages_are_got(zos: Zos) -> None:
    small_pageset(zos, 20)
    zos.cmd("DEFINE QLOCAL(SMALL) STGCLASS(PS5)")
    assert pages_for(8000) == 3
    assert zos.put("SMALL", *[b"x" * 8000] * 6) == 6  # 18 pages of 20
    with pytest.raises(MQError) as refused:
        zos.put("SMALL", b"x" * 8000)
    assert refused.value.reason == PAGESET_FULL
    assert "page set 05 of CSQ1 is full (18 of 20 pages used, 3 needed), EXPAND(NONE)" in str(refused.value)
    assert zos.put("SMALL", b"x" * 3000) == 1  # one page still fits
    handle = open_queue(zos.store, zos.clock, "CSQ1", "SMALL")
    get_stream(handle, lambda _: None, 1)
    assert zos.put("SMALL", b"x" * 8000) == 1


def test_expand_user_and_system_grow_the_page_set_with_a_console_message(zos: Zos) -> None:
    small_pageset(zos, 100, "USER", psid=6)
    small_pageset(zos, 100, "SYSTEM", psid=7)
    zos.cmd("DEFINE QLOCAL(GROWU) STGCLASS(PS6)", "DEFINE QLOCAL(GROWS) STGCLASS(PS7)")
    zos.put("GROWU", *[b"u" * 3000] * 130)
    zos.put("GROWS", *[b"s" * 3000] * 130)
    usage = [line for line in zos.cmd("DISPLAY USAGE TYPE(PAGESET)") if line[:5].strip() in ("6", "7")]
    # USER grows by a tenth of the allocation each time (100 -> 110 -> 120 -> 130),
    # SYSTEM by a tenth of the current size (100 -> 110 -> 121 -> 134).
    assert usage == [
        "    6      0       130         0          0        130 USER       3",
        "    7      0       134         4          0        130 SYSTEM     3",
    ]
    assert (
        zos.console().count(
            "CSQP013I -CSQ1 CSQPEXT1 NEW EXTENT CREATED FOR PAGE SET 06. NEW EXTENT WILL NOW BE FORMATTED"
        )
        == 3
    )


def test_page_set_0_counts_the_object_definitions(zos: Zos) -> None:
    before = next(line for line in zos.cmd("DISPLAY USAGE PSID(0) TYPE(PAGESET)") if line.startswith("    0"))
    zos.cmd("DEFINE QLOCAL(MORE)")
    after = next(line for line in zos.cmd("DISPLAY USAGE PSID(0) TYPE(PAGESET)") if line.startswith("    0"))
    assert int(after.split()[4]) == int(before.split()[4]) + 1


def test_a_storage_class_without_its_page_set_is_2193(zos: Zos) -> None:
    small_pageset(zos, 50, psid=8)
    zos.cmd("DEFINE QLOCAL(ORPHAN) STGCLASS(PS8)")
    with zos.store.transaction() as tx:  # the page set vanishes behind the class's back
        tx.conn.execute("DELETE FROM objects WHERE system = 'CSQ1' AND type = 'PSID' AND name = '8'")
    with pytest.raises(MQError) as refused:
        zos.put("ORPHAN", b"x")
    assert refused.value.reason == PAGESET_ERROR


# -- streaming --------------------------------------------------------------------------
def test_a_copy_has_the_same_ids_payload_priority_and_persistence(zos: Zos) -> None:
    zos.cmd("DEFINE QLOCAL(COPIES)", "DEFINE QLOCAL(BASE) STREAMQ(COPIES)")
    zos.put("BASE", b"first", correlid=b"C1".ljust(24, b"\0"), priority=4, persistent=True)
    zos.put("BASE", b"second")
    assert zos.browse("BASE") == zos.browse("COPIES")
    assert [payload for _, _, payload in zos.browse("COPIES")] == [b"first", b"second"]


def test_only_messages_put_after_streamq_is_set_are_streamed(zos: Zos) -> None:
    zos.cmd("DEFINE QLOCAL(COPIES)", "DEFINE QLOCAL(BASE)")
    zos.put("BASE", b"before")
    zos.cmd("ALTER QLOCAL(BASE) STREAMQ(COPIES)")
    zos.put("BASE", b"after")
    assert [payload for _, _, payload in zos.browse("COPIES")] == [b"after"]


def test_streaming_to_an_alias_and_to_a_remote_queue(zos: Zos) -> None:
    zos.cmd(
        "DEFINE QLOCAL(TARGETQ)",
        "DEFINE QALIAS(TO.TARGET) TARGET(TARGETQ)",
        "DEFINE QLOCAL(XQ) USAGE(XMITQ)",
        "DEFINE QREMOTE(FAR) RNAME(COPIES) RQMNAME(QM2) XMITQ(XQ)",
        "DEFINE QLOCAL(A) STREAMQ(TO.TARGET)",
        "DEFINE QLOCAL(B) STREAMQ(FAR)",
    )
    zos.put("A", b"to alias")
    zos.put("B", b"to remote")
    assert [payload for _, _, payload in zos.browse("TARGETQ")] == [b"to alias"]
    assert [payload for _, _, payload in zos.browse("XQ")] == [b"to remote"]


def test_copies_take_the_streaming_queues_capexpry_not_the_originals_expiry(zos: Zos) -> None:
    zos.cmd("DEFINE QLOCAL(CAPPED) CAPEXPRY(600)", "DEFINE QLOCAL(FREE)")
    zos.cmd("DEFINE QLOCAL(BASE1) STREAMQ(CAPPED)", "DEFINE QLOCAL(BASE2) STREAMQ(FREE)")
    zos.put("BASE1", b"a", expiry=30.0)
    zos.put("BASE2", b"b", expiry=30.0)
    with zos.store.transaction(write=False) as tx:
        rows = dict(tx.conn.execute("SELECT queue, expiry - put_time FROM messages WHERE system = 'CSQ1'").fetchall())
    assert rows == {"BASE1": 30.0, "CAPPED": 60.0, "BASE2": 30.0, "FREE": None}


def test_bestef_warns_once_per_handle_unless_the_reason_changes(zos: Zos) -> None:
    small_pageset(zos, 10)
    zos.cmd("DEFINE QLOCAL(TINY) STGCLASS(PS5)", "DEFINE QLOCAL(BASE) STREAMQ(TINY)")
    two_pages = b"m" * 3597
    assert zos.put("BASE", *[two_pages] * 7) == 7  # one handle: five copies fit, two fail
    assert zos.depth("TINY") == 5
    assert len([line for line in zos.console() if line.startswith("CSQM587E")]) == 1
    zos.cmd("ALTER QLOCAL(TINY) PUT(DISABLED)")
    zos.put("BASE", *[two_pages] * 2)  # a new handle, another reason: one more message
    warnings = [line for line in zos.console() if line.startswith("CSQM587E")]
    assert len(warnings) == 2 and warnings[1].endswith("mqrc=2051 (MQRC_PUT_INHIBITED)")


def test_mustdup_fails_with_the_copys_reason_and_keeps_the_queues_equal(zos: Zos) -> None:
    small_pageset(zos, 10)
    zos.cmd("DEFINE QLOCAL(TINY) STGCLASS(PS5)", "DEFINE QLOCAL(BASE) STREAMQ(TINY) STRMQOS(MUSTDUP)")
    with pytest.raises(MQError) as refused:
        zos.put("BASE", *[b"m" * 3597] * 7)
    assert refused.value.reason == PAGESET_FULL
    assert zos.depth("BASE") == zos.depth("TINY") == 5


def test_seed_scenarios_end_with_exit_status_0_for_bestef_and_10_for_mustdup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, bestef = run_golden(GOLDEN / "zos_stream_bestef.mqsc", tmp_path / "one", monkeypatch)
    _, mustdup = run_golden(GOLDEN / "zos_stream_mustdup.mqsc", tmp_path / "two", monkeypatch)
    assert (bestef, mustdup) == (0, 10)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    stream_pages=st.integers(1, 12),
    base_pages=st.integers(1, 12),
    same_pageset=st.booleans(),
    puts=st.lists(st.tuples(st.integers(0, 9000), st.booleans()), min_size=1, max_size=12),
)
def test_a_mustdup_put_never_leaves_the_two_queues_with_different_contents(
    tmp_path_factory: pytest.TempPathFactory,
    stream_pages: int,
    base_pages: int,
    same_pageset: bool,
    puts: list[tuple[int, bool]],
) -> None:
    zos = Zos(tmp_path_factory.mktemp("state"))
    small_pageset(zos, max(10, stream_pages), psid=5)
    small_pageset(zos, max(10, base_pages), psid=6)
    zos.cmd(
        "DEFINE QLOCAL(COPY) STGCLASS(PS5)",
        f"DEFINE QLOCAL(BASE) STGCLASS({'PS5' if same_pageset else 'PS6'}) STREAMQ(COPY) STRMQOS(MUSTDUP)",
    )
    for number, (size, persistent) in enumerate(puts):
        try:
            zos.put("BASE", bytes([number % 256]) * size, persistent=persistent)
        except MQError as error:
            assert error.reason == PAGESET_FULL
        assert zos.browse("BASE") == zos.browse("COPY")
    zos.store.close()


# -- expiry ------------------------------------------------------------------------------
def test_capexpry_lowest_along_an_alias_path_and_custom_capexpry(zos: Zos) -> None:
    zos.cmd(
        "DEFINE QLOCAL(LOCALQ) CAPEXPRY(3000)",
        "DEFINE QALIAS(SHORT) TARGET(LOCALQ) CAPEXPRY(100)",
        "DEFINE QLOCAL(OLDSTYLE) CUSTOM('CAPEXPRY(50)')",
    )
    zos.put("SHORT", b"a")
    zos.put("LOCALQ", b"b")
    zos.put("LOCALQ", b"c", expiry=5.0)  # shorter than the cap: stays
    zos.put("OLDSTYLE", b"d")
    with zos.store.transaction(write=False) as tx:
        lives = [row[0] for row in tx.conn.execute("SELECT expiry - put_time FROM messages WHERE system = 'CSQ1'")]
    assert sorted(lives) == [5.0, 5.0, 10.0, 300.0]


def test_the_first_class_capexpry_takes_priority_over_a_custom_one(zos: Zos) -> None:
    """Seed 002: "Using custom properties to set CAPEXPRY is still supported but using the
    first-class attribute takes priority", lower or higher; mqtool-zos(7) says the same."""
    zos.cmd(
        "DEFINE QLOCAL(HIGHER) CAPEXPRY(3000) CUSTOM('CAPEXPRY(50)')",
        "DEFINE QLOCAL(LOWER) CAPEXPRY(20) CUSTOM('CAPEXPRY(50)')",
    )
    zos.put("HIGHER", b"a")
    zos.put("LOWER", b"b")
    with zos.store.transaction(write=False) as tx:
        lives = dict(tx.conn.execute("SELECT queue, expiry - put_time FROM messages WHERE system = 'CSQ1'").fetchall())
    assert lives == {"HIGHER": 300.0, "LOWER": 2.0}
    page = (Path(__file__).parent.parent / "man" / "mqtool-zos.7").read_text(encoding="utf-8")
    assert "the first\\-class CAPEXPRY takes priority and the CUSTOM value is not used" in page
    assert "the lowest cap applies)" not in page


def test_gets_skip_and_remove_expired_messages_without_the_expiry_task(zos: Zos) -> None:
    zos.cmd("DEFINE QLOCAL(EXP) CAPEXPRY(100)")
    zos.put("EXP", b"old")
    zos.clock.advance(11)
    zos.put("EXP", b"new")
    assert zos.depth("EXP") == 2
    got: list[bytes] = []
    get_stream(open_queue(zos.store, zos.clock, "CSQ1", "EXP"), lambda m: got.append(m.payload), None)
    assert got == [b"new"] and zos.depth("EXP") == 0


def test_the_expiry_task_runs_every_expryint_seconds_and_stops_at_off(zos: Zos) -> None:
    zos.cmd("DEFINE QLOCAL(EXP) CAPEXPRY(100)", "ALTER QMGR EXPRYINT(60)")
    zos.put("EXP", b"1", b"2")
    zos.cmd(".advance 59s")
    assert zos.depth("EXP") == 2
    zos.cmd(".advance 1s")
    assert zos.depth("EXP") == 0
    zos.cmd("ALTER QMGR EXPRYINT(OFF)")
    zos.put("EXP", b"3")
    zos.cmd(".advance 600s")
    assert zos.depth("EXP") == 1  # nobody scans; a get would remove it


# -- queue status ---------------------------------------------------------------------------
def test_qstatus_counts_open_handles_of_live_processes_only(zos: Zos) -> None:
    zos.cmd("DEFINE QLOCAL(OPENQ)")
    putter = open_queue(zos.store, zos.clock, "CSQ1", "OPENQ")
    getter = open_queue(zos.store, zos.clock, "CSQ1", "OPENQ")
    with zos.store.transaction() as tx:
        putter.open(tx, "put")
        getter.open(tx, "get")
        # A handle left open by a process that no longer exists.
        tx.conn.execute(
            "INSERT INTO open_handles (system, queue, handle, pid, input, output, opened) "
            "VALUES ('CSQ1', 'OPENQ', 999999, ?, 1, 0, 0)",
            (_dead_pid(),),
        )
    with zos.store.transaction(write=False) as tx:
        assert live_handles(tx, "CSQ1", "OPENQ") == (1, 1)
    status = zos.cmd("DISPLAY QSTATUS(OPENQ) IPPROCS OPPROCS")
    assert "IPPROCS(1)" in status and "OPPROCS(1)" in status
    with zos.store.transaction() as tx:
        putter.close(tx)
        getter.close(tx)
    assert "IPPROCS(0)" in zos.cmd("DISPLAY QLOCAL(OPENQ) IPPROCS")


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


# -- whole processes --------------------------------------------------------------------------
def browse_ids(state: Path, queue: str) -> list[str]:
    return [format_id(msgid) for msgid, _ in browse_all(state, queue, "CSQ1")]


@pytest.mark.slow
@pytest.mark.parametrize("qos", ["MUSTDUP", "BESTEF"])
def test_kill_9_during_streamed_persistent_puts_leaves_both_queues_consistent(tmp_path: Path, qos: str) -> None:
    state = tmp_path / "state"
    defines = ("DEFINE QLOCAL(COPY)", f"DEFINE QLOCAL(BASE) STREAMQ(COPY) STRMQOS({qos})")
    assert run(state, "--system", "CSQ1", "cmd", *defines).returncode == 0
    chance = random.Random(f"kill-{qos}")
    acknowledged: list[str] = []
    for _ in range(4):
        args = ["--system", "CSQ1", "put", "BASE", "--pattern", "xml", "--size", "2000", "--count", "1000000"]
        args.append("--persistent")
        process = mqtool(state, *args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith(b"MQT0102I Message 1 put"), first
        time.sleep(chance.uniform(0.05, 0.4))
        process.send_signal(signal.SIGKILL)
        rest = process.stdout.read()
        process.wait()
        for line in (first + rest).split(b"\n")[:-1]:
            acknowledged.append(line.split(b"MSGID ")[1].split(b",")[0].decode())
        base, copy = browse_ids(state, "BASE"), browse_ids(state, "COPY")
        assert base == copy, "a put and its copy are one unit of work"
        assert len(base) == len(set(base))
        assert set(acknowledged) <= set(base), "an acknowledged message is missing"


@pytest.mark.slow
def test_several_processes_putting_and_getting_on_one_zos_queue_get_every_message_once(tmp_path: Path) -> None:
    every_message_once(tmp_path / "state", "DEFINE QLOCAL(SHARED) DEFPSIST(YES)", system="CSQ1")


def test_maxdepth_0_lets_no_message_be_put_on_zos_and_is_no_limit_on_ztpf(zos: Zos, tmp_path: Path) -> None:
    from mqtool.engine.core.reasons import Q_FULL

    zos.cmd("DEFINE QLOCAL(NONE.ALLOWED) MAXDEPTH(0)", "DEFINE QLOCAL(ONE.ALLOWED) MAXDEPTH(1)")
    with pytest.raises(MQError) as refused:
        zos.put("NONE.ALLOWED", b"x")
    assert refused.value.reason == Q_FULL
    assert zos.put("ONE.ALLOWED", b"x") == 1
    with pytest.raises(MQError):
        zos.put("ONE.ALLOWED", b"x")
    # z/TPF MQ's MAXDEPTH-0 is no limit
    tpf = Engine(tmp_path / "tpf", "TPF1")
    tpf.cmd("ZMQSC DEFINE QL-UNLIMITED MAXDEPTH-0")
    assert len(tpf.put("UNLIMITED", b"x", b"y", b"z")) == 3
