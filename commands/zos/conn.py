"""DISPLAY CONN and DISPLAY THREAD: mqtool's real connections to a z/OS queue manager
(mqtool/engine/zos/connections.py): shells, processes with open queues (a `mqtool get
--wait` in progress), `mqtool serve`'s REST sessions and running channels.

DISPLAY CONN shows one CSQM201I block per connection (TYPE(CONN), the default), one
per open queue of each (TYPE(HANDLE)), or both (TYPE(ALL)); a generic name without
attributes named shows CONN, EXTCONN and TYPE only, as other displays show their
identity. DISPLAY THREAD is the older report of the same connections: one line each (CSQV402I,
TYPE(ACTIVE)), or one line per connection name and address space (CSQV432I,
TYPE(REGIONS)). No unit of work stays open between mqtool's commands: UOWSTATE is NONE and
no thread is ever in doubt."""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from mqtool.engine.zos import connections
from mqtool.response import NO_CSECT, Response

from . import manager, reply, syntax, where

DETAIL_CSECT = "CSQMDRTC"
CONN_FIELDS = ("CONNOPTS", "UOWLOGDA", "UOWLOGTI", "UOWSTDA", "UOWSTTI", "UOWSTATE", "NID", "EXTURID", "QMURID",
               "URTYPE", "USERID", "APPLTAG", "ASID", "APPLTYPE", "PID", "TASKNO", "TRANSID", "PSTID", "PSBNAME",
               "CHANNEL", "CONNAME")  # fmt: skip
HANDLE_FIELDS = ("OBJNAME", "OBJTYPE", "QSGDISP", "OPENOPTS", "HSTATE", "READA")
CONNOPTS = {
    connections.BATCH: "MQCNO_STANDARD_BINDING",
    connections.REST: "MQCNO_STANDARD_BINDING",
    connections.CHINIT: "MQCNO_HANDLE_SHARE_BLOCK",
}
THREAD_HEADER = "NAME     ST A   REQ ID           AUTHID   ASID TOKEN"
REGIONS_HEADER = "NAME     ST THREADS ACTIVE AUTHID   ASID"  # CSQV432I (inferred)


def _conn_values(extconn: str, connection: connections.Connection) -> dict[str, Any]:
    return {
        "CONN": connection.conn,
        "EXTCONN": extconn,
        "TYPE": "CONN",
        "CONNOPTS": CONNOPTS.get(connection.appltype, "MQCNO_STANDARD_BINDING"),
        "UOWLOGDA": " ",
        "UOWLOGTI": " ",
        "UOWSTDA": " ",
        "UOWSTTI": " ",
        "UOWSTATE": "NONE",
        "NID": " ",
        "EXTURID": " ",
        "QMURID": "000000000000",
        "URTYPE": "QMGR",
        "USERID": connection.userid or " ",
        "APPLTAG": connection.appltag,
        "ASID": connection.asid if connection.pid else " ",
        "APPLTYPE": connection.appltype,
        "PID": connection.pid or " ",
        "TASKNO": " ",
        "TRANSID": " ",
        "PSTID": " ",
        "PSBNAME": " ",
        "CHANNEL": connection.channel or " ",
        "CONNAME": connection.conname or " ",
    }


def _handle_values(extconn: str, connection: connections.Connection, handle: connections.Handle) -> dict[str, Any]:
    options = [option for option, wanted in (("MQOO_INPUT_SHARED", handle.input), ("MQOO_OUTPUT", handle.output))
               if wanted]  # fmt: skip
    return {
        "CONN": connection.conn,
        "EXTCONN": extconn,
        "TYPE": "HANDLE",
        "OBJNAME": handle.queue,
        "OBJTYPE": "QUEUE",
        "QSGDISP": "QMGR",
        "OPENOPTS": ",".join(options) or "MQOO_BROWSE",
        "HSTATE": "INACTIVE",
        "READA": "NO",
    }


