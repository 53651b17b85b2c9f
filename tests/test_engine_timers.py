"""The z/TPF MQ timers with `.advance`: statistics intervals and rates, QDEPTHHI, the
checkpoint, O(1) catch-up over idle gaps, and the sweeper (its seed shape, SWEEP-NO,
batches in flight, the SWB pool running out, reading swept messages back)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from mqtool.clock import Clock
from mqtool.engine import tick
from mqtool.engine.core.message import PutOptions
from mqtool.engine.core.reasons import MQError
from mqtool.engine.ztpf.stats import QueueStatistics, queue_statistics
from mqtool.engine.ztpf.sweeper import set_inflight
from tests.test_engine_queue import Engine


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    made = Engine(tmp_path / "state")
    yield made
    made.store.close()


def run(engine: Engine, *lines: str) -> list[str]:
    out: list[str] = []
    for line in lines:
        out.extend(engine.session.execute(line).lines)
    return out


def stats(engine: Engine, queue: str) -> QueueStatistics:
    with engine.store.transaction(write=False) as tx:
        figures = queue_statistics(tx, "TPF1", queue)
    assert figures is not None
    return figures


def console(engine: Engine) -> list[str]:
    with engine.store.transaction(write=False) as tx:
        return [row[3] for row in tx.console_since(None, 0)]


def pool(engine: Engine, size: int, **more: int) -> None:
    with engine.store.transaction() as tx:
        system = tx.get_system("TPF1")
        assert system is not None
        system.attrs["swbpool"] = size
        system.attrs.update(more)
        tx.put_system(system)


def test_interval_values_rates_and_highs(engine: Engine) -> None:
    run(engine, "ZMQSC DEFINE QL-Q1", ".put Q1 count=20 size=100", ".get Q1 count=10")
    figures = stats(engine, "Q1")
    assert (figures.gets, figures.get_rate, figures.size_last, figures.size) == (10, 0, 0, 100)
    run(engine, ".advance 5s")
    figures = stats(engine, "Q1")
    assert (figures.gets, figures.get_rate, figures.get_high, figures.size_last) == (10, 2, 2, 100)
    run(engine, ".get Q1 count=5", ".advance 5s")
    figures = stats(engine, "Q1")
    assert (figures.gets, figures.get_rate, figures.get_high, figures.size_last) == (15, 1, 2, 0)
    run(engine, ".advance 5s")
    figures = stats(engine, "Q1")
    assert (figures.gets, figures.get_rate, figures.get_high) == (15, 0, 2)
    run(engine, "ZMQSC RESET QL-Q1 STAT")
    figures = stats(engine, "Q1")
    assert (figures.gets, figures.get_high, figures.persistent, figures.nonpersistent, figures.depth) == (
        0,
        0,
        0,
        0,
        5,
    )


def test_idle_catch_up_is_constant_work(engine: Engine) -> None:
    run(engine, "ZMQSC DEFINE QL-Q1", ".put Q1 count=3", ".get Q1")
    runs = tick.tick(engine.store, engine.clock, engine.clock.timestamp() + 30 * 86400)
    # monitor: the busy interval, one empty one, then a jump; checkpoint: one run.
    assert runs <= 4
    engine.clock.advance(365 * 86400)
    assert tick.tick(engine.store, engine.clock, engine.clock.timestamp()) <= 2
    with engine.store.transaction(write=False) as tx:
        dues = [row[0] for row in tx.conn.execute("SELECT due FROM timers WHERE system = 'TPF1'")]
    now = engine.clock.timestamp()
    assert all(now < due <= now + 5 for due in dues)


def test_qdepthhi_warns_once_and_rearms(engine: Engine) -> None:
    run(engine, "ZMQSC DEFINE QL-Q1 MAXDEPTH-10 QDEPTHHI-50", ".put Q1 count=4")
    assert console(engine) == []
    run(engine, ".put Q1 count=3")
    assert console(engine) == ["MQSC0204W 10.41.22 QL-Q1 DEPTH 5 REACHED QDEPTHHI 50% OF MAXDEPTH 10"]
    run(engine, ".get Q1 count=4", ".advance 5s")
    assert console(engine)[1:] == ["MQSC0205I 10.41.27 QL-Q1 DEPTH 3 BELOW QDEPTHHI 50% OF MAXDEPTH 10"]
    run(engine, ".put Q1 count=2", ".advance 5s")
    assert console(engine)[2:] == ["MQSC0204W 10.41.27 QL-Q1 DEPTH 5 REACHED QDEPTHHI 50% OF MAXDEPTH 10"]


def test_checkpoint_writes_persistent_memory_queue_messages(engine: Engine) -> None:
    run(
        engine,
        "ZMQSC DEFINE QL-MEM",
        "ZMQSC DEFINE QL-SHARED COMMON-YES",
        ".put MEM count=3 size=5000 persistent=yes",
        ".put MEM count=2 size=5000",
        ".put SHARED count=2 size=5000 persistent=yes",
        ".advance 5s",
    )
    with engine.store.transaction(write=False) as tx:
        ios = dict(tx.conn.execute("SELECT queue, ckpt_ios FROM queue_stats WHERE system = 'TPF1'").fetchall())
        state = tx.conn.execute("SELECT checkpoints, ckpt_ios, ckpt_last FROM engine_state").fetchone()
    assert ios["MEM"] == 4 and ios["SHARED"] == 0  # ceil(15000 / 4096)
    assert state == (1, 4, 0.0)  # a frozen clock measures no time
    run(engine, ".advance 5s")
    with engine.store.transaction(write=False) as tx:
        assert tx.conn.execute("SELECT checkpoints FROM engine_state").fetchone()[0] == 1


def test_checkpoint_duration_is_measured_with_a_running_clock(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "wall")
    engine.clock = Clock()
    engine.session.clock = engine.clock
    run(engine, "ZMQSC DEFINE QL-MEM", ".put MEM count=50 size=2000 persistent=yes")
    tick.tick(engine.store, engine.clock, engine.clock.timestamp() + 3600)
    figures = stats(engine, "MEM")
    assert figures.ckpt_last > 0 and figures.ckpt_high >= figures.ckpt_last
    engine.store.close()


def sweep_run(engine: Engine, compsize: int, count: int) -> tuple[list[float], float]:
    run(
        engine,
        f"ZMQSC DEFINE QL-XQ USAGE-XMITQ COMPSIZE-{compsize}",
        "ZMQSC DEFINE QR-REMQ RNAME-PAYQ RQMNAME-QM2 XMITQ-XQ",
    )
    lines = run(engine, f".put REMQ count={count} size=32768 pattern=xml every=10ms")
    assert lines[0].startswith(f"MQT0101I Put {count} messages to REMQ"), lines
    with engine.store.transaction(write=False) as tx:
        rows = tx.conn.execute("SELECT time, messages, ios FROM sweeps ORDER BY id").fetchall()
    times = [row[0] for row in rows]
    per_message = sum(row[2] for row in rows) / sum(row[1] for row in rows)
    return [b - a for a, b in itertools.pairwise(times)], per_message


def test_sweeper_shape_of_the_seed(tmp_path: Path) -> None:
    """A 32 KB XML message to an XMITQ every 10 ms with the channel down: the sweeper
    runs about every 4 s uncompressed (here on a pool a fifth of the default, so every
    0.8 s) and markedly less often with COMPSIZE on; I/Os per message about halve."""
    plain = Engine(tmp_path / "plain")
    pool(plain, 6600)
    plain_gaps, plain_ios = sweep_run(plain, 0, 450)
    packed = Engine(tmp_path / "packed")
    pool(packed, 6600)
    packed_gaps, packed_ios = sweep_run(packed, 16000, 1300)
    assert len(plain_gaps) >= 3 and len(packed_gaps) >= 2
    assert all(gap == pytest.approx(0.8, abs=0.02) for gap in plain_gaps)
    assert min(packed_gaps) > 2.5 * max(plain_gaps)
    assert plain_ios == 9.0  # 1 + ceil(32768 / 4096)
    assert 0.35 < packed_ios / plain_ios < 0.6
    plain.store.close()
    packed.store.close()


def test_sweep_no_queues_abort_the_sweep_and_the_pool_runs_out(engine: Engine) -> None:
    pool(engine, 100)
    run(engine, "ZMQSC DEFINE QL-KEEP SWEEP-NO", "ZMQSC DEFINE QL-OTHER")
    lines = run(engine, ".put KEEP count=82 size=1000")
    assert lines == ["MQT0101I Put 82 messages to KEEP: 82000 bytes, stored 82000; 0 compressed, 0 persistent"]
    assert console(engine) == [
        "MQSC0202W 10.41.22 SWEEP ABORTED - 80 OF 100 SWBS STILL IN USE, ABOVE SWEEPLO 40% - HELD BY QL-KEEP"
    ]
    lines = run(engine, ".put OTHER count=30 size=1000")
    assert lines == [
        "MQT0101I Put 18 messages to OTHER: 18000 bytes, stored 18000; 0 compressed, 0 persistent",
        "MQT0120E Put to OTHER failed: MQRC 2053 (MQRC_Q_FULL): SWB pool exhausted (100 of 100 in use)",
    ]
    run(engine, ".put OTHER count=1")
    assert console(engine)[1:] == [
        "MQSC0203W 10.41.22 SWB POOL EXHAUSTED - 100 OF 100 SWBS IN USE - PUTS TO MEMORY QUEUES REFUSED "
        "(QL-OTHER MQRC 2053)"
    ]
    assert stats(engine, "KEEP").aborted == 1
    # The monitor retries: OTHER's messages go to file, KEEP's stay.
    run(engine, ".advance 5s")
    assert console(engine)[2].startswith("MQSC0201I 10.41.27 SWEEPER MOVED 18 MESSAGES FROM 1 QUEUES TO FILE")
    assert console(engine)[3].startswith("MQSC0202W 10.41.27 SWEEP ABORTED - 82 OF 100")
    assert stats(engine, "KEEP").swbs == 82 and stats(engine, "OTHER").swbs == 0


def test_messages_of_a_batch_in_flight_are_never_swept(engine: Engine) -> None:
    pool(engine, 100)
    run(engine, "ZMQSC DEFINE QL-XQ USAGE-XMITQ")
    engine.put("XQ", *[b"m" * 1000] * 70)
    with engine.store.transaction() as tx:
        first = [
            row[0]
            for row in tx.conn.execute(
                "SELECT id FROM messages WHERE system = 'TPF1' AND queue = 'XQ' ORDER BY id LIMIT 50"
            )
        ]
        set_inflight(tx, "TPF1", "XQ", first)
    engine.put("XQ", *[b"m" * 1000] * 10)
    with engine.store.transaction(write=False) as tx:
        swept = [row[0] for row in tx.conn.execute("SELECT id FROM messages WHERE swept = 1 ORDER BY id")]
    assert swept and not set(swept) & set(first)
    assert swept == sorted(swept)  # oldest first after the batch


def test_getting_a_swept_message_reads_it_back(engine: Engine) -> None:
    pool(engine, 100)
    run(engine, "ZMQSC DEFINE QL-Q1")
    engine.put("Q1", *[bytes([i]) * 4000 for i in range(20)])  # 4 SWBs each: 80 = SWEEPHI
    assert stats(engine, "Q1").swbs == 40
    got = engine.get("Q1", 1)
    assert got[0].swept and got[0].payload == bytes([0]) * 4000
    figures = stats(engine, "Q1")
    assert figures.searches == 1
    with engine.store.transaction(write=False) as tx:
        assert tx.conn.execute("SELECT read_ios FROM engine_state").fetchone()[0] == 2


def test_restart_keeps_persistent_messages_only(engine: Engine) -> None:
    run(engine, "ZMQSC DEFINE QL-Q1", ".put Q1 count=3 persistent=yes", ".put Q1 count=2")
    lines = run(engine, "ZMQSC STOP QMGR", ".put Q1", "ZMQSC START QMGR")
    assert lines[2] == "MQT0120E Put to Q1 failed: MQRC 2059 (MQRC_Q_MGR_NOT_AVAILABLE): queue manager TPFQM is stopped"
    assert lines[-1] == "MQSC0101I 10.41.22 3 PERSISTENT MESSAGES KEPT - 2 NON-PERSISTENT MESSAGES DISCARDED+"
    assert engine.figures("Q1")["CURDEPTH"] == 3


def test_put_to_a_full_pool_is_refused_before_anything_is_stored(engine: Engine) -> None:
    pool(engine, 10, sweephi=100)
    run(engine, "ZMQSC DEFINE QL-Q1 SWEEP-NO")
    with pytest.raises(MQError) as error:
        engine.put("Q1", b"x" * 20000)
    assert error.value.reason == 2053
    assert engine.figures("Q1")["CURDEPTH"] == 0
    engine.put("Q1", b"x" * 5000, persistent=True)
    assert engine.figures("Q1")["SWBS"] == 5
    assert PutOptions().priority == 0
