"""MQ reason codes that the engine returns, with their MQRC names, and the exception
that carries one (`MQError`); shown to operators as `MQRC nnnn (NAME)`."""

from __future__ import annotations

SYNCPOINT_LIMIT_REACHED = 2024
GET_INHIBITED = 2016
MSG_TOO_BIG_FOR_Q = 2030
MSG_TOO_BIG_FOR_Q_MGR = 2031
NO_MSG_AVAILABLE = 2033
OPTION_NOT_VALID_FOR_TYPE = 2045
PUT_INHIBITED = 2051
Q_FULL = 2053
Q_MGR_NOT_AVAILABLE = 2059
UNKNOWN_ALIAS_BASE_Q = 2082
UNKNOWN_OBJECT_NAME = 2085
PAGESET_FULL = 2192
PAGESET_ERROR = 2193
UNEXPECTED_ERROR = 2195
UNKNOWN_XMIT_Q = 2196
XMIT_Q_USAGE_ERROR = 2198
MSG_TOO_BIG_FOR_CHANNEL = 2218
# dynamic queues (core/dynamic.py)
PERSISTENT_NOT_ALLOWED = 2048
OBJECT_ALREADY_EXISTS = 2100
OBJECT_NAME_ERROR = 2152
CF_NOT_AVAILABLE = 2345

NAMES: dict[int, str] = {
    GET_INHIBITED: "MQRC_GET_INHIBITED",
    SYNCPOINT_LIMIT_REACHED: "MQRC_SYNCPOINT_LIMIT_REACHED",
    MSG_TOO_BIG_FOR_Q: "MQRC_MSG_TOO_BIG_FOR_Q",
    MSG_TOO_BIG_FOR_Q_MGR: "MQRC_MSG_TOO_BIG_FOR_Q_MGR",
    NO_MSG_AVAILABLE: "MQRC_NO_MSG_AVAILABLE",
    OPTION_NOT_VALID_FOR_TYPE: "MQRC_OPTION_NOT_VALID_FOR_TYPE",
    PUT_INHIBITED: "MQRC_PUT_INHIBITED",
    Q_FULL: "MQRC_Q_FULL",
    Q_MGR_NOT_AVAILABLE: "MQRC_Q_MGR_NOT_AVAILABLE",
    UNKNOWN_ALIAS_BASE_Q: "MQRC_UNKNOWN_ALIAS_BASE_Q",
    UNKNOWN_OBJECT_NAME: "MQRC_UNKNOWN_OBJECT_NAME",
    PAGESET_FULL: "MQRC_PAGESET_FULL",
    PAGESET_ERROR: "MQRC_PAGESET_ERROR",
    UNEXPECTED_ERROR: "MQRC_UNEXPECTED_ERROR",
    UNKNOWN_XMIT_Q: "MQRC_UNKNOWN_XMIT_Q",
    XMIT_Q_USAGE_ERROR: "MQRC_XMIT_Q_USAGE_ERROR",
    MSG_TOO_BIG_FOR_CHANNEL: "MQRC_MSG_TOO_BIG_FOR_CHANNEL",
    PERSISTENT_NOT_ALLOWED: "MQRC_PERSISTENT_NOT_ALLOWED",
    OBJECT_ALREADY_EXISTS: "MQRC_OBJECT_ALREADY_EXISTS",
    OBJECT_NAME_ERROR: "MQRC_OBJECT_NAME_ERROR",
    CF_NOT_AVAILABLE: "MQRC_CF_NOT_AVAILABLE",
}


def describe(reason: int) -> str:
    """`MQRC 2053 (MQRC_Q_FULL)`."""
    return f"MQRC {reason} ({NAMES.get(reason, 'MQRC_UNKNOWN')})"


class MQError(Exception):
    """A put or get that the queue manager refused, with its reason code."""

    def __init__(self, reason: int, detail: str = "") -> None:
        super().__init__(reason, detail)
        self.reason = reason
        self.detail = detail

    @property
    def name(self) -> str:
        return NAMES.get(self.reason, "MQRC_UNKNOWN")

    def __str__(self) -> str:
        text = describe(self.reason)
        return f"{text}: {self.detail}" if self.detail else text
