"""Buffer pools: DEFINE/ALTER/DELETE BUFFPOOL(n) and the buffer pool section of DISPLAY
USAGE. A buffer pool (0-99) holds the 4 KB pages of the page sets that name it
(DEFINE PSID(n) BUFFPOOL(m)); a pool that a page set names cannot be deleted, and a
page set can name only a pool that is defined.

On z/OS DEFINE BUFFPOOL belongs in the CSQINP1 data set read at start-up and ALTER
BUFFPOOL is the run-time command; mqtool has no start-up data sets, so it takes both
at any time (mqtool-zos(7), BUFFER POOLS). ALTER BUFFPOOL answers CSQP024I (request
initiated) and, as z/OS does when the change is done, writes CSQP023I to the console.
"""

from __future__ import annotations

from typing import Any

from mqtool.engine.console import console
from mqtool.response import NO_CSECT, Response
from mqtool.state import ObjectRecord, SystemRecord, Transaction

from . import RC_EXISTS, RC_IN_USE, refuse, reply, rule
from .builtin import table_defaults

POOL_RANGE = range(0, 100)
BELOW_MAX = 500_000  # IBM: BUFFERS 100-500000 with LOCATION(BELOW)
COLUMNS = "{:>6}{:>11}{:>11}{:>11}   {:<9}{}"  # the buffer pool report's columns


def parse_pool(text: object) -> int | None:
    """A buffer pool number 0-99, or None."""
    value = str(text)
    if not (value.isascii() and value.isdigit()) or int(value) not in POOL_RANGE:
        return None
    return int(value)


def pool_defined(tx: Transaction, system: SystemRecord, number: int) -> bool:
    return tx.get_object(system.name, "BUFFPOOL", str(number)) is not None


def _bad_pool(req: Any) -> Response:
    return refuse(req, "CSQP002I")


def _check(req: Any, attrs: dict[str, Any]) -> Response | None:
    """BUFFERS within the range of the LOCATION; FIXED4KB pages only above the bar."""
    location = str(attrs.get("LOCATION", "BELOW"))
    if location == "BELOW" and int(attrs.get("BUFFERS", 1000)) > BELOW_MAX:
        return refuse(req, "CSQP005I")
    if location == "BELOW" and attrs.get("PAGECLAS") == "FIXED4KB":
        return rule(req, "PAGECLAS", "FIXED4KB", "FIXED4KB PAGES NEED LOCATION(ABOVE)")
    return None


def define(ctx: Any, req: Any) -> Response:
    number = parse_pool(req.name)
    if number is None:
        return _bad_pool(req)
    tx, system = ctx.tx, ctx.system
    existing = tx.get_object(system.name, "BUFFPOOL", str(number))
    if existing is not None and not req.get("REPLACE"):
        return refuse(req, "CSQM095I", RC_EXISTS, objtype="BUFFPOOL", name=f"{number:02d}")
    attrs = table_defaults("BUFFPOOL") | {k: v for k, v in req.params.items() if k != "REPLACE"}
    problem = _check(req, attrs)
    if problem is not None:
        return problem
    created = existing.created if existing is not None else ctx.now
    tx.put_object(ObjectRecord(system.name, "BUFFPOOL", str(number), attrs, {}, created, ctx.now))
    return reply(req)


def _existing(ctx: Any, req: Any) -> tuple[int, ObjectRecord] | Response:
    """The buffer pool ALTER or DELETE names, or the response refusing the command."""
    number = parse_pool(req.name)
    if number is None:
        return _bad_pool(req)
    record = ctx.tx.get_object(ctx.system.name, "BUFFPOOL", str(number))
    if record is None:
        return refuse(req, "MQT0775E", pool=number)
    return number, record


def alter(ctx: Any, req: Any) -> Response:
    found = _existing(ctx, req)
    if isinstance(found, Response):
        return found
    number, record = found
    tx, system = ctx.tx, ctx.system
    attrs = table_defaults("BUFFPOOL") | record.attrs | req.params
    problem = _check(req, attrs)
    if problem is not None:
        return problem
    moved = attrs.get("LOCATION") != record.attrs.get("LOCATION")
    record.attrs = attrs
    record.altered = ctx.now
    tx.put_object(record)
    result = reply(req)
    result.add("CSQP024I", csect=NO_CSECT, pool=number)
    # What z/OS reports on the console when the asynchronous change is done.
    if moved:
        console(tx, system, ctx.now, "CSQP054I" if attrs["LOCATION"] == "ABOVE" else "CSQP055I", pool=number)
    console(tx, system, ctx.now, "CSQP023I", pool=number, buffers=attrs["BUFFERS"])
    return result


def delete(ctx: Any, req: Any) -> Response:
    found = _existing(ctx, req)
    if isinstance(found, Response):
        return found
    number = found[0]
    tx, system = ctx.tx, ctx.system
    users = sorted(int(p.name) for p in tx.objects(system.name, "PSID") if int(p.attrs.get("BUFFPOOL", 0)) == number)
    if users:
        detail = f"PSID({users[0]:02d}) NAMES IT"
        return refuse(req, "CSQM101I", RC_IN_USE, objtype="BUFFPOOL", name=f"{number:02d}", detail=detail)
    tx.delete_object(system.name, "BUFFPOOL", str(number))
    return reply(req)


def report(tx: Transaction, system: SystemRecord, used: dict[int, dict[str, int]], only: int | None) -> list[str]:
    """The lines of DISPLAY USAGE's buffer pool section (CSQI065I): each pool's buffers,
    those that could be stolen (buffers not holding a page of a message on one of its
    page sets), its page class and location. `used` is the page sets' pages in use;
    `only` a page set's pool, or None for every pool."""
    pools = {int(r.name): r for r in tx.objects(system.name, "BUFFPOOL")}
    held: dict[int, int] = {}
    for pageset in tx.objects(system.name, "PSID"):
        pool = int(pageset.attrs.get("BUFFPOOL", 0))
        pages = used.get(int(pageset.name), {})
        held[pool] = held.get(pool, 0) + pages.get("persistent", 0) + pages.get("nonpersistent", 0)
    lines = [
        COLUMNS.format("Buffer", "Available", "Stealable", "Stealable", "Page", "Location").rstrip(),
        COLUMNS.format("pool", "buffers", "buffers", "percentage", "class", "").rstrip(),
    ]
    for number in sorted(pools) if only is None else [only]:
        record = pools.get(number)
        if record is None:
            lines.append(f"{number:>6}  Buffer pool not defined")
            continue
        buffers = int(record.attrs.get("BUFFERS", 1000))
        stealable = max(0, buffers - held.get(number, 0))
        lines.append(
            COLUMNS.format(
                number,
                buffers,
                stealable,
                stealable * 100 // buffers,
                str(record.attrs.get("PAGECLAS", "4KB")),
                str(record.attrs.get("LOCATION", "BELOW")),
            ).rstrip()
        )
    lines.append("End of buffer pool attributes")
    return lines
