"""DISPLAY: objects in the console layout (CSQM293I count, one CSQM201I block per object
with one KEYWORD(value) per line, END ... DETAILS), channel and queue status, and the
LOG, ARCHIVE, USAGE, SYSTEM and TRACE reports.

Which attributes: the ones named, or ALL; with neither, all of them for a specific name
and only the identifying ones (name, type, disposition) for a generic name, as on z/OS.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqtool.engine.zos.handles import live_handles
from mqtool.response import FAILED, Response
from mqtool.state import ObjectRecord, SystemRecord
from mqtool.state import messages as runs
from mqtool.tables import KeywordSpec, ObjectSpec

from . import (
    DETAIL_CSECT,
    QUEUE_TYPES,
    active_only,
    date_time,
    everyday,
    manager,
    object_spec,
    queue_depth,
    raw,
    reply,
    value_text,
)

if TYPE_CHECKING:
    from mqtool.engine.channels.status import ChannelStatus

    from .where import Filter

# The modules of the channels, publish/subscribe, the log, CHLAUTH and WHERE are
# imported by the displays that use them, so that `mqtool cmd 'DISPLAY QLOCAL(*)'`
# starts without loading them. pubsub.OBJECTS, without importing pubsub for each queue
# (a test checks the two are the same).
PUBSUB_OBJECTS = ("TOPIC", "SUB")

STATUS_CAP = 999_999_999  # z/OS shows larger numbers in channel status as 999999999
IDLE_STATES = ("", "INACTIVE")
# DISPLAY CHSTATUS without ALL: these fields, and those named (as z/OS shows them).
CURRENT_FIELDS = ("XMITQ", "CONNAME", "CURRENT", "CHLTYPE", "STATUS", "SUBSTATE", "STOPREQ")
# DISPLAY CHSTATUS SAVED: the status saved at the end of each batch.
SAVED_FIELDS = ("XMITQ", "CONNAME", "CURRENT", "CHLTYPE", "STATUS", "INDOUBT", "CURLUWID", "LSTLUWID", "CURMSGS",
                "CURSEQNO", "LSTSEQNO")  # fmt: skip
QMGR_FIXED = {
    "PLATFORM": "MVS",
    "CMDLEVEL": 940,
    "VERSION": "09040000",
    "COMMANDQ": "SYSTEM.COMMAND.INPUT",
    # bread-attrs: what a queue manager without MQ Advanced, AMS or a queue-sharing group shows
    "ADVCAP": "DISABLED",
    "CCSID": 500,
    "CPILEVEL": 100,
    "MAXPRTY": 9,
    "QSGNAME": "",
    "SPLCAP": "DISABLED",
    "SYNCPT": "YES",
}


def qmid(system: SystemRecord, record: ObjectRecord) -> str:
    """QMID: the queue manager's name and the date and time it was made (CSQ1_2021-03-09_15.41.22)."""
    day, time = date_time(system, record.created)
    return f"{record.name}_{day}_{time}"


