"""The log and archive of a z/OS queue manager: initial values from the system's
CSQ6LOGP/CSQ6ARVP parameters, SET LOG / SET ARCHIVE values kept until the next start,
the zHyperWrite/zHyperLink rules, the log position, and the DISPLAY LOG and DISPLAY
ARCHIVE reports.

The log position lives in the queue manager's status under `log` (see fresh_position);
the engine advances it with `advance()` as persistent work writes log records.
"""

from __future__ import annotations

from typing import Any

from mqtool.complex import ARCHIVE_DEFAULTS, LOG_DEFAULTS
from mqtool.response import FAILED, NO_CSECT, Response
from mqtool.state import ObjectRecord, SystemRecord
from mqtool.state.records import cpu_generation

from . import local_time, reply, syntax

# The DISPLAY LOG report rows, in the order of the report.
LOG_REPORT = (
    "INBUFF",
    "OUTBUFF",
    "MAXRTU",
    "MAXARCH",
    "TWOACTV",
    "TWOARCH",
    "TWOBSDS",
    "OFFLOAD",
    "WRTHRSH",
    "DEALLCT",
    "COMPLOG",
    "ZHYWRITE",
    "ZHYLINK",
    "MAXCNOFF",
)
ARCHIVE_REPORT = tuple(ARCHIVE_DEFAULTS)
WRITE_SESSIONS = 64  # zHyperLink write tokens a DS8000 storage subsystem offers (seed)
ZHYPERLINK_CPU = 14  # zHyperLink needs a z14 or later


# -- values ------------------------------------------------------------------------------


def initial_log(system: SystemRecord) -> dict[str, Any]:
    """The CSQ6LOGP values the queue manager started with. ZHYLINK=YES overrides
    ZHYWRITE to YES (seed: zHyperLink requires zHyperWrite)."""
    values = dict(LOG_DEFAULTS) | dict(system.attrs.get("log") or {})
    if str(values.get("ZHYLINK")).upper() == "YES":
        values["ZHYWRITE"] = "YES"
    return values


def initial_archive(system: SystemRecord) -> dict[str, Any]:
    return dict(ARCHIVE_DEFAULTS) | dict(system.attrs.get("archive") or {})


def current_log(system: SystemRecord, manager: ObjectRecord) -> dict[str, Any]:
    """The values in effect: the initial ones overlaid by SET LOG."""
    return initial_log(system) | dict(manager.status.get("log_set") or {})


def current_archive(system: SystemRecord, manager: ObjectRecord) -> dict[str, Any]:
    return initial_archive(system) | dict(manager.status.get("archive_set") or {})


def copies(values: dict[str, Any]) -> int:
    return 2 if str(values.get("TWOACTV", "YES")).upper() == "YES" else 1


def write_sessions(values: dict[str, Any]) -> int:
    """zHyperLink write sessions the active logs need: copies x stripes, doubled with
    PPRC (Metro Mirror), as the seed counts them."""
    needed = copies(values) * int(values.get("STRIPES", 1))
    return needed * 2 if str(values.get("PPRC", "NO")).upper() == "YES" else needed


def free_sessions(values: dict[str, Any]) -> int:
    """Write sessions the storage subsystem has free for this queue manager (ZHLFREE)."""
    return min(WRITE_SESSIONS, int(values.get("ZHLFREE", WRITE_SESSIONS)))


def zhyperlink(system: SystemRecord, values: dict[str, Any]) -> str:
    """How log writes go: OFF (ZHYLINK NO), NOTCAPABLE (a CPU before z14), NOSESSIONS
    (more write sessions needed than are free) or SYNC."""
    if str(values.get("ZHYLINK", "NO")).upper() != "YES":
        return "OFF"
    if cpu_generation(system.cpu) < ZHYPERLINK_CPU:
        return "NOTCAPABLE"
    if write_sessions(values) > free_sessions(values):
        return "NOSESSIONS"
    return "SYNC"


# -- the log position ----------------------------------------------------------------------


def fresh_position(rba: int) -> dict[str, Any]:
    """The log position of a queue manager (re)started at `rba`: active data set 1 of
    each copy, nothing written since, no full logs waiting for offload."""
    return {"restart_rba": rba, "rba": rba, "dataset": 1, "used": 0, "full": 0, "writes": 0, "bytes": 0}


def position(manager: ObjectRecord) -> dict[str, Any]:
    return fresh_position(0) | dict(manager.status.get("log") or {})


