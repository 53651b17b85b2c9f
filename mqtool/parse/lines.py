"""The MQSC input-file rules, shared by every dialect: comments, blank lines,
`+`/`-` continuation and `;` as an explicit end of command, and the bounded reader of
command lines that `mqtool run`, `mqtool cmd -` and the shell on a pipe use."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TextIO

from mqtool.record import Record

# The longest command mqtool reads, continued or not (runmqsc's limit for an MQSC
# command). A physical line longer than this cannot be part of a command: the reader
# stops there instead of holding it (`mqtool run /dev/zero` would grow without end).
MAX_COMMAND = 32762
# Characters of commands a file (or standard input) that is read whole before it runs
# may hold: 64 Mi, some hundreds of thousands of commands.
MAX_INPUT = 64 * 1024 * 1024


class LineTooLong(ValueError):
    """A physical line longer than MAX_COMMAND characters (the reader stops there)."""

    def __init__(self, number: int, limit: int = MAX_COMMAND) -> None:
        super().__init__(f"line {number} is longer than {limit} characters, the longest command mqtool reads")
        self.number = number
        self.limit = limit


class InputTooLong(LineTooLong):
    """More than MAX_INPUT characters of commands in one file (or standard input) that
    is read whole before it runs."""

    def __init__(self, limit: int) -> None:
        ValueError.__init__(self, f"more than {limit:,} characters of commands, the most mqtool reads from one file")
        self.number = 0
        self.limit = limit


def read_all(stream: TextIO, limit: int = MAX_INPUT) -> list[str]:
    """Every line of a stream (read_lines), at most `limit` characters in all."""
    out: list[str] = []
    size = 0
    for line in read_lines(stream):
        size += len(line) + 1
        if size > limit:
            raise InputTooLong(limit)
        out.append(line)
    return out


def read_lines(stream: TextIO, limit: int = MAX_COMMAND) -> Iterator[str]:
    """The lines of a text stream as str.splitlines() gives them, read as they arrive
    (a pipe fed by another program gets each answer at once) and never holding more
    than one line of at most `limit` characters: a longer one raises LineTooLong.
    UnicodeDecodeError propagates."""
    number = 0
    while True:
        # A line and its end: "\n", or "\r\n" when the stream keeps line ends as they are.
        chunk = stream.readline(limit + 2)
        if not chunk:
            return
        if len(chunk.rstrip("\r\n")) > limit:
            raise LineTooLong(number + 1, limit)
        # splitlines(): also \r, form feeds and the Unicode line separators, as before.
        for line in chunk.splitlines():
            number += 1
            yield line


class SourceCommand(Record):
    """One assembled command and the physical lines it came from (a written-out record,
    not a dataclass: mqtool/record.py says why)."""

    _FIELDS = ("text", "line", "lines", "too_long")

    def __init__(self, text: str, line: int, lines: list[str] | None = None, too_long: bool = False) -> None:
        self.text = text
        self.line = line  # 1-based number of its first line
        self.lines = [] if lines is None else lines
        # Longer than MAX_COMMAND: `text` and `lines` hold only the start, and the
        # command is refused (MQT0012E) instead of run.
        self.too_long = too_long


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
    """Joins physical lines into commands by the MQSC file rules. A command whose lines
    together pass MAX_COMMAND characters is read to its end but kept only up to there,
    and marked too_long."""
    text = ""
    first = 0
    physical: list[str] = []
    size = 0  # characters of the command's lines so far
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
            size = 0
            text = ""
            quoted = False
            piece = line
        elif mode == "+":
            piece = line.lstrip(" \t")
        else:
            piece = line
        room = MAX_COMMAND - size
        size += len(line)
        keep = size <= MAX_COMMAND  # past the limit: follow the rules, hold nothing more
        if keep:
            physical.append(line)
        elif room > 0:
            physical.append(line[:room])  # the start of the line that passes the limit, for the echo
        piece, ended, quoted = _split_semicolon(piece, quoted)
        if ended:
            text += piece.rstrip(" ") if keep else ""
            mode = None
            if text.strip() or not keep:
                yield SourceCommand(text.strip(), first, physical, too_long=not keep)
            continue
        mode = continuation(piece)
        if mode is not None:
            text += piece.rstrip(" ")[:-1] if keep else ""
            continue
        text += piece if keep else ""
        if text.strip() or not keep:
            yield SourceCommand(text.strip(), first, physical, too_long=not keep)
    if mode is not None and (text.strip() or size > MAX_COMMAND):
        # A file that ends inside a continuation: the command is what was read.
        yield SourceCommand(text.strip(), first or number, physical, too_long=size > MAX_COMMAND)
