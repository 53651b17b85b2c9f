"""What handlers return: messages as data (an id and its fields), never text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

OK = "ok"
SYNTAX = "syntax"  # the command was not understood (counted as a syntax error by `run`)
FAILED = "failed"  # understood but could not be processed
NO_CSECT = "-"  # z/OS: a Message.csect for replies printed without a module name (CSQJ322I, CSQY001I)


@dataclass
class Message:
    """One catalogue message with its fields; `attrs` are display attributes (keyword,
    value) that the dialect's renderer lays out; `lines` are extra report rows."""

    id: str
    fields: dict[str, Any] = field(default_factory=dict)
    attrs: list[tuple[str, Any]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    csect: str = ""  # z/OS: the module named in the reply line


@dataclass
class Response:
    """The response to one command, rendered by the dialect's framing after commit."""

    messages: list[Message] = field(default_factory=list)
    status: str = OK
    display: bool = False  # z/TPF: end with END OF DISPLAY+
    framing: str = "plain"  # ztpf, zos, plain
    verb_words: str = ""  # z/OS completion echo: 'DEFINE QLOCAL'
    csect: str = "CSQMDRTS"  # z/OS completion csect
    system: str = ""  # the system whose console identity frames the response

    @property
    def ok(self) -> bool:
        return self.status == OK

    def add(self, msg_id: str, csect: str = "", **fields: Any) -> Message:
        message = Message(msg_id, fields, csect=csect)
        self.messages.append(message)
        return message