@active_only
def handle(ctx: Any, req: Any) -> Response:
    routed = everyday.route(ctx, req)
    if routed is not None:
        return routed
    obj = req.object.name
    if obj in ("LOG", "ARCHIVE"):
        record = manager(ctx.tx, ctx.system, ctx.now)
        from . import logs

        show = logs.display_log if obj == "LOG" else logs.display_archive
        return show(ctx, req, record)
    if obj == "USAGE":
        from . import pagesets

        return pagesets.display_usage(ctx, req)
    if obj == "TRACE":
        from . import trace

        return trace.display(ctx, req)
    if obj == "SYSTEM":
        from . import sysparms

        return sysparms.display_system(ctx, req, manager(ctx.tx, ctx.system, ctx.now))
    if obj == "QMGR":
        return _qmgr(ctx, req)
    if obj in ("TPSTATUS", "PUBSUB"):
        from . import pubsub

        return pubsub.display_status(ctx, req)
    if obj == "SBSTATUS":
        from . import pubsub

        problem = pubsub.inhibited(ctx, req)
        if problem is not None:
            return problem
    if obj == "CHINIT":
        from .chinit import display_chinit

        return display_chinit(ctx, req)
    if obj == "CHLAUTH":
        from . import chlauth

        manager(ctx.tx, ctx.system, ctx.now)
        return chlauth.display(ctx, req)
    if obj == "CHSTATUS" and not _chinit_active(ctx):
        # IBM: DISPLAY CHSTATUS needs the channel initiator.
        result = reply(req, FAILED)
        result.add("CSQM131I")
        return result
    records = _matching(ctx, req)
    generic = req.name.endswith("*")
    selected = None if req.select_all or (not req.select and not generic) else set(req.select)
    if obj == "SUB" and req.get("SUMMARY"):
        selected = {"TOPICSTR"}
    saved = obj == "CHSTATUS" and bool(req.get("SAVED"))
    if obj == "CHSTATUS":
        # As z/OS: a default set of fields, what is named besides, or ALL; saved status
        # has its own few fields.
        selected = set(SAVED_FIELDS) if saved else None if req.select_all else {*CURRENT_FIELDS, *req.select}
    blocks = [(record, _attributes(ctx, obj, record, selected)) for record in records]
    if obj == "SUB" and req.get("DISTYPE") == "DEFINED":
        from . import pubsub

        blocks = [(record, pubsub.as_defined(record, lines)) for record, lines in blocks]
    if req.has("WHERE"):
        from . import where

        test = where.parse(req, req.object, req.get("WHERE"))
        if isinstance(test, Response):
            return test
        blocks = _filtered(ctx, obj, blocks, test, selected)
    result = reply(req)
    found = str(raw(obj).get("found") or req.object.full)
    if not blocks:
        result.add("CSQM297I", objtype=found)
        return result
    result.add("CSQM293I", csect=DETAIL_CSECT, count=len(blocks), objtype=found)
    for _record, lines in blocks:
        block = result.add("CSQM201I", csect=DETAIL_CSECT, verb="DISPLAY", objtype=req.object.full)
        block.attrs = lines
        if saved:
            block.attrs = [("SAVED", None) if key == "CURRENT" else (key, value) for key, value in block.attrs]
        block.lines = [f"END {req.object.full} DETAILS"]
    return result


Block = tuple[ObjectRecord, list[tuple[str, Any]]]


def _filtered(ctx: Any, obj: str, blocks: list[Block], test: Filter, selected: set[str] | None) -> list[Block]:
    """The objects whose shown value of the filter keyword passes it; an object without
    that attribute is left out. The keyword joins the attributes shown, as on z/OS."""
    out: list[Block] = []
    for record, lines in blocks:
        every = dict(lines) if selected is None else dict(_attributes(ctx, obj, record, None))
        if test.keyword not in every or not test.matches(every[test.keyword]):
            continue
        if selected is not None and test.keyword not in selected:
            lines = _attributes(ctx, obj, record, selected | {test.keyword})
        out.append((record, lines))
    return out


def _matching(ctx: Any, req: Any) -> list[ObjectRecord]:
    obj, tx, system = req.object.name, ctx.tx, ctx.system
    records = [record for type_ in raw(obj)["store"] for record in tx.objects(system.name, type_, req.name)]
    if obj == "QUEUE" and req.get("TYPE", "ALL") != "ALL":
        records = [r for r in records if r.type == req.get("TYPE")]
    if obj == "CHANNEL" and "CHLTYPE" in req.params:
        records = [r for r in records if r.attrs.get("CHLTYPE") == req.get("CHLTYPE")]
    if obj == "CHSTATUS" and req.get("SAVED"):
        from mqtool.engine.channels.status import ChannelStatus

        records = [r for r in records if ChannelStatus.load(r.status).saved]
    elif obj == "CHSTATUS":
        records = [r for r in records if str(r.status.get("state") or "") not in IDLE_STATES]
    if obj in ("TOPIC", "SUB", "SBSTATUS"):
        from . import pubsub

        records = pubsub.filtered(ctx, req, records)
    return sorted(records, key=lambda r: (r.name, r.type))


