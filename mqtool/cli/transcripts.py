"""What `mqtool run` and `mqtool cmd` add for automation: folders of command files run
in name order, a syntax check of every file before any runs, the transcript as JSON
(runCommandJSON responses), and golden checks of a transcript against an expected
file (a unified diff, or the file rewritten with --update)."""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mqtool.cli.runner import Summary, run_lines
from mqtool.parse.lines import SourceCommand
from mqtool.session import Outcome, Session

Emit = Callable[[str], None]


class SourceError(Exception):
    """A path given to `mqtool run` that cannot be run (the CLI makes it exit 20)."""


def expand_paths(paths: tuple[str, ...]) -> list[str]:
    """The files to run: a folder stands for its `*.mqsc` files in name order, as IBM's
    container runs its autoconfig folder (a folder without any is an error)."""
    out: list[str] = []
    for path in paths:
        folder = Path(path)
        if path != "-" and folder.is_dir():
            found = sorted(p for p in folder.glob("*.mqsc") if p.is_file())
            if not found:
                raise SourceError(f"{path} holds no *.mqsc files")
            out.extend(str(p) for p in found)
        else:
            out.append(path)
    return out


def syntax_check(session: Session, texts: list[tuple[str, list[str]]], emit: Emit) -> int:
    """`--verify-first`: checks every file as `run -v` does, without changing anything;
    emits the report of each file that has a syntax error; returns how many errors."""
    errors = 0
    for path, lines in texts:
        report: list[str] = []
        summary = run_lines(session, lines, report.append, verify=True)
        if summary.syntax:
            errors += summary.syntax
            emit(f"Verifying {path}:")
            emit("")
            for line in report:
                emit(line)
            emit("")
            for line in summary.lines():
                emit(line)
            emit("")
    return errors


@dataclass
class JsonRun:
    """`run --format json`: one document for the whole run, a list of files with each
    command's runCommandJSON response and the file's summary."""

    session: Session
    files: list[dict[str, Any]] = field(default_factory=list)

    def start(self, path: str) -> None:
        current = self.session.current_system()
        self.files.append({"file": path, "system": current.name if current else None, "commands": []})

    def observe(self, source: SourceCommand, outcome: Outcome) -> None:
        from mqtool.render.json import outcome_json

        entry = {"line": source.line, "command": source.text, "system": outcome.system or None}
        self.files[-1]["commands"].append(entry | {"response": outcome_json(self.session, outcome)})

    def finish(self, summary: Summary) -> None:
        self.files[-1]["summary"] = summary_json(summary)

    def text(self, total: Summary) -> str:
        return dumps({"files": self.files, "summary": summary_json(total), "exitStatus": total.exit_code})


def summary_json(summary: Summary) -> dict[str, int]:
    return {"read": summary.read, "syntaxErrors": summary.syntax, "notProcessed": summary.failed}


def dumps(document: Any) -> str:
    """JSON as mqtool prints it: two-space indents, keys in the order IBM gives them."""
    return json.dumps(document, indent=2, ensure_ascii=False)


def compare(expected_path: Path, transcript: str, update: bool, emit: Emit) -> int:
    """The golden check: 0 when `transcript` equals the expected file (or --update
    rewrote it), 1 with a unified diff (expected -> actual) when it differs. An
    unreadable expected file raises OSError (--update creates a missing one)."""
    if update:
        expected_path.write_text(transcript, encoding="utf-8")
        emit(f"Updated {expected_path}.")
        return 0
    expected = expected_path.read_text(encoding="utf-8")
    if expected == transcript:
        emit(f"Transcript matches {expected_path}.")
        return 0
    diff = difflib.unified_diff(
        expected.splitlines(keepends=True),
        transcript.splitlines(keepends=True),
        fromfile=str(expected_path),
        tofile="transcript",
    )
    for line in diff:
        emit(line.rstrip("\n") if line.endswith("\n") else line + "\n\\ No newline at end of file")
    return 1


def json_lines(session: Session, emit: Emit) -> Callable[[SourceCommand, Outcome], None]:
    """`cmd --format json`: each command's runCommandJSON response, one line of JSON each."""
    from mqtool.render.json import outcome_json

    def observe(source: SourceCommand, outcome: Outcome) -> None:
        emit(json.dumps(outcome_json(session, outcome), ensure_ascii=False))

    return observe
