"""Where the everyday commands of issue 18 item 4 go: each verb module asks `route`
first, so a verb that already had its own objects (DISPLAY, ALTER, START ...) passes the
new objects on with one line. The handlers are in qstats.py (RESET QSTATS), move.py,
conn.py (DISPLAY CONN, DISPLAY THREAD), cmdserv.py, qmsecurity.py, ping.py, refresh.py
and here: the queue-sharing-group commands and the cluster commands, answered as a queue
manager in no group and no cluster answers them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from mqtool.engine.console import console
from mqtool.response import Response

from . import manager, not_in_group, refuse, reply, value_text

# Objects of queue-sharing groups: every command on them is refused (MQT0450E).
QSG_OBJECTS = ("GROUP", "CFSTATUS", "CFSTRUCT", "SMDS", "SMDSCONN")


def route(ctx: Any, req: Any) -> Response | None:
    """The response of a command one of these modules handles; None for the others."""
    obj = req.object.name if req.object is not None else ""
    handler = _handler(req.verb.name, obj)
    return None if handler is None else handler(ctx, req)


def _handler(verb: str, obj: str) -> Callable[[Any, Any], Response] | None:
    last = _last_commands(verb, obj)
    if last is not None:
        return last
    if obj in QSG_OBJECTS:
        return not_in_group
    if obj == "QSTATS":
        from .qstats import reset_qstats

        return reset_qstats
    if obj in ("CONN", "THREAD"):
        from . import conn

        return conn.display_conn if obj == "CONN" else conn.display_thread
    if obj == "CMDSERV":
        from . import cmdserv

        return cmdserv.handle
    if obj == "SECURITY":
        from . import qmsecurity

        return qmsecurity.handle
    if obj in ("CLUSQMGR", "QCLUSTER", "TCLUSTER"):
        return display_cluster
    if obj == "CLUSTER":
        return cluster_request
    return None


def _last_commands(verb: str, obj: str) -> Callable[[Any, Any], Response] | None:
    """bread-last: the last commands of IBM's z/OS list (maxsmsgs.py, recovery.py, DEFINE
    LOG in logs.py, ALTER TRACE in trace.py)."""
    if obj == "MAXSMSGS":
        from . import maxsmsgs

        return maxsmsgs.handle
    if (verb, obj) == ("DEFINE", "LOG"):
        from . import active_only, logs

        return active_only(logs.define_log)
    if (verb, obj) == ("ALTER", "TRACE"):
        from . import trace

        return trace.alter
    handler = {
        ("RECOVER", "BSDS"): "recover_bsds",
        ("RESOLVE", "INDOUBT"): "resolve_indoubt",
        ("RESET", "TPIPE"): "reset_tpipe",
        ("RESET", "QMGR"): "reset_qmgr",
    }.get((verb, obj))
    if handler is None:
        return None
    from . import recovery  # only for its commands: it loads the z/OS log

    return cast(Callable[[Any, Any], Response], getattr(recovery, handler))


# -- clusters: this queue manager is in none ---------------------------------------------


def display_cluster(ctx: Any, req: Any) -> Response:
    """DISPLAY CLUSQMGR, DISPLAY QCLUSTER, DISPLAY TCLUSTER: nothing, as in a queue manager in no cluster
    (a WHERE filter is still checked)."""
    if req.has("WHERE"):
        from . import where

        test = where.parse(req, req.object, req.get("WHERE"))
        if isinstance(test, Response):
            return test
    result = reply(req)
    result.add("CSQM297I", objtype=req.object.full)
    return result


def cluster_request(ctx: Any, req: Any) -> Response:
    """RESET CLUSTER, REFRESH CLUSTER: the repository manager (the channel initiator's)
    takes the request and finds no cluster."""
    if req.verb.name == "RESET" and req.get("ACTION") is None:
        from . import syntax

        return syntax(req, "CSQ9031E", keyword="RESET CLUSTER", what="ACTION(FORCEREMOVE)")
    if req.verb.name == "RESET" and not (req.has("QMNAME") or req.has("QMID")):
        from . import syntax

        return syntax(req, "CSQ9031E", keyword="RESET CLUSTER", what="QMNAME(name) or QMID(id)")
    return queue_cluster_request(ctx, req, str(req.name))


def queue_cluster_request(ctx: Any, req: Any, cluster: str) -> Response:
    """CSQM130I when the channel initiator takes the request (the console then says
    there is no cluster); CSQM131I while it is stopped."""
    from mqtool.engine.channels.partner import chinit_active

    record = manager(ctx.tx, ctx.system, ctx.now)
    if not chinit_active(ctx.system, record):
        return refuse(req, "CSQM131I")
    result = reply(req)
    result.add("CSQM130I")
    console(ctx.tx, ctx.system, ctx.now, "MQT0451E", csect="CSQXREPO", cluster=cluster, qmgr=ctx.system.name)
    return result


def suspend_resume(ctx: Any, req: Any) -> Response:
    """SUSPEND QMGR and RESUME QMGR: CLUSTER(name) or CLUSNL(name) (no cluster here),
    FACILITY(DB2) (no queue-sharing group), FACILITY(IMSBRIDGE) (no IMS bridge), LOG
    (logs.py: log update activity suspended until RESUME QMGR LOG)."""
    from . import syntax

    verb = req.verb.name
    given = [key for key in ("CLUSTER", "CLUSNL", "FACILITY", "LOG") if req.has(key)]
    if len(given) != 1:
        what = "one of CLUSTER(name), CLUSNL(name), FACILITY(DB2|IMSBRIDGE), LOG"
        return syntax(req, "CSQ9031E", keyword=f"{verb} QMGR", what=what)
    if req.has("MODE") and given[0] not in ("CLUSTER", "CLUSNL"):
        return syntax(req, "CSQ9030E", keyword="MODE", value=value_text(req.get("MODE")),
                      allowed="MODE only with CLUSTER or CLUSNL")  # fmt: skip
    kind = given[0]
    if kind == "LOG":
        from . import logs

        return logs.suspend_log(ctx, req) if verb == "SUSPEND" else logs.resume_log(ctx, req)
    if kind == "FACILITY":
        facility = str(req.get("FACILITY"))
        command = f"{verb} QMGR FACILITY({facility})"
        if facility == "DB2":
            return not_in_group(ctx, req, command)
        return refuse(req, "MQT0463E", command=command)
    return queue_cluster_request(ctx, req, str(req.get(kind)))


def restart(ctx: Any, record: Any) -> None:
    """START QMGR: the command server runs again, security is as CSQ6SYSP and the
    initialization input give it (TIMEOUT and INTERVAL at IBM's defaults), and every
    queue's performance data (RESET QSTATS) starts again."""
    from mqtool.engine.zos import qstats

    record.status.pop("cmdserv", None)
    record.status.pop("security", None)
    qstats.restart(ctx.tx, ctx.system.name, ctx.now)
