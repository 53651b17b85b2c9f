"""Publish/subscribe commands: the rules of DEFINE/ALTER TOPIC and SUB, what DEFINE SUB
adds (its SUBID, a managed queue, the retained publications it matches), DELETE SUB,
the values DISPLAY TOPIC, SUB and SBSTATUS show besides stored attributes, DISPLAY
TPSTATUS, DISPLAY PUBSUB and CLEAR TOPICSTR. The engine's side is
mqtool/engine/core/pubsub.py and topics.py.

Failures name IBM's reason code in CSQM090E as eight hex digits of the MQRC or MQRCCF
value (X'00000CE4' for 3300 MQRCCF_TOPICSTR_ALREADY_EXISTS, X'000009C7' for 2503
MQRC_SUB_INHIBITED ...): mqtool's choice, documented in mqtool-zos(7)."""

from __future__ import annotations

from typing import Any

from mqtool.engine.core import subscriptions, topics
from mqtool.engine.core.model import TopicEvent
from mqtool.engine.core.pubsub import deliver_retained, figures, retained_topics, route_to
from mqtool.engine.core.reasons import (
    DURABILITY_NOT_ALLOWED,
    INVALID_DESTINATION,
    SUB_INHIBITED,
    SUBSCRIPTION_IN_USE,
    TOPIC_STRING_ERROR,
    MQError,
)
from mqtool.engine.core.selector import SelectorError, compile_selector
from mqtool.response import FAILED, Response
from mqtool.state import ObjectRecord

from . import DETAIL_CSECT, date_time, find_queue, manager, not_found, refuse, reply, rule, syntax, value_text

OBJECTS = ("TOPIC", "SUB")
STATUS_OBJECTS = ("TPSTATUS", "SBSTATUS", "PUBSUB")
TOPICSTR_ALREADY_EXISTS = 3300
TOPIC_STRING_NOT_FOUND = 3308
PUBSUB_INHIBITED_CF = 3318
NO_CONNECTION = subscriptions.NO_CONNECTION  # ACTCONN of a subscription or publisher no connection holds


def code(reason: int) -> str:
    """An MQ reason as CSQM090E shows it: eight hex digits."""
    return f"{reason:08X}"


def psmode(ctx: Any) -> str:
    return str(manager(ctx.tx, ctx.system, ctx.now).attrs.get("PSMODE", "ENABLED"))


def inhibited(ctx: Any, req: Any) -> Response | None:
    """MQT0420E with X'00000CF6' (MQRCCF_PUBSUB_INHIBITED) for a subscription or status
    command while PSMODE is DISABLED."""
    mode = psmode(ctx)
    if mode != "DISABLED":
        return None
    return refuse(
        req,
        "MQT0420E",
        code(PUBSUB_INHIBITED_CF),
        qmgr=ctx.system.name,
        psmode=mode,
        command=f"{req.verb.name} {req.object.full}",
    )


# -- DEFINE and ALTER -------------------------------------------------------------------


def check(
    ctx: Any, req: Any, obj: str, name: str, attrs: dict[str, Any], before: ObjectRecord | None
) -> Response | None:
    """The rules of a topic object or subscription about to have `attrs`."""
    if obj == "TOPIC":
        return _check_topic(ctx, req, name, attrs)
    return _check_sub(ctx, req, name, attrs, before)


def _check_topic(ctx: Any, req: Any, name: str, attrs: dict[str, Any]) -> Response | None:
    if attrs.get("TYPE", "LOCAL") != "LOCAL":
        return rule(req, "TYPE", attrs.get("TYPE"), "DEFINE TOPIC MAKES TYPE(LOCAL) TOPICS ONLY")
    topic = str(attrs.get("TOPICSTR") or "")
    if name == topics.BASE_TOPIC or name == topics.DEFAULT_TOPIC:
        return None
    if not topic:
        return rule(req, "TOPICSTR", " ", "A TOPIC OBJECT NEEDS A TOPIC STRING")
    try:
        topics.check_topic(topic, publishing=True)
    except topics.TopicError as error:
        return refuse(
            req, "CSQM181E", code(TOPIC_STRING_ERROR), keyword="TOPICSTR", value=topic, reason=str(error).upper()
        )
    for other in ctx.tx.objects(ctx.system.name, "TOPIC"):
        if other.name != name and other.attrs.get("TOPICSTR") == topic:
            reason = f"TOPIC({other.name}) HAS THIS TOPIC STRING"
            return refuse(
                req, "CSQM181E", code(TOPICSTR_ALREADY_EXISTS), keyword="TOPICSTR", value=topic, reason=reason
            )
    return None


