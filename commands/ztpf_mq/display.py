"""ZMQSC DISPLAY: one block of `KEYWORD value` lines per object; a generic name
(`QL-PAY*`, `QL-*`) shows every match. `QL-name STAT` is the statistics display,
`CHL-name STAT` the channel statistics display (channel.py)."""

from __future__ import annotations

import importlib

from mqtool.engine.ztpf.figures import queue_figures
from mqtool.response import SYNTAX, Response
from mqtool.session import Context
from mqtool.state import ObjectRecord
from mqtool.validate import Request

from . import failure, migration, qmgr, response

TITLE_KEY = {"QMGR": "QMGR", "QL": "QUEUE", "QA": "QUEUE", "QR": "QUEUE", "CHL": "CHANNEL"}


def handle(ctx: Context, req: Request) -> Response:
    assert req.object is not None
    obj, system, tx = req.object.name, ctx.system, ctx.tx
    if req.get("STATUS"):
        if req.get("STAT"):
            return failure("MQSC0022E", SYNTAX, keyword="STATUS", detail="WITH STAT")
        from .channel import display_status

        return display_status(ctx, req)
    if req.get("STAT"):
        if obj == "CHL":
            from .channel import display_stat

            return display_stat(ctx, req)
        stat = importlib.import_module("mqtool.commands.ztpf_mq.stat")
        result: Response = stat.display(ctx, req)
        return result
    if obj == "LISTENER":
        from .listener import display as display_listeners

        return display_listeners(ctx, req)
    manager = qmgr(tx, system)
    if manager is None:
        return failure("MQSC0010E")
    if obj == "QMGR":
        pattern = req.name or manager.name
        if not _matches(manager.name, pattern):
            if pattern.endswith("*"):
                result = response(display=True)
                result.add("MQSC0003I", object=obj, name=pattern)
                return result
            return failure("MQSC0018E", object="QMGR", name=pattern)
        records = [manager]
    else:
        assert req.name is not None
        records = tx.objects(system.name, obj, req.name)
        if not records and not req.name.endswith("*"):
            return failure("MQSC0018E", object=obj, name=req.name)
    result = response(display=True)
    if not records:
        result.add("MQSC0003I", object=obj, name=req.name)
        return result
    title = result.add("MQSC0002I", object=obj)
    for record in records:
        title.attrs.extend(attributes(ctx, record))
    return result


def _matches(name: str, pattern: str) -> bool:
    return name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern


def attributes(ctx: Context, record: ObjectRecord) -> list[tuple[str, object]]:
    """The display lines of one object: its name, its keywords in table order, its status."""
    spec = ctx.table.objects[record.type]
    lines: list[tuple[str, object]] = [(TITLE_KEY[record.type], record.name)]
    for keyword in spec.keywords.values():
        applies = all(record.attrs.get(attr) in allowed for attr, allowed in keyword.only_for.items())
        if keyword.display and keyword.type != "flag" and applies:
            lines.append((keyword.name, record.attrs.get(keyword.name, keyword.default)))
    if record.type == "QL":
        figures = queue_figures(ctx.tx, ctx.system, record.name, common=record.attrs.get("COMMON") == "YES")
        lines.extend(figures.items())
    elif record.type == "QMGR":
        lines.append(("STATUS", record.status.get("state", "STARTED")))
        lines.append(("MIGRATION", migration(record)))
    elif record.type == "CHL":
        from .channel import status_lines

        lines.extend(status_lines(record))
    return lines
