"""What every answer of the REST API stand-in is made of: `Reply` (status, headers,
body), and IBM's error JSON (`error_reply`, raised as `RestError`) with the action each
error id tells the caller to take."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mqtool import messages

JSON_TYPE = "application/json;charset=utf-8"
TEXT_TYPE = "text/plain;charset=utf-8"
BINARY_TYPE = "application/octet-stream"
CSRF_HEADER = "ibm-mq-rest-csrf-token"
# Content types the messaging API takes for a put (IBM's list), and mqtool's binary one.
MESSAGE_TYPES = ("text/plain", "text/html", "text/xml", "application/json", "application/xml", BINARY_TYPE)
MAX_WAIT_MS = 2**31 - 1
# What each error id tells the caller to do (IBM's "Response" of the message).
ACTIONS: dict[str, str] = {
    "MQWB0000E": "Use the message to resolve the problem if possible; report it with the state file if not.",
    "MQWB0009E": "Resubmit the request with a valid queue manager name.",
    "MQWB0100E": "Resubmit the request with the correct CSRF header.",
    "MQWB0103E": "Obtain the necessary authorization to perform the operation and resubmit the request.",
    "MQWB0104E": "Resubmit the request with the credentials of a user of the REST configuration.",
    "MQWB0116E": "Resubmit the request using a valid URI.",
    "MQWB0300E": "Resubmit the request, correcting any issues.",
    "MQWB0302E": "Resubmit the request using a valid header value.",
    "MQWB0303E": "Resubmit the request, correcting any issues.",
    "MQWB0305E": "Resubmit the request, correcting any issues.",
    "MQWB0306E": "Resubmit the request, correcting any issues.",
    "MQT0360E": "Resubmit the request with a JSON object as its body.",
    "MQT0361E": "Resubmit the request with a JSON object as its body.",
    "MQT0362E": "Resubmit the request with the fields runCommand or runCommandJSON take.",
    "MQT0363E": "Resubmit the request with one of the allowed methods.",
    "MQT0364E": "Resubmit the request with the name of a queue of the queue manager.",
    "MQT0365E": "Resubmit the request with a smaller body.",
    # trust-rest: one value per runCommandJSON parameter
    "MQT0366E": "Resubmit the request with one string or number (or an array for a list attribute) per parameter.",
    "MQT0368E": "Resubmit the request to a z/OS queue manager: this one has no publish/subscribe.",
    # rest-pymqrest: the commands IBM's runCommandJSON does not take
    "MQT0369E": "Resubmit the command as runCommand, with the command text in parameters.command.",
    "MQT0464E": "Start the command server (START CMDSERV at the console) and resubmit the request.",
}


@dataclass
class Reply:
    """An answer: status, headers (besides Content-Length) and body. `valid_until`: the
    answer of a command that changes nothing stays true until this instant of the clock
    unless the store changes (see server.AnswerCache); None for any other answer."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    valid_until: float | None = None


class RestError(Exception):
    """A request answered with IBM's error JSON (the arguments are error_reply's)."""

    def __init__(self, status: int, msg_id: str, **arguments: Any) -> None:
        super().__init__(msg_id)
        self.status = status
        self.msg_id = msg_id
        self._reply = error_reply(status, msg_id, **arguments)

    def reply(self) -> Reply:
        return self._reply


def error_reply(
    status: int,
    msg_id: str,
    completion: int = 0,
    reason: int = 0,
    headers: list[tuple[str, str]] | None = None,
    explanation: str | None = None,
    **fields: Any,
) -> Reply:
    """IBM's error JSON (keys in the order mqweb writes them) for one message id."""
    item = {
        "action": ACTIONS[msg_id],
        "completionCode": completion,
        "explanation": explanation or messages.CATALOGUE[msg_id].meaning,
        "message": f"{msg_id}: {messages.text(msg_id, fields)}",
        "msgId": msg_id,
        "reasonCode": reason,
        "type": "rest",
    }
    return json_reply(status, {"error": [item]}, headers)


def json_reply(status: int, document: Any, headers: list[tuple[str, str]] | None = None) -> Reply:
    body = json.dumps(document, separators=(",", ":")).encode("utf-8")
    return Reply(status, [("Content-Type", JSON_TYPE), *(headers or [])], body)