def full_topic(ctx: Any, attrs: dict[str, Any]) -> str | None:
    """The subscription's full topic string; None when its TOPICOBJ does not exist."""
    obj_name = str(attrs.get("TOPICOBJ") or "")
    base = ""
    if obj_name:
        found = ctx.tx.get_object(ctx.system.name, "TOPIC", obj_name)
        if found is None:
            return None
        base = str(found.attrs.get("TOPICSTR") or "")
    return topics.combine(base, str(attrs.get("TOPICSTR") or ""))


def _check_sub(ctx: Any, req: Any, name: str, attrs: dict[str, Any], before: ObjectRecord | None) -> Response | None:
    if name == topics.DEFAULT_SUB:
        return None
    problem = inhibited(ctx, req)
    if problem is not None:
        return problem
    if before is None and not attrs.get("TOPICSTR") and not attrs.get("TOPICOBJ"):
        return syntax(req, "CSQ9031E", keyword="DEFINE SUB", what="TOPICSTR(string) or TOPICOBJ(name)")
    topic = full_topic(ctx, attrs)
    if topic is None:
        return not_found(req, "TOPIC", str(attrs.get("TOPICOBJ")))
    try:
        topics.check_topic(topic, publishing=False)
    except topics.TopicError as error:
        return refuse(
            req, "CSQM181E", code(TOPIC_STRING_ERROR), keyword="TOPICSTR", value=topic, reason=str(error).upper()
        )
    if before is None:
        from mqtool.engine.core.pubsub import topic_objects

        node = topics.resolve(_node_of(topic, attrs), topic_objects(ctx.tx, ctx.system.name))
        if node.attrs.get("SUB") == "DISABLED":
            return refuse(req, "CSQM181E", code(SUB_INHIBITED), keyword="TOPICSTR", value=topic,
                          reason="SUB(DISABLED) ON THE TOPIC")  # fmt: skip
        if node.attrs.get("DURSUB") == "NO":
            return refuse(req, "CSQM181E", code(DURABILITY_NOT_ALLOWED), keyword="TOPICSTR", value=topic,
                          reason="DURSUB(NO) ON THE TOPIC: DEFINE SUB MAKES DURABLE SUBSCRIPTIONS")  # fmt: skip
    selector = str(attrs.get("SELECTOR") or "")
    if selector.strip():
        try:
            compile_selector(selector)
        except SelectorError as error:
            return refuse(req, "CSQM181E", code(error.reason), keyword="SELECTOR", value=selector,
                          reason=error.detail.upper())  # fmt: skip
    corl = str(attrs.get("DESTCORL") or "").strip()
    if corl and not (len(corl) == 48 and all(c in "0123456789abcdefABCDEF" for c in corl)) and len(corl.encode()) > 24:
        return rule(req, "DESTCORL", corl, "48 HEX DIGITS OR UP TO 24 CHARACTERS")
    if attrs.get("DESTCLAS", "PROVIDED") == "MANAGED":
        return None
    dest = str(attrs.get("DEST") or "")
    if not dest:
        return syntax(req, "CSQ9031E", keyword=f"{req.verb.name} SUB", what="DEST(queue) with DESTCLAS(PROVIDED)")
    destqmgr = str(attrs.get("DESTQMGR") or "")
    qmgr = manager(ctx.tx, ctx.system, ctx.now)
    if destqmgr and destqmgr != qmgr.name:
        from mqtool.engine.platforms import model

        try:
            route_to(ctx.tx, ctx.system.name, qmgr, model(ctx.system.platform), destqmgr)
        except MQError:
            return refuse(req, "CSQM181E", code(INVALID_DESTINATION), keyword="DESTQMGR", value=destqmgr,
                          reason="NO TRANSMISSION QUEUE LEADS TO THIS QUEUE MANAGER")  # fmt: skip
        return None
    queue = find_queue(ctx.tx, ctx.system, dest)
    if queue is None or queue.type == "QMODEL":
        return refuse(req, "CSQM181E", code(INVALID_DESTINATION), keyword="DEST", value=dest,
                      reason="NO LOCAL, ALIAS OR REMOTE QUEUE OF THIS NAME")  # fmt: skip
    return None


