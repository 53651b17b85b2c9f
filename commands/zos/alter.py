"""ALTER: changes attributes of the queue manager, a queue, storage class, page set or
channel; attributes not given keep their values."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response

from . import (
    RC_WRONG_TYPE,
    active_only,
    find_named,
    manager,
    not_found,
    pagesets,
    refuse,
    reply,
    schedule_expiry,
    syntax,
)
from .builtin import settable, table_defaults
from .rules import check


@active_only
def handle(ctx: Any, req: Any) -> Response:
    obj = req.object.name
    tx, system = ctx.tx, ctx.system
    if obj == "PSID":
        return pagesets.alter(ctx, req)
    given = {key: value for key, value in req.params.items() if key in settable(obj)}
    if obj == "QMGR":
        record = manager(tx, system, ctx.now)
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
    if obj == "CHANNEL":
        # MQSC names the channel type on ALTER too, and it must be the channel's own.
        chltype = req.get("CHLTYPE")
        if chltype is None:
            return syntax(req, "CSQ9031E", keyword="ALTER CHANNEL", what="CHLTYPE(SDR, SVR, RCVR, RQSTR, SVRCONN)")
        if chltype != found.attrs.get("CHLTYPE"):
            actual = f"CHLTYPE({found.attrs.get('CHLTYPE')})"
            return refuse(req, "CSQM110I", RC_WRONG_TYPE, objtype=obj, name=name, actual=actual)
    attrs = table_defaults(obj) | found.attrs | given
    problem = check(ctx, req, obj, name, attrs, found)
    if problem is not None:
        return problem
    found.attrs = attrs
    found.altered = ctx.now
    tx.put_object(found)
    return reply(req)
