"""Batch runs in the manner of IBM runmqsc: numbered echo, one response per command,
and the closing summary. Shared by `mqtool run`, `mqtool shell` on a pipe, and the
golden-transcript tests."""

from __future__ import annotations

import codecs
import io
import sys
from collections.abc import Callable, Iterable

import click

from mqtool.parse.lines import MAX_COMMAND, LineTooLong, SourceCommand, assemble
from mqtool.record import Record
from mqtool.response import FAILED, SYNTAX
from mqtool.session import Outcome, Session

EXIT_OK = 0
EXIT_SOME_FAILED = 10
EXIT_NOT_RUN = 20


class Summary(Record):
    """The counts of a run (a written-out record, not a dataclass: mqtool/record.py)."""

    _FIELDS = ("read", "syntax", "failed")

    def __init__(self, read: int = 0, syntax: int = 0, failed: int = 0) -> None:
        self.read = read
        self.syntax = syntax
        self.failed = failed

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.syntax == 0 and self.failed == 0 else EXIT_SOME_FAILED

    def lines(self) -> list[str]:
        def count(n: int, one: str, many: str, none: str) -> str:
            return none if n == 0 else one if n == 1 else many.format(n=n)

        return [
            count(self.read, "One MQSC command read.", "{n} MQSC commands read.", "No MQSC commands read."),
            count(
                self.syntax,
                "One command has a syntax error.",
                "{n} commands have a syntax error.",
                "No commands have a syntax error.",
            ),
            count(
                self.failed,
                "One valid MQSC command could not be processed.",
                "{n} valid MQSC commands could not be processed.",
                "All valid MQSC commands were processed.",
            ),
        ]


class Report:
    """Standard output for a report of many lines, written as click.echo writes it, but
    flushed when `flush` is called (once per command, by run_lines) instead of after
    every line: click.echo asks whether the stream is a terminal and flushes it for each
    line, which cost a scripted DEFINE more than its rendering. Lines are written to the
    stream directly only where click.echo would write them unchanged to that same stream
    (a UTF-8 text stream, a line without escape sequences); any other goes through
    click.echo."""

    def __init__(self) -> None:
        stream = sys.stdout
        plain = isinstance(stream, io.TextIOWrapper) and codecs.lookup(stream.encoding).name == "utf-8"
        self.stream = stream if plain else None

    def __call__(self, line: str) -> None:
        if self.stream is None or "\x1b" in line:
            self.flush()
            click.echo(line)
        else:
            self.stream.write(line + "\n")

    def flush(self) -> None:
        if self.stream is not None:
            self.stream.flush()

    def flushed(self, line: str) -> None:
        """One line, shown at once."""
        self(line)
        self.flush()


def run_lines(
    session: Session,
    lines: Iterable[str],
    emit: Callable[[str], None],
    echo: bool = True,
    verify: bool = False,
    stop_on_error: bool = False,
    whole: bool = False,
    observe: Callable[[SourceCommand, Outcome], None] | None = None,
) -> Summary:
    """Runs the commands of `lines`, emitting the report line by line as it goes. The
    MQSC file rules join the lines into commands; with `whole`, each line is one
    complete command as typed (the arguments of `mqtool cmd`). `observe` sees each
    command with its outcome (the JSON renderer uses it). An `emit` that is a Report is
    flushed after each command's echo and after its response."""
    summary = Summary()
    flush = emit.flush if isinstance(emit, Report) else None
    # `.get` prints each message's line before its get commits (and at once).
    session.emit = emit.flushed if isinstance(emit, Report) else emit
    sources = (
        (
            SourceCommand(line.strip()[:MAX_COMMAND], number, [line[:MAX_COMMAND]], len(line.strip()) > MAX_COMMAND)
            for number, line in enumerate(lines, 1)
            if line.strip()
        )
        if whole
        else assemble(lines)
    )
    for source in sources:
        summary.read += 1
        if echo:
            emit(f"{summary.read:6d} : {source.lines[0]}")
            for more in source.lines[1:]:
                emit(f"       : {more}")
            if flush is not None:
                flush()  # the command being run shows while it runs
        outcome = execute_source(session, source, check_only=verify)
        if outcome.leave:
            summary.read -= 1
            break
        for line in outcome.lines:
            emit(line)
        if flush is not None:
            flush()
        if observe is not None:
            observe(source, outcome)
        if outcome.status == SYNTAX:
            summary.syntax += 1
        elif outcome.status == FAILED:
            summary.failed += 1
        if stop_on_error and outcome.status in (SYNTAX, FAILED):
            break
    return summary


def execute_source(session: Session, source: SourceCommand, check_only: bool = False) -> Outcome:
    """Runs one assembled command; one longer than MAX_COMMAND is refused unread."""
    if source.too_long:
        return session.refuse("MQT0012E", limit=MAX_COMMAND)
    return session.execute(source.text, check_only=check_only)


def unreadable(exc: Exception) -> str:
    """Why commands could not be read (a file, standard input), for the one-line error."""
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    if isinstance(exc, LineTooLong):
        return str(exc)
    return "not UTF-8 text"
