"""The log and archive of a z/OS queue manager, the command side: SET LOG and SET
ARCHIVE (values kept until the next start, with the zHyperWrite/zHyperLink rules),
ARCHIVE LOG, the DISPLAY LOG and DISPLAY ARCHIVE reports, and what START QMGR says of
the log. The log itself (parameters in effect, position, data sets, offload) is the
engine's: mqtool/engine/zos/log.py.
"""

from __future__ import annotations

from typing import Any

from mqtool.complex import ARCHIVE_DEFAULTS
from mqtool.engine.zos import log as zlog
from mqtool.engine.zos import logsuspend, stats
from mqtool.engine.zos.log import (
    current_log,
    free_sessions,
    initial_archive,
    initial_log,
    rba_text,
    write_sessions,
    zhyperlink,
)
from mqtool.response import FAILED, NO_CSECT, Response
from mqtool.state import ObjectRecord, SystemRecord, Transaction

from . import local_time, manager, refuse, reply, syntax

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


# -- DEFINE LOG (bread-last) -----------------------------------------------------------------

MAX_RING = 310  # IBM: at most 310 active log data sets per copy


def define_log(ctx: Any, req: Any) -> Response:
    """DEFINE LOG(dsname) COPY(1|2): the data set joins the copy's ring of active logs
    after the data sets already there, kept over a restart (as the BSDS keeps it); the
    log switches to it in turn once each copy has a data set at that place."""
    system = ctx.system
    record = manager(ctx.tx, system, ctx.now)
    name = str(req.name).upper()
    copy = int(str(req.get("COPY")))
    settings = zlog.log_settings(system, record)
    if copy > settings.copies:
        return refuse(req, "MQT0480E")
    added = zlog.added_logs(record)
    base = settings.datasets - settings.extra
    for ring in (1, 2):
        names = [zlog.dsname(system.name, ring, n) for n in range(1, base + 1)] + added[str(ring)]
        if name in names:
            return refuse(req, "MQT0481E", dsname=name, copy=ring)
    if base + len(added[str(copy)]) >= MAX_RING:
        return refuse(req, "MQT0482E", copy=copy, count=MAX_RING)
    added[str(copy)].append(name)
    record.status["active_logs"] = added
    ctx.tx.put_status(record)
    result = reply(req)
    result.add("MQT0483I", dsname=name, copy=copy, total=base + len(added[str(copy)]))
    return result


# -- SET LOG / SET ARCHIVE -------------------------------------------------------------------


def set_log(ctx: Any, req: Any, manager: ObjectRecord) -> Response:
    given = {k: v for k, v in req.params.items() if k != "DEFAULT"}
    keywords = [k.name for k in req.object.keywords.values() if k.name != "DEFAULT" and "SET" in k.verbs]
    problem = default_or_values(req, given, keywords)
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


def default_or_values(req: Any, given: dict[str, Any], keywords: list[str]) -> Response | None:
    """SET LOG and SET ARCHIVE take DEFAULT alone, or at least one parameter."""
    words = f"SET {req.object.full}"
    if req.get("DEFAULT") and given:
        first = next(k for k in req.order if k != "DEFAULT")
        return syntax(req, "CSQ9032E", keyword=first, other="DEFAULT")
    if not req.get("DEFAULT") and not given:
        return syntax(req, "CSQ9031E", keyword=words, what=f"DEFAULT or one of {', '.join(keywords)}")
    return None


def set_parameters(ctx: Any, req: Any, manager: ObjectRecord, key: str) -> Response | None:
    """SET ARCHIVE and SET SYSTEM: DEFAULT forgets the values set, others are kept in the
    queue manager's status under `key` until the next start. A response only when the
    command is refused."""
    given = {k: v for k, v in req.params.items() if k != "DEFAULT"}
    keywords = [k.name for k in req.object.keywords.values() if k.name != "DEFAULT" and "SET" in k.verbs]
    problem = default_or_values(req, given, keywords)
    if problem is not None:
        return problem
    if req.get("DEFAULT"):
        manager.status[key] = {}
    else:
        manager.status[key] = dict(manager.status.get(key) or {}) | given
    ctx.tx.put_status(manager)
    return None


def set_archive(ctx: Any, req: Any, manager: ObjectRecord) -> Response:
    return set_parameters(ctx, req, manager, "archive_set") or reply(req)


# -- DISPLAY LOG / DISPLAY ARCHIVE -------------------------------------------------------------


