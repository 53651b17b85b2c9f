"""START and STOP of the channel initiator (CHINIT) and of channels, RESET CHANNEL and
RESOLVE CHANNEL: the command is checked and accepted here (CSQM134I, CSQM137I,
CSQM138I), the channel initiator's work is the engine's (mqtool/engine/channels),
which writes the CSQX console messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mqtool.engine.channels import mca
from mqtool.response import NO_CSECT, Response

from . import manager, not_found, refuse, reply, syntax


def _apply(ctx: Any, req: Any, verb: str, action: Callable[[Any], object]) -> tuple[Any, Any]:
    """Runs `action(record)` on the channel named by the command: (record, what it
    returned), or (None, the response that refuses the command)."""
    record = ctx.tx.get_object(ctx.system.name, "CHANNEL", req.name)
    if record is None:
        return None, not_found(req, "CHANNEL", req.name)
    if record.attrs.get("CHLTYPE") == "CLNTCONN":
        # a client-connection definition is for a client's channel table: nothing runs it here
        return None, refuse(req, "MQT0520E", name=record.name, verb=verb, chltype="CLNTCONN")
    try:
        return record, action(record)
    except mca.Refused as refused:
        if refused.kind == "chinit":
            return None, refuse(req, "CSQM131I")
        if refused.kind == "active":
            return None, refuse(req, "CSQX514E", name=record.name)
        if refused.kind == "not_in_doubt":
            return None, refuse(req, "MQT0521E", name=record.name)
        if refused.kind == "get_inhibited":
            return None, refuse(req, "MQT0524E", name=record.name, queue=record.attrs.get("XMITQ", ""))
        return None, refuse(req, "MQT0520E", name=record.name, verb=verb, chltype=record.attrs.get("CHLTYPE", ""))


def _accepted(req: Any, verb: str, name: str) -> Response:
    result = reply(req)
    result.add("CSQM134I", verb=verb, objtype="CHANNEL", name=name)
    return result


def start(ctx: Any, req: Any) -> Response:
    """START CHINIT, START CHANNEL(name), START LISTENER."""
    if req.object.name == "LISTENER":
        from .chinit import start_listener

        return start_listener(ctx, req)
    if req.object.name == "CHINIT":
        manager(ctx.tx, ctx.system, ctx.now)
        try:
            mca.start_chinit(ctx.tx, ctx.system, ctx.now)
        except mca.Refused:
            return refuse(req, "CSQM132I")
        result = reply(req)
        result.add("CSQM138I")
        return result
    record, done = _apply(ctx, req, "START", lambda record: mca.start(ctx.tx, ctx.system, record, ctx.now))
    return done if record is None else _accepted(req, "START", record.name)


def stop(ctx: Any, req: Any) -> Response:
    """STOP CHINIT, STOP CHANNEL(name), STOP LISTENER."""
    if req.object.name == "LISTENER":
        from .chinit import stop_listener

        return stop_listener(ctx, req)
    store = ctx.session.store
    if req.object.name == "CHINIT":
        manager(ctx.tx, ctx.system, ctx.now)
        try:
            mca.stop_chinit(store, ctx.clock, ctx.tx, ctx.system)
        except mca.Refused:
            return refuse(req, "CSQM131I")
        result = reply(req)
        result.add("CSQM137I", verb="STOP", objtype="CHINIT")
        return result
    record, done = _apply(ctx, req, "STOP", lambda record: mca.stop(store, ctx.clock, ctx.tx, ctx.system, record))
    return done if record is None else _accepted(req, "STOP", record.name)


def reset(ctx: Any, req: Any) -> Response:
    """RESET CHANNEL(name) [SEQNUM(n)]."""
    seqnum = int(req.get("SEQNUM", 1))
    record, done = _apply(ctx, req, "RESET", lambda record: mca.reset(ctx.tx, ctx.system, record, seqnum))
    return done if record is None else _accepted(req, "RESET", record.name)


def resolve(ctx: Any, req: Any) -> Response:
    """RESOLVE CHANNEL(name) ACTION(COMMIT|BACKOUT)."""
    action = req.get("ACTION")
    if action is None:
        return syntax(req, "CSQ9031E", keyword="RESOLVE CHANNEL", what="ACTION(COMMIT, BACKOUT)")
    commit, store = action == "COMMIT", ctx.session.store
    record, count = _apply(
        ctx, req, "RESOLVE", lambda record: mca.resolve(store, ctx.clock, ctx.tx, ctx.system, record, commit)
    )
    if record is None:
        return count
    result = _accepted(req, "RESOLVE", record.name)
    result.add("MQT0522I", csect=NO_CSECT, name=record.name, count=count,
               action="committed" if commit else "backed out")  # fmt: skip
    return result
