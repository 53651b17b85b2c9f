"""ZMQID DEFINE CHannel-name COnnection-x [TRPtype-TCP|APPC] ...: adds an entry to the
MQI channel directory (at most 50)."""

from __future__ import annotations

from mqtool.response import Response
from mqtool.session import Context
from mqtool.state import ObjectRecord
from mqtool.validate import Request

from . import LIMIT, SYNTAX, TYPE, connection_problem, failure, name_problem, response


def handle(ctx: Context, req: Request) -> Response:
    assert req.name is not None
    tx, system, name = ctx.tx, ctx.system, req.name
    problem = name_problem(name)
    if problem:
        return failure("MQID0038E", SYNTAX, name=name, object=TYPE, reason=problem)
    if tx.get_object(system.name, TYPE, name) is not None:
        return failure("MQID0003E", name=name)
    if len(tx.objects(system.name, TYPE)) >= LIMIT:
        return failure("MQID0004E", limit=LIMIT)
    attrs = ctx.table.defaults(TYPE) | req.params
    refused = settle(attrs)
    if refused is not None:
        return refused
    tx.put_object(ObjectRecord(system.name, TYPE, name, attrs, {}, ctx.now, ctx.now))
    result = response()
    result.add("MQID0001I", command=f"ZMQID DEFINE CHANNEL-{name}")
    return result


def settle(attrs: dict[str, object]) -> Response | None:
    """Checks the attributes against the transport; an APPC connection (an LU name) is
    upper-cased, as TPF translates it."""
    if attrs.get("TRPTYPE") == "APPC":
        attrs["CONNECTION"] = str(attrs.get("CONNECTION", "")).upper()
    return connection_problem(attrs)
