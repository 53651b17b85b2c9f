"""Property: any payload put comes back byte for byte, compressed or not, through the
hardware path (z15) and the software fallback (z14)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.test_engine_queue import Engine

payloads = st.one_of(
    st.binary(max_size=4096),
    st.text(max_size=3000).map(lambda text: text.encode("utf-8")),
    st.builds(lambda unit, times: unit * times, st.binary(min_size=1, max_size=40), st.integers(1, 3000)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.lists(payloads, min_size=1, max_size=6), compsize=st.sampled_from([0, 1, 64, 1000]), z14=st.booleans())
def test_bytes_out_equal_bytes_in(batch: list[bytes], compsize: int, z14: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        engine = Engine(Path(folder))
        try:
            engine.cmd(f"ZMQSC DEFINE QL-Q1 COMPSIZE-{compsize}")
            results = engine.put("Q1", *batch, persistent=True)
            for payload, result in zip(batch, results, strict=True):
                # Stored compressed only when on, long enough, and smaller for it.
                if result.codec:
                    assert compsize and len(payload) >= compsize
                    assert result.stored < len(payload)
                else:
                    assert result.stored == len(payload)
            if z14:
                engine.set_cpu("z14")
            got = engine.get("Q1", None)
            assert [message.payload for message in got] == batch
            assert engine.figures("Q1") == {"CURDEPTH": 0, "SWBS": 0, "COMPRESSED": 0}
        finally:
            engine.store.close()
