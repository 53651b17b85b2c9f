"""ZMQSC START LISTENER, STOP LISTENER and DISPLAY LISTENER: the TCP listeners of the
queue manager (the system's `listener` setting, engine/channels/listeners.py; a serving
loop opens their sockets). On a real z/TPF the MQ TCP listener is an Internet daemon
server (ZINET ADD, ZINET START); mqtool gives it this ZMQSC form (mqtool's choice,
mqtool-ztpf(7), LISTENERS)."""

from __future__ import annotations

from mqtool.engine.channels import conname, listeners
from mqtool.engine.channels.listeners import LISTENING, RETRYING, statuses
from mqtool.response import SYNTAX, Response
from mqtool.session import Context
from mqtool.validate import Request

from . import failure, qmgr, response


def _address(req: Request, start: bool) -> conname.Address | Response:
    try:
        return listeners.named(req.get("PORT"), req.get("IPADDR"), start)
    except conname.ConnameError:
        host = req.get("IPADDR")
        return failure("MQSC0014E", SYNTAX, keyword="IPADDR", value=host, allowed="A HOST NAME OR IP ADDRESS")


def _checked(ctx: Context, req: Request) -> Response | None:
    if qmgr(ctx.tx, ctx.system) is None:
        return failure("MQSC0010E")
    if req.name:
        return failure("MQSC0027E", SYNTAX, token=f"LISTENER-{req.name}")
    return None


def start(ctx: Context, req: Request) -> Response:
    """START LISTENER [PORT-n] [IPADDR-a]."""
    problem = _checked(ctx, req)
    if problem is not None:
        return problem
    address = _address(req, start=True)
    if isinstance(address, Response):
        return address
    try:
        listeners.start(ctx.tx, ctx.system, address)
    except listeners.ListenerRefused as refused:
        if refused.kind == "started":
            reason = f"THIS QUEUE MANAGER LISTENS AT {refused.address} ALREADY"
        else:
            reason = f"SYSTEM {refused.other} LISTENS AT {refused.address}"
        return failure("MQSC0365E", address=str(address), reason=reason)
    result = response()
    result.add("MQSC0001I", command=f"START LISTENER {address}")
    return result


def stop(ctx: Context, req: Request) -> Response:
    """STOP LISTENER [PORT-n] [IPADDR-a]: the listeners named, all without either."""
    problem = _checked(ctx, req)
    if problem is not None:
        return problem
    port, host = req.get("PORT"), req.get("IPADDR")
    try:
        stopped = listeners.stop(ctx.tx, ctx.system, None if port is None else int(port),
                                 None if host is None else str(host))  # fmt: skip
    except listeners.ListenerRefused as refused:
        return failure("MQSC0366E", address=refused.address)
    result = response()
    result.add("MQSC0001I", command=f"STOP LISTENER {conname.format_list(stopped)}")
    return result


def display(ctx: Context, req: Request) -> Response:
    """DISPLAY LISTENER: each listener with its socket's state and its counts."""
    problem = _checked(ctx, req)
    if problem is not None:
        return problem
    from mqtool.engine.http.records import Owner, owner_alive

    configured = listeners.configured(ctx.system)
    result = response(display=True)
    if not configured:
        result.add("MQSC0003I", object="LISTENER", name="*")
        return result
    found = statuses(ctx.tx, ctx.system.name)
    title = result.add("MQSC0002I", object="LISTENER")
    for address in configured:
        status = found.get(str(address)) or listeners.ListenerStatus(str(address))
        live = owner_alive(Owner.from_dict(status.owner))
        state = status.state if live and status.state in (LISTENING, RETRYING) else "NO SOCKET"
        port = address.port or (status.port if state == LISTENING else 0)
        title.attrs.extend([
            ("LISTENER", str(address)), ("PORT", port), ("STATUS", state), ("CONNECTIONS", status.connections),
            ("CHANNELS", status.channels), ("REFUSED", status.refused), ("BLOCKED", status.blocked),
            ("DROPPED", status.dropped),
        ])  # fmt: skip
        if state == RETRYING and status.error:
            title.attrs.append(("ERROR", status.error))
    return result
