"""Page sets: DEFINE/ALTER/DELETE PSID and DISPLAY USAGE. The page arithmetic is the
engine's (mqtool/engine/zos/pages.py: a message takes ceil((length + 500) / 4096)
pages of the page set its queue's storage class names; page set 0 also holds the
object definitions, one page each).

A page set's size is its PAGES attribute; an expansion (EXPAND USER or SYSTEM, done by
the engine when a put does not fit) records the grown size in the status as `pages`
and counts `expansions`.
"""

from __future__ import annotations

from typing import Any

from mqtool.engine.zos import log as zlog
from mqtool.engine.zos.pages import (
    DEFINITIONS,
    MESSAGE_OVERHEAD,
    OBJECT_PAGES,
    PAGE,
    DamagedPageSet,
    pageset_pages,
    pageset_used,
    queue_psid,
)
from mqtool.response import NO_CSECT, Response
from mqtool.state import ObjectRecord, SystemRecord, Transaction

from . import (
    RC_EXISTS,
    RC_IN_USE,
    buffpools,
    not_found,
    refuse,
    reply,
    rule,
    syntax,
)
from .builtin import table_defaults

PSID_RANGE = range(0, 100)
COLUMNS = "{:>5}{:>7}{:>10}{:>10}{:>11}{:>11} {:>12}"  # the page set report's columns


def usage(tx: Transaction, system: SystemRecord) -> dict[int, dict[str, int]]:
    """Pages in use per page set: {psid: {"persistent": n, "nonpersistent": n}}."""
    psids = {q.name: queue_psid(tx, system.name, q) for q in tx.objects(system.name, "QLOCAL")}
    out: dict[int, dict[str, int]] = {}
    rows = tx.conn.execute(
        "SELECT queue, persistent, sum((stored_length + ? + ? - 1) / ?) FROM messages "
        "WHERE system = ? GROUP BY queue, persistent",
        (MESSAGE_OVERHEAD, PAGE, PAGE, system.name),
    )
    for queue, persistent, pages in rows:
        psid = psids.get(queue)
        if psid is None:
            continue
        entry = out.setdefault(psid, {"persistent": 0, "nonpersistent": 0})
        entry["persistent" if persistent else "nonpersistent"] += int(pages)
    # Page set 0 holds the object definitions: persistent pages too (engine/zos/pages.py).
    objects = tx.conn.execute("SELECT " + DEFINITIONS.format("?"), (system.name,)).fetchone()[0]
    out.setdefault(0, {"persistent": 0, "nonpersistent": 0})["persistent"] += OBJECT_PAGES * int(objects)
    return out


def parse_psid(text: str | None) -> int | None:
    if text is None or not (text.isascii() and text.isdigit()) or int(text) not in PSID_RANGE:
        return None
    return int(text)


def _bad_psid(req: Any) -> Response:
    return syntax(req, "CSQ9030E", keyword="PSID", value=req.name, allowed="0-99")


def _pool_check(ctx: Any, req: Any, attrs: dict[str, Any]) -> Response | None:
    """A page set names a buffer pool that is defined (buffpools.py)."""
    if "BUFFPOOL" not in attrs:
        return None
    pool = int(attrs["BUFFPOOL"])
    if not buffpools.pool_defined(ctx.tx, ctx.system, pool):
        return rule(req, "BUFFPOOL", pool, f"BUFFER POOL {pool} IS NOT DEFINED (DEFINE BUFFPOOL({pool}) FIRST)")
    return None


def define(ctx: Any, req: Any) -> Response:
    psid = parse_psid(req.name)
    if psid is None:
        return _bad_psid(req)
    tx, system = ctx.tx, ctx.system
    if tx.get_object(system.name, "PSID", str(psid)) is not None:
        return refuse(req, "CSQM095I", RC_EXISTS, objtype="PSID", name=f"{psid:02d}")
    attrs = table_defaults("PSID") | {k: v for k, v in req.params.items()}
    problem = _pool_check(ctx, req, attrs)
    if problem is not None:
        return problem
    tx.put_object(ObjectRecord(system.name, "PSID", str(psid), attrs, {}, ctx.now, ctx.now))
    return reply(req)