def _shown(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "(" + ",".join(str(v) for v in value) + ")"
    return str(value)


def parameter_table(rows: tuple[str, ...], initial: dict[str, Any], changed: dict[str, Any]) -> list[str]:
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
    report.lines = [*parameter_table(LOG_REPORT, initial, changed), "End of LOG report"]
    status = result.add("CSQJ370I", csect=NO_CSECT)
    status.lines = _status_lines(ctx.tx, system, manager, values)
    suspended = logsuspend.suspended_at(manager)
    if suspended is not None:
        # The suspension's message again while it lasts (Db2's DISPLAY LOG does so; inferred).
        result.add("CSQJ372I", csect=NO_CSECT, qmgr=manager.name, rba=rba_text(suspended))
    return result


def _status_lines(tx: Transaction, system: SystemRecord, manager: ObjectRecord, values: dict[str, Any]) -> list[str]:
    """The CSQJ370I report: IBM's copy table (Copy, %Full, zHyperWrite, Encrypted,
    DSName), then the log status (restart and latest RBA, how zHyperLink writes go,
    the offload task, full logs)."""
    pos = zlog.position(tx, system.name)
    settings = zlog.log_settings(system, manager)
    percent = min(100, pos.used * 100 // settings.size)
    if settings.zhywrite:
        hyperwrite = "YES"
    else:
        # With ZHYWRITE(NO) the column says whether the log could use it (IBM, 9.3.5):
        # zHyperWrite mirrors writes, so the logs are capable when they are mirrored.
        hyperwrite = "CAPABLE" if settings.zhw_capable else "NO"
    lines = ["Copy %Full zHyperWrite Encrypted DSName"]
    for copy in range(1, settings.copies + 1):
        name = settings.name(system.name, copy, pos.dataset)
        lines.append(f"{copy:>2}{percent:>7}  {hyperwrite:<12}{'NO':<10}{name}")
    started = local_time(system, float(manager.status.get("started", manager.created)))
    lines.append(f"Restarted at {started:%Y-%m-%d %H.%M.%S} using RBA={rba_text(pos.restart_rba)}")
    lines.append(f"Latest RBA={rba_text(pos.rba)}")
    needed, free = write_sessions(values), free_sessions(values)
    if settings.mode == "SYNC":
        lines.append(f"zHyperLink log writes are synchronous, using {needed} of {free} write sessions")
    elif settings.mode == "NOSESSIONS":
        lines.append(
            f"zHyperLink log writes fell back to asynchronous I/O: {needed} write sessions needed, {free} available"
        )
    elif settings.mode == "NOTCAPABLE":
        lines.append(
            f"zHyperLink log writes fell back to asynchronous I/O: a {system.cpu} cannot use zHyperLink (z14 or later)"
        )
    lines.append("Offload task is BUSY" if pos.offloading else "Offload task is AVAILABLE")
    lines.append(f"Full logs to offload - {pos.full} of {settings.datasets * settings.copies}")
    return lines


def display_archive(ctx: Any, req: Any, manager: ObjectRecord) -> Response:
    initial = initial_archive(ctx.system)
    changed = dict(manager.status.get("archive_set") or {})
    result = reply(req)
    report = result.add("CSQJ322I", csect=NO_CSECT, report="DISPLAY ARCHIVE")
    report.lines = [*parameter_table(ARCHIVE_REPORT, initial, changed), "End of ARCHIVE report"]
    tapes = result.add("CSQJ325I", csect=NO_CSECT)
    tapes.lines = ["No tape archive reading activity", "End of tape unit report"]
    return result


def restart(tx: Transaction, system: SystemRecord, manager: ObjectRecord, now: float, result: Response) -> None:
    """START QMGR: SET LOG, ARCHIVE and SYSTEM values are forgotten (the parameter module
    is read again) and the log restarts at the latest RBA, in the active data sets it was
    writing (CSQJ001I for each copy with the data set's RBA range, then CSQJ099I)."""
    manager.status.update({"log_set": {}, "archive_set": {}, "system_set": {}, "started": now})
    manager.status.pop("log", None)  # the position of stores before schema 6 (now in zos_log)
    rba = zlog.restart(tx, system.name)
    pos = zlog.position(tx, system.name)
    settings = zlog.log_settings(system, manager)
    for copy in range(1, settings.copies + 1):
        result.add("CSQJ001I", csect=NO_CSECT, copy=copy, dsname=settings.name(system.name, copy, pos.dataset),
                   start=rba_text(pos.ds_start), end=rba_text(pos.ds_start + settings.size - 1))  # fmt: skip
    result.add("CSQJ099I", csect=NO_CSECT, rba=rba_text(rba))


# -- SUSPEND QMGR LOG and RESUME QMGR LOG (zos-last) -------------------------------------------


def suspend_log(ctx: Any, req: Any) -> Response:
    """SUSPEND QMGR LOG (console only): the statistics and log records held in buffers are
    written, a checkpoint is taken (the BSDS gets the RBA), and log update activity stays
    suspended at that RBA until RESUME QMGR LOG or STOP QMGR (CSQJ372I). Updates are then
    refused (mqtool/engine/zos/logsuspend.py), displays and browses go on."""
    tx, system, now = ctx.tx, ctx.system, ctx.now
    record = manager(tx, system, now)
    console_only = _console_only(ctx, req, "SUSPEND QMGR LOG")
    if console_only is not None:
        return console_only
    held = logsuspend.suspended_at(record)
    if held is not None:
        return refuse(req, "MQT0490E", qmgr=record.name, rba=rba_text(held))
    stats.flush(tx, system.name, now)
    zlog.checkpoint(tx, system, zlog.log_settings(system, record), now)
    rba = zlog.position(tx, system.name).rba
    logsuspend.suspend(record, rba)
    tx.put_status(record)
    result = reply(req)
    result.add("CSQJ372I", csect=NO_CSECT, qmgr=record.name, rba=rba_text(rba))
    return result


def resume_log(ctx: Any, req: Any) -> Response:
    """RESUME QMGR LOG (console only): updates run again (CSQJ373I)."""
    record = manager(ctx.tx, ctx.system, ctx.now)
    console_only = _console_only(ctx, req, "RESUME QMGR LOG")
    if console_only is not None:
        return console_only
    if logsuspend.suspended_at(record) is None:
        return refuse(req, "MQT0491E", qmgr=record.name)
    logsuspend.resume(record)
    ctx.tx.put_status(record)
    result = reply(req)
    result.add("CSQJ373I", csect=NO_CSECT, qmgr=record.name)
    return result


def _console_only(ctx: Any, req: Any, command: str) -> Response | None:
    """IBM takes SUSPEND and RESUME QMGR LOG from the console only (command source C), not
    from the command server that the REST API's MQSC commands go through."""
    if getattr(ctx.session, "via_command_server", False):
        return refuse(req, "MQT0493E", command=command)
    return None


# -- ARCHIVE LOG -------------------------------------------------------------------------------


def archive_log(ctx: Any, req: Any, manager: ObjectRecord) -> Response:
    """ARCHIVE LOG [MODE(QUIESCE) [TIME(n)] [WAIT(YES|NO)]] | CANCEL OFFLOAD: the active
    data sets are truncated, switched and offloaded (CSQJ311I; the switch and the
    offload write their console messages); CANCEL OFFLOAD restarts the offloads."""
    cancel, offload = req.get("CANCEL"), req.get("OFFLOAD")
    if bool(cancel) != bool(offload):
        return syntax(req, "CSQ9031E", keyword="CANCEL" if cancel else "OFFLOAD", what="CANCEL OFFLOAD together")
    quiesce = [k for k in ("MODE", "TIME", "WAIT") if k in req.params]
    if cancel and quiesce:
        return syntax(req, "CSQ9032E", keyword=quiesce[0], other="CANCEL OFFLOAD")
    if quiesce and "MODE" not in req.params:
        return syntax(req, "CSQ9031E", keyword=quiesce[0], what="MODE(QUIESCE)")
    tx, system, now = ctx.tx, ctx.system, ctx.now
    stats.flush(tx, system.name, now)
    if cancel:
        zlog.cancel_offload(tx, system, manager, now)
        return reply(req)
    problem = zlog.archive_log(tx, system, manager, now)
    if problem == "OFFLOAD":
        result = reply(req, FAILED)
        result.add("MQT0401E", system=system.name)
        return result
    if problem == "LAST":
        result = reply(req, FAILED)
        result.add("CSQJ319I", csect=zlog.LOG_CSECT)
        return result
    result = reply(req)
    result.add("CSQJ311I", csect=zlog.LOG_CSECT)
    return result
