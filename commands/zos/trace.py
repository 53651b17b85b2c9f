"""START, STOP and DISPLAY TRACE: the traces of a z/OS queue manager (GLOBAL, ACCTG,
CHINIT, STAT), kept in its status with their trace numbers. A STAT trace's classes
choose the statistics the engine collects (mqtool/engine/zos/stats.py): class 5 the
queue statistics, class 1 or 3 the log manager's. STOP QMGR ends every trace; START
QMGR begins with the global trace that TRACSTR=YES starts (trace number 01).

ALTER TRACE(type) TNO(n) stops the trace with that number and starts it again, with the
same number, the classes given and what it had besides (IBM: channel initiator traces
cannot be altered); a STAT trace's new classes change the statistics collected.

Replies: CSQW130I (started, with the trace number), CSQW131I (stopped), CSQW127I (the
trace report), CSQW135I (already active) and CSQW137I (no such trace)."""

from __future__ import annotations

from typing import Any

from mqtool.engine.zos import stats
from mqtool.response import FAILED, Response
from mqtool.state import ObjectRecord

from . import active_only, manager, reply, syntax

TYPE_WORDS = {
    "GLOBAL": "GLOBAL",
    "G": "GLOBAL",
    "ACCTG": "ACCTG",
    "A": "ACCTG",
    "CHINIT": "CHINIT",
    "CHI": "CHINIT",
    "DQM": "CHINIT",
    "STAT": "STAT",
    "S": "STAT",
}
ALL_CLASSES_STAT = [1, 2, 3]  # STAT CLASS(*): classes 1-3 only (IBM)


def _trace_type(req: Any, default: str | None, every: bool) -> str | Response:
    """The trace type of TRACE(type): a type or synonym, or * where `every`."""
    values = req.command.object_value
    if not values:
        if default is None:
            return syntax(req, "CSQ9031E", keyword=f"{req.verb.name} TRACE", what="a trace type or *")
        return default
    allowed = "GLOBAL, ACCTG, CHINIT, STAT" + (" or *" if every else "")
    word = values[0].upper() if len(values) == 1 else ",".join(values)
    if word == "*" and every:
        return "*"
    if word not in TYPE_WORDS:
        return syntax(req, "CSQ9030E", keyword="TRACE", value=word, allowed=allowed)
    return TYPE_WORDS[word]


def _classes(req: Any, kind: str) -> list[int] | Response | None:
    """The CLASS values, checked against the trace type; None when not given."""
    given = req.get("CLASS")
    if given is None:
        return None
    if "*" in given:
        if len(given) > 1:
            return syntax(req, "CSQ9030E", keyword="CLASS", value=",".join(given), allowed="* alone")
        return list(ALL_CLASSES_STAT if kind == "STAT" else stats.TRACE_CLASSES.get(kind, ()))
    numbers = sorted(int(c) for c in given)
    if kind in stats.TRACE_CLASSES:
        allowed = stats.TRACE_CLASSES[kind]
        for number in numbers:
            if number not in allowed:
                span = f"{allowed[0]}-{allowed[-1]} for TRACE({kind})"
                return syntax(req, "CSQ9030E", keyword="CLASS", value=str(number), allowed=span)
    return numbers


def _parse(req: Any, default: str | None, every: bool) -> tuple[str, list[int] | None] | Response:
    """(type, classes or None) of the command, or the syntax error."""
    kind = _trace_type(req, default, every)
    if isinstance(kind, Response):
        return kind
    classes = _classes(req, kind)
    if isinstance(classes, Response):
        return classes
    return kind, classes


def _columns(trace: dict[str, Any]) -> str:
    classes = ",".join(f"{int(c):02d}" for c in trace["classes"])
    dest = ",".join(trace["dest"])
    rmid = trace["rmid"] if trace["rmid"] == "*" else f"{int(trace['rmid']):02d}"
    # IBM's columns; a value as wide as its column still gets one blank after it.
    fields = ((f"{trace['tno']:02d}", 4), (trace["type"], 6), (classes, 13), (dest, 12), ("", 1),
              (str(trace["userid"]), 7))  # fmt: skip
    return "".join(text.ljust(width) if len(text) < width else text + " " for text, width in fields) + str(rmid)


def _matches(trace: dict[str, Any], req: Any, kind: str, classes: list[int] | None, exact: bool) -> bool:
    """Whether a trace is one the command names: STOP needs the same values the trace
    was started with (IBM), DISPLAY traces that include the classes and destinations."""
    if kind != "*" and trace["type"] != kind:
        return False
    if classes is not None and req.get("CLASS") != ["*"]:
        held = set(trace["classes"])
        if (set(classes) != held) if exact else not set(classes) <= held:
            return False
    dest = req.get("DEST")
    if dest is not None and ((set(dest) != set(trace["dest"])) if exact else not set(dest) <= set(trace["dest"])):
        return False
    tno = req.get("TNO")
    if tno is not None and str(trace["tno"]) not in tno:
        return False
    if "USERID" in req.params and str(req.get("USERID")).upper() != str(trace["userid"]).upper():
        return False
    return not ("RMID" in req.params and str(req.get("RMID")) != str(trace["rmid"]))