def alter(ctx: Any, req: Any) -> Response:
    psid = parse_psid(req.name)
    if psid is None:
        return _bad_psid(req)
    tx, system = ctx.tx, ctx.system
    record = tx.get_object(system.name, "PSID", str(psid))
    if record is None:
        return not_found(req, "PSID", f"{psid:02d}")
    problem = _pool_check(ctx, req, req.params)
    if problem is not None:
        return problem
    if "PAGES" in req.params:
        used = pageset_used(tx, system.name, psid)
        if int(req.params["PAGES"]) < used:
            return rule(req, "PAGES", req.params["PAGES"], f"PAGE SET {psid:02d} HOLDS {used} PAGES OF MESSAGES")
        # A new allocation: earlier expansions are part of the size given now.
        record.status.pop("pages", None)
    record.attrs = record.attrs | req.params
    record.altered = ctx.now
    tx.put_object(record)
    return reply(req)


def delete(ctx: Any, req: Any) -> Response:
    psid = parse_psid(req.name)
    if psid is None:
        return _bad_psid(req)
    tx, system = ctx.tx, ctx.system
    if tx.get_object(system.name, "PSID", str(psid)) is None:
        return not_found(req, "PSID", f"{psid:02d}")
    if psid == 0:
        return rule(req, "PSID", "00", "PAGE SET 00 HOLDS THE OBJECT DEFINITIONS")
    users = [s.name for s in tx.objects_where(system.name, "PSID", psid, ("STGCLASS",))]
    if users:
        return refuse(
            req, "CSQM101I", RC_IN_USE, objtype="PSID", name=f"{psid:02d}", detail=f"STGCLASS({users[0]}) NAMES IT"
        )
    tx.delete_object(system.name, "PSID", str(psid))
    return reply(req)


def display_usage(ctx: Any, req: Any) -> Response:
    kind = str(req.get("TYPE", "ALL"))
    wanted = req.get("PSID", "*")
    if kind == "DATASET" and "PSID" in req.params:
        return refuse(req, "CSQI003I", type=kind)
    tx, system = ctx.tx, ctx.system
    result = reply(req)
    if kind in ("PAGESET", "ALL"):
        records = {int(r.name): r for r in tx.objects(system.name, "PSID")}
        used = usage(tx, system)
        lines = [
            COLUMNS.format("Page", "Buffer", "Total", "Unused", "Persistent", "Nonpersist", "Expansion"),
            COLUMNS.format("set", "pool", "pages", "pages", "data pages", "data pages", "count"),
        ]
        numbers = sorted(records) if wanted == "*" else [int(wanted)]
        for psid in numbers:
            record = records.get(psid)
            if record is None:
                lines.append(f"{psid:>5}  Page set not defined")
                continue
            pages = used.get(psid, {"persistent": 0, "nonpersistent": 0})
            try:
                total = pageset_pages(record)
            except DamagedPageSet as damage:
                lines.append(f"{psid:>5}  Page set figures damaged in the store: {damage}")
                continue
            free = max(0, total - pages["persistent"] - pages["nonpersistent"])
            lines.append(
                f"{psid:>5}{int(record.attrs.get('BUFFPOOL', 0)):>7}{total:>10}{free:>10}"
                f"{pages['persistent']:>11}{pages['nonpersistent']:>11} "
                f"{record.attrs.get('EXPAND', 'USER'):<6}{int(record.status.get('expansions', 0)):>6}"
            )
        lines.append("End of page set report")
        report = result.add("CSQI010I", csect=NO_CSECT)
        report.lines = lines
        only = None
        if wanted != "*":
            record = records.get(int(wanted))
            only = int(record.attrs.get("BUFFPOOL", 0)) if record is not None else None
        if wanted == "*" or only is not None:
            pools = result.add("CSQI065I", csect=NO_CSECT)
            pools.lines = buffpools.report(tx, system, used, only)
    if kind in ("DATASET", "ALL"):
        restart = zlog.position(tx, system.name).restart_rba
        result.add("CSQI024I", rba=zlog.rba_text(restart))
    return result
