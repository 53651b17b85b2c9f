"""HttpStats: the ZHTPS STATS counters, their averages, JSON form and drain/absorb."""

from __future__ import annotations

import json
import threading

import pytest

from mqtool.engine.http.stats import HttpStats


def test_gauge_and_high_water_mark() -> None:
    stats = HttpStats()
    for _ in range(3):
        stats.connection_opened()
    stats.connection_closed()
    stats.connection_opened()
    assert (stats.active, stats.hwmark) == (3, 3)
    for _ in range(5):
        stats.connection_closed()
    assert stats.active == 0  # never negative


def test_event_counters() -> None:
    stats = HttpStats()
    stats.refused_connection()
    stats.reused_request()
    stats.reused_request()
    stats.timed_out_connection()
    stats.url_error()
    assert (stats.refused, stats.reused, stats.timed_out, stats.url_errors) == (
        1,
        2,
        1,
        1,
    )


def test_averages() -> None:
    stats = HttpStats()
    assert (stats.avg_ratio, stats.avg_time_ms, stats.avg_size) == (0.0, 0.0, 0.0)
    stats.response("hw", 1000, 250, 0.002)  # 75 % smaller
    stats.response("sw", 3000, 2700, 0.004)  # 10 % smaller
    stats.response(None, 50, 50, 0.0)
    assert (stats.hardware_count, stats.software_count, stats.none_count) == (1, 1, 1)
    assert stats.avg_ratio == pytest.approx(42.5)  # mean per response, not by bytes
    assert stats.avg_time_ms == pytest.approx(3.0)
    assert stats.avg_size == 2000.0
    assert (stats.compressed_bytes_before, stats.compressed_bytes_after) == (4000, 2950)


def test_expansion_gives_a_negative_reduction() -> None:
    stats = HttpStats()
    stats.response("sw", 100, 120, 0.0)
    assert stats.avg_ratio == pytest.approx(-20.0)


def test_json_round_trip() -> None:
    stats = HttpStats()
    stats.connection_opened()
    stats.response("hw", 20184, 4820, 0.000019)
    data = json.loads(json.dumps(stats.to_dict()))
    assert HttpStats.from_dict(data) == stats
    assert "_lock" not in data


def test_from_dict_tolerates_missing_and_unknown_keys() -> None:
    stats = HttpStats.from_dict({"refused": 4, "added_in_a_later_release": 1})
    assert stats.refused == 4
    assert stats.active == 0


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"refused": "4"}, TypeError),
        ({"refused": 1.5}, TypeError),
        ({"refused": True}, TypeError),
        ({"refused": -1}, ValueError),
    ],
)
def test_from_dict_rejects_bad_values(data: dict[str, object], error: type) -> None:
    with pytest.raises(error):
        HttpStats.from_dict(data)


def test_drain_and_absorb() -> None:
    live, stored = HttpStats(), HttpStats()
    live.connection_opened()
    live.connection_opened()
    live.url_error()
    live.response("sw", 100, 40, 0.5)
    delta = live.drain_delta()
    assert (delta.active, delta.hwmark, delta.url_errors, delta.software_count) == (
        2,
        2,
        1,
        1,
    )
    # Counters restart in the live object; the gauge stays.
    assert (live.active, live.hwmark, live.url_errors, live.software_count) == (
        2,
        2,
        0,
        0,
    )
    stored.absorb(delta)
    live.connection_closed()
    live.url_error()
    stored.absorb(live.drain_delta())
    assert (stored.active, stored.hwmark, stored.url_errors) == (1, 2, 2)
    assert stored.avg_ratio == pytest.approx(60.0)


def test_failed_store_puts_the_delta_back() -> None:
    live = HttpStats()
    live.connection_opened()
    live.url_error()
    delta = live.drain_delta()
    live.connection_opened()
    live.absorb(delta, keep_active=True)
    assert (live.active, live.url_errors) == (2, 1)


def test_reset_keeps_the_gauge() -> None:
    stats = HttpStats()
    stats.connection_opened()
    stats.connection_opened()
    stats.connection_closed()
    stats.response("hw", 10, 5, 1.0)
    stats.reset()
    assert stats.to_dict() == {**HttpStats().to_dict(), "active": 1, "hwmark": 1}


def test_concurrent_updates_and_drains_lose_nothing() -> None:
    live, stored = HttpStats(), HttpStats()
    done = threading.Event()

    def drainer() -> None:
        while not done.is_set():
            stored.absorb(live.drain_delta())

    thread = threading.Thread(target=drainer)
    thread.start()
    for _ in range(20000):
        live.url_error()
        live.response(None, 1, 1, 0.0)
    done.set()
    thread.join()
    stored.absorb(live.drain_delta())
    assert (stored.url_errors, stored.none_count) == (20000, 20000)
