"""ZMQSC START, STOP and RESET of a channel, the status block of DISPLAY CHL-name and
the channel statistics display DISPLAY CHL-name STAT (MQSC0351I). The engine
(mqtool/engine/channels) does the work; this module checks and answers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mqtool.engine.channels import mca
from mqtool.engine.channels.status import ChannelStatus, per_message, rate
from mqtool.response import Response
from mqtool.session import Context
from mqtool.state import ObjectRecord
from mqtool.state import messages as runs
from mqtool.validate import Request

from . import failure, processor_id, qmgr, response


def _apply(ctx: Context, req: Request, verb: str, action: Callable[[ObjectRecord], None]) -> Response | None:
    """Runs `action(record)` on the channel named by the command: None when done, else
    the response that refuses the command."""
    assert req.name is not None
    if qmgr(ctx.tx, ctx.system) is None:
        return failure("MQSC0010E")
    record = ctx.tx.get_object(ctx.system.name, "CHL", req.name)
    if record is None:
        return failure("MQSC0018E", object="CHL", name=req.name)
    try:
        action(record)
    except mca.Refused as refused:
        if refused.kind == "active" and verb == "START":
            return failure("MQSC0331E", name=record.name, state=refused.state)
        if refused.kind == "active":
            return failure("MQSC0023E", name=record.name, state=refused.state)
        return failure("MQSC0332E", verb=verb, name=record.name, chltype=record.attrs.get("CHLTYPE", ""))
    return None


def start(ctx: Context, req: Request) -> Response:
    """START CHL-name: accepted; a sender binds at the next tick. A channel defined for
    another processor (CPU) starts only there."""
    record = ctx.tx.get_object(ctx.system.name, "CHL", req.name or "")
    cpu = str(record.attrs.get("CPU") or "ALL") if record is not None else "ALL"
    if cpu not in ("ALL", processor_id(ctx.system)):
        return failure("MQSC0356E", name=req.name, cpu=cpu)
    refused = _apply(ctx, req, "START", lambda record: mca.start(ctx.tx, ctx.system, record, ctx.now))
    if refused is not None:
        return refused
    result = response()
    result.add("MQSC0330I", name=req.name)
    return result


def stop(ctx: Context, req: Request) -> Response:
    """STOP CHL-name: the channel ends; its messages stay on the transmission queue."""
    store = ctx.session.store
    refused = _apply(ctx, req, "STOP", lambda record: mca.stop(store, ctx.clock, ctx.tx, ctx.system, record))
    if refused is not None:
        return refused
    result = response()
    result.add("MQSC0001I", command=f"STOP CHL-{req.name}")
    return result


def reset(ctx: Context, req: Request) -> Response:
    """RESET CHL-name [SEQNUM-n]: the channel's sequence number (1 when not given)."""
    seqnum = int(req.get("SEQNUM", 1))
    refused = _apply(ctx, req, "RESET", lambda record: mca.reset(ctx.tx, ctx.system, record, seqnum))
    if refused is not None:
        return refused
    result = response()
    result.add("MQSC0001I", command=f"RESET CHL-{req.name} SEQNUM-{seqnum}")
    return result


def status_lines(record: ObjectRecord) -> list[tuple[str, object]]:
    """The status block of DISPLAY CHL-name, after its attributes: nothing more than
    STATUS for a channel that never ran."""
    lines: list[tuple[str, object]] = [("STATUS", record.status.get("state", "INACTIVE"))]
    if "channel" not in record.status:
        return lines
    status = ChannelStatus.load(record.status)
    total = status.total
    lines += [
        ("PARTNER", status.rqmname),
        ("NEGOTIATED", status.technique),
        ("LASTUSED", status.last_technique),
        ("SEQNUM", status.seq),
        ("INDOUBT", status.indoubt.count if status.indoubt is not None else "NO"),
        ("MSGS", total.msgs),
        ("BATCHES", total.batches),
        ("BYTESBEFORE", total.before),
        ("BYTESAFTER", total.wire),
        ("COMPRATIO", rate(total.before, total.wire, nearest=False)),
        ("COMPTIME", per_message(total.comp_us, total.compressed)),
    ]
    if status.transport == "TCP":
        lines += [
            ("TRANSPORT", status.transport),
            ("SSLCIPH", status.sslciph),
            ("SSLPEER", status.sslpeer),
            ("BYTESFRAMES", total.frames),
            ("BYTESSOCKET", total.socket),
        ]
    return lines


