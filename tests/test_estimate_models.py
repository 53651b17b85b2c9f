"""The engine functions mqtool estimate adds beside the z/TPF storage model, each checked
against the real engine: the sweeper forecast against recorded sweeps of a frozen-clock
`.put every=10ms` run, the queue-compression rule against real puts, and the checkpoint's
I/O count against a real checkpoint."""

from __future__ import annotations

from pathlib import Path

import pytest

from mqtool.engine import tick
from mqtool.engine.payload import generate
from mqtool.engine.ztpf.figures import SwbSettings, checkpoint_ios, file_ios, swbs_for
from mqtool.engine.ztpf.model import queue_stored
from mqtool.engine.ztpf.sweeper import forecast, sweeps_between
from tests.test_engine_queue import Engine
from tests.test_engine_timers import pool, run


@pytest.mark.parametrize(("compsize", "count"), [(0, 450), (16000, 1300)])
def test_forecast_matches_the_sweeps_the_engine_records(tmp_path: Path, compsize: int, count: int) -> None:
    """The seed's scenario on a fifth of the pool: 32 KB XML to a transmission queue every
    10 ms, channel down. The forecast from the messages' SWBs and I/Os gives the same
    sweeps (when, how many messages, how many I/Os) as the engine records."""
    engine = Engine(tmp_path / "state")
    pool(engine, 6600)
    run(
        engine,
        f"ZMQSC DEFINE QL-XQ USAGE-XMITQ COMPSIZE-{compsize}",
        "ZMQSC DEFINE QR-REMQ RNAME-PAYQ RQMNAME-QM2 XMITQ-XQ",
    )
    start = engine.clock.timestamp()
    lines = run(engine, f".put REMQ count={count} size=32768 pattern=xml every=10ms")
    assert lines[0].startswith(f"MQT0101I Put {count} messages"), lines
    with engine.store.transaction(write=False) as tx:
        recorded = sweeps_between(tx, "TPF1", start, engine.clock.timestamp())
    engine.store.close()
    stored = [len(queue_stored(generate("xml", 32768, 0, i), compsize, True)[0]) for i in range(count)]
    settings = SwbSettings(swbsize=1024, pool=6600, sweephi=80, sweeplo=40)
    predicted = forecast(((swbs_for(n), file_ios(n)) for n in stored), 0.01, settings)
    assert len(recorded) >= 2
    assert predicted.puts == count and predicted.refused == 0
    assert predicted.sweeps == len(recorded)
    assert predicted.swept == sum(row[1] for row in recorded)
    assert predicted.ios == sum(row[2] for row in recorded)
    assert predicted.first == pytest.approx(recorded[0][0] - start, abs=1e-6)
    assert predicted.last == pytest.approx(recorded[-1][0] - start, abs=1e-6)
    gaps = (recorded[-1][0] - recorded[0][0]) / (len(recorded) - 1)
    assert predicted.interval == pytest.approx(gaps, abs=1e-6)


def test_forecast_refuses_a_put_the_pool_cannot_hold() -> None:
    settings = SwbSettings(swbsize=1024, pool=100, sweephi=80, sweeplo=40)
    # 79 SWBs in use, then a message of 30: 109 > 100, refused (2053); then one of 1 sweeps.
    result = forecast([(79, 1), (30, 9), (1, 1)], 1.0, settings)
    assert (result.puts, result.refused, result.sweeps, result.swept, result.ios) == (3, 1, 1, 1, 1)
    assert (result.first, result.in_use) == (2.0, 1)
    assert result.interval is None
    empty = forecast([], 1.0, settings)
    assert (empty.puts, empty.sweeps, empty.first, empty.interval) == (0, 0, None, None)


@pytest.mark.parametrize(
    ("cpu", "compsize", "size", "pattern"),
    [
        ("z15", 1000, 5000, "xml"),
        ("z15", 1000, 999, "xml"),
        ("z15", 1, 4000, "random"),
        ("z14", 1000, 5000, "xml"),
        ("z15", 0, 5000, "xml"),
        ("z15", 1, 0, "xml"),
    ],
)
def test_queue_stored_is_what_a_real_put_keeps(
    tmp_path: Path, cpu: str, compsize: int, size: int, pattern: str
) -> None:
    engine = Engine(tmp_path / "state")
    with engine.store.transaction() as tx:
        system = tx.get_system("TPF1")
        assert system is not None
        system.attrs["cpu"] = cpu
        tx.put_system(system)
    engine.cmd(f"ZMQSC DEFINE QL-Q COMPSIZE-{compsize}")
    payload = generate(pattern, size, 3, 0)
    (result,) = engine.put("Q", payload)
    engine.store.close()
    stored, codec = queue_stored(payload, compsize, cpu == "z15")
    assert (result.stored, result.codec, result.units) == (len(stored), codec, swbs_for(len(stored)))


def test_checkpoint_ios_is_what_the_checkpoint_writes(tmp_path: Path) -> None:
    engine = Engine(tmp_path / "state")
    run(engine, "ZMQSC DEFINE QL-MEM COMPSIZE-1000", ".put MEM count=37 size=3000 persistent=yes")
    tick.tick(engine.store, engine.clock, engine.clock.timestamp() + 6)
    with engine.store.transaction(write=False) as tx:
        written = tx.conn.execute("SELECT ckpt_ios FROM engine_state WHERE system = 'TPF1'").fetchone()[0]
        size = tx.conn.execute("SELECT sum(stored_length) FROM messages").fetchone()[0]
    engine.store.close()
    assert written == checkpoint_ios(size) > 1
    assert checkpoint_ios(0) == 0 and checkpoint_ios(4096) == 1 and checkpoint_ios(4097) == 2


@pytest.mark.parametrize(
    "data",
    [b"", b"abc", b"x" * 5000, generate("xml", 3000, 0, 0), generate("random", 4000, 0, 0), b"ab" * 10 + b"\0" * 900],
)
@pytest.mark.parametrize("complog", ["NONE", "RLE", "ANY"])
def test_put_record_encoded_is_put_record(data: bytes, complog: str) -> None:
    from mqtool.engine import codecs
    from mqtool.engine.zos.logrecords import put_record, put_record_encoded

    encoded = len(codecs.compress("RLE", data))
    assert put_record_encoded(len(data), encoded, complog) == put_record(data, complog)