@active_only
def start(ctx: Any, req: Any) -> Response:
    """START TRACE(type) [CLASS(n,...)] [DEST(...)] [USERID(u)] [RMID(n)] [COMMENT(c)]"""
    parsed = _parse(req, "GLOBAL", every=False)
    if isinstance(parsed, Response):
        return parsed
    kind, classes = parsed
    classes = classes or list(stats.TRACE_DEFAULT_CLASSES[kind])
    dest = list(req.get("DEST") or stats.TRACE_DEFAULT_DEST[kind])
    record = manager(ctx.tx, ctx.system, ctx.now)
    active = stats.traces(record)
    userid, rmid = str(req.get("USERID", "*")), req.get("RMID", "*")
    for trace in active:
        same = (trace["type"], set(trace["classes"]), set(trace["dest"]), trace["userid"], trace["rmid"])
        if same == (kind, set(classes), set(dest), userid, rmid):
            result = reply(req)
            result.add("CSQW135I", kind=kind, tno=f"{trace['tno']:02d}")
            return result
    used = {int(t["tno"]) for t in active}
    free = [n for n in range(1, stats.MAX_TRACES + 1) if n not in used]
    if not free:
        result = reply(req, FAILED)
        result.add("MQT0402E", count=stats.MAX_TRACES)
        return result
    before = stats.stat_classes(record)
    trace = {
        "tno": free[0],
        "type": kind,
        "classes": classes,
        "dest": dest,
        "userid": userid,
        "rmid": rmid,
        "comment": str(req.get("COMMENT", "")),
    }
    record.status["traces"] = sorted([*active, trace], key=lambda t: int(t["tno"]))
    ctx.tx.put_status(record)
    stats.collection_changed(ctx.tx, ctx.system, record, before, ctx.now)
    result = reply(req)
    result.add("CSQW130I", kind=kind, tno=f"{trace['tno']:02d}")
    return result


@active_only
def stop(ctx: Any, req: Any) -> Response:
    """STOP TRACE(type|*) [CLASS] [DEST] [TNO] [USERID] [RMID] [COMMENT]"""
    parsed = _parse(req, None, every=True)
    if isinstance(parsed, Response):
        return parsed
    kind, classes = parsed
    record = manager(ctx.tx, ctx.system, ctx.now)
    active = stats.traces(record)
    stopped = [t for t in active if _matches(t, req, kind, classes, exact=True)]
    result = reply(req)
    if not stopped:
        result.add("CSQW137I")
        return result
    before = stats.stat_classes(record)
    record.status["traces"] = [t for t in active if t not in stopped]
    ctx.tx.put_status(record)
    stats.collection_changed(ctx.tx, ctx.system, record, before, ctx.now)
    result.add("CSQW131I", tnos=",".join(f"{int(t['tno']):02d}" for t in stopped))
    return result


@active_only
def display(ctx: Any, req: Any) -> Response:
    """DISPLAY TRACE[(type|*)] [CLASS] [DEST] [TNO] [USERID] [RMID]: the CSQW127I report."""
    parsed = _parse(req, "*", every=True)
    if isinstance(parsed, Response):
        return parsed
    kind, classes = parsed
    record = manager(ctx.tx, ctx.system, ctx.now)
    shown = [t for t in stats.traces(record) if _matches(t, req, kind, classes, exact=False)]
    result = reply(req)
    if not shown:
        result.add("CSQW137I")
        return result
    report = result.add("CSQW127I")
    report.lines = [
        "TNO TYPE  CLASS        DEST        USERID  RMID",
        *(_columns(t) for t in shown),
        "END OF TRACE REPORT",
    ]
    return result


ALTERABLE = "GLOBAL, STAT, ACCTG"  # IBM: channel initiator traces cannot be altered


@active_only
def alter(ctx: Any, req: Any) -> Response:
    """ALTER TRACE(GLOBAL|STAT|ACCTG) TNO(n) [CLASS(...)] [COMMENT(c)]: the trace stops
    and starts again with the altered classes (CSQW131I, CSQW130I); CSQW137I when no
    trace of that type has that number."""
    kind = _trace_type(req, None, every=False)
    if isinstance(kind, Response):
        return kind
    if kind == "CHINIT":
        return syntax(req, "CSQ9030E", keyword="TRACE", value=req.command.object_value[0], allowed=ALTERABLE)
    tno = req.get("TNO")
    if not tno:
        return syntax(req, "CSQ9031E", keyword="ALTER TRACE", what="TNO(1-32), the number of the trace")
    if len(tno) != 1:
        return syntax(req, "CSQ9030E", keyword="TNO", value=",".join(tno), allowed="one trace number")
    classes = _classes(req, kind)
    if isinstance(classes, Response):
        return classes
    record = manager(ctx.tx, ctx.system, ctx.now)
    active = stats.traces(record)
    found = [t for t in active if int(t["tno"]) == int(tno[0]) and t["type"] == kind]
    result = reply(req)
    if not found:
        result.add("CSQW137I")
        return result
    before = stats.stat_classes(record)
    altered = dict(found[0])
    if classes is not None:
        altered["classes"] = classes
    if req.has("COMMENT"):
        altered["comment"] = str(req.get("COMMENT"))
    record.status["traces"] = [altered if t is found[0] else t for t in active]
    ctx.tx.put_status(record)
    stats.collection_changed(ctx.tx, ctx.system, record, before, ctx.now)
    number = f"{int(altered['tno']):02d}"
    result.add("CSQW131I", tnos=number)
    result.add("CSQW130I", kind=kind, tno=number)
    return result


def stopping(ctx: Any, record: ObjectRecord) -> None:
    """STOP QMGR: the queue manager stops, and with it the statistics (the records of
    the interval running are written)."""
    before = stats.stat_classes(record)
    record.status["state"] = "STOPPED"
    stats.collection_changed(ctx.tx, ctx.system, record, before, ctx.now)


def restart(record: ObjectRecord) -> None:
    """START QMGR: the traces are the startup ones (TRACSTR=YES)."""
    record.status.pop("traces", None)
