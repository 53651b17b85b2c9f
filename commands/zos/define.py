"""DEFINE: creates a queue, storage class, page set, buffer pool, channel, process,
namelist, topic object, subscription or authentication information object. Attributes
not given come from LIKE(name), else from the system default object of the type
(SYSTEM.DEFAULT.LOCAL.QUEUE ...); REPLACE replaces an existing definition of the same type."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response
from mqtool.state import ObjectRecord

from . import (
    RC_EXISTS,
    RC_WRONG_TYPE,
    buffpools,
    everyday,
    find_named,
    not_found,
    pagesets,
    pubsub,
    refuse,
    reply,
    security,
)
from .builtin import DEFAULT_OBJECTS, TYPE_KEYWORDS, settable_set, table_defaults
from .configev import with_events
from .rules import check


@with_events
def handle(ctx: Any, req: Any) -> Response:
    routed = everyday.route(ctx, req)
    if routed is not None:
        return routed
    obj = req.object.name
    if obj == "PSID":
        return pagesets.define(ctx, req)
    if obj == "BUFFPOOL":
        return buffpools.define(ctx, req)
    if obj == "AUTHINFO" and (unavailable := security.authtype(req)) is not None:
        return unavailable
    name, tx, system = req.name, ctx.tx, ctx.system
    existing = find_named(tx, system, obj, name, likely_absent=True)
    if existing is not None and existing.type != obj:
        return refuse(req, "CSQM110I", RC_WRONG_TYPE, objtype=obj, name=name, actual=existing.type)
    if existing is not None and not req.get("REPLACE"):
        return refuse(req, "CSQM095I", RC_EXISTS, objtype=obj, name=name)
    chltype = req.get("CHLTYPE")
    kind = TYPE_KEYWORDS.get(obj)  # CHANNEL CHLTYPE, AUTHINFO AUTHTYPE: fixed at DEFINE
    if existing is not None and kind is not None and existing.attrs.get(kind) != req.get(kind):
        actual = f"{kind}({existing.attrs.get(kind)})"
        return refuse(req, "CSQM110I", RC_WRONG_TYPE, objtype=obj, name=name, actual=actual)
    base = table_defaults(obj)
    like = req.get("LIKE")
    if like:
        model = tx.get_object(system.name, obj, like)
        if model is None:
            return not_found(req, obj, like)
        # A dynamic queue's DEFTYPE is its own: a queue defined like it is predefined.
        base |= {key: value for key, value in model.attrs.items() if not (obj == "QLOCAL" and key == "DEFTYPE")}
    else:
        default = tx.get_object(system.name, obj, DEFAULT_OBJECTS.get(chltype if obj == "CHANNEL" else obj, ""))
        if default is not None:
            base |= default.attrs
    given = {key: value for key, value in req.params.items() if key in settable_set(obj)}
    attrs = base | given
    if kind is not None:
        attrs[kind] = req.get(kind)
    problem = check(ctx, req, obj, name, attrs, existing)
    if problem is not None:
        return problem
    created = existing.created if existing is not None else ctx.now
    status = existing.status if existing is not None else {}
    record = ObjectRecord(system.name, obj, name, attrs, status, created, ctx.now)
    if obj in pubsub.OBJECTS:
        return pubsub.define(ctx, req, record, existing)
    tx.put_object(record)
    return reply(req)
