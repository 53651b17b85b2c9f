"""MOVE QLOCAL(source) TOQLOCAL(target) [TYPE(MOVE|ADD)] [QSGDISP(PRIVATE|SHARED)]:
every message of a local queue moved to another, with IBM's rules: both queues must
exist and be local queues, and neither may be open (nor a queue that resolves to it,
nor a running channel's transmission queue); their USAGE must match; TYPE(MOVE), the
default, needs an empty target; the messages of both together must fit the target's
MAXDEPTH, else nothing moves. IBM moves in several units of work; mqtool moves in one,
so a failure (a message too long for the target, a full page set) moves nothing. The
engine's side is mqtool/engine/zos/move.py."""

from __future__ import annotations

from typing import Any

from mqtool.engine.core.reasons import NAMES, MQError
from mqtool.engine.zos.handles import live_handles
from mqtool.engine.zos.move import MoveFailed, move_messages
from mqtool.response import NO_CSECT, Response

from . import (
    RC_IN_USE,
    RC_WRONG_TYPE,
    active_only,
    find_queue,
    not_found,
    not_in_group,
    queue_depth,
    refuse,
    reply,
    syntax,
)


@active_only
def handle(ctx: Any, req: Any) -> Response:
    tx, system = ctx.tx, ctx.system
    source = str(req.name)
    target = req.get("TOQLOCAL")
    if not target:
        return syntax(req, "CSQ9031E", keyword="MOVE QLOCAL", what="TOQLOCAL(q-name)")
    target = str(target)
    if req.get("QSGDISP", "PRIVATE") == "SHARED":
        return not_in_group(ctx, req, f"MOVE QLOCAL({source}) QSGDISP(SHARED)")
    records = {}
    for name in (source, target):
        record = find_queue(tx, system, name)
        if record is None:
            return not_found(req, "QLOCAL", name)
        if record.type != "QLOCAL":
            return refuse(req, "CSQM110I", RC_WRONG_TYPE, objtype="QLOCAL", name=name, actual=record.type)
        records[name] = record
    if source == target:
        return refuse(req, "MQT0465E", name=source)
    for name in (source, target):
        detail = _in_use(ctx, name)
        if detail:
            return refuse(req, "CSQM101I", RC_IN_USE, objtype="QLOCAL", name=name, detail=detail)
    source_usage = str(records[source].attrs.get("USAGE", "NORMAL"))
    target_usage = str(records[target].attrs.get("USAGE", "NORMAL"))
    if source_usage != target_usage:
        return refuse(req, "MQT0459E", keyword="USAGE", target=target, target_value=target_usage, source=source,
                      source_value=source_usage)  # fmt: skip
    waiting = queue_depth(tx, system, source)
    there = queue_depth(tx, system, target)
    if req.get("TYPE", "MOVE") == "MOVE" and there:
        return refuse(req, "MQT0457E", target=target, depth=there)
    maxdepth = int(records[target].attrs.get("MAXDEPTH", 999999999))
    if waiting + there > maxdepth:
        return refuse(req, "MQT0458E", total=waiting + there, maxdepth=maxdepth, target=target)
    try:
        moved = move_messages(ctx.session.store, ctx.clock, tx, system.name, source, target)
    except MoveFailed as failed:
        return _failed(req, target, failed.number, failed.error)
    except MQError as error:
        return _failed(req, target, 1, error)
    result = reply(req)
    result.add("MQT0456I", csect=NO_CSECT, count=moved, source=source, target=target)
    return result


def _failed(req: Any, target: str, number: int, error: MQError) -> Response:
    name = NAMES.get(error.reason, "MQRC_UNKNOWN")
    return refuse(req, "MQT0460E", number=number, target=target, reason=error.reason, name=name)


def _in_use(ctx: Any, queue: str) -> str:
    """Why a queue is in use (open handles of live processes, a running channel's
    transmission queue), or "" when it is not."""
    inputs, outputs = live_handles(ctx.tx, ctx.system.name, queue)
    if inputs or outputs:
        return f"IPPROCS({inputs}) OPPROCS({outputs})"
    for channel in ctx.tx.objects(ctx.system.name, "CHANNEL"):
        if channel.attrs.get("XMITQ") == queue and str(channel.status.get("state") or "") in ("RUNNING", "RETRYING"):
            return f"CHANNEL({channel.name}) IS RUNNING"
    return ""
