"""Figures of z/TPF queues and systems that displays and the engine read: depth, SWBs
held, compressed messages, the system's SWB settings (SWBSIZE, SWBPOOL, SWEEPHI/LO),
file I/Os, and the z/TPF MQ timers' names and interval."""

from __future__ import annotations

from mqtool.record import Frozen, set_field
from mqtool.state import SystemRecord, Transaction

SWB_HEADER = 16  # bytes of chain header in each SWB
SWBSIZE = 1024  # the TPF SWB size
SWBPOOL = 33000  # SWBs available to MQ
SWEEPHI = 80  # percent of SWBPOOL in use that starts the sweeper
SWEEPLO = 40  # percent it sweeps down to
FILE_BLOCK = 4096  # bytes per file I/O (sweeper, read back, checkpoint)
MONITOR_TIMER = "ztpf-mq-monitor"
CHECKPOINT_TIMER = "ztpf-mq-checkpoint"
INTERVAL = 5.0  # seconds: the MQ monitor and the checkpoint


def swbs_for(stored_length: int, swbsize: int = SWBSIZE) -> int:
    """SWBs one in-memory message occupies: ceil(stored / (SWBSIZE - 16)), at least 1."""
    payload = max(1, swbsize - SWB_HEADER)
    return max(1, -(-stored_length // payload))


def file_ios(stored_length: int) -> int:
    """I/Os to write a message to file or read it back: 1 + ceil(stored / 4096)."""
    return 1 + -(-stored_length // FILE_BLOCK)


def qdepthhi_threshold(maxdepth: int, percent: int) -> int:
    """The depth that raises the QDEPTHHI warning: ceil(MAXDEPTH * QDEPTHHI / 100), at
    least 1; 0 when either is 0 (no warning)."""
    return max(1, -(-maxdepth * percent // 100)) if maxdepth and percent else 0


class SwbSettings(Frozen, frozen=True):
    """A z/TPF system's SWB pool and sweeper thresholds, in blocks (a written-out
    read-only record, not a dataclass: mqtool/record.py says why)."""

    __slots__ = _FIELDS = ("swbsize", "pool", "sweephi", "sweeplo")
    swbsize: int
    pool: int
    sweephi: int  # percent
    sweeplo: int  # percent

    def __init__(self, swbsize: int, pool: int, sweephi: int, sweeplo: int) -> None:
        set_field(self, "swbsize", swbsize)
        set_field(self, "pool", pool)
        set_field(self, "sweephi", sweephi)
        set_field(self, "sweeplo", sweeplo)

    @property
    def high(self) -> int:
        """SWBs in use at which the sweeper starts."""
        return self.pool * self.sweephi // 100

    @property
    def low(self) -> int:
        """SWBs in use the sweeper sweeps down to."""
        return self.pool * self.sweeplo // 100


def swb_settings(system: SystemRecord) -> SwbSettings:
    attrs = system.attrs
    return SwbSettings(
        swbsize=int(attrs.get("swbsize", SWBSIZE)),
        pool=int(attrs.get("swbpool", SWBPOOL)),
        sweephi=int(attrs.get("sweephi", SWEEPHI)),
        sweeplo=int(attrs.get("sweeplo", SWEEPLO)),
    )


def system_swbs(tx: Transaction, system: str) -> int:
    """SWBs the system's in-memory messages hold now (all memory queues)."""
    row = tx.conn.execute("SELECT coalesce(sum(swbs), 0) FROM queue_figures WHERE system = ?", (system,)).fetchone()
    return int(row[0])


def queue_figures(tx: Transaction, system: SystemRecord, queue: str, common: bool = False) -> dict[str, int]:
    """CURDEPTH, SWBS (held by in-memory messages; none on a common queue) and COMPRESSED."""
    row = tx.conn.execute(
        "SELECT depth, swbs, compressed FROM queue_figures WHERE system = ? AND queue = ?", (system.name, queue)
    ).fetchone()
    depth, swbs, compressed = row if row is not None else (0, 0, 0)  # every local queue has its row
    return {"CURDEPTH": int(depth), "SWBS": 0 if common else int(swbs), "COMPRESSED": int(compressed)}


def checkpoint_ios(size: int) -> int:
    """I/Os the checkpoint spends writing `size` stored bytes of one queue's persistent
    messages: ceil(size / 4096), as run_checkpoint counts them (for mqtool estimate)."""
    return -(-size // FILE_BLOCK)
