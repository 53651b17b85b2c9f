"""What the lexers produce: a command as typed, before validation against the tables."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Param:
    """One `KEYWORD-value` / `KEYWORD(value)` / `FLAG` as typed (keyword upper-cased)."""

    keyword: str
    value: str | list[str] | None  # None: a flag; a list: a comma/blank separated list
    quoted: bool = False


@dataclass
class Command:
    """A lexed operator command of one dialect."""

    text: str
    dialect: str  # ztpf_mq, ztpf_http, zos
    verb: str  # as typed, upper-cased (DEF, DEFINE ...)
    object: str | None = None  # as typed, upper-cased (QL, QLOCAL ...)
    name: str | None = None  # unquoted: upper-cased; quoted: as typed
    params: list[Param] = field(default_factory=list)
    cpf: str | None = None
    object_value: list[str] | None = None  # MQSC: a list in the object's parentheses
    name_quoted: bool = False


@dataclass
class Directive:
    """A `.name args key=value` line."""

    text: str
    name: str
    args: list[str] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)


@dataclass
class LexError(Exception):
    """The text cannot be split into tokens. `kind`: quote, paren, empty, token, repeat."""

    kind: str
    token: str = ""
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.kind}: {self.token} {self.detail}".strip()