def _attributes(ctx: Any, obj: str, record: ObjectRecord, selected: set[str] | None) -> list[tuple[str, Any]]:
    """The display lines of one object: its title, its identity, then its attributes in
    table order, filtered by the selection."""
    # DISPLAY QUEUE shows each queue with the attributes of its own type.
    own = record.type if obj in ("QUEUE", "QLOCAL", "QMODEL", "QALIAS", "QREMOTE") else obj
    spec = object_spec(own)
    row = raw(obj)
    values = _computed(ctx, obj, record)
    lines: list[tuple[str, Any]] = [(str(row["title"]), record.name)]
    identity = list(row.get("identity") or [])
    for keyword in identity:
        lines.append((keyword, value_text(values.get(keyword, record.attrs.get(keyword)))))
    for keyword in display_order(own, spec):
        if keyword.name in (row["title"], *identity) or keyword.type == "flag" or not keyword.display:
            continue
        if selected is not None and keyword.name not in selected:
            continue
        if obj == "CHSTATUS" and keyword.name == "XMITQ" and record.attrs.get("CHLTYPE") != "SDR":
            continue
        if not all(str(record.attrs.get(attr)) in allowed for attr, allowed in keyword.only_for.items()):
            continue
        if keyword.name in values:
            value = values[keyword.name]
        else:
            value = record.attrs.get(keyword.name, keyword.default)
        if keyword.type == "switch":
            # TRIGGER or NOTRIGGER: the word alone, as z/OS shows a switch
            lines.append((keyword.name if value == "YES" else str(keyword.negation), None))
            continue
        lines.append((keyword.name, None if value is None and obj == "CHSTATUS" else value_text(value)))
    return lines


def display_order(obj: str, spec: ObjectSpec) -> list[KeywordSpec]:
    """An object type's keyword rows in the order DISPLAY shows them: alphabetical where
    its table row says `display_order: alphabetical` (as IBM's DISPLAY documentation lists
    the attributes), else table order."""
    rows = list(spec.keywords.values())
    if raw(obj).get("display_order") == "alphabetical":
        rows.sort(key=lambda keyword: keyword.name)
    return rows


def _computed(ctx: Any, obj: str, record: ObjectRecord) -> dict[str, Any]:
    """Values that are not stored attributes: type, dates, depth, status."""
    system = ctx.system
    created = date_time(system, record.created)
    altered = date_time(system, record.altered)
    values: dict[str, Any] = {"QSGDISP": "QMGR", "ALTDATE": altered[0], "ALTTIME": altered[1]}
    if obj == "CHSTATUS":
        return _channel_status(ctx, record)
    if record.type == "QMGR":
        values |= QMGR_FIXED
        values["QMID"] = qmid(ctx.system, record)
    if record.type in QUEUE_TYPES:
        values |= {"TYPE": record.type, "CRDATE": created[0], "CRTIME": created[1]}
    if record.type in PUBSUB_OBJECTS:
        from . import pubsub

        values |= pubsub.computed(ctx, obj, record)
    if obj == "QSTATUS":
        values["TYPE"] = "QUEUE"
        values |= _queue_status(ctx, record)
    elif record.type == "QLOCAL":
        values |= {"CURDEPTH": queue_depth(ctx.tx, system, record.name)}
        values |= _handles(ctx, record)
        values["DEFTYPE"] = record.attrs.get("DEFTYPE") or "PREDEFINED"  # dynamic queues keep their model's
    elif record.type == "NAMELIST":
        values["NAMCOUNT"] = len(record.attrs.get("NAMES") or [])
    return values


