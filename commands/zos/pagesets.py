"""Page sets: DEFINE/ALTER/DELETE PSID, DISPLAY USAGE, and the page arithmetic the
engine shares (a message takes ceil((length + 500) / 4096) pages of the page set its
queue's storage class names).

A page set's size is its PAGES attribute; an expansion (EXPAND USER or SYSTEM, done by
the engine) records the grown size in the status as `pages` and counts `expansions`.
"""

from __future__ import annotations

from typing import Any

from mqtool.response import NO_CSECT, Response
from mqtool.state import ObjectRecord, SystemRecord, Transaction

from . import (
    RC_EXISTS,
    RC_IN_USE,
    logs,
    manager,
    not_found,
    refuse,
    reply,
    rule,
    syntax,
)
from .builtin import table_defaults

PAGE = 4096
MESSAGE_OVERHEAD = 500  # bytes of page-set control information per message (spec)
PSID_RANGE = range(0, 100)
COLUMNS = "{:>5}{:>7}{:>10}{:>10}{:>11}{:>11} {:>12}"  # the page set report's columns


def pages_for(length: int) -> int:
    """Pages one message of `length` stored bytes occupies."""
    return -(-(length + MESSAGE_OVERHEAD) // PAGE)


def capacity(record: ObjectRecord) -> int:
    """Total pages of a page set, after any expansion."""
    return int(record.status.get("pages", record.attrs.get("PAGES", 0)))


def queue_psid(tx: Transaction, system: SystemRecord, attrs: dict[str, Any]) -> int | None:
    """The page set of a local queue (via its storage class); None when the class is gone."""
    stgclass = tx.get_object(system.name, "STGCLASS", str(attrs.get("STGCLASS", "DEFAULT")))
    return None if stgclass is None else int(stgclass.attrs.get("PSID", 0))


def usage(tx: Transaction, system: SystemRecord) -> dict[int, dict[str, int]]:
    """Pages in use per page set: {psid: {"persistent": n, "nonpersistent": n}}."""
    psids = {q.name: queue_psid(tx, system, q.attrs) for q in tx.objects(system.name, "QLOCAL")}
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
    return out


def parse_psid(text: str | None) -> int | None:
    if text is None or not (text.isascii() and text.isdigit()) or int(text) not in PSID_RANGE:
        return None
    return int(text)


def _bad_psid(req: Any) -> Response:
    return syntax(req, "CSQ9030E", keyword="PSID", value=req.name, allowed="0-99")


def define(ctx: Any, req: Any) -> Response:
    psid = parse_psid(req.name)
    if psid is None:
        return _bad_psid(req)
    tx, system = ctx.tx, ctx.system
    if tx.get_object(system.name, "PSID", str(psid)) is not None:
        return refuse(req, "CSQM095I", RC_EXISTS, objtype="PSID", name=f"{psid:02d}")
    attrs = table_defaults("PSID") | {k: v for k, v in req.params.items()}
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
    if "PAGES" in req.params:
        used = sum(usage(tx, system).get(psid, {}).values())
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
    users = [s.name for s in tx.objects(system.name, "STGCLASS") if int(s.attrs.get("PSID", 0)) == psid]
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
            total = capacity(record)
            free = max(0, total - pages["persistent"] - pages["nonpersistent"])
            lines.append(
                f"{psid:>5}{int(record.attrs.get('BUFFPOOL', 0)):>7}{total:>10}{free:>10}"
                f"{pages['persistent']:>11}{pages['nonpersistent']:>11} "
                f"{record.attrs.get('EXPAND', 'USER'):<6}{int(record.status.get('expansions', 0)):>6}"
            )
        lines.append("End of page set report")
        report = result.add("CSQI010I", csect=NO_CSECT)
        report.lines = lines
    if kind in ("DATASET", "ALL"):
        position = logs.position(manager(tx, system, ctx.now))
        result.add("CSQI024I", rba=logs.rba_text(position["restart_rba"]))
    return result
