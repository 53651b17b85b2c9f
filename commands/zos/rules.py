"""Rules between attributes and between objects that the keyword table cannot say alone,
checked at DEFINE and ALTER: streaming queue restrictions, storage classes, channel
types and compression lists; the channel security attributes are security.py's."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response
from mqtool.state import ObjectRecord

from . import QUEUE_TYPES, find_queue, not_found, object_spec, queue_depth, rule, security, syntax

# IBM: "Defining STREAMQ on any queue named SYSTEM.*" is not supported, except these.
STREAMING_SYSTEM_SOURCES = frozenset(
    {
        "SYSTEM.DEFAULT.LOCAL.QUEUE",
        "SYSTEM.ADMIN.ACCOUNTING.QUEUE",
        "SYSTEM.ADMIN.ACTIVITY.QUEUE",
        "SYSTEM.ADMIN.CHANNEL.EVENT",
        "SYSTEM.ADMIN.COMMAND.EVENT",
        "SYSTEM.ADMIN.CONFIG.EVENT",
        "SYSTEM.ADMIN.LOGGER.EVENT",
        "SYSTEM.ADMIN.PERFM.EVENT",
        "SYSTEM.ADMIN.PUBSUB.EVENT",
        "SYSTEM.ADMIN.QMGR.EVENT",
        "SYSTEM.ADMIN.STATISTICS.QUEUE",
        "SYSTEM.DEFAULT.MODEL.QUEUE",
        "SYSTEM.JMS.TEMPQ.MODEL",
    }
)
# IBM: "Setting STREAMQ to any value that begins SYSTEM.*" is not supported, except this.
STREAMING_SYSTEM_TARGET = "SYSTEM.DEFAULT.LOCAL.QUEUE"
STREAMING_TYPES = ("QLOCAL", "QMODEL")  # the queue types that have STREAMQ
RECEIVING = ("RCVR", "RQSTR", "SVRCONN")  # channel types that may accept COMPMSG(ANY)
# Keywords DEFINE CHANNEL needs for each channel type (a server may do without a CONNAME:
# then only a requester starts it).
REQUIRED = {"SDR": ("CONNAME", "XMITQ"), "SVR": ("XMITQ",), "RQSTR": ("CONNAME",)}

World = dict[str, tuple[str, dict[str, Any]]]  # queue name -> (type, attributes)


def check(
    ctx: Any, req: Any, obj: str, name: str, attrs: dict[str, Any], before: ObjectRecord | None
) -> Response | None:
    """An error response when the attributes `attrs` that `name` is about to have break
    a rule; `before` is the definition being replaced or altered, if any."""
    if obj in STREAMING_TYPES:
        problem = _storage_class(ctx, req, name, attrs, before)
        if problem is not None:
            return problem
    if obj == "QALIAS" and attrs.get("TARGET") == name:
        return rule(req, "TARGET", name, "AN ALIAS QUEUE CANNOT RESOLVE TO ITSELF")
    if obj in QUEUE_TYPES:
        world = queue_world(ctx)
        world[name] = (obj, attrs)
        return streaming(req, world, name)
    if obj == "CHANNEL":
        return _channel(ctx, req, name, attrs) or security.channel(req, attrs)
    if obj == "AUTHINFO":
        return _only_for(req, "AUTHINFO", "AUTHTYPE", attrs)
    if obj == "QMGR":
        return security.qmgr(ctx, req, attrs)
    if obj == "STGCLASS" and before is not None and attrs.get("PSID") != before.attrs.get("PSID"):
        for queue in class_users(ctx, name):
            depth = queue_depth(ctx.tx, ctx.system, queue.name)
            if depth:
                reason = f"QUEUE {queue.name} OF THIS STORAGE CLASS HOLDS {depth} MESSAGES"
                return rule(req, "PSID", attrs.get("PSID"), reason)
    return None


def class_users(ctx: Any, stgclass: str) -> list[ObjectRecord]:
    """The local and model queues that name a storage class."""
    return [
        queue
        for type_ in STREAMING_TYPES
        for queue in ctx.tx.objects(ctx.system.name, type_)
        if queue.attrs.get("STGCLASS") == stgclass
    ]


def _storage_class(
    ctx: Any, req: Any, name: str, attrs: dict[str, Any], before: ObjectRecord | None
) -> Response | None:
    stgclass = str(attrs.get("STGCLASS", ""))
    if (before is None or "STGCLASS" in req.params) and ctx.tx.get_object(
        ctx.system.name, "STGCLASS", stgclass
    ) is None:
        return not_found(req, "STGCLASS", stgclass)
    if before is not None and before.type == "QLOCAL" and before.attrs.get("STGCLASS") != stgclass:
        depth = queue_depth(ctx.tx, ctx.system, name)
        if depth:
            return rule(req, "STGCLASS", stgclass, f"QUEUE {name} HOLDS {depth} MESSAGES")
    return None


# -- streaming queues ---------------------------------------------------------------------


def queue_world(ctx: Any) -> World:
    """Every queue of the system by name: the ground the streaming rules look at."""
    return {
        record.name: (record.type, record.attrs)
        for type_ in QUEUE_TYPES
        for record in ctx.tx.objects(ctx.system.name, type_)
    }


def resolve(world: World, name: str) -> tuple[list[str], str]:
    """Follows alias queues from `name`: the aliases passed and the queue reached (which
    need not exist). An alias loop stops where it would repeat."""
    path: list[str] = []
    current = name
    while current in world and world[current][0] == "QALIAS" and current not in path:
        path.append(current)
        current = str(world[current][1].get("TARGET") or "")
    return path, current


def streaming(req: Any, world: World, changed: str) -> Response | None:
    """Checks every streaming relation (a queue with STREAMQ) that the queue `changed`
    takes part in, as its source, its target or an alias between them."""
    # The changed queue's own relation first: its problem is the one to report.
    for source in sorted(world, key=lambda name: (name != changed, name)):
        source_type, attrs = world[source]
        target = str(attrs.get("STREAMQ") or "")
        if source_type not in STREAMING_TYPES or not target:
            continue
        path, final = resolve(world, target)
        if changed not in (source, target, final, *path):
            continue
        problem = _relation(req, world, changed, source, target, path, final)
        if problem is not None:
            return problem
    return None


def _relation(
    req: Any, world: World, changed: str, source: str, target: str, path: list[str], final: str
) -> Response | None:
    mine = changed == source
    attrs = world[source][1]
    if mine and "USAGE" in req.params and "STREAMQ" not in req.params:
        blame = ("USAGE", str(attrs.get("USAGE")))
    elif mine:
        blame = ("STREAMQ", target)
    elif world[changed][0] == "QALIAS" and "TARGET" in req.params:
        blame = ("TARGET", str(req.params["TARGET"]))
    elif "STREAMQ" in req.params:
        blame = ("STREAMQ", str(req.params["STREAMQ"]))
    else:
        blame = (world[changed][0], changed)

    if source == target:
        return rule(req, *blame, f"{source} WOULD STREAM TO ITSELF")
    if final == source or source in path:
        return rule(req, *blame, f"{source} STREAMS TO {target}, WHICH RESOLVES TO {source}: A STREAMING LOOP")
    if mine and source.startswith("SYSTEM.") and source not in STREAMING_SYSTEM_SOURCES:
        return rule(req, *blame, f"{source} IS A SYSTEM QUEUE, WHICH CANNOT HAVE A STREAMQ")
    if mine and target.startswith("SYSTEM.") and target != STREAMING_SYSTEM_TARGET:
        return rule(req, *blame, f"A STREAMQ CANNOT NAME A SYSTEM. QUEUE, EXCEPT {STREAMING_SYSTEM_TARGET}")
    if str(attrs.get("USAGE", "NORMAL")) == "XMITQ":
        if blame[0] == "USAGE":
            return rule(req, *blame, f"{source} HAS STREAMQ({target}) AND A TRANSMISSION QUEUE CANNOT STREAM")
        return rule(req, *blame, f"{source} IS A TRANSMISSION QUEUE (USAGE(XMITQ)), WHICH CANNOT STREAM")
    reached = world.get(final)
    if reached is None:
        return None
    via = "" if final == target else f" THROUGH {target}"
    if reached[0] == "QMODEL":
        return rule(
            req, *blame, f"{source} STREAMS TO {final}{via}, A MODEL QUEUE, WHICH CANNOT RECEIVE STREAMED MESSAGES"
        )
    onward = str(reached[1].get("STREAMQ") or "") if reached[0] in STREAMING_TYPES else ""
    if onward:
        back_path, back = resolve(world, onward)
        if back == source or source in back_path:
            return rule(req, *blame, f"{source} STREAMS TO {final}{via}, WHICH STREAMS TO {onward}: A STREAMING LOOP")
        return rule(req, *blame, f"{source} STREAMS TO {final}{via}, WHICH STREAMS TO {onward}: NO CHAINS")
    return None


# -- channels -------------------------------------------------------------------------------


def _only_for(req: Any, obj: str, selector: str, attrs: dict[str, Any]) -> Response | None:
    """A keyword given that does not apply to the object's CHLTYPE (AUTHTYPE)."""
    kind = str(attrs.get(selector))
    spec = object_spec(obj)
    for keyword in req.order:
        allowed = spec.keywords[keyword].only_for.get(selector)
        if allowed and kind not in allowed:
            return rule(req, keyword, req.params[keyword], f"NOT VALID FOR {selector}({kind})")
    return None


