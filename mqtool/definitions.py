"""A line of an exported command file, with the object it describes: what the dialects'
export modules write, so that `mqtool export` can filter lines by object type and
name and join an object's lines into one (`--format 1line`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class ExportLine:
    """`head` is the command up to the object (`ZMQSC DEFINE QL-PAY.IN`, `-CSQ1 ALTER
    QMGR`), `attrs` its KEYWORD-value or KEYWORD(value) words; a comment has no type."""

    head: str
    attrs: list[str] = field(default_factory=list)
    type: str | None = None
    name: str | None = None

    @property
    def text(self) -> str:
        return " ".join([self.head, *self.attrs])


def one_line_per_object(lines: list[ExportLine]) -> list[ExportLine]:
    """The lines with each object's later lines (an ALTER QMGR DEADQ written last so
    that the queue exists) joined to its first one: one line per object."""
    out: list[ExportLine] = []
    first: dict[tuple[str, str], ExportLine] = {}
    for line in lines:
        key = (line.type, line.name) if line.type is not None and line.name is not None else None
        if key is None or key not in first:
            copy = ExportLine(line.head, list(line.attrs), line.type, line.name)
            out.append(copy)
            if key is not None:
                first[key] = copy
            continue
        first[key].attrs.extend(word for word in line.attrs if word not in first[key].attrs)
    return out
