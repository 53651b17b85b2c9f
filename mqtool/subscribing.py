"""Subscriptions in scripts: the `.subscribe` and `.unsubscribe` directives, the
subscriptions a session holds (`.get topic=` gets from them; those still open end with
the session), and the lines that tell of a subscription made or ended (MQT0160I,
MQT0161I, MQT0162I), shared with `mqtool get --topic`. The engine's side is
mqtool/engine/core/subscriptions.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mqtool.directives import engine_system, usage_error
from mqtool.engine.core import subscriptions
from mqtool.engine.core.reasons import NO_SUBSCRIPTION, UNKNOWN_OBJECT_NAME, MQError
from mqtool.engine.platforms import model
from mqtool.response import FAILED, Response
from mqtool.state import messages as runs

if TYPE_CHECKING:
    from mqtool.parse.command import Directive
    from mqtool.session import Session
    from mqtool.state import SystemRecord

HELD = "subscriptions"  # session.state key: subscription name -> Subscribed


class SubscribeError(ValueError):
    """A `.subscribe` or `.unsubscribe` whose arguments cannot be used."""


# -- the lines ---------------------------------------------------------------------------


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def subscribed_fields(held: subscriptions.Subscribed) -> dict[str, Any]:
    """The fields of MQT0160I."""
    kind = "non-durable" if not held.durable else "resumed durable" if held.resumed else "durable"
    retained = f"; {plural(held.retained, 'retained publication')} delivered" if held.retained else ""
    return {"topic": held.topic, "kind": kind, "name": held.name, "subid": held.subid, "queue": held.queue,
            "retained": retained}  # fmt: skip


def close(session: Session, system: SystemRecord, held: subscriptions.Subscribed, remove: bool = False) -> Response:
    """MQCLOSE of a subscription this process holds: MQT0161I (ended) or MQT0162I (kept);
    MQT0120E with 2428 when it is gone already (DELETE SUB, or a clean-up)."""
    response = Response()
    with session.store.transaction() as tx:
        record = tx.get_object(system.name, "SUB", held.name)
        managed = str(record.status.get("managed") or "") if record is not None else ""
        depth = runs.depth(tx.conn, system.name, held.queue) if record is not None else 0
        kept = record is not None and record.status.get("durable", "YES") == "YES" and not remove
        found = subscriptions.close(tx, system.name, model(system.platform), held.name, remove)
    state = session.state.get(HELD)
    if state is not None:
        state.pop(held.name, None)
    if not found:
        response.status = FAILED
        error = subscriptions.no_subscription(held.name)
        response.add("MQT0120E", action="Close of", queue=f"subscription {held.name}", reason=str(error))
        return response
    left = f", {plural(depth, 'message')} on it" if depth else ""
    if kept:
        response.add("MQT0162I", name=held.name, queue=held.queue, left=left)
    else:
        gone = f"; its queue {managed} removed{' with ' + plural(depth, 'message') if depth else ''}" if managed else ""
        response.add("MQT0161I", name=held.name, queue=gone)
    return response


def close_all(session: Session) -> None:
    """The session ends: every subscription it still holds is closed (non-durable ones
    end). A failure of the store leaves them to the next command's clean-up."""
    held = session.state.get(HELD) or {}
    for name, subscribed in list(held.items()):
        system = next((s for s in session.systems() if s.name == subscribed.system), None)
        held.pop(name, None)
        if system is None:
            continue
        try:
            close(session, system, subscribed)
        except Exception:
            continue


def held_on(session: Session, system: str, topic: str) -> subscriptions.Subscribed | None:
    """The subscription this session holds on `topic` of `system` (the first made)."""
    for subscribed in (session.state.get(HELD) or {}).values():
        if subscribed.system == system and subscribed.topic == topic:
            return subscribed
    return None


