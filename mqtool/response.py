"""What handlers return: messages as data (an id and its fields), never text."""

from __future__ import annotations

from typing import Any

from mqtool.record import Record

OK = "ok"
SYNTAX = "syntax"  # the command was not understood (counted as a syntax error by `run`)
FAILED = "failed"  # understood but could not be processed
NO_CSECT = "-"  # z/OS: a Message.csect for replies printed without a module name (CSQJ322I, CSQY001I)


class Message(Record):
    """One catalogue message with its fields; `attrs` are display attributes (keyword,
    value) that the dialect's renderer lays out; `lines` are extra report rows. (A
    written-out record, not a dataclass: mqtool/record.py says why.)"""

    _FIELDS = ("id", "fields", "attrs", "lines", "csect")

    def __init__(
        self,
        id: str,
        fields: dict[str, Any] | None = None,
        attrs: list[tuple[str, Any]] | None = None,
        lines: list[str] | None = None,
        csect: str = "",
    ) -> None:
        self.id = id
        self.fields = {} if fields is None else fields
        self.attrs = [] if attrs is None else attrs
        self.lines = [] if lines is None else lines
        self.csect = csect  # z/OS: the module named in the reply line


class Response(Record):
    """The response to one command, rendered by the dialect's framing after commit."""

    _FIELDS = ("messages", "status", "display", "framing", "verb_words", "csect", "system")

    def __init__(
        self,
        messages: list[Message] | None = None,
        status: str = OK,
        display: bool = False,
        framing: str = "plain",
        verb_words: str = "",
        csect: str = "CSQMDRTS",
        system: str = "",
    ) -> None:
        self.messages = [] if messages is None else messages
        self.status = status
        self.display = display  # z/TPF: end with END OF DISPLAY+
        self.framing = framing  # ztpf, zos, plain
        self.verb_words = verb_words  # z/OS completion echo: 'DEFINE QLOCAL'
        self.csect = csect  # z/OS completion csect
        self.system = system  # the system whose console identity frames the response

    @property
    def ok(self) -> bool:
        return self.status == OK

    def add(self, msg_id: str, csect: str = "", **fields: Any) -> Message:
        message = Message(msg_id, fields, csect=csect)
        self.messages.append(message)
        return message
