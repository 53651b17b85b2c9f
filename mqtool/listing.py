"""How the list commands print (`mqtool system list`, `mqtool http list`, `mqtool
console`): one `--format table|json|csv` option and one table style.

A table is for people: on a terminal a rich table with a rule under bold cyan headings
(NO_COLOR turns the colour off), otherwise the same columns as plain text, two blanks
apart, so that `cut`, `awk` and `column` work on it. json (an array of objects) and csv
(a header row, then one row per record) are for scripts and carry every field.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO, TypeVar

import click

FORMATS = ("table", "json", "csv")
F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Column:
    """One column of the table: the record's key, its heading, how a value reads."""

    key: str
    heading: str
    right: bool = False  # numbers line up on the right
    show: Callable[[Any], str] | None = None

    def text(self, record: Mapping[str, Any]) -> str:
        value = record.get(self.key)
        return self.show(value) if self.show is not None else cell(value)


class FormatChoice(click.Choice):
    """table, json or csv; an older name of a command (console's `text`) still works
    but is not offered in the help."""

    def __init__(self, aliases: Mapping[str, str] | None = None) -> None:
        super().__init__(FORMATS, case_sensitive=False)
        self.aliases = {key.lower(): value for key, value in (aliases or {}).items()}

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            value = self.aliases.get(value.lower(), value)
        return str(super().convert(value, param, ctx)).lower()


def format_option(aliases: Mapping[str, str] | None = None) -> Callable[[F], F]:
    """`--format table|json|csv`, table by default; the value reaches the command as
    `output_format`."""
    return click.option(
        "--format",
        "output_format",
        type=FormatChoice(aliases),
        default="table",
        show_default=True,
        help="table for people (a rich table on a terminal, plain columns otherwise); json or csv for scripts.",
    )


def cell(value: Any) -> str:
    """A value as a table or csv cell: yes/no, lists joined by commas, nothing for None."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ",".join(str(item) for item in value)
    return str(value)


def emit(
    records: Sequence[Mapping[str, Any]],
    output_format: str,
    columns: Sequence[Column],
    fields: Sequence[str],
    empty: str | None = None,
    stream: TextIO | None = None,
) -> None:
    """Prints the records: json (every key), csv (`fields`), or the table of `columns`
    (`empty`, when given, instead of a table without rows)."""
    out = stream or sys.stdout
    if output_format == "json":
        click.echo(json.dumps(list(records), indent=2), file=out)
    elif output_format == "csv":
        click.echo(csv_text(records, fields, header=True), file=out, nl=False)
    elif not records and empty is not None:
        click.echo(empty, file=out)
    elif is_terminal(out):
        _rich_table(records, columns, out)
    else:
        for line in plain_table(records, columns):
            click.echo(line, file=out)


def csv_text(records: Iterable[Mapping[str, Any]], fields: Sequence[str], header: bool) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if header:
        writer.writerow(fields)
    for record in records:
        writer.writerow([cell(record.get(name)) for name in fields])
    return buffer.getvalue()


def plain_table(records: Sequence[Mapping[str, Any]], columns: Sequence[Column]) -> list[str]:
    """The table as plain text: headings, then rows, columns two blanks apart."""
    rows = [[column.heading for column in columns], *([column.text(r) for column in columns] for r in records)]
    widths = [max(len(row[index]) for row in rows) for index in range(len(columns))]
    return [plain_row(row, columns, widths) for row in rows]


def plain_row(texts: Sequence[str], columns: Sequence[Column], widths: Sequence[int]) -> str:
    cells = [
        text.rjust(width) if column.right else text.ljust(width)
        for text, column, width in zip(texts, columns, widths, strict=True)
    ]
    return "  ".join(cells).rstrip()


def _rich_table(records: Sequence[Mapping[str, Any]], columns: Sequence[Column], out: TextIO) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, no_color=bool(os.environ.get("NO_COLOR")), highlight=False)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, header_style="bold cyan")
    for column in columns:
        table.add_column(column.heading, justify="right" if column.right else "left")
    for record in records:
        table.add_row(*(column.text(record) for column in columns))
    console.print(table)


def is_terminal(stream: TextIO | None) -> bool:
    """A person is at the other end (False for pipes, files, closed or missing streams)."""
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False
