"""Reading the complex document `mqtool apply` takes: YAML (or JSON, which is YAML)
parsed with the marks of every node, so that a malformed document, a schema violation
(checked with the jsonschema library against the published schema) or a value the
settings checks refuse is reported as FILE:LINE:COLUMN: what is wrong."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from mqtool import inputs

# The largest document read (an export of tens of thousands of objects with every
# attribute is a few tens of MB); a larger file, or a device that never ends, is refused.
MAX_DOCUMENT = 64 * 1024 * 1024

Path_ = tuple[Any, ...]  # a place in the document: keys and list indexes from the top


@dataclass(frozen=True)
class Problem:
    line: int  # 1-based
    column: int  # 1-based
    text: str

    def shown(self, source: str) -> str:
        return f"{source}:{self.line}:{self.column}: {self.text}"


class DocumentError(Exception):
    """The document cannot be applied; `problems` say where and why (in document order)."""

    def __init__(self, source: str, problems: list[Problem]) -> None:
        self.source = source
        self.problems = sorted(problems, key=lambda p: (p.line, p.column, p.text))
        super().__init__("\n".join(p.shown(source) for p in self.problems))


@dataclass
class Document:
    """The parsed document and where each of its nodes starts."""

    source: str
    data: Any
    marks: dict[Path_, tuple[int, int]] = field(default_factory=dict)  # value node
    key_marks: dict[Path_, tuple[int, int]] = field(default_factory=dict)  # mapping key node

    def where(self, path: Path_, key: bool = False) -> tuple[int, int]:
        """The (line, column) of a path, or of its nearest ancestor the document has."""
        probe = tuple(path)
        while True:
            found = (self.key_marks if key else self.marks).get(probe) or self.marks.get(probe)
            if found is not None:
                return found
            if not probe:
                return (1, 1)
            probe = probe[:-1]

    def problem(self, path: Path_, text: str, key: bool = False) -> Problem:
        line, column = self.where(path, key)
        return Problem(line, column, text)


def read(path: Path) -> Document:
    """Reads and checks a document (a regular file of at most MAX_DOCUMENT bytes);
    DocumentError says everything wrong with it, inputs.InputError why it cannot be
    read."""
    return decoded(str(path), inputs.read_file(path, MAX_DOCUMENT, "the largest document mqtool apply reads"))


def read_stream(stream: BinaryIO, source: str = "-") -> Document:
    """A document from a stream (standard input), read up to MAX_DOCUMENT bytes."""
    data = stream.read(MAX_DOCUMENT + 1)
    if len(data) > MAX_DOCUMENT:
        raise inputs.InputError(f"more than {MAX_DOCUMENT:,} bytes (the largest document mqtool apply reads)")
    return decoded(source, data)


def decoded(source: str, data: bytes) -> Document:
    """Parses and checks the bytes of a document (UTF-8, a byte order mark allowed)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise DocumentError(source, [Problem(1, 1, "not UTF-8 text")]) from None
    document = parse(source, text)
    check(document)
    return document


def parse(source: str, text: str) -> Document:
    """YAML to plain values with marks. YES, NO, ON and OFF stay words (they are MQ
    values here), as in the keyword tables; a key given twice is an error; aliases are
    bounded (mqtool.yamldoc)."""
    import yaml

    from mqtool import yamldoc

    try:
        loader, node = yamldoc.compose(text)
    except yamldoc.AliasBudgetError as exc:
        raise DocumentError(source, [Problem(exc.line, exc.column, f"not accepted: {exc.text}")]) from None
    except yaml.YAMLError as exc:
        raise DocumentError(source, [_yaml_problem(exc)]) from None
    try:
        if node is None:
            raise DocumentError(source, [Problem(1, 1, "the document is empty")])
        document = Document(source, None)
        problems: list[Problem] = []
        document.data = _build(loader, node, (), document, problems)
    except yaml.YAMLError as exc:
        raise DocumentError(source, [_yaml_problem(exc)]) from None
    finally:
        loader.dispose()
    if problems:
        raise DocumentError(source, problems)
    return document


def _yaml_problem(exc: Exception) -> Problem:
    import yaml

    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        reason = " ".join(part for part in (exc.context, exc.problem) if part) or "not valid YAML"
        return Problem(line, column, f"not valid YAML: {reason}")
    return Problem(1, 1, f"not valid YAML: {exc}")