def _node_of(topic: str, attrs: dict[str, Any]) -> str:
    return subscriptions.governing_node(topic, str(attrs.get("WSCHEMA", "TOPIC")))


def define(ctx: Any, req: Any, record: ObjectRecord, existing: ObjectRecord | None) -> Response:
    """Stores a topic object or subscription DEFINE made (checked already); a
    subscription gets its SUBID, its managed queue (DESTCLAS(MANAGED)) and the retained
    publications it matches."""
    tx = ctx.tx
    if record.type == "SUB" and record.name != topics.DEFAULT_SUB:
        status = dict(existing.status) if existing is not None else {}
        if "subid" not in status:
            status["subid"] = subscriptions.new_subid(tx, ctx.system.name)
        status |= {
            "topic": full_topic(ctx, record.attrs) or "",
            "durable": "YES",
            "subtype": "ADMIN",
            "resumed": ctx.now,
            "expiry_from": ctx.now,
        }
        record.status = status
        if record.attrs.get("DESTCLAS") == "MANAGED":
            problem = _managed_queue(ctx, req, record)
            if problem is not None:
                return problem
    tx.put_object(record)
    if record.type == "SUB" and record.name != topics.DEFAULT_SUB:
        from mqtool.engine.platforms import model

        chosen = model(ctx.system.platform)
        try:
            delivered = deliver_retained(tx, tx.store, ctx.clock, ctx.system.name, chosen, record)
        except MQError as error:
            return refuse(req, "CSQM181E", code(error.reason), keyword="DEST", value=record.attrs.get("DEST"),
                          reason=f"THE RETAINED PUBLICATION CANNOT BE PUT: {error.name}")  # fmt: skip
        subscriptions.watch_expiry(tx, record)
        if existing is None:
            qmgr = manager(tx, ctx.system, ctx.now)
            chosen.topic_event(tx, ctx.system.name, qmgr, TopicEvent("subscribe", "ADMIN", True, delivered=delivered))
    return reply(req)


def _managed_queue(ctx: Any, req: Any, record: ObjectRecord) -> Response | None:
    """DESTCLAS(MANAGED): a local queue made from the topic's MDURMDL model queue,
    named SYSTEM.MANAGED.DURABLE. and the SUBID's last 16 hex digits."""
    from mqtool.engine.core.pubsub import topic_objects

    if record.status.get("managed"):
        return None
    topic = str(record.status.get("topic") or "")
    node = topics.resolve(_node_of(topic, record.attrs), topic_objects(ctx.tx, ctx.system.name))
    try:
        template = subscriptions.model_for(ctx.tx, ctx.system.name, node, durable=True)
    except MQError as error:
        return refuse(req, "CSQM181E", code(INVALID_DESTINATION), keyword="MDURMDL",
                      value=str(node.attrs.get("MDURMDL") or ""), reason=error.detail.upper())  # fmt: skip
    subid = str(record.status["subid"])
    record.status["managed"] = subscriptions.managed_queue(ctx.tx, ctx.system.name, "QLOCAL", template, subid, True,
                                                           ctx.now)  # fmt: skip
    return None


