"""ALTER: changes attributes of the queue manager, a queue, storage class, page set,
channel or authentication information object; attributes not given keep their values."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response

from . import (
    RC_WRONG_TYPE,
    buffpools,
    everyday,
    find_named,
    manager,
    not_found,
    object_spec,
    pagesets,
    pubsub,
    refuse,
    reply,
    schedule_expiry,
    security,
    syntax,
)
from .builtin import TYPE_KEYWORDS, settable_set, table_defaults
from .configev import with_events
from .rules import check

# The attributes whose change looks at a queue's trigger conditions again.
REARMING = frozenset({"TRIGGER", "TRIGTYPE", "TRIGDPTH", "TRIGMPRI", "GET", "INITQ", "PROCESS"})


@with_events
def handle(ctx: Any, req: Any) -> Response:
    routed = everyday.route(ctx, req)
    if routed is not None:
        return routed
    obj = req.object.name
    tx, system = ctx.tx, ctx.system
    if obj == "PSID":
        return pagesets.alter(ctx, req)
    if obj == "BUFFPOOL":
        return buffpools.alter(ctx, req)
    given = {key: value for key, value in req.params.items() if key in settable_set(obj)}
    if obj == "QMGR":
        record = manager(tx, system, ctx.now)
        problem = check(ctx, req, obj, record.name, table_defaults("QMGR") | record.attrs | given, record)
        if problem is not None:
            return problem
        record.attrs = table_defaults("QMGR") | record.attrs | given
        record.altered = ctx.now
        tx.put_object(record)
        if "EXPRYINT" in given:
            schedule_expiry(tx, system, given["EXPRYINT"], ctx.now)
        return reply(req)
    name = req.name
    found = find_named(tx, system, obj, name)
    if found is None:
        return not_found(req, obj, name)
    if found.type != obj:
        return refuse(req, "CSQM110I", RC_WRONG_TYPE, objtype=obj, name=name, actual=found.type)
    kind = TYPE_KEYWORDS.get(obj)
    if kind is not None:
        # MQSC names the channel type (AUTHINFO type) on ALTER too, and it must be the object's own.
        given_kind = req.get(kind)
        if given_kind is None:
            values = ", ".join(object_spec(obj).keywords[kind].values)
            return syntax(req, "CSQ9031E", keyword=f"ALTER {obj}", what=f"{kind}({values})")
        if obj == "AUTHINFO" and (unavailable := security.authtype(req)) is not None:
            return unavailable
        if given_kind != found.attrs.get(kind):
            actual = f"{kind}({found.attrs.get(kind)})"
            return refuse(req, "CSQM110I", RC_WRONG_TYPE, objtype=obj, name=name, actual=actual)
    attrs = table_defaults(obj) | found.attrs | given
    problem = check(ctx, req, obj, name, attrs, found)
    if problem is not None:
        return problem
    found.attrs = attrs
    found.altered = ctx.now
    pubsub.altered(found, given, ctx.now, tx)
    tx.put_object(found)
    if obj == "QLOCAL" and REARMING.intersection(given):
        # Re-armed (TRIGGER again after a DEPTH trigger, GET enabled ...) with messages
        # already on the queue: IBM triggers now when the conditions hold.
        from mqtool.engine.platforms import open_queue

        open_queue(ctx.session.store, ctx.clock, system.name, name, system.platform).rearm(tx)
    return reply(req)
