"""DELETE: removes a queue, storage class, page set, channel or authentication
information object. A local queue holding messages needs PURGE; a storage class that
queues name, or a page set that a storage class names, stays; so does a channel that is
running, and the AUTHINFO that QMGR CONNAUTH names."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response
from mqtool.state import messages as runs

from . import (
    RC_IN_USE,
    RC_NOT_EMPTY,
    RC_WRONG_TYPE,
    buffpools,
    everyday,
    find_named,
    manager,
    not_found,
    pagesets,
    pubsub,
    queue_depth,
    refuse,
    reply,
)
from .configev import with_events
from .rules import class_users

IDLE_STATES = ("", "INACTIVE", "STOPPED")


@with_events
def handle(ctx: Any, req: Any) -> Response:
    routed = everyday.route(ctx, req)
    if routed is not None:
        return routed
    obj = req.object.name
    if obj == "PSID":
        return pagesets.delete(ctx, req)
    if obj == "SUB":
        return pubsub.delete_sub(ctx, req)
    if obj == "BUFFPOOL":
        return buffpools.delete(ctx, req)
    name, tx, system = req.name, ctx.tx, ctx.system
    record = find_named(tx, system, obj, name)
    if record is None:
        return not_found(req, obj, name)
    if record.type != obj:
        return refuse(req, "CSQM110I", RC_WRONG_TYPE, objtype=obj, name=name, actual=record.type)
    if obj == "QLOCAL":
        depth = queue_depth(tx, system, name)
        if depth and not req.get("PURGE"):
            return refuse(req, "CSQM127I", RC_NOT_EMPTY, objtype=obj, name=name, depth=depth)
        runs.clear(tx.conn, system.name, name)
    elif obj == "STGCLASS":
        users = class_users(ctx, name)
        if users:
            detail = f"{users[0].type}({users[0].name}) NAMES IT"
            return refuse(req, "CSQM101I", RC_IN_USE, objtype=obj, name=name, detail=detail)
    elif obj == "CHANNEL":
        state = str(record.status.get("state") or "")
        if state not in IDLE_STATES:
            return refuse(req, "CSQM101I", RC_IN_USE, objtype=obj, name=name, detail=f"STATUS({state})")
        from mqtool.engine.channels.mca import deleted

        deleted(tx, system, record)
    elif obj == "AUTHINFO":
        connauth = str(manager(tx, system, ctx.now).attrs.get("CONNAUTH") or "")
        if connauth == name:
            return refuse(req, "CSQM101I", RC_IN_USE, objtype=obj, name=name, detail="QMGR CONNAUTH NAMES IT")
    tx.delete_object(system.name, obj, name)
    return reply(req)
