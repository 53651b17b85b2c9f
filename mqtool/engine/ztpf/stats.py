"""The statistics of a z/TPF local queue as numbers (what DISPLAY QL-name STAT shows):
last completed 5-second interval and since the statistics were reset."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from mqtool.engine.ztpf.figures import INTERVAL
from mqtool.state import Transaction


@dataclass(frozen=True)
class QueueStatistics:
    depth: int
    persistent: int
    persistent_bytes: int  # stored size (after compression) of the persistent messages put
    nonpersistent: int
    nonpersistent_bytes: int  # and of the non-persistent ones
    ratio_last: int  # percent size reduction of compressed messages
    ratio: int
    time_last: int  # mean microseconds per compression
    time: int
    size_last: int  # mean stored size of the messages put
    size: int
    orig_last: int  # mean original size of the compressed messages
    orig: int
    compressed: int
    decompressed: int
    decompressed_hardware: int
    decompressed_software: int
    compress_rate: int  # per second, last interval
    decompress_rate: int
    opens: int
    closes: int
    swbs: int
    aborted: int
    ckpt_high: float
    ckpt_last: float
    gets: int
    get_rate: int
    get_high: int
    searches: int
    search_rate: int
    search_high: int
    reset_time: float


_COLUMNS = (
    "f.depth, f.swbs, opens, closes, aborted_sweeps, ckpt_high, ckpt_last, get_rate_high, swept_rate_high, "
    "t_put_p, t_put_p_bytes, t_put_np, t_put_np_bytes, t_stored, t_comp, t_comp_orig, t_comp_stored, t_comp_us, "
    "t_decomp, t_decomp_hw, t_decomp_sw, t_gets, t_swept_search, "
    "l_puts, l_stored, l_comp, l_comp_orig, l_comp_stored, l_comp_us, l_decomp, l_gets, l_swept_search, reset_time"
)


def _ratio(original: int, stored: int) -> int:
    return 100 * (original - stored) // original if original else 0


def _mean(total: int, count: int) -> int:
    return total // count if count else 0


# A queue's counters are derived when it has no row yet (none is written when it is
# defined, state/migrations/0017): every counter 0, reset when it was defined.
_READ = (
    "SELECT f.depth, f.held_swbs, "
    + ", ".join(f"coalesce(s.{column}, 0)" for column in _COLUMNS.split(", ")[2:-1])
    + ", coalesce(s.reset_time, o.created) FROM objects o JOIN messages f ON f.id = o.qkey << 44 "
    "LEFT JOIN queue_stats s ON s.system = o.system AND s.queue = o.name "
    "WHERE o.system = ? AND o.type = 'QL' AND o.name = ?"
)
_ENSURE = (
    "INSERT OR IGNORE INTO queue_stats (system, queue, reset_time) "
    "SELECT system, name, created FROM objects WHERE system = ? AND type = 'QL' AND name = ?"
)


def ensure_row(conn: sqlite3.Connection, system: str, queue: str) -> None:
    """Writes the queue's row of counters, as derived, when it has none yet."""
    conn.execute(_ENSURE, (system, queue))


def count(
    conn: sqlite3.Connection | sqlite3.Cursor, sql: str, params: Sequence[object], system: str, queue: str
) -> None:
    """Runs an UPDATE of the queue's counters (`sql`, with `params`), writing the queue's
    row first when it has none yet."""
    if conn.execute(sql, params).rowcount == 0:
        ensure = conn.connection if isinstance(conn, sqlite3.Cursor) else conn
        ensure_row(ensure, system, queue)
        conn.execute(sql, params)


def queue_statistics(tx: Transaction, system: str, queue: str, common: bool = False) -> QueueStatistics | None:
    row = tx.conn.execute(_READ, (system, queue)).fetchone()
    if row is None:
        return None
    (depth, swbs, opens, closes, aborted, ckpt_high, ckpt_last, get_high, search_high,
     put_p, put_p_bytes, put_np, put_np_bytes, stored, comp, comp_orig, comp_stored, comp_us,
     decomp, decomp_hw, decomp_sw, gets, searches,
     l_puts, l_stored, l_comp, l_comp_orig, l_comp_stored, l_comp_us, l_decomp, l_gets, l_searches,
     reset_time) = row  # fmt: skip
    per_second = int(INTERVAL)
    return QueueStatistics(
        depth=depth,
        persistent=put_p,
        persistent_bytes=put_p_bytes,
        nonpersistent=put_np,
        nonpersistent_bytes=put_np_bytes,
        ratio_last=_ratio(l_comp_orig, l_comp_stored),
        ratio=_ratio(comp_orig, comp_stored),
        time_last=_mean(l_comp_us, l_comp),
        time=_mean(comp_us, comp),
        size_last=_mean(l_stored, l_puts),
        size=_mean(stored, put_p + put_np),
        orig_last=_mean(l_comp_orig, l_comp),
        orig=_mean(comp_orig, comp),
        compressed=comp,
        decompressed=decomp,
        decompressed_hardware=decomp_hw,
        decompressed_software=decomp_sw,
        compress_rate=l_comp // per_second,
        decompress_rate=l_decomp // per_second,
        opens=opens,
        closes=closes,
        swbs=0 if common else swbs,
        aborted=aborted,
        ckpt_high=float(ckpt_high),
        ckpt_last=float(ckpt_last),
        gets=gets,
        get_rate=l_gets // per_second,
        get_high=get_high,
        searches=searches,
        search_rate=l_searches // per_second,
        search_high=search_high,
        reset_time=float(reset_time),
    )


_RESET = (
    "UPDATE queue_stats SET reset_time = ?, opens = 0, closes = 0, aborted_sweeps = 0, swept_msgs = 0, "
    "sweep_ios = 0, read_ios = 0, expired = 0, ckpt_high = 0, ckpt_last = 0, ckpt_ios = 0, get_rate_high = 0, "
    "swept_rate_high = 0, "
    + ", ".join(
        f"{family}_{name} = 0"
        for family in ("i", "l")
        for name in ("puts", "stored", "comp", "comp_orig", "comp_stored", "comp_us", "decomp", "gets", "swept_search")
    )
    + ", "
    + ", ".join(
        f"t_{name} = 0"
        for name in (
            "put_p",
            "put_p_bytes",
            "put_np",
            "put_np_bytes",
            "stored",
            "comp",
            "comp_orig",
            "comp_stored",
            "comp_us",
            "decomp",
            "decomp_hw",
            "decomp_sw",
            "gets",
            "swept_search",
        )
    )
    + " WHERE system = ? AND queue = ?"
)


def reset_statistics(tx: Transaction, system: str, queue: str, now: float) -> None:
    """RESET QL-name STAT: every counter starts again; depth and SWBs are facts, not counters."""
    ensure_row(tx.conn, system, queue)
    tx.conn.execute(_RESET, (now, system, queue))


def readable_size(total: int) -> str:
    """`0 bytes`, `5000 bytes`, `274 megabytes`: the largest unit (1 KB = 1024 bytes) that
    still leaves at least two digits, rounded down."""
    for unit, size in (("gigabytes", 1 << 30), ("megabytes", 1 << 20), ("kilobytes", 1 << 10)):
        if total >= 10 * size:
            return f"{total // size} {unit}"
    return f"{total} bytes"
