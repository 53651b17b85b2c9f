"""The one message catalogue: every id the code can print is in it, ids are unique and
well formed, every template is a valid format string, and every call that names an id
passes the fields its template needs."""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from mqtool import messages
from mqtool.messages import CATALOGUE, ECHO

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(
    path
    for folder in ("mqtool", "commands", "state")
    for path in (ROOT / folder).rglob("*.py")
    if "__pycache__" not in path.parts
)
ID = re.compile(r"[A-Z]{3,5}[0-9]{3,4}[IEWA]")
ID_IN_TEXT = re.compile(r"(?<![A-Za-z0-9])([A-Z]{3,5}[0-9]{3,4}[IEWA])(?![A-Za-z0-9])")
# Keyword arguments of the helpers that build messages which are not template fields:
# Response.add(id, csect=, **fields); the dialects' failure(..., status=, csect=, **fields).
NOT_FIELDS = {"add": {"csect"}}
NOT_FIELDS_OTHERWISE = {"status", "csect"}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _strings(path: Path) -> Iterator[tuple[int, str]]:
    """String literals of a source file (f-string parts included), docstrings excluded."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value


def _catalogue_source() -> Path:
    return Path(messages.__file__)


def test_ids_used_in_the_code_are_in_the_catalogue() -> None:
    missing = []
    for path in SOURCES:
        if path == _catalogue_source():
            continue
        for line, text in _strings(path):
            for msg_id in ID_IN_TEXT.findall(text):
                if msg_id not in CATALOGUE:
                    missing.append(f"{path.relative_to(ROOT)}:{line}: {msg_id}")
    assert not missing, "ids printed but not in mqtool/messages.py:\n" + "\n".join(missing)


def test_ids_are_well_formed() -> None:
    for msg_id in CATALOGUE:
        if msg_id == ECHO:
            continue
        assert ID.fullmatch(msg_id), msg_id


def test_ids_are_unique_in_the_source() -> None:
    """A repeated key in the dict literal would silently replace the first entry."""
    tree = ast.parse(_catalogue_source().read_text(encoding="utf-8"))
    keys: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == "CATALOGUE":
            assert isinstance(node.value, ast.Dict)
            for key in node.value.keys:
                if isinstance(key, ast.Constant):
                    keys.append(str(key.value))
                elif isinstance(key, ast.Name):
                    keys.append(key.id)
    assert keys, "CATALOGUE literal not found"
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    assert not repeated, f"ids defined twice: {repeated}"
    assert len(keys) == len(CATALOGUE)


def _fields(template: str) -> list[str]:
    names = []
    for _, name, spec, _ in string.Formatter().parse(template):
        if name is not None:
            names.append(name)
            if spec:
                names.extend(field for _, field, _, _ in string.Formatter().parse(spec) if field)
    return names


@pytest.mark.parametrize("msg_id", sorted(CATALOGUE))
def test_template_and_meaning(msg_id: str) -> None:
    entry = CATALOGUE[msg_id]
    fields = _fields(entry.template)  # raises on a malformed format string
    for name in fields:
        assert name.isidentifier(), f"{msg_id}: field {name!r} is not a plain name"
    # Formatting with every field filled in works (no positional or attribute fields).
    text = entry.template.format(**{name: "X" for name in fields})
    assert text.strip() or msg_id == ECHO
    meaning = entry.meaning.strip()
    assert meaning and "\n" not in meaning, f"{msg_id}: the meaning is one line"
    assert meaning.endswith("."), f"{msg_id}: the meaning is a sentence"


def test_text_fills_the_fields() -> None:
    assert messages.text("MQSC0018E", {"object": "QL", "name": "PAYQ"}) == "QL-PAYQ NOT FOUND"


@dataclass
class Use:
    where: str
    msg_id: str
    passed: set[str]


def _uses() -> Iterator[Use]:
    """Calls that name a message id as a literal: response.add("ID", f=...),
    failure("ID", ..., f=...), failure(command, "ID", ..., f=...), Message("ID", {...})."""
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            literal = [
                (index, arg.value)
                for index, arg in enumerate(node.args[:2])
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and ID.fullmatch(arg.value)
            ]
            if not literal:
                continue
            index, msg_id = literal[0]
            if any(keyword.arg is None for keyword in node.keywords):
                continue  # **fields: cannot be checked statically
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            passed = {keyword.arg for keyword in node.keywords if keyword.arg is not None}
            passed -= NOT_FIELDS.get(callee, NOT_FIELDS_OTHERWISE)
            if callee == "Message":
                rest = node.args[index + 1 : index + 2]
                if not rest or not isinstance(rest[0], ast.Dict) or None in rest[0].keys:
                    continue
                passed = {str(key.value) for key in rest[0].keys if isinstance(key, ast.Constant)}
            yield Use(f"{path.relative_to(ROOT)}:{node.lineno}", msg_id, passed)


def test_calls_pass_the_fields_their_template_needs() -> None:
    problems = []
    uses = list(_uses())
    assert uses, "no message uses found: the scan is broken"
    for use in uses:
        if use.msg_id not in CATALOGUE:
            problems.append(f"{use.where}: {use.msg_id} is not in the catalogue")
            continue
        needed = set(_fields(CATALOGUE[use.msg_id].template))
        if needed - use.passed:
            problems.append(f"{use.where}: {use.msg_id} needs {sorted(needed - use.passed)}")
    assert not problems, "\n".join(problems)


def test_no_message_id_is_written_twice() -> None:
    """A dict literal keeps the last of two equal keys silently: two features that took
    the same new id would lose one meaning without this check."""
    import ast
    import inspect

    from mqtool import messages

    tree = ast.parse(inspect.getsource(messages))
    seen: dict[str, int] = {}
    twice = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key in node.keys:
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value[:3].isalpha():
                    if key.value in seen:
                        twice.append(f"{key.value} (lines {seen[key.value]} and {key.lineno})")
                    seen.setdefault(key.value, key.lineno)
    assert not twice, "message ids written twice: " + ", ".join(twice)