def display_conn(ctx: Any, req: Any) -> Response:
    tx, system = ctx.tx, ctx.system
    qmgr = manager(tx, system, ctx.now).name
    extconn = connections.extconn(qmgr)
    name = str(req.name).upper()
    kind = str(req.get("TYPE", "CONN"))
    test: where.Filter | None = None
    if req.has("WHERE"):
        parsed = where.parse(req, req.object, req.get("WHERE"))
        if isinstance(parsed, Response):
            return parsed
        test = parsed
    generic = name.endswith("*")
    selected = None if req.select_all or (not req.select and not generic) else set(req.select)
    blocks: list[tuple[dict[str, Any], tuple[str, ...], bool]] = []  # values, fields, a handle's block
    for connection in connections.live(tx, system.name, qmgr):
        if not fnmatchcase(connection.conn, name):
            continue
        values = _conn_values(extconn, connection)
        if test is not None and (test.keyword not in values or not test.matches(values[test.keyword])):
            continue
        if kind in ("CONN", "ALL"):
            blocks.append((values, CONN_FIELDS, False))
        if kind in ("HANDLE", "ALL"):
            blocks.extend((_handle_values(extconn, connection, h), HANDLE_FIELDS, True) for h in connection.handles)
    result = reply(req)
    if not blocks:
        result.add("CSQM297I", objtype="CONN")
        return result
    result.add("CSQM293I", csect=DETAIL_CSECT, count=len(blocks), objtype="CONN")
    for values, fields, nested in blocks:
        block = result.add("CSQM201I", csect=DETAIL_CSECT, verb="DISPLAY", objtype="CONN")
        wanted = [f for f in fields if selected is None or f in selected or (test is not None and f == test.keyword)]
        block.attrs = [(key, values[key]) for key in ("CONN", "EXTCONN", "TYPE", *wanted)]
        block.lines = ["END CONN DETAILS"]
        if nested:
            # runCommandJSON gives a connection's handles as `objects` inside its item.
            block.fields["nested"] = {"conn": values["CONN"], "extconn": values["EXTCONN"], "type": values["TYPE"]}
    return result


def display_thread(ctx: Any, req: Any) -> Response:
    """DISPLAY THREAD(*|name,...) TYPE(ACTIVE|INDOUBT|REGIONS|*): CSQV401I, then the
    report of each type asked for, in the order of IBM's syntax (ACTIVE, INDOUBT,
    REGIONS: the order of TYPE(*) is inferred)."""
    tx, system = ctx.tx, ctx.system
    names = [str(n).upper() for n in (req.command.object_value or ([req.name] if req.name else []))]
    if not names or any(not n.strip() for n in names):
        return syntax(req, "CSQ9031E", keyword="DISPLAY THREAD", what="(*) or (connection-name,...)")
    kind = str(req.get("TYPE", "ACTIVE"))
    qmgr = manager(tx, system, ctx.now).name
    result = reply(req)
    result.add("CSQV401I", csect=NO_CSECT)
    threads = [_thread(c, qmgr) for c in connections.live(tx, system.name, qmgr)]
    threads = [t for t in threads if any(fnmatchcase(t.name, n) for n in names)]
    if kind in ("ACTIVE", "*"):
        if threads:
            report = result.add("CSQV402I", csect=NO_CSECT)
            report.lines = [THREAD_HEADER, *(t.line() for t in threads), "DISPLAY ACTIVE REPORT COMPLETE"]
        else:
            result.add("CSQV419I", csect=NO_CSECT)
    if kind in ("INDOUBT", "*"):
        result.add("CSQV420I", csect=NO_CSECT)
    if kind in ("REGIONS", "*"):
        if threads:
            report = result.add("CSQV432I", csect=NO_CSECT)
            report.lines = [REGIONS_HEADER, *_regions(threads), "DISPLAY REGIONS REPORT COMPLETE"]
        elif kind == "REGIONS":
            result.add("CSQV419I", csect=NO_CSECT)
    return result


@dataclass(frozen=True)
class _Thread:
    """One connection as the thread reports show it."""

    name: str  # the connection name: the job (the program) or the channel initiator
    ident: str
    active: bool  # it has queues open (a request in progress)
    requests: int
    authid: str
    asid: str  # blank for the channel initiator's threads, which mqtool runs in-store
    token: int

    def line(self) -> str:
        """Its CSQV402I line."""
        line = (
            f"{self.name:<8} T  {'*' if self.active else ' '} {self.requests:>5} {self.ident:<12} "
            f"{self.authid:<8} {self.asid:<4} {self.token:>5}"
        )
        return line.rstrip()


def _thread(connection: connections.Connection, qmgr: str) -> _Thread:
    if connection.appltype == connections.CHINIT:
        name, ident = f"{qmgr}CHIN", connection.channel
    else:
        program, _, rest = connection.appltag.partition(" ")
        name, ident = program, rest or program
    return _Thread(
        name=name.upper()[:8],
        ident=ident.upper()[:12],
        active=bool(connection.handles),
        requests=len(connection.handles),
        authid=(connection.userid or " ").upper()[:8],
        asid=connection.asid if connection.pid else "",
        token=connection.token & 0xFFFFF,
    )


def _regions(threads: list[_Thread]) -> list[str]:
    """The CSQV432I lines: one per connection name and address space (a region), in the
    order its first thread connected, with its threads and how many are active (layout
    inferred)."""
    regions: dict[tuple[str, str], list[_Thread]] = {}
    for thread in threads:
        regions.setdefault((thread.name, thread.asid), []).append(thread)
    lines = []
    for (name, asid), members in regions.items():
        active = sum(1 for t in members if t.active)
        lines.append(f"{name:<8} T  {len(members):>7} {active:>6} {members[0].authid:<8} {asid:<4}".rstrip())
    return lines