def advance(system: SystemRecord, manager: ObjectRecord, nbytes: int) -> int:
    """Writes `nbytes` of log records: the RBA advances, the active data set fills and
    switches to the next one (the full one waits for offload when OFFLOAD is YES).
    Returns how many data sets filled. For the engine; the caller stores the status."""
    values = current_log(system, manager)
    pos = position(manager)
    size = int(values.get("LOGSIZE", LOG_DEFAULTS["LOGSIZE"]))
    datasets = int(values.get("LOGDS", LOG_DEFAULTS["LOGDS"]))
    pos["rba"] += nbytes
    pos["bytes"] += nbytes
    pos["writes"] += 1
    pos["used"] += nbytes
    filled = 0
    while pos["used"] >= size:
        pos["used"] -= size
        pos["dataset"] = pos["dataset"] % datasets + 1
        filled += 1
    if str(values.get("OFFLOAD", "YES")).upper() == "YES":
        pos["full"] = min(datasets - 1, pos["full"] + filled)
    manager.status["log"] = pos
    return filled


def rba_text(rba: int) -> str:
    return f"{rba:016X}"


# -- SET LOG / SET ARCHIVE -------------------------------------------------------------------


def set_log(ctx: Any, req: Any, manager: ObjectRecord) -> Response:
    given = {k: v for k, v in req.params.items() if k != "DEFAULT"}
    keywords = [k.name for k in req.object.keywords.values() if k.name != "DEFAULT"]
    problem = _default_or_values(req, given, keywords)
    if problem is not None:
        return problem
    result = reply(req)
    if req.get("DEFAULT"):
        manager.status["log_set"] = {}
        ctx.tx.put_status(manager)
        return result
    before = current_log(ctx.system, manager)
    if given.get("ZHYLINK") == "YES" and given.get("ZHYWRITE") == "NO":
        return _refused(req, "BOTH WERE SPECIFIED")
    if given.get("ZHYWRITE") == "NO" and "ZHYLINK" not in given and str(before.get("ZHYLINK")) == "YES":
        return _refused(req, "ZHYLINK IS YES")
    changes = dict(given)
    if changes.get("ZHYLINK") == "YES" and "ZHYWRITE" not in changes and str(before.get("ZHYWRITE")) != "YES":
        changes["ZHYWRITE"] = "YES"
        result.add("CSQJ380I", csect=NO_CSECT)
    manager.status["log_set"] = dict(manager.status.get("log_set") or {}) | changes
    ctx.tx.put_status(manager)
    if changes.get("ZHYLINK") == "YES":
        after = current_log(ctx.system, manager)
        mode = zhyperlink(ctx.system, after)
        if mode == "NOTCAPABLE":
            result.add("CSQJ382I", csect=NO_CSECT, cpu=ctx.system.cpu)
        elif mode == "NOSESSIONS":
            result.add("CSQJ383I", csect=NO_CSECT, needed=write_sessions(after), available=free_sessions(after))
    return result


def _refused(req: Any, reason: str) -> Response:
    result = reply(req, FAILED)
    result.add("CSQJ381E", csect=NO_CSECT, reason=reason)
    return result


def _default_or_values(req: Any, given: dict[str, Any], keywords: list[str]) -> Response | None:
    """SET LOG and SET ARCHIVE take DEFAULT alone, or at least one parameter."""
    words = f"SET {req.object.full}"
    if req.get("DEFAULT") and given:
        first = next(k for k in req.order if k != "DEFAULT")
        return syntax(req, "CSQ9032E", keyword=first, other="DEFAULT")
    if not req.get("DEFAULT") and not given:
        return syntax(req, "CSQ9031E", keyword=words, what=f"DEFAULT or one of {', '.join(keywords)}")
    return None


def set_archive(ctx: Any, req: Any, manager: ObjectRecord) -> Response:
    given = {k: v for k, v in req.params.items() if k != "DEFAULT"}
    keywords = [k.name for k in req.object.keywords.values() if k.name != "DEFAULT"]
    problem = _default_or_values(req, given, keywords)
    if problem is not None:
        return problem
    if req.get("DEFAULT"):
        manager.status["archive_set"] = {}
    else:
        manager.status["archive_set"] = dict(manager.status.get("archive_set") or {}) | given
    ctx.tx.put_status(manager)
    return reply(req)


# -- DISPLAY LOG / DISPLAY ARCHIVE -------------------------------------------------------------


