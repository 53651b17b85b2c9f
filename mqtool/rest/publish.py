"""The messaging REST API's topic publish: `POST /ibmmq/rest/v{1,2,3}/messaging/qmgr/
{qmgr}/topic/{topicString}/message` publishes the request body on the topic string (its
levels are the path segments between `topic` and `message`, `/` separating them as in
the topic string itself; `%`, `.` and `?` come URL-encoded, as IBM asks). The body and
the `ibm-mq-md-*` headers are read as for a put to a queue; the publication reaches every
matching subscription's queue in one unit of work before the answer, `201 Created`
with no body. The REST API makes no subscriptions itself (IBM's messaging API has no
subscribe resource), so none outlives a request."""

from __future__ import annotations

from typing import Any

from mqtool.rest.api import Reply, RestApi, RestError, _refusal, message_type, put_options

MAX_TOPIC = 10240


def topic_route(route: list[str]) -> tuple[str, str] | None:
    """(qmgr, topic string) of a topic publish path after /ibmmq/rest/vN, else None."""
    if len(route) >= 6 and route[:2] == ["messaging", "qmgr"] and route[3] == "topic" and route[-1] == "message":
        topic = "/".join(route[4:-1])
        if len(topic) > MAX_TOPIC:
            raise RestError(400, "MQT0362E", field="topicString", problem=f"is longer than {MAX_TOPIC} characters")
        return route[2], topic
    return None


def publish(api: RestApi, qmgr: str, topic: str, version: int, headers: dict[str, str], body: bytes) -> Reply:
    """POST .../topic/{topicString}/message: one publication, committed before the answer."""
    from mqtool.engine.core.reasons import MQError
    from mqtool.engine.core.streams import put_stream
    from mqtool.engine.core.topics import TopicError, check_topic
    from mqtool.engine.platforms import NoPubSub, open_topic

    message_type(headers)
    options = put_options(headers, version)
    try:
        check_topic(topic, publishing=True)
    except TopicError as error:
        raise RestError(400, "MQT0362E", field="topicString", problem=str(error)) from None
    system, _ = api.manager(qmgr)
    api.session.tick()
    try:
        handle: Any = open_topic(api.session.store, api.clock, system.name, topic, system.platform)
    except NoPubSub as error:
        raise RestError(404, "MQT0368E", completion=2, reason=error.reason, qmgr=qmgr, detail=error.detail) from None
    result = put_stream(handle, [(body, options)], lambda _: None)
    refused: MQError | None = result.error
    if refused is not None:
        raise _refusal(refused, qmgr, f"topic {topic}", api.host)
    return Reply(201)