def subscribe(
    session: Session, system: SystemRecord, request: subscriptions.Request
) -> subscriptions.Subscribed | MQError:
    """MQSUB in a transaction of its own; the subscription (kept by the session) or the
    refusal. NoPubSub-like MQError 2085 on z/TPF."""
    from mqtool.engine.platforms import NoPubSub

    chosen = model(system.platform)
    if not chosen.pubsub:
        detail = f"{system.name} is a z/TPF system: z/TPF MQ has no publish/subscribe (no topics)"
        return NoPubSub(UNKNOWN_OBJECT_NAME, detail)
    try:
        with session.store.transaction() as tx:
            made = subscriptions.subscribe(tx, session.clock, system.name, chosen, request)
    except MQError as error:
        return error
    session.state.setdefault(HELD, {})[made.name] = made
    return made


# -- directives ------------------------------------------------------------------------------


def _yes(directive: Directive, key: str) -> bool:
    raw = directive.options.get(key)
    if raw is None:
        return False
    value = raw.strip().lower()
    if value not in ("yes", "no"):
        raise SubscribeError(f"{key}={raw} must be yes or no")
    return value == "yes"


def parse_subscribe(directive: Directive) -> subscriptions.Request:
    """Reads `.subscribe topic=STRING [name=NAME] [durable=yes] [new=yes] [selector='...']`."""
    from mqtool.engine.core.topics import TopicError, check_topic

    topic = directive.options.get("topic")
    if directive.args or topic is None:
        raise SubscribeError("usage: .subscribe topic=STRING [name=NAME] [durable=yes] [new=yes] [selector='...']")
    try:
        check_topic(topic, publishing=False)
    except TopicError as error:
        raise SubscribeError(f"topic={topic}: {error}") from None
    name = directive.options.get("name", "")
    durable = _yes(directive, "durable")
    if durable and not name.strip():
        raise SubscribeError("durable=yes needs name=NAME (a durable subscription is found again by its name)")
    if len(name) > subscriptions.NAME_MAX:
        raise SubscribeError(f"name= is longer than {subscriptions.NAME_MAX} characters")
    return subscriptions.Request(topic, name, durable, _yes(directive, "new"), directive.options.get("selector", ""))


def parse_unsubscribe(directive: Directive) -> tuple[str | None, str | None, bool]:
    """Reads `.unsubscribe topic=STRING|name=NAME [remove=yes]`."""
    topic, name = directive.options.get("topic"), directive.options.get("name")
    if directive.args or (topic is None) == (name is None):
        raise SubscribeError("usage: .unsubscribe topic=STRING|name=NAME [remove=yes]")
    return topic, name, _yes(directive, "remove")


def do_subscribe(session: Session, directive: Directive, current: SystemRecord | None) -> Response:
    """`.subscribe topic=STRING [name=NAME] [durable=yes] [new=yes] [selector='...']`: an
    application's subscription (MQSUB), held by the session until `.unsubscribe` or the
    session's end."""
    system = engine_system(session, directive, current)
    if isinstance(system, Response):
        return system
    try:
        request = parse_subscribe(directive)
    except SubscribeError as problem:
        return usage_error(directive, str(problem))
    made = subscribe(session, system, request)
    response = Response()
    if isinstance(made, MQError):
        response.status = FAILED
        response.add("MQT0120E", action="Subscribe to", queue=f"topic '{request.topic}'", reason=str(made))
        return response
    response.add("MQT0160I", **subscribed_fields(made))
    return response


def do_unsubscribe(session: Session, directive: Directive, current: SystemRecord | None) -> Response:
    """`.unsubscribe topic=STRING|name=NAME [remove=yes]`: MQCLOSE of a subscription the
    session holds (a durable one stays unless remove=yes)."""
    system = engine_system(session, directive, current)
    if isinstance(system, Response):
        return system
    try:
        topic, name, remove = parse_unsubscribe(directive)
    except SubscribeError as problem:
        return usage_error(directive, str(problem))
    held = held_on(session, system.name, topic) if topic is not None else (session.state.get(HELD) or {}).get(name)
    if held is None or held.system != system.name:
        response = Response(status=FAILED)
        what = f"topic '{topic}'" if topic is not None else f"subscription {name}"
        refusal = (
            MQError(NO_SUBSCRIPTION, f"this session holds no subscription on {what}")
            if topic is not None
            else subscriptions.no_subscription(name or "")
        )
        response.add("MQT0120E", action="Close of", queue=what, reason=str(refusal))
        return response
    return close(session, system, held, remove)