def altered(record: ObjectRecord, given: dict[str, Any], now: float, tx: Any = None) -> None:
    """ALTER SUB: a new EXPIRY counts from now (and the subscription ends when it passes)."""
    if record.type == "SUB" and "EXPIRY" in given:
        record.status["expiry_from"] = now
        if tx is not None:
            subscriptions.watch_expiry(tx, record)


def delete_sub(ctx: Any, req: Any) -> Response:
    """DELETE SUB(name) or DELETE SUB SUBID(id): the subscription, and its managed queue
    with the messages on it."""
    problem = inhibited(ctx, req)
    if problem is not None:
        return problem
    tx, system = ctx.tx, ctx.system
    record = _sub_named(ctx, req)
    if record is None:
        return not_found(req, "SUB", req.name or str(req.get("SUBID")))
    if subscriptions.holder(tx, system.name, record.name) is not None:
        return refuse(req, "CSQM181E", code(SUBSCRIPTION_IN_USE), keyword="SUB", value=record.name,
                      reason="AN APPLICATION HOLDS THE SUBSCRIPTION OPEN")  # fmt: skip
    from mqtool.engine.platforms import model

    subscriptions.end(tx, system.name, model(system.platform), record)
    return reply(req)


def _sub_named(ctx: Any, req: Any) -> ObjectRecord | None:
    subid = str(req.get("SUBID") or "").upper()
    if req.name:
        record = ctx.tx.get_object(ctx.system.name, "SUB", req.name)
        if record is not None and subid and str(record.status.get("subid", "")).upper() != subid:
            return None
        return record
    if not subid:
        return None
    for record in ctx.tx.objects(ctx.system.name, "SUB"):
        if str(record.status.get("subid", "")).upper() == subid:
            return record
    return None


# -- DISPLAY ------------------------------------------------------------------------------


def filtered(ctx: Any, req: Any, records: list[ObjectRecord]) -> list[ObjectRecord]:
    """DISPLAY TOPIC TYPE(CLUSTER) (no cluster here), DISPLAY SUB and SBSTATUS by
    SUBID, DURABLE and SUBTYPE."""
    obj = req.object.name
    if obj == "TOPIC":
        return [] if req.get("TYPE") == "CLUSTER" else records
    subid = str(req.get("SUBID") or "").upper()
    durable = req.get("DURABLE", "ALL")
    subtype = req.get("SUBTYPE", "USER")
    out = []
    for record in records:
        values = computed(ctx, obj, record)
        if subid and str(values.get("SUBID", "")).upper() != subid:
            continue
        if durable != "ALL" and values.get("DURABLE") != durable:
            continue
        if subtype not in ("ALL", "USER") and values.get("SUBTYPE") != subtype:
            continue
        if subtype == "USER" and values.get("SUBTYPE") == "PROXY":
            continue
        if obj == "SBSTATUS" and record.name == topics.DEFAULT_SUB:
            continue
        out.append(record)
    return out


def computed(ctx: Any, obj: str, record: ObjectRecord) -> dict[str, Any]:
    """Values of a topic object, subscription or subscription status that are not stored
    attributes."""
    if record.type == "TOPIC":
        return {"TYPE": "LOCAL"}
    system = ctx.system
    created = date_time(system, record.created)
    status = record.status
    topic = str(status.get("topic", record.attrs.get("TOPICSTR", "")))
    values: dict[str, Any] = {
        "SUBID": str(status.get("subid") or "0" * 48),
        "DURABLE": str(status.get("durable", "YES")),
        "SUBTYPE": str(status.get("subtype", "ADMIN")),
        "SELTYPE": "STANDARD" if str(record.attrs.get("SELECTOR") or "").strip() else "NONE",
        "CRDATE": created[0],
        "CRTIME": created[1],
        "DISTYPE": "RESOLVED",
    }
    if obj == "SUB":
        values["TOPICSTR"] = topic
        if status.get("managed"):
            values["DEST"] = status["managed"]
        return values
    resumed = date_time(system, float(status.get("resumed", record.created)))
    count, last = figures(ctx.tx, system.name, "SUB").get(record.name, (0, 0.0))
    delivered = date_time(system, last) if count else ("", "")
    held = subscriptions.holder(ctx.tx, system.name, record.name)
    values |= {
        "RESMDATE": resumed[0],
        "RESMTIME": resumed[1],
        "LMSGDATE": delivered[0],
        "LMSGTIME": delivered[1],
        "ACTCONN": NO_CONNECTION if held is None else subscriptions.connection_id(system.name, held),
        "NUMMSGS": count,
        "SUBUSER": str(record.attrs.get("SUBUSER") or ""),
        "TOPICSTR": topic,
    }
    return values


