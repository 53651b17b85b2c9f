"""START LISTENER, STOP LISTENER and DISPLAY CHINIT: the TCP listeners of the channel
initiator (z/OS has no listener objects: START LISTENER adds an address and port to the
ones listened on, STOP LISTENER removes those it names) and the channel initiator's
report. The listeners are the system's `listener` setting (engine/channels/listeners.py);
a serving loop opens their sockets (engine/channels/tcp/service.py)."""

from __future__ import annotations

from typing import Any

from mqtool.engine.channels import conname, initiator, listeners
from mqtool.engine.channels.partner import chinit_active
from mqtool.response import FAILED, Response

from . import manager, refuse, reply, syntax

CSECT = "CSQXCRPS"  # the channel initiator's command processor (the completion line)
REPORT_CSECT = "CSQXRDQM"  # the module that writes DISPLAY CHINIT's lines (mqtool's choice)
STORAGE_CSECT = initiator.STORAGE_CSECT


def _address(req: Any, start: bool) -> conname.Address | Response:
    """The listener address of START/STOP LISTENER: IPADDR (127.0.0.1 on START, mqtool's
    choice; * every address) and PORT (1414 on START)."""
    try:
        return listeners.named(req.get("PORT"), req.get("IPADDR"), start)
    except conname.ConnameError as exc:
        value = req.get("IPADDR")
        return syntax(req, "CSQ9030E", keyword="IPADDR", value=value, allowed=f"a host name or IP address ({exc})")


def _chinit_down(ctx: Any, req: Any) -> Response | None:
    if chinit_active(ctx.system, manager(ctx.tx, ctx.system, ctx.now)):
        return None
    return refuse(req, "CSQM131I")


def start_listener(ctx: Any, req: Any) -> Response:
    """START LISTENER [TRPTYPE(TCP)] [PORT(n)] [IPADDR(a)] [INDISP(QMGR)]."""
    down = _chinit_down(ctx, req)
    if down is not None:
        return down
    address = _address(req, start=True)
    if isinstance(address, Response):
        return address
    try:
        listeners.start(ctx.tx, ctx.system, address)
    except listeners.ListenerRefused as refused:
        if refused.kind == "started":
            reason = f"this queue manager listens at {refused.address} already"
        else:
            reason = f"system {refused.other} of the store listens at {refused.address}"
        return refuse(req, "MQT0530E", port=address.port, address=address.host, reason=reason)
    result = reply(req)
    result.add("CSQM137I", csect=CSECT, verb="START", objtype="LISTENER")
    return result


def stop_listener(ctx: Any, req: Any) -> Response:
    """STOP LISTENER [TRPTYPE(TCP)] [PORT(n)] [IPADDR(a)]: the listeners named (all of
    them when neither PORT nor IPADDR is given)."""
    down = _chinit_down(ctx, req)
    if down is not None:
        return down
    port = req.get("PORT")
    host = req.get("IPADDR")
    try:
        listeners.stop(ctx.tx, ctx.system, None if port is None else int(port), None if host is None else str(host))
    except listeners.ListenerRefused:
        shown = "*" if port is None else port
        return refuse(req, "MQT0531E", port=shown, address=host or "*")
    result = reply(req)
    result.add("CSQM137I", csect=CSECT, verb="STOP", objtype="LISTENER")
    return result


def display_chinit(ctx: Any, req: Any) -> Response:
    """DISPLAY CHINIT: the channel initiator, its channels, limits, listeners, storage."""
    down = _chinit_down(ctx, req)
    if down is not None:
        result = reply(req, FAILED)
        result.messages = down.messages
        return result
    found = initiator.report(ctx.tx, ctx.system)
    limits = found.limits
    result = reply(req)
    result.add("CSQM137I", csect=CSECT, verb="DISPLAY", objtype="CHINIT")

    def line(msg_id: str, csect: str = REPORT_CSECT, **fields: Any) -> None:
        result.add(msg_id, csect=csect, **fields)

    line("CSQX830I")
    line("CSQX004I", STORAGE_CSECT, used=found.used_mb, free=found.free_mb, above_used=found.above_used_mb,
         above_free=found.above_free_mb)  # fmt: skip
    line("CSQX831I", started=limits["CHIADAPS"], requested=limits["CHIADAPS"])
    line("CSQX832I", started=limits["CHIDISPS"], requested=limits["CHIDISPS"])
    line("CSQX833I", started=limits["SSLTASKS"], requested=limits["SSLTASKS"])
    line("CSQX840I", current=found.current, maximum=limits["MAXCHL"])
    line("CSQX841I", active=found.active, maximum=limits["ACTCHL"], paused=0)
    line("CSQX842I", starting=found.starting, stopped=found.stopped, retrying=found.retrying)
    line("CSQX836I", tcp=limits["TCPCHL"], lu62=limits["LU62CHL"])
    line("CSQX845I", name=initiator.TCPNAME)
    if not found.listeners:
        line("CSQX848I")
    for listener in found.listeners:
        if listener.state == listeners.RETRYING:
            line("CSQX843I", port=listener.port, address=listener.address)
            continue
        line("CSQX846I", port=listener.port, address=listener.address)
        if not listener.state:
            line("MQT0532I", port=listener.port, address=listener.address)
        if any(listener.counts.values()):
            line("MQT0533I", REPORT_CSECT, port=listener.port, **listener.counts)
    line("CSQX849I")
    return result