def _handles(ctx: Any, record: ObjectRecord) -> dict[str, Any]:
    """IPPROCS and OPPROCS: the handles open on the queue in live processes."""
    inputs, outputs = live_handles(ctx.tx, ctx.system.name, record.name)
    return {"IPPROCS": inputs, "OPPROCS": outputs}


def _queue_status(ctx: Any, record: ObjectRecord) -> dict[str, Any]:
    system = ctx.system
    oldest = runs.oldest_put_time(ctx.tx.conn, system.name, record.name)
    depth = runs.depth(ctx.tx.conn, system.name, record.name)
    values: dict[str, Any] = {"CURDEPTH": depth, "UNCOM": "NO", "MSGAGE": ""} | _handles(ctx, record)
    if oldest is not None:
        values["MSGAGE"] = max(0, int(ctx.now - oldest))
    # The queue's MONQ, QMGR taking the queue manager's; the queue manager's NONE is OFF for every queue.
    qmgr_monq = str(manager(ctx.tx, system, ctx.now).attrs.get("MONQ", "OFF"))
    monq = str(record.attrs.get("MONQ", "QMGR"))
    values["MONQ"] = "OFF" if qmgr_monq == "NONE" else qmgr_monq if monq == "QMGR" else monq
    if values["MONQ"] == "OFF":
        values["QTIME"] = ""
    else:
        from mqtool.engine.zos.stats import queue_times

        values["QTIME"] = "{},{}".format(*queue_times(ctx.tx, system.name, record.name))
    last = runs.last_put_get(ctx.tx.conn, system.name, record.name)
    for kind, stamp in zip(("PUT", "GET"), last, strict=True):
        day, time = date_time(system, stamp) if stamp else ("", "")
        values[f"L{kind}DATE"], values[f"L{kind}TIME"] = day, time
    return values


def _channel_status(ctx: Any, record: ObjectRecord) -> dict[str, Any]:
    """CHSTATUS lines from the status the engine keeps for a channel it runs (keys named
    like the keywords, in lower case; pairs as lists). COMPRATE and COMPTIME are blank
    while channel monitoring is off (MONCHL)."""
    status = record.status
    values: dict[str, Any] = {
        "CHLDISP": "PRIVATE",
        "CHLTYPE": record.attrs.get("CHLTYPE"),
        "XMITQ": record.attrs.get("XMITQ", ""),
        "CONNAME": status.get("conname", record.attrs.get("CONNAME", "")),
        "CURRENT": None,
        "STATUS": status.get("state"),
        "SUBSTATE": status.get("substate", ""),
        "STOPREQ": status.get("stopreq", "NO"),
    }
    for key in ("MSGS", "BYTSSENT", "BYTSRCVD", "BATCHES", "CURSHCNV", "MAXSHCNV", "SSLRKEYS"):
        values[key] = min(STATUS_CAP, int(status.get(key.lower(), 0)))
    # Channel security (issue 17): what the TCP transport keeps (security.tls.chstatus_fields).
    for key in ("SSLCIPH", "SSLPEER", "SSLCERTI", "SSLCERTU", "SSLKEYDA", "SSLKEYTI"):
        values[key] = str(status.get(key.lower(), ""))
    values["MCAUSER"] = str(status.get("mcauser", record.attrs.get("MCAUSER", "")))
    for key in ("COMPHDR", "COMPMSG", "COMPRATE", "COMPTIME"):
        pair = status.get(key.lower())
        values[key] = ",".join(str(v) for v in pair) if isinstance(pair, (list, tuple)) else (pair or "")
    if not _monitoring(ctx, record):
        values["COMPRATE"] = values["COMPTIME"] = ""
    from mqtool.engine.channels.ends import End
    from mqtool.engine.channels.mca import retries_left
    from mqtool.engine.channels.status import ChannelStatus

    channel = ChannelStatus.load(status)
    values |= _channel_run(ctx, record, channel)
    indoubt = channel.indoubt
    started = date_time(ctx.system, channel.started) if channel.started else ("", "")
    last = date_time(ctx.system, channel.last_message) if channel.last_message else ("", "")
    sending = record.attrs.get("CHLTYPE") in ("SDR", "SVR")
    short, long_ = retries_left(End.of(ctx.system, record)) if sending else (0, 0)
    values |= {
        "RQMNAME": channel.rqmname,
        "CHSTADA": started[0],
        "CHSTATI": started[1],
        "LSTMSGDA": last[0],
        "LSTMSGTI": last[1],
        "HBINT": channel.hbint,
        "SHORTRTS": short,
        "LONGRTS": long_,
    }
    values |= {
        "INDOUBT": "NO" if indoubt is None else "YES",
        "CURLUWID": indoubt.luwid if indoubt is not None else channel.luwid,
        "LSTLUWID": channel.luwid,
        "CURMSGS": indoubt.count if indoubt is not None else 0,
        "CURSEQNO": min(STATUS_CAP, indoubt.last if indoubt is not None else channel.seq),
        "LSTSEQNO": min(STATUS_CAP, channel.seq),
    }
    return values