def as_defined(record: ObjectRecord, lines: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """DISPLAY SUB DISTYPE(DEFINED): TOPICSTR as given, not resolved with TOPICOBJ's."""
    defined = {"TOPICSTR": str(record.attrs.get("TOPICSTR", "")) or " ", "DISTYPE": "DEFINED"}
    return [(key, defined.get(key, value)) for key, value in lines]


def _nodes(ctx: Any) -> tuple[set[str], dict[str, tuple[str, dict[str, Any]]], list[ObjectRecord]]:
    """The topic tree's nodes: every level of the topic strings of topic objects,
    subscriptions, retained publications and publications made."""
    from mqtool.engine.core.pubsub import topic_objects

    tx, system = ctx.tx, ctx.system.name
    objects = topic_objects(tx, system)
    subs = [r for r in tx.objects(system, "SUB") if r.name != topics.DEFAULT_SUB]
    strings = {t for t in objects if t}
    strings |= {str(r.status.get("topic", "")) for r in subs}
    strings |= retained_topics(tx, system)
    strings |= set(figures(tx, system, "PUB"))
    nodes: set[str] = set()
    for text in strings:
        if text:
            nodes.update(node for node in topics.ancestors(text) if node)
    return nodes, objects, subs


def display_status(ctx: Any, req: Any) -> Response:
    """DISPLAY TPSTATUS and DISPLAY PUBSUB."""
    if req.object.name == "PUBSUB":
        return _pubsub(ctx, req)
    problem = inhibited(ctx, req)
    if problem is not None:
        return problem
    nodes, objects, subs = _nodes(ctx)
    pattern = req.name or ""
    chosen = sorted(n for n in nodes if n == pattern or (topics.is_wildcard(pattern) and topics.matches(pattern, n)))
    kind = req.get("TYPE", "TOPIC")
    retained = retained_topics(ctx.tx, ctx.system.name)
    published = figures(ctx.tx, ctx.system.name, "PUB")
    rows: list[dict[str, Any]] = []
    for node in chosen:
        if kind == "TOPIC":
            resolved = topics.resolve(node, objects)
            on_node = [r for r in subs if r.status.get("topic") == node]
            rows.append(
                {"TOPICSTR": node, "ADMIN": objects[node][0] if node in objects else ""}
                | resolved.attrs
                | {
                    "RETAINED": "YES" if node in retained else "NO",
                    "PUBCOUNT": 1 if node in published else 0,
                    "SUBCOUNT": len(on_node),
                }
            )
        elif kind == "SUB":
            for record in (r for r in subs if r.status.get("topic") == node):
                values = computed(ctx, "SBSTATUS", record)
                rows.append({"TOPICSTR": node} | values)
        elif node in published:
            count, last = published[node]
            when = date_time(ctx.system, last)
            rows.append({"TOPICSTR": node, "LPUBDATE": when[0], "LPUBTIME": when[1], "ACTCONN": NO_CONNECTION,
                         "NUMPUBS": count})  # fmt: skip
    order = TPSTATUS_FIELDS[kind]
    selected = None if req.select_all or not req.select else set(req.select)
    blocks = []
    for row in rows:
        lines = [("TOPICSTR", row["TOPICSTR"])]
        if kind != "TOPIC":
            lines.append(("TYPE", kind))
        lines += [(k, value_text(row.get(k))) for k in order if selected is None or k in selected]
        blocks.append(lines)
    if req.has("WHERE"):
        from . import where

        test = where.parse(req, req.object, req.get("WHERE"))
        if isinstance(test, Response):
            return test
        blocks = [b for b in blocks if test.keyword in dict(b) and test.matches(dict(b)[test.keyword])]
    return _blocks(req, blocks, "TPSTATUS")


# DISPLAY TPSTATUS fields by TYPE, in the order IBM lists them (mqtool-zos(7)).
TPSTATUS_FIELDS: dict[str, tuple[str, ...]] = {
    "TOPIC": ("ADMIN", "CLUSTER", "CLROUTE", "DEFPSIST", "DEFPRTY", "DEFPRESP", "DURSUB", "PUB", "SUB", "PMSGDLV",
              "NPMSGDLV", "RETAINED", "PUBCOUNT", "SUBCOUNT", "PUBSCOPE", "SUBSCOPE", "USEDLQ", "MDURMDL",
              "MNDURMDL", "CAPEXPRY"),
    "SUB": ("SUBID", "SUBUSER", "RESMDATE", "RESMTIME", "LMSGDATE", "LMSGTIME", "ACTCONN", "DURABLE", "SUBTYPE",
            "NUMMSGS"),
    "PUB": ("LPUBDATE", "LPUBTIME", "ACTCONN", "NUMPUBS"),
}  # fmt: skip


def _blocks(req: Any, blocks: list[list[tuple[str, Any]]], found: str) -> Response:
    result = reply(req)
    if not blocks:
        result.add("CSQM297I", objtype=found)
        return result
    result.add("CSQM293I", csect=DETAIL_CSECT, count=len(blocks), objtype=found)
    for lines in blocks:
        block = result.add("CSQM201I", csect=DETAIL_CSECT, verb="DISPLAY", objtype=req.object.full)
        block.attrs = lines
        block.lines = [f"END {req.object.full} DETAILS"]
    return result


def _pubsub(ctx: Any, req: Any) -> Response:
    """DISPLAY PUBSUB: this queue manager's engine (no hierarchy: TYPE(CHILD) and
    TYPE(PARENT) find nothing)."""
    kind = req.get("TYPE", "LOCAL")
    if kind in ("CHILD", "PARENT"):
        return _blocks(req, [], "PUBSUB")
    mode = psmode(ctx)
    nodes, _objects, subs = _nodes(ctx)
    status = {"ENABLED": "ACTIVE", "COMPAT": "COMPAT"}.get(mode, "INACTIVE")
    lines: list[tuple[str, Any]] = [
        ("QMNAME", ctx.system.name),
        ("TYPE", "LOCAL"),
        ("STATUS", status),
        ("SUBCOUNT", len(subs) if mode != "DISABLED" else " "),
        ("TPCOUNT", len(nodes) if mode != "DISABLED" else " "),
    ]
    selected = None if req.select_all or not req.select else set(req.select)
    if selected is not None:
        lines = [line for line in lines if line[0] in ("QMNAME", "TYPE") or line[0] in selected]
    return _blocks(req, [lines], "PUBSUB")


# -- CLEAR TOPICSTR -------------------------------------------------------------------------


def clear(ctx: Any, req: Any) -> Response:
    """CLEAR TOPICSTR('string') CLRTYPE(RETAINED): removes the node's retained
    publication; a topic string that is no node of the tree is refused (3308)."""
    problem = inhibited(ctx, req)
    if problem is not None:
        return problem
    from mqtool.engine.core.pubsub import clear_retained

    topic = req.name or ""
    if clear_retained(ctx.tx, ctx.system.name, topic):
        return reply(req)
    nodes, _objects, _subs = _nodes(ctx)
    if topic not in nodes:
        result = reply(req, FAILED)
        result.add("CSQM125I", objtype="TOPICSTR", name=topic)
        result.add("CSQM090E", code=code(TOPIC_STRING_NOT_FOUND))
        return result
    return reply(req)
