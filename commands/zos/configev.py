"""The configuration-event hook of DEFINE, ALTER and DELETE (IBM MQ for z/OS CONFIGEV).

`with_events` takes the place of `active_only` on those three verbs: it reads the queue
manager's status and its CONFIGEV in one query, makes active_only's checks
(`not_active`: stopped, the log suspended) and, only when CONFIGEV is ENABLED and the
object type is one IBM reports, keeps the object as it was, runs the command, and after
a successful command writes the Create, Change (before and after) or Delete object
event in the same transaction (mqtool.engine.zos.events). With CONFIGEV(DISABLED), the
default, the cost is one comparison."""

from __future__ import annotations

import copy
from typing import Any

from mqtool.engine.zos.events import Writer, reported
from mqtool.response import Response
from mqtool.state import ObjectRecord

from . import Handler, date_time, find_named, manager, not_active


def writer(ctx: Any) -> Writer:
    """The event writer of this command's transaction."""
    system = ctx.system
    return Writer(ctx.session.store, ctx.clock, ctx.tx, system.name, lambda t: date_time(system, t))


def with_events(handle: Handler) -> Handler:
    """Wraps DEFINE, ALTER or DELETE: CSQ3106E while stopped, MQT0492E while the log is
    suspended (as active_only), configuration events while CONFIGEV is ENABLED."""

    def guarded(ctx: Any, req: Any) -> Response:
        found = ctx.tx.status_and(ctx.system.name, "QMGR", ctx.system.name, "CONFIGEV")
        if found is None:  # a system created without its objects gets them now
            qmgr = manager(ctx.tx, ctx.system, ctx.now)
            found = qmgr.status, qmgr.attrs.get("CONFIGEV")
        status, configev = found
        refused = not_active(ctx, req, status)
        if refused is not None:
            return refused
        if configev != "ENABLED" or not reported(req.object.name):
            return handle(ctx, req)
        return _evented(ctx, req, handle)

    guarded.__doc__ = handle.__doc__
    return guarded


def _current(ctx: Any, obj: str, name: str) -> ObjectRecord | None:
    if obj == "QMGR":
        return ctx.tx.get_object(ctx.system.name, "QMGR", ctx.system.name)
    found = find_named(ctx.tx, ctx.system, obj, name)
    return found if found is not None and found.type == obj else None


def _evented(ctx: Any, req: Any, handle: Handler) -> Response:
    obj = req.object.name
    name = ctx.system.name if obj == "QMGR" else str(req.name or "")
    before = copy.deepcopy(_current(ctx, obj, name))
    response = handle(ctx, req)
    if not response.ok:
        return response
    after = _current(ctx, obj, name)
    events = writer(ctx)
    if after is None and before is not None:
        events.deleted(before)
    elif after is not None and before is None:
        events.created(after)
    elif after is not None and before is not None:
        events.changed(before, after)  # ALTER, or DEFINE REPLACE of an existing object
    return response
