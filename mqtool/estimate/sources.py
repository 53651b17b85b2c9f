"""Where the messages come from: files (one message each, or split into lines or
fixed-length records), folders (recursively), globs, or a generated corpus. The inputs
are cut into work units of a few megabytes that a worker reads on its own, so neither
the payloads nor a list of every file pass through the main process."""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from mqtool.estimate.settings import MAX_MESSAGE, human

UNIT_BYTES = 8 * 1024 * 1024  # payload per work unit
UNIT_FILES = 512  # whole files per work unit
_READ = 1024 * 1024  # bytes per read when skipping to a line start
_GLOB = set("*?[")

Error = tuple[str, str]  # (source, reason)


@dataclass(frozen=True)
class Files:
    """Whole files, one message each."""

    paths: tuple[str, ...]
    size: int  # bytes, for progress


@dataclass(frozen=True)
class Span:
    """Bytes [start, end) of one file, split into lines (`record` 0) or records."""

    path: str
    start: int
    end: int
    record: int  # 0: one message per line

    @property
    def size(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class Generated:
    """Messages `first` .. `first + count - 1` of a generated corpus."""

    pattern: str
    length: int
    seed: int
    first: int
    count: int

    @property
    def size(self) -> int:
        return self.length * self.count


Unit = Files | Span | Generated


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def files_of(paths: tuple[str, ...], errors: Callable[[str, str], None]) -> Iterator[tuple[str, int]]:
    """(path, size) of every regular file the arguments name: a file, the files below a
    folder (recursively, in name order, symbolic links to folders not followed) or the
    matches of a glob (`**` descends). What cannot be found or is not a file goes to
    `errors` and the rest goes on."""
    for argument in paths:
        if os.path.lexists(argument) or not _GLOB & set(argument):
            targets = [argument]
        else:
            targets = sorted(glob.glob(argument, recursive=True))
            if not targets:
                errors(argument, "no file matches")
                continue
        for target in targets:
            if os.path.isdir(target):
                yield from _walk(target, errors)
            else:
                found = _regular(target, errors)
                if found is not None:
                    yield found


def _walk(folder: str, errors: Callable[[str, str], None]) -> Iterator[tuple[str, int]]:
    def failed(exc: OSError) -> None:
        errors(exc.filename or folder, _reason(exc))

    for root, dirs, names in os.walk(folder, onerror=failed):
        dirs.sort()
        for name in sorted(names):
            found = _regular(os.path.join(root, name), errors)
            if found is not None:
                yield found


def _regular(path: str, errors: Callable[[str, str], None]) -> tuple[str, int] | None:
    try:
        info = os.stat(path)
    except OSError as exc:
        errors(path, _reason(exc))
        return None
    if not os.path.isfile(path):
        errors(path, "not a regular file")
        return None
    return path, info.st_size


def units(paths: tuple[str, ...], split_lines: bool, split: int, errors: Callable[[str, str], None]) -> Iterator[Unit]:
    """The work units of the files the arguments name."""
    batch: list[str] = []
    batch_bytes = 0
    for path, size in files_of(paths, errors):
        if split_lines or split:
            record = 0 if split_lines else split
            step = UNIT_BYTES if split_lines else max(1, UNIT_BYTES // split) * split
            for start in range(0, size, step):
                yield Span(path, start, min(size, start + step), record)
            continue
        if size > MAX_MESSAGE:
            errors(path, f"{size} bytes is more than {human(MAX_MESSAGE)}, the largest MQ message "
                   "(use --split or --split-lines)")  # fmt: skip
            continue
        batch.append(path)
        batch_bytes += size
        if batch_bytes >= UNIT_BYTES or len(batch) >= UNIT_FILES:
            yield Files(tuple(batch), batch_bytes)
            batch, batch_bytes = [], 0
    if batch:
        yield Files(tuple(batch), batch_bytes)


def generated_units(pattern: str, sizes: list[int], count: int, seed: int) -> Iterator[Generated]:
    for length in sizes:
        step = max(1, UNIT_BYTES // max(1, length))
        for first in range(0, count, step):
            yield Generated(pattern, length, seed, first, min(step, count - first))


def messages(unit: Unit, errors: Callable[[str, str], None]) -> Iterator[bytes]:
    """The messages of a unit, read lazily; a file that fails goes to `errors`."""
    if isinstance(unit, Generated):
        from mqtool.engine.payload import generate

        for index in range(unit.first, unit.first + unit.count):
            yield generate(unit.pattern, unit.length, unit.seed, index)
        return
    if isinstance(unit, Files):
        for path in unit.paths:
            try:
                with open(path, "rb") as handle:
                    data = handle.read(MAX_MESSAGE + 1)
            except OSError as exc:
                errors(path, _reason(exc))
                continue
            if len(data) > MAX_MESSAGE:
                errors(path, f"more than {human(MAX_MESSAGE)}, the largest MQ message (use --split or --split-lines)")
                continue
            yield data
        return
    try:
        with open(unit.path, "rb") as handle:
            yield from (_lines(handle, unit, errors) if unit.record == 0 else _records(handle, unit))
    except OSError as exc:
        errors(unit.path, _reason(exc))


def _records(handle: BinaryIO, unit: Span) -> Iterator[bytes]:
    handle.seek(unit.start)
    position = unit.start
    while position < unit.end:
        data = handle.read(min(unit.record, unit.end - position))
        if not data:
            return
        position += len(data)
        yield data


def _lines(handle: BinaryIO, unit: Span, errors: Callable[[str, str], None]) -> Iterator[bytes]:
    """The lines that start in [start, end): a line belongs to the unit it starts in. The
    line end (LF or CR LF) is not part of the message, as for `mqtool put`."""
    read = handle.readline
    position = unit.start
    if position:
        handle.seek(position - 1)
        if handle.read(1) != b"\n":
            while True:  # skip the rest of the line that started in the unit before
                piece = read(_READ)
                position += len(piece)
                if not piece or piece.endswith(b"\n"):
                    break
    while position < unit.end:
        line = read(MAX_MESSAGE + 2)
        if not line:
            return
        at = position
        position += len(line)
        if line.endswith(b"\r\n"):
            line = line[:-2]
        elif line.endswith(b"\n"):
            line = line[:-1]
        if len(line) > MAX_MESSAGE:
            errors(unit.path, f"the line at byte {at} is longer than {human(MAX_MESSAGE)}, the largest MQ message")
            return
        yield line
