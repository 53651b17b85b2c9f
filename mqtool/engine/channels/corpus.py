"""The seed's channel compression table ("Message Size / Batch Size / Comp Ratio", seed
000, z/TPF MQ channel compression with TLS) measured on mqtool's generated XML corpus:
one batch of each size over a ZLIBHIGH channel, the ratio as the channel statistics
compute it (percent size reduction of the batch on the wire, rounded down).

mqtool-ztpf(7) prints the table; tests/test_channel_corpus.py checks the page against
`table()` and a real channel's batch against `row()`.
"""

from __future__ import annotations

from dataclasses import dataclass

from mqtool.engine.channels import wire
from mqtool.engine.channels.status import rate
from mqtool.engine.payload import generate

# (message size, batch size, the seed's comp ratio in percent)
SEED_ROWS: tuple[tuple[int, int, int], ...] = ((5000, 2000, 65), (16000, 625, 74), (70000, 143, 79), (400000, 25, 80))
TECHNIQUE = "ZLIBHIGH"
SEED = 0  # the payload generator's seed (mqtool put --pattern xml --seed 0)


@dataclass(frozen=True)
class Row:
    size: int
    batch: int
    before: int  # bytes of the batch before compression
    wire: int  # bytes of the batch on the wire
    seed_ratio: int

    @property
    def ratio(self) -> int:
        return rate(self.before, self.wire, nearest=False)


def row(size: int, batch: int, seed_ratio: int = 0, technique: str = TECHNIQUE) -> Row:
    """One batch of `batch` generated XML messages of `size` bytes over a channel that
    negotiated `technique` (transmission queue COMPSIZE 0: every message compressed)."""
    before = wire_bytes = 0
    for index in range(batch):
        data = generate("xml", size, SEED, index)
        sent = wire.send(data, "", len(data), technique, 0)
        before += len(data)
        wire_bytes += len(sent.data)
    return Row(size, batch, before, wire_bytes, seed_ratio)


def table() -> list[Row]:
    return [row(size, batch, seed_ratio) for size, batch, seed_ratio in SEED_ROWS]


def lines(rows: list[Row]) -> list[str]:
    """The table as the man page prints it, in the seed's columns plus the seed's ratio."""
    out = [f"{'Message Size':<14}{'Batch Size':<12}{'Comp Ratio':<12}Seed"]
    for item in rows:
        out.append(f"{item.size:<14}{item.batch:<12}{str(item.ratio) + '%':<12}{item.seed_ratio}%")
    return out
