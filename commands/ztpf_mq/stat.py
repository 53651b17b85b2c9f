"""ZMQSC DISPLAY QL-name STAT: the local queue statistics display (MQSC0251I), one block
per queue; a generic name shows every matching local queue."""

from __future__ import annotations

from typing import Any

from mqtool.engine.ztpf.stats import QueueStatistics, queue_statistics, readable_size
from mqtool.response import Response
from mqtool.session import Context
from mqtool.validate import Request

from . import failure, qmgr, response


def display(ctx: Context, req: Request) -> Response:
    assert req.name is not None
    system, tx = ctx.system, ctx.tx
    if qmgr(tx, system) is None:
        return failure("MQSC0010E")
    records = tx.objects(system.name, "QL", req.name)
    if not records:
        if not req.name.endswith("*"):
            return failure("MQSC0018E", object="QL", name=req.name)
        result = response(display=True)
        result.add("MQSC0003I", object="QL", name=req.name)
        return result
    result = response(display=True)
    for record in records:
        common = record.attrs.get("COMMON", "NO") == "YES"
        figures = queue_statistics(tx, system.name, record.name, common=common)
        if figures is None:
            continue
        result.add("MQSC0251I", **fields(record.name, figures))
    return result


def fields(queue: str, stats: QueueStatistics) -> dict[str, Any]:
    """The MQSC0251I template's fields: counts as integers, sizes in readable units,
    checkpoint durations in seconds with 3 decimals."""
    return {
        "queue": queue,
        "depth": stats.depth,
        "persistent": stats.persistent,
        "persistent_size": readable_size(stats.persistent_bytes),
        "nonpersistent": stats.nonpersistent,
        "nonpersistent_size": readable_size(stats.nonpersistent_bytes),
        "ratio_last": stats.ratio_last,
        "ratio": stats.ratio,
        "time_last": stats.time_last,
        "time": stats.time,
        "size_last": stats.size_last,
        "size": stats.size,
        "orig_last": stats.orig_last,
        "orig": stats.orig,
        "compressed": stats.compressed,
        "decompressed": stats.decompressed,
        "compress_rate": stats.compress_rate,
        "decompress_rate": stats.decompress_rate,
        "opens": stats.opens,
        "closes": stats.closes,
        "swbs": stats.swbs,
        "aborted": stats.aborted,
        "ckpt_high": f"{stats.ckpt_high:.3f}",
        "ckpt_last": f"{stats.ckpt_last:.3f}",
        # The checkpoint runs inside one store transaction: a display never sees it half done.
        "ckpt_active": "NO",
        "gets": stats.gets,
        "get_rate": stats.get_rate,
        "get_high": stats.get_high,
        "searches": stats.searches,
        "search_rate": stats.search_rate,
        "search_high": stats.search_high,
    }
