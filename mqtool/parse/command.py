"""What the lexers produce: a command as typed, before validation against the tables."""

from __future__ import annotations

from mqtool.record import Record


class Param(Record):
    """One `KEYWORD-value` / `KEYWORD(value)` / `FLAG` as typed (keyword upper-cased).
    (The records of this module are written out, not dataclasses: mqtool/record.py.)"""

    _FIELDS = ("keyword", "value", "quoted")

    def __init__(self, keyword: str, value: str | list[str] | None, quoted: bool = False) -> None:
        self.keyword = keyword
        self.value = value  # None: a flag; a list: a comma/blank separated list
        self.quoted = quoted


class Command(Record):
    """A lexed operator command of one dialect."""

    _FIELDS = ("text", "dialect", "verb", "object", "name", "params", "cpf", "object_value", "name_quoted")

    def __init__(
        self,
        text: str,
        dialect: str,
        verb: str,
        object: str | None = None,
        name: str | None = None,
        params: list[Param] | None = None,
        cpf: str | None = None,
        object_value: list[str] | None = None,
        name_quoted: bool = False,
    ) -> None:
        self.text = text
        self.dialect = dialect  # ztpf_mq, ztpf_http, zos
        self.verb = verb  # as typed, upper-cased (DEF, DEFINE ...)
        self.object = object  # as typed, upper-cased (QL, QLOCAL ...)
        self.name = name  # unquoted: upper-cased; quoted: as typed
        self.params = [] if params is None else params
        self.cpf = cpf
        self.object_value = object_value  # MQSC: a list in the object's parentheses
        self.name_quoted = name_quoted


class Directive(Record):
    """A `.name args key=value` line."""

    _FIELDS = ("text", "name", "args", "options")

    def __init__(
        self, text: str, name: str, args: list[str] | None = None, options: dict[str, str] | None = None
    ) -> None:
        self.text = text
        self.name = name
        self.args = [] if args is None else args
        self.options = {} if options is None else options


class LexError(Record, Exception):
    """The text cannot be split into tokens. `kind`: quote, paren, empty, token, repeat."""

    _FIELDS = ("kind", "token", "detail")

    def __init__(self, kind: str, token: str = "", detail: str = "") -> None:
        self.kind = kind
        self.token = token
        self.detail = detail

    def __str__(self) -> str:
        return f"{self.kind}: {self.token} {self.detail}".strip()
