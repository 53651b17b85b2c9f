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
REQUIRED = {"SDR": ("CONNAME", "XMITQ"), "SVR": ("XMITQ",), "RQSTR": ("CONNAME",), "CLNTCONN": ("CONNAME",)}

Queue = tuple[str, dict[str, Any]]  # (type, attributes)


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
        return streaming(req, World(ctx, name, obj, attrs), name)
    if obj == "CHANNEL":
        return _channel(ctx, req, name, attrs) or security.channel(req, attrs)
    if obj in ("TOPIC", "SUB"):
        from .pubsub import check as pubsub_check

        return pubsub_check(ctx, req, obj, name, attrs, before)
    if obj == "AUTHINFO":
        return _only_for(req, "AUTHINFO", "AUTHTYPE", attrs)
    if obj == "QMGR":
        suiteb = list(attrs.get("SUITEB") or ["NONE"])
        if "NONE" in suiteb and len(suiteb) > 1:
            return rule(req, "SUITEB", suiteb, "NONE MUST BE THE ONLY VALUE")
        return security.qmgr(ctx, req, attrs)
    if obj == "STGCLASS" and before is not None and attrs.get("PSID") != before.attrs.get("PSID"):
        for queue in ctx.tx.names_where(ctx.system.name, "STGCLASS", name, ("QLOCAL",)):
            depth = queue_depth(ctx.tx, ctx.system, queue)
            if depth:
                reason = f"QUEUE {queue} OF THIS STORAGE CLASS HOLDS {depth} MESSAGES"
                return rule(req, "PSID", attrs.get("PSID"), reason)
    return None


def class_users(ctx: Any, stgclass: str) -> list[ObjectRecord]:
    """The local and model queues that name a storage class."""
    return ctx.tx.objects_where(ctx.system.name, "STGCLASS", stgclass, STREAMING_TYPES)


def _storage_class(
    ctx: Any, req: Any, name: str, attrs: dict[str, Any], before: ObjectRecord | None
) -> Response | None:
    stgclass = str(attrs.get("STGCLASS", ""))
    if (before is None or "STGCLASS" in req.params) and not ctx.tx.has_object(ctx.system.name, "STGCLASS", stgclass):
        return not_found(req, "STGCLASS", stgclass)
    if before is not None and before.type == "QLOCAL" and before.attrs.get("STGCLASS") != stgclass:
        depth = queue_depth(ctx.tx, ctx.system, name)
        if depth:
            return rule(req, "STGCLASS", stgclass, f"QUEUE {name} HOLDS {depth} MESSAGES")
    return None


# -- streaming queues ---------------------------------------------------------------------


class World:
    """The queues the streaming rules look at, as they are about to be: the changed queue
    with its new attributes, every other queue as stored, read by name when a rule first
    needs it (never the whole system: one DEFINE costs the same beside 100 queues as
    beside 100,000)."""

    def __init__(self, ctx: Any, changed: str, obj: str, attrs: dict[str, Any]) -> None:
        self.tx, self.system = ctx.tx, ctx.system
        self.changed = changed
        self._known: dict[str, Queue | None] = {changed: (obj, attrs)}

    def get(self, name: str) -> Queue | None:
        if name not in self._known:
            record = find_queue(self.tx, self.system, name)
            self._known[name] = None if record is None else (record.type, record.attrs)
        return self._known[name]

    def __contains__(self, name: str) -> bool:
        return self.get(name) is not None

    def __getitem__(self, name: str) -> Queue:
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def naming(self, keyword: str, types: tuple[str, ...], name: str) -> set[str]:
        """The queues of `types` whose `keyword` names `name` (through the store's index)."""
        found = set()
        for record in self.tx.objects_where(self.system.name, keyword, name, types):
            if record.name != self.changed:
                self._known.setdefault(record.name, (record.type, record.attrs))
                found.add(record.name)
        own_type, own = self[self.changed]
        if own_type in types and own.get(keyword) == name:
            found.add(self.changed)
        return found

    def relations(self) -> list[str]:
        """The sources (queues with a STREAMQ) of the relations the changed queue can take
        part in: itself, and the queues whose STREAMQ names it or an alias that resolves
        through it; the changed queue first, then by name."""
        through = [self.changed]  # the changed queue and the aliases that resolve through it
        for name in through:
            through += sorted(self.naming("TARGET", ("QALIAS",), name) - set(through))
        sources = {self.changed}
        for name in through:
            sources |= self.naming("STREAMQ", STREAMING_TYPES, name)
        return sorted(sources, key=lambda name: (name != self.changed, name))


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
    for source in world.relations():
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
