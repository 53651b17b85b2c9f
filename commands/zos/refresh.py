"""REFRESH QMGR TYPE(EXPIRY|CONFIGEV|PROXYSUB|EARLY), REFRESH SECURITY, REFRESH CLUSTER.

TYPE(EXPIRY) runs the expiry scan now on the local queues NAME matches (all by default)
and says how many messages it removed; TYPE(CONFIGEV) puts a Refresh object event for
every object OBJECT, NAME and INCLINT select (the queue manager's CONFIGEV must be
ENABLED); TYPE(PROXYSUB) has no proxy subscriptions to
resynchronize (no cluster, no hierarchy); TYPE(EARLY) runs only while the queue manager
is stopped. REFRESH SECURITY is qmsecurity.py's, REFRESH CLUSTER everyday.py's."""

from __future__ import annotations

from typing import Any

from mqtool.engine.zos.configmap import CHLAUTH_STORE, REFRESH_OBJECTS
from mqtool.engine.zos.events import object_name
from mqtool.engine.zos.expiry import scan
from mqtool.response import NO_CSECT, Response

from . import everyday, manager, refuse, reply, stopped, syntax
from .configev import writer

ONLY_WITH = {"NAME": ("EXPIRY", "CONFIGEV"), "OBJECT": ("CONFIGEV",), "INCLINT": ("CONFIGEV",)}


def handle(ctx: Any, req: Any) -> Response:
    if req.object.name != "QMGR":
        return stopped(ctx, req) or everyday.route(ctx, req) or reply(req)
    kind = req.get("TYPE")
    if kind is None:
        return syntax(req, "CSQ9031E", keyword="REFRESH QMGR", what="TYPE(CONFIGEV, EXPIRY, PROXYSUB, EARLY)")
    if kind == "PUBSUB":  # the table's TYPE row also holds RESET QMGR's type
        return syntax(req, "CSQ9030E", keyword="TYPE", value=kind, allowed="CONFIGEV, EXPIRY, PROXYSUB, EARLY")
    for keyword, types in ONLY_WITH.items():
        if req.has(keyword) and kind not in types:
            allowed = f"{keyword} only with TYPE({'|'.join(types)})"
            return syntax(req, "CSQ9030E", keyword=keyword, value=str(req.get(keyword)), allowed=allowed)
    if kind == "EARLY":
        # The one form that runs while the queue manager is stopped, and only then.
        record = manager(ctx.tx, ctx.system, ctx.now)
        if record.status.get("state", "STARTED") != "STOPPED":
            return refuse(req, "MQT0453E")
        result = reply(req)
        result.add("MQT0454I", csect=NO_CSECT, qmgr=ctx.system.name)
        return result
    down = stopped(ctx, req)
    if down is not None:
        return down
    record = manager(ctx.tx, ctx.system, ctx.now)
    if kind == "EXPIRY":
        return _expiry(ctx, req)
    if kind == "CONFIGEV":
        if str(record.attrs.get("CONFIGEV", "DISABLED")) != "ENABLED":
            return refuse(req, "MQT0462E")
        return _configev(ctx, req)
    return reply(req)  # PROXYSUB: no proxy subscriptions to resynchronize


def _expiry(ctx: Any, req: Any) -> Response:
    pattern = str(req.get("NAME") or "*").upper()
    queues = [queue.name for queue in ctx.tx.objects(ctx.system.name, "QLOCAL", pattern)]
    removed = scan(ctx.tx, ctx.system.name, ctx.now, queues)
    result = reply(req)
    result.add("MQT0461I", csect=NO_CSECT, removed=sum(removed.values()), count=len(queues), name=pattern)
    return result


def _configev(ctx: Any, req: Any) -> Response:
    """One Refresh object event per object of the OBJECT types whose name matches NAME
    and, with INCLINT(n) above 0, that was altered within the last n minutes."""
    kind = str(req.get("OBJECT") or "ALL")
    pattern = str(req.get("NAME") or "*").upper()
    minutes = int(req.get("INCLINT") or 0)
    since = ctx.now - minutes * 60 if minutes else None
    system = ctx.system.name
    selected = []
    # CFSTRUCT selects nothing: mqtool has no CF structures. A channel authentication
    # record matches by its profile.
    for objtype in REFRESH_OBJECTS.get(kind, ()):
        if objtype == CHLAUTH_STORE:
            found = [r for r in ctx.tx.objects(system, objtype) if _matches(object_name(r), pattern)]
        else:
            found = ctx.tx.objects(system, objtype, pattern)
        selected += [r for r in found if since is None or r.altered >= since]
    put = writer(ctx).refreshed(selected)
    result = reply(req)
    result.add("MQT0795I", csect=NO_CSECT, put=put, count=len(selected), object=kind, name=pattern)
    return result


def _matches(name: str, pattern: str) -> bool:
    """A name against NAME: the name itself, or a generic name ending in *."""
    return pattern == "*" or name == pattern or (pattern.endswith("*") and name.startswith(pattern[:-1]))
