"""DISPLAY, ALTER, REFRESH and RVERIFY SECURITY on a queue manager without an external
security manager: the subsystem security switch is off (the profile
`ssid.NO.SUBSYS.SECURITY` found, as such a queue manager starts), so no other switch is
checked, no user ID is ever signed on (RVERIFY finds none) and there is nothing to
refresh. ALTER SECURITY keeps TIMEOUT and INTERVAL (minutes, IBM's defaults 30 and 12)
in the queue manager's status until the next START QMGR, as the console's changes
last until the initialization input sets them again."""

from __future__ import annotations

from typing import Any

from mqtool.response import NO_CSECT, Response

from . import manager, reply, syntax, value_text

DEFAULTS = {"TIMEOUT": 30, "INTERVAL": 12}
CLASSES = ("*", "MQADMIN", "MQNLIST", "MQPROC", "MQQUEUE", "MXADMIN", "MXNLIST", "MXPROC", "MXQUEUE", "MXTOPIC")


def settings(record: Any) -> dict[str, int]:
    """TIMEOUT and INTERVAL in effect."""
    return DEFAULTS | {key: int(value) for key, value in dict(record.status.get("security") or {}).items()}


def handle(ctx: Any, req: Any) -> Response:
    verb = req.verb.name
    if verb == "RVERIFY":
        return _rverify(ctx, req)
    if verb in ("DISPLAY", "ALTER") and (req.name or req.command.object_value):
        value = req.name or ",".join(req.command.object_value)
        return syntax(req, "CSQ9030E", keyword="SECURITY", value=value, allowed="no value")
    record = manager(ctx.tx, ctx.system, ctx.now)
    if verb == "ALTER":
        given = {key: int(req.get(key)) for key in DEFAULTS if req.has(key)}
        if given:
            record.status["security"] = dict(record.status.get("security") or {}) | given
            ctx.tx.put_status(record)
        return reply(req)
    if verb == "REFRESH":
        return _refresh(ctx, req, record)
    return _display(ctx, req, record)


def _display(ctx: Any, req: Any, record: Any) -> Response:
    wanted = set(req.select) if req.select and not req.select_all else {"TIMEOUT", "INTERVAL", "SWITCHES"}
    values = settings(record)
    result = reply(req)
    if "TIMEOUT" in wanted:
        result.add("CSQH015I", csect=NO_CSECT, minutes=values["TIMEOUT"])
    if "INTERVAL" in wanted:
        result.add("CSQH016I", csect=NO_CSECT, minutes=values["INTERVAL"])
    if "SWITCHES" in wanted:
        result.add("CSQH030I", csect=NO_CSECT)
        profile = f"{ctx.system.name}.NO.SUBSYS.SECURITY"
        result.add("CSQH031I", csect=NO_CSECT, switch="SUBSYSTEM", setting="OFF", profile=profile)
    return result


def _refresh(ctx: Any, req: Any, record: Any) -> Response:
    kind = str(req.get("TYPE", "CLASSES"))
    name = str(req.name or "*").upper()
    if kind == "SSL":
        if req.name:
            return syntax(req, "CSQ9030E", keyword="SECURITY", value=req.name, allowed="no value with TYPE(SSL)")
        from mqtool.engine.channels.partner import chinit_active

        from . import refuse

        if not chinit_active(ctx.system, record):
            return refuse(req, "CSQM131I")
        return reply(req)  # the key ring is read again as channels start
    if kind == "CONNAUTH":
        # The AUTHINFO that CONNAUTH names is read at each connection: nothing is cached.
        if req.name:
            return syntax(req, "CSQ9030E", keyword="SECURITY", value=req.name, allowed="no value with TYPE(CONNAUTH)")
        return reply(req)
    if name not in CLASSES:
        return syntax(req, "CSQ9030E", keyword="SECURITY", value=name, allowed=", ".join(CLASSES))
    result = reply(req)
    resource = "all classes" if name == "*" else name
    result.add("CSQH018I", resource=resource)
    return result


def _rverify(ctx: Any, req: Any) -> Response:
    users = list(req.command.object_value or [])
    if not users or any(not user.strip() for user in users):
        return syntax(req, "CSQ9031E", keyword="RVERIFY SECURITY", what="(userid,...): one or more user IDs")
    bad = next((user for user in users if len(user) > 8), None)
    if bad is not None:
        return syntax(req, "CSQ9030E", keyword="SECURITY", value=value_text(bad), allowed="user IDs of 1-8 characters")
    manager(ctx.tx, ctx.system, ctx.now)
    result = reply(req)
    for user in users:
        result.add("CSQH010I", userid=user.upper())
    return result