def _channels(ctx: Context, req: Request) -> list[ObjectRecord] | Response:
    """The channels a DISPLAY CHL-name STAT or STATUS shows, or the response when it
    shows none (no queue manager, no such channel, a generic name matching nothing)."""
    assert req.name is not None
    if qmgr(ctx.tx, ctx.system) is None:
        return failure("MQSC0010E")
    records = ctx.tx.objects(ctx.system.name, "CHL", req.name)
    if not records and not req.name.endswith("*"):
        return failure("MQSC0018E", object="CHL", name=req.name)
    if not records:
        result = response(display=True)
        result.add("MQSC0003I", object="CHL", name=req.name)
        return result
    return records


def display_status(ctx: Context, req: Request) -> Response:
    """DISPLAY CHL-name STATUS: per channel (a generic name shows every match) its name,
    type and the status lines of DISPLAY CHL-name, and for a sender where its messages
    wait (XMITQ, XQMSGSA: the messages on the transmission queue)."""
    records = _channels(ctx, req)
    if isinstance(records, Response):
        return records
    result = response(display=True)
    title = result.add("MQSC0355I")
    for record in records:
        chltype = record.attrs.get("CHLTYPE", "")
        title.attrs += [("CHANNEL", record.name), ("CHLTYPE", chltype)]
        if chltype == "SDR":
            xmitq = str(record.attrs.get("XMITQ", ""))
            title.attrs += [
                ("CONNAME", record.attrs.get("CONNAME", "")),
                ("XMITQ", xmitq),
                ("XQMSGSA", runs.depth(ctx.tx.conn, ctx.system.name, xmitq)),
            ]
        title.attrs += status_lines(record)
    return result


def display_stat(ctx: Context, req: Request) -> Response:
    """DISPLAY CHL-name STAT (a generic name shows every matching channel)."""
    records = _channels(ctx, req)
    if isinstance(records, Response):
        return records
    result = response(display=True)
    for record in records:
        result.add("MQSC0351I", **stat_fields(record))
        status = ChannelStatus.load(record.status)
        if status.transport == "TCP":
            result.add("MQSC0353I", **transport_fields(record.name, status))
    return result


def transport_fields(name: str, status: ChannelStatus) -> dict[str, Any]:
    """The MQSC0353I template's fields: the channel's bytes of frames and on the socket
    (after TLS), the last batch (since the channel started)."""
    return {
        "name": name,
        "transport": status.transport,
        "peer": status.conname or "NONE",
        "sslciph": status.sslciph or "NONE",
        "sslpeer": status.sslpeer or "NONE",
        "hbint": status.hbint,
        "frames_last": status.batch.frames,
        "frames": status.total.frames,
        "socket_last": status.batch.socket,
        "socket": status.total.socket,
    }


def stat_fields(record: ObjectRecord) -> dict[str, Any]:
    """The MQSC0351I template's fields: A (B) pairs are the last batch (since the
    channel started)."""
    status = ChannelStatus.load(record.status)
    total, batch = status.total, status.batch
    sender = record.attrs.get("CHLTYPE") == "SDR"
    partner = (f"{status.rqmname} AT {status.conname}" if sender else status.rqmname) or "NONE"
    return {
        "name": record.name,
        "chltype": record.attrs.get("CHLTYPE", ""),
        "state": status.state,
        "partner": partner,
        "technique": status.technique,
        "last": status.last_technique,
        "seq": status.seq,
        "indoubt": status.indoubt.count if status.indoubt is not None else 0,
        "batchsz": status.batchsz,
        "msgs_last": batch.msgs,
        "msgs": total.msgs,
        "batches": total.batches,
        "before_last": batch.before,
        "before": total.before,
        "wire_last": batch.wire,
        "wire": total.wire,
        "ratio_last": rate(batch.before, batch.wire, nearest=False),
        "ratio": rate(total.before, total.wire, nearest=False),
        "time_last": per_message(batch.comp_us, batch.compressed),
        "time": per_message(total.comp_us, total.compressed),
        "compressed": total.compressed,
        "stored": total.stored,
        "inflated": total.inflated,
        "hardware": total.hardware,
        "software": total.software,
        "dead": total.dead,
    }
