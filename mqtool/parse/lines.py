"""The MQSC input-file rules, shared by every dialect: comments, blank lines,
`+`/`-` continuation and `;` as an explicit end of command."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field


@dataclass
class SourceCommand:
    """One assembled command and the physical lines it came from."""

    text: str
    line: int  # 1-based number of its first line
    lines: list[str] = field(default_factory=list)


def _split_semicolon(line: str, quoted: bool = False) -> tuple[str, bool, bool]:
    """Cuts at the first `;` outside quotes. `quoted` says whether the line starts inside
    a quoted string (a continuation may fall inside one). Returns (piece, a `;` was
    found, the piece ends inside quotes)."""
    if ";" not in line:  # the common case: only the quote state needs working out
        return line, False, quoted != (line.count("'") % 2 == 1)
    for index, char in enumerate(line):
        if char == "'":
            quoted = not quoted
        elif char == ";" and not quoted:
            return line[:index], True, False
    return line, False, quoted


def continuation(line: str) -> str | None:
    """`+` or `-` when the line continues on the next one, else None."""
    stripped = line.rstrip(" ")
    if stripped.endswith(("+", "-")):
        return stripped[-1]
    return None


def assemble(lines: Iterable[str]) -> Iterator[SourceCommand]:
    """Joins physical lines into commands by the MQSC file rules."""
    text = ""
    first = 0
    physical: list[str] = []
    mode: str | None = None  # how the next line joins: '+', '-', or None (a new command)
    quoted = False  # the command so far ends inside a quoted string
    number = 0
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        if line.startswith("*") or not line.strip():
            continue
        if mode is None:
            first = number
            physical = []
            text = ""
            quoted = False
            piece = line
        elif mode == "+":
            piece = line.lstrip(" \t")
        else:
            piece = line
        physical.append(line)
        piece, ended, quoted = _split_semicolon(piece, quoted)
        if ended:
            text += piece.rstrip(" ")
            mode = None
            if text.strip():
                yield SourceCommand(text.strip(), first, physical)
            continue
        mode = continuation(piece)
        if mode is not None:
            text += piece.rstrip(" ")[:-1]
            continue
        text += piece
        if text.strip():
            yield SourceCommand(text.strip(), first, physical)
    if mode is not None and text.strip():
        # A file that ends inside a continuation: the command is what was read.
        yield SourceCommand(text.strip(), first or number, physical)