def _shown(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "(" + ",".join(str(v) for v in value) + ")"
    return str(value)


def _parameter_table(rows: tuple[str, ...], initial: dict[str, Any], changed: dict[str, Any]) -> list[str]:
    lines = [
        f"{'Parameter':<13}{'Initial value':<26}SET value",
        f"{'-' * 11}  {'-' * 24}  {'-' * 24}",
    ]
    for name in rows:
        later = _shown(changed[name]) if name in changed else ""
        lines.append(f"{name:<13}{_shown(initial.get(name, '')):<26}{later}".rstrip())
    return lines


def display_log(ctx: Any, req: Any, manager: ObjectRecord) -> Response:
    system = ctx.system
    initial = initial_log(system)
    changed = dict(manager.status.get("log_set") or {})
    values = initial | changed
    result = reply(req)
    report = result.add("CSQJ322I", csect=NO_CSECT, report="DISPLAY LOG")
    report.lines = [*_parameter_table(LOG_REPORT, initial, changed), "End of LOG report"]
    status = result.add("CSQJ370I", csect=NO_CSECT)
    status.lines = _status_lines(system, manager, values)
    return result


def _status_lines(system: SystemRecord, manager: ObjectRecord, values: dict[str, Any]) -> list[str]:
    pos = position(manager)
    size = max(1, int(values.get("LOGSIZE", LOG_DEFAULTS["LOGSIZE"])))
    datasets = int(values.get("LOGDS", LOG_DEFAULTS["LOGDS"]))
    percent = min(100, pos["used"] * 100 // size)
    mode = zhyperlink(system, values)
    pprc = str(values.get("PPRC", "NO")).upper() == "YES"
    if str(values.get("ZHYWRITE", "NO")).upper() == "YES":
        hyperwrite = "YES"
    else:
        # With ZHYWRITE(NO) the column says whether the log could use it (IBM, 9.3.5):
        # zHyperWrite mirrors writes, so the logs are capable when they are mirrored.
        hyperwrite = "CAPABLE" if pprc else "NO"
    hyperlink = {"OFF": "NO", "NOTCAPABLE": "NOT CAPABLE"}.get(mode, "YES")
    lines = ["Copy  %Full  zHyperWrite  zHyperLink  Encrypted  DSName"]
    for copy in range(1, copies(values) + 1):
        dsname = f"{system.name}.LOGCOPY{copy}.DS{pos['dataset']:02d}"
        lines.append(f"{copy:>3}{percent:>7}   {hyperwrite:<13}{hyperlink:<12}{'NO':<11}{dsname}")
    started = local_time(system, float(manager.status.get("started", manager.created)))
    lines.append(f"Restarted at {started:%Y-%m-%d %H.%M.%S} using RBA={rba_text(pos['restart_rba'])}")
    lines.append(f"Latest RBA={rba_text(pos['rba'])}")
    needed, free = write_sessions(values), free_sessions(values)
    if mode == "SYNC":
        lines.append(f"zHyperLink write sessions {needed} of {free}")
    elif mode == "NOSESSIONS":
        lines.append(
            f"zHyperLink write sessions {needed} needed, {free} available - log writes fall back to asynchronous I/O"
        )
    elif mode == "NOTCAPABLE":
        lines.append(f"zHyperLink not available on a {system.cpu} - log writes use asynchronous I/O")
    lines.append("Offload task is AVAILABLE" if pos["full"] == 0 else "Offload task is BUSY")
    lines.append(f"Full logs to offload - {pos['full']} of {datasets * copies(values)}")
    return lines


def display_archive(ctx: Any, req: Any, manager: ObjectRecord) -> Response:
    initial = initial_archive(ctx.system)
    changed = dict(manager.status.get("archive_set") or {})
    result = reply(req)
    report = result.add("CSQJ322I", csect=NO_CSECT, report="DISPLAY ARCHIVE")
    report.lines = [*_parameter_table(ARCHIVE_REPORT, initial, changed), "End of ARCHIVE report"]
    tapes = result.add("CSQJ325I", csect=NO_CSECT)
    tapes.lines = ["No tape archive reading activity", "End of tape unit report"]
    return result


def restart(system: SystemRecord, manager: ObjectRecord, now: float) -> str:
    """START QMGR: SET values are forgotten (the parameter module is read again) and the
    log restarts at the latest RBA. Returns the restart RBA as printed."""
    pos = position(manager)
    fresh = fresh_position(pos["rba"]) | {"dataset": pos["dataset"], "used": pos["used"], "full": pos["full"]}
    manager.status.update({"log": fresh, "log_set": {}, "archive_set": {}, "started": now})
    return rba_text(fresh["rba"])