def _build(loader: Any, node: Any, path: Path_, document: Document, problems: list[Problem]) -> Any:
    import yaml

    document.marks[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        loader.flatten_mapping(node)  # merge keys (<<) in mqtool's defined order
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            mark = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            if not isinstance(key, (str, int)):
                problems.append(Problem(*mark, "a key must be text"))
                continue
            # Names such as page set 0 or a queue 2021 are text, whatever YAML reads.
            key = str(key)
            if key in out:
                problems.append(Problem(*mark, f"{key!r} is given twice"))
                continue
            document.key_marks[(*path, key)] = mark
            out[key] = _build(loader, value_node, (*path, key), document, problems)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(loader, item, (*path, index), document, problems) for index, item in enumerate(node.value)]
    return loader.construct_object(node, deep=True)


def check(document: Document) -> None:
    """Validates the document against the published JSON Schema; every violation is a
    problem at the node it concerns (an unknown key at that key)."""
    import jsonschema

    from mqtool.apply.schema import load_schema

    validator = jsonschema.Draft202012Validator(load_schema())
    problems: list[Problem] = []
    for error in validator.iter_errors(document.data):
        path = tuple(error.absolute_path)
        if error.validator == "additionalProperties" and isinstance(error.instance, dict):
            allowed = sorted((error.schema.get("properties") or {}).keys())
            extra = [key for key in error.instance if key not in allowed]
            for key in extra:
                what = _what(path)
                hint = f"; {what}s: {', '.join(allowed)}" if allowed else ""
                problems.append(document.problem((*path, key), f"unknown {what} {key!r}{hint}", key=True))
            continue
        if error.validator in ("pattern", "maxLength", "minLength", "not") and _is_key(error):
            key = str(error.instance)
            problems.append(document.problem((*path, key), f"{key!r} is not a valid {_what(path)} name", key=True))
            continue
        problems.append(document.problem(path, _message(error)))
    if problems:
        raise DocumentError(document.source, problems)


def _is_key(error: Any) -> bool:
    """Whether the error is about a mapping key (a propertyNames check), not a value."""
    return "propertyNames" in error.schema_path


def _what(path: Path_) -> str:
    """What the keys at `path` are, in the document's words."""
    if not path:
        return "key"
    if path[0] == "systems" and len(path) == 1:
        return "system"
    if len(path) == 3 and path[2] == "settings":
        return "setting"
    if len(path) == 4 and path[2] == "settings":
        return f"{path[3]} parameter"
    if len(path) == 3 and path[2] == "objects":
        return "object type"
    if len(path) == 4 and path[2] == "objects":
        return f"{path[3]} object"
    if len(path) == 5 and path[2] == "objects":
        return f"{path[3]} attribute"
    return "key"


def _message(error: Any) -> str:
    instance = error.instance
    shown = repr(instance) if isinstance(instance, str) else str(instance)
    name = str(error.absolute_path[-1]) if error.absolute_path else "the document"
    if error.validator == "enum":
        return f"{name}: {shown} is not one of {', '.join(str(v) for v in error.validator_value)}"
    if error.validator == "const":
        return f"{name}: must be {error.validator_value!r}, not {shown}"
    if error.validator == "type":
        return f"{name}: {shown} is not {_article(str(error.validator_value))}"
    if error.validator in ("minimum", "maximum"):
        words = "at least" if error.validator == "minimum" else "at most"
        return f"{name}: {shown} is out of range ({words} {error.validator_value})"
    if error.validator == "maxLength":
        return f"{name}: {shown} is longer than {error.validator_value} characters"
    if error.validator == "anyOf":
        options = [s.get("enum") or f"{s.get('minimum')}-{s.get('maximum')}" for s in error.validator_value]
        allowed = " or ".join(", ".join(o) if isinstance(o, list) else str(o) for o in options)
        return f"{name}: {shown} is not valid: {allowed}"
    if error.validator == "required":
        return f"{error.message.split(' is a required')[0]} is required here"
    return f"{name}: {error.message}"


def _article(kind: str) -> str:
    words = {"integer": "a whole number", "string": "text", "object": "a mapping", "array": "a list"}
    return words.get(kind, f"a {kind}")
