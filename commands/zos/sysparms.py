"""SET SYSTEM and DISPLAY SYSTEM: the system parameters (CSQ6SYSP) of a z/OS queue
manager. Initial values are IBM's defaults, with STATIME (and LOGLOAD, when set) from
the system's settings; SET SYSTEM changes STATIME, ACCTIME, LOGLOAD and TRACTBL until
the next start. STATIME is the statistics interval (stats.py) and LOGLOAD the log
records between checkpoints (log.py); the others are shown."""

from __future__ import annotations

from typing import Any

from mqtool.engine.zos import stats
from mqtool.response import NO_CSECT, Response
from mqtool.state import ObjectRecord, SystemRecord

from . import logs, reply

# CSQ6SYSP defaults (IBM), in the order of the report.
SYSTEM_DEFAULTS: dict[str, Any] = {
    "ACCTIME": -1,
    "CLCACHE": "STATIC",
    "CMDUSER": "CSQOPR",
    "EXCLMSG": "()",
    "EXITLIM": 30,
    "EXITTCB": 8,
    "LOGLOAD": 500000,
    "QINDXBLD": "WAIT",
    "QMCCSID": 0,
    "RESAUDIT": "YES",
    "ROUTCDE": 1,
    "SMFACCT": "NO",
    "SMFSTAT": "NO",
    "SPLCAP": "NO",
    "STATIME": 30,
    "TRACSTR": "YES",
    "TRACTBL": 99,
    "WLMTIME": 30,
    "WLMTIMU": "MINS",
}
SYSTEM_REPORT = tuple(SYSTEM_DEFAULTS)


def initial_system(system: SystemRecord) -> dict[str, Any]:
    values = dict(SYSTEM_DEFAULTS) | {"STATIME": int(system.attrs.get("statime", SYSTEM_DEFAULTS["STATIME"]))}
    if system.attrs.get("logload") is not None:
        values["LOGLOAD"] = int(system.attrs["logload"])
    return values


def set_system(ctx: Any, req: Any, record: ObjectRecord) -> Response:
    before = stats.statime(ctx.system, record)
    problem = logs.set_parameters(ctx, req, record, "system_set")
    if problem is not None:
        return problem
    if stats.statime(ctx.system, record) != before:
        stats.statime_changed(ctx.tx, ctx.system, record, ctx.now)
    return reply(req)


def display_system(ctx: Any, req: Any, record: ObjectRecord) -> Response:
    initial = initial_system(ctx.system)
    changed = dict(record.status.get("system_set") or {})
    result = reply(req)
    report = result.add("CSQJ322I", csect=NO_CSECT, report="DISPLAY SYSTEM")
    report.lines = [*logs.parameter_table(SYSTEM_REPORT, initial, changed), "End of SYSTEM report"]
    return result