def _channel_run(ctx: Any, record: ObjectRecord, channel: ChannelStatus) -> dict[str, Any]:
    """CHSTATUS lines of the run: when it started, its last message, the values
    negotiated at start, and what the definition says (bread-attrs)."""
    attrs, system = record.attrs, ctx.system
    started = date_time(system, channel.started) if channel.started else ("", "")
    last = date_time(system, channel.last_message) if channel.last_message else ("", "")
    qmgr_monchl = str(manager(ctx.tx, system, ctx.now).attrs.get("MONCHL", "OFF"))
    own_monchl = str(attrs.get("MONCHL", "QMGR"))
    return {
        "BATCHSZ": channel.batchsz or attrs.get("BATCHSZ", 50),
        "CHSTADA": started[0],
        "CHSTATI": started[1],
        "HBINT": attrs.get("HBINT", 300),
        "JOBNAME": f"{system.name}CHIN",
        "KAINT": attrs.get("KAINT", "AUTO"),
        "LSTMSGDA": last[0],
        "LSTMSGTI": last[1],
        "MAXMSGL": channel.maxmsgl or attrs.get("MAXMSGL", 4194304),
        "MONCHL": "OFF" if qmgr_monchl == "NONE" else qmgr_monchl if own_monchl == "QMGR" else own_monchl,
        "NPMSPEED": attrs.get("NPMSPEED", "FAST"),
    }


def _monitoring(ctx: Any, record: ObjectRecord) -> bool:
    """Whether a channel's monitoring data is collected: its MONCHL, QMGR taking the
    queue manager's; the queue manager's NONE switches it off for every channel."""
    qmgr = str(manager(ctx.tx, ctx.system, ctx.now).attrs.get("MONCHL", "OFF"))
    own = str(record.attrs.get("MONCHL", "QMGR"))
    if qmgr == "NONE":
        return False
    return (qmgr if own == "QMGR" else own) != "OFF"


def _qmgr(ctx: Any, req: Any) -> Response:
    record = manager(ctx.tx, ctx.system, ctx.now)
    selected = None if req.select_all or not req.select else set(req.select)
    result = reply(req)
    block = result.add("CSQM201I", csect=DETAIL_CSECT, verb="DISPLAY", objtype="QMGR")
    block.attrs = _attributes(ctx, "QMGR", record, selected)
    block.lines = ["END QMGR DETAILS"]
    return result


def _chinit_active(ctx: Any) -> bool:
    from mqtool.engine.channels.partner import chinit_active

    return chinit_active(ctx.system, manager(ctx.tx, ctx.system, ctx.now))
