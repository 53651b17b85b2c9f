"""The report as a rich table (plain columns off a terminal), Markdown, CSV or JSON. The
engine and the report never print; this module only formats."""

from __future__ import annotations

import csv
import dataclasses
import json
import os
from typing import IO, Any

from mqtool import messages
from mqtool.estimate.measure import TECHNIQUES
from mqtool.estimate.report import TITLES, Column, Report


def cell(column: Column, value: Any) -> str:
    """A figure as the table and Markdown show it."""
    if value is None:
        return "-"
    if column.kind == "int":
        return f"{value:,}"
    if column.kind == "pct":
        return f"{value:.1f}%"
    if column.kind == "num1":
        return f"{value:,.1f}"
    if column.kind == "num2":
        return f"{value:,.2f}"
    return str(value)


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


def message_line(msg_id: str, **fields: Any) -> str:
    """`MSGID text` of a catalogue message, as mqtool's own lines read."""
    return f"{msg_id} {messages.text(msg_id, fields)}"


def summary(report: Report, origin: str) -> str:
    """MQT0600I: what was estimated, and from where."""
    partial = report.partial
    return message_line(
        "MQT0600I",
        messages=plural(partial.messages, "message"),
        bytes=plural(partial.bytes, "byte"),
        origin=origin,
        skipped=f"; {plural(len(partial.errors), 'input')} could not be read" if partial.errors else "",
    )


def advice(report: Report) -> str | None:
    found = report.recommendation
    if found is None:
        return None
    return f"Best COMPSIZE for --goal {found.goal}: {found.reason}"


def _lines(report: Report, column_list: list[Column]) -> list[list[str]]:
    rows = [[cell(column, row.get(column.key)) for column in column_list] for row in report.rows]
    rows.append([cell(column, report.total.get(column.key)) for column in column_list])
    return rows


def table(report: Report, origin: str, stream: IO[str]) -> None:
    """One rich table per report; plain, uncoloured columns when not on a terminal."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    terminal = stream.isatty()
    console = Console(
        file=stream, no_color=bool(os.environ.get("NO_COLOR")), width=None if terminal else 250, highlight=False
    )
    console.print(summary(report, origin), markup=False)
    for name in report.settings.reports:
        column_list = report.columns(name, table=True)
        console.print()
        console.print(f"{TITLES[name]}", style="bold", markup=False)
        console.print(report.notes[name], markup=False)
        grid = Table(box=box.SIMPLE_HEAD if terminal else None, pad_edge=False, header_style="bold cyan")
        for column in column_list:
            grid.add_column(column.heading, justify="left" if column.kind == "text" else "right")
        lines = _lines(report, column_list)
        for index, cells in enumerate(lines):
            grid.add_row(*cells, style="bold" if index == len(lines) - 1 else None)
        console.print(grid)
    closing = advice(report)
    if closing:
        console.print()
        console.print(closing, markup=False)


def markdown(report: Report, origin: str, stream: IO[str]) -> None:
    out = [summary(report, origin)]
    for name in report.settings.reports:
        column_list = report.columns(name, table=True)
        out += ["", f"### {TITLES[name]}", "", f"_{report.notes[name]}_", ""]
        out.append("| " + " | ".join(column.heading for column in column_list) + " |")
        out.append("|" + "|".join(":---" if column.kind == "text" else "---:" for column in column_list) + "|")
        lines = _lines(report, column_list)
        lines[-1] = [f"**{value}**" for value in lines[-1]]
        out += ["| " + " | ".join(line) + " |" for line in lines]
    line = advice(report)
    if line:
        out += ["", line]
    stream.write("\n".join(out) + "\n")


def spreadsheet_heading(column: Column) -> str:
    """A CSV heading in words: the JSON key with blanks, technique names as MQ spells
    them, and % for percentages."""
    names = {"ios": "I/Os", "io": "I/O", "swbs": "SWBs", "swb": "SWB", "us": "microseconds per message"}
    names.update({technique.lower(): technique for technique in TECHNIQUES})
    words = " ".join(names.get(word, word) for word in column.key.split("_"))
    return f"{words} %" if column.kind == "pct" else words


def csv_text(report: Report, stream: IO[str]) -> None:
    """One row per size class and a total row; headings a spreadsheet user can read."""
    column_list = report.columns()
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow([spreadsheet_heading(column) for column in column_list])
    for row in [*report.rows, report.total]:
        writer.writerow(["" if row.get(column.key) is None else row.get(column.key) for column in column_list])


def json_text(report: Report, origin: str, stream: IO[str]) -> None:
    from mqtool.estimate.report import machine

    settings = dataclasses.asdict(report.settings)
    settings["technique"] = report.settings.technique
    partial = report.partial
    column_list = report.columns()
    document = {
        "summary": {
            "messages": partial.messages,
            "bytes": partial.bytes,
            "origin": origin,
            "unconverted": partial.unconverted,
            "errors": [{"source": source, "reason": reason} for source, reason in partial.errors],
        },
        "settings": settings,
        "machine": machine() if report.settings.timed else None,
        "columns": {column.key: column.heading for column in column_list},
        "classes": [{column.key: row.get(column.key) for column in column_list} for row in report.rows],
        "total": {column.key: report.total.get(column.key) for column in column_list},
        "recommendation": dataclasses.asdict(report.recommendation) if report.recommendation else None,
        "notes": {name: report.notes[name] for name in report.settings.reports},
    }
    stream.write(json.dumps(document, indent=2) + "\n")
