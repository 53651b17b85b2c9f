"""Figures of a z/TPF queue that displays show: depth, SWBs held, compressed messages."""

from __future__ import annotations

from mqtool.state import SystemRecord, Transaction

SWB_HEADER = 16  # bytes of chain header in each SWB


def swbs_for(stored_length: int, swbsize: int) -> int:
    """SWBs one in-memory message occupies: ceil(stored / (SWBSIZE - 16)), at least 1."""
    payload = max(1, swbsize - SWB_HEADER)
    return max(1, -(-stored_length // payload))


def queue_figures(tx: Transaction, system: SystemRecord, queue: str, common: bool = False) -> dict[str, int]:
    """CURDEPTH, SWBS (held by in-memory messages; none on a common queue) and COMPRESSED."""
    swbsize = int(system.attrs.get("swbsize", 1024))
    payload = max(1, swbsize - SWB_HEADER)
    row = tx.conn.execute(
        "SELECT count(*), "
        "coalesce(sum(CASE WHEN swept = 0 THEN max(1, (stored_length + ? - 1) / ?) ELSE 0 END), 0), "
        "coalesce(sum(CASE WHEN codec != '' THEN 1 ELSE 0 END), 0) "
        "FROM messages WHERE system = ? AND queue = ?",
        (payload, payload, system.name, queue),
    ).fetchone()
    return {"CURDEPTH": row[0], "SWBS": 0 if common else row[1], "COMPRESSED": row[2]}