def _channel(ctx: Any, req: Any, name: str, attrs: dict[str, Any]) -> Response | None:
    chltype = str(attrs.get("CHLTYPE"))
    problem = _only_for(req, "CHANNEL", "CHLTYPE", attrs)
    if problem is not None:
        return problem
    if req.verb.name == "DEFINE":
        for keyword in REQUIRED.get(chltype, ()):
            if not attrs.get(keyword):
                return syntax(req, "CSQ9031E", keyword=f"DEFINE CHANNEL CHLTYPE({chltype})", what=f"{keyword}")
    compmsg = list(attrs.get("COMPMSG") or ["NONE"])
    for alone in ("NONE", "ANY"):
        if alone in compmsg and len(compmsg) > 1:
            return rule(req, "COMPMSG", compmsg, f"{alone} MUST BE THE ONLY VALUE")
    if "ANY" in compmsg and chltype not in RECEIVING:
        reason = f"ANY IS ONLY FOR RECEIVING CHANNELS (RCVR, RQSTR, SVRCONN), NOT {chltype}"
        return rule(req, "COMPMSG", compmsg, reason)
    compmsg_hdr = list(attrs.get("COMPHDR") or ["NONE"])
    if len(set(compmsg_hdr)) != len(compmsg_hdr):
        return rule(req, "COMPHDR", compmsg_hdr, "EACH VALUE ONCE")
    xmitq = str(attrs.get("XMITQ") or "")
    if chltype in ("SDR", "SVR") and xmitq and "XMITQ" in req.params:
        queue = find_queue(ctx.tx, ctx.system, xmitq)
        if queue is not None and (queue.type != "QLOCAL" or queue.attrs.get("USAGE") != "XMITQ"):
            kind = "A LOCAL QUEUE WITH USAGE(NORMAL)" if queue.type == "QLOCAL" else f"A {queue.type}"
            return rule(req, "XMITQ", xmitq, f"{xmitq} IS {kind}, NOT A TRANSMISSION QUEUE")
    return None
