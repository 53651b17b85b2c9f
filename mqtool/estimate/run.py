"""Runs the work units: in process, or over a pool of worker processes (one per core by
default) that each read and measure their own units and send back only their tallies.
At most a few units are in flight at once, so memory stays bounded however many files
a folder holds. Processes rather than threads: the codecs release the GIL only on large
buffers and the RLE codec never does (benchmarks/bench_estimate.py measures both)."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait

from mqtool.estimate.measure import Measurer, Partial
from mqtool.estimate.settings import Settings
from mqtool.estimate.sources import Unit, messages

AHEAD = 2  # units queued per worker beyond the one it is measuring


def measure_unit(unit: Unit, settings: Settings) -> Partial:
    """Measures every message of one unit (the worker's entry point)."""
    measurer = Measurer(settings)
    partial = measurer.partial

    def failed(source: str, reason: str) -> None:
        partial.errors.append((source, reason))

    add = measurer.add
    for data in messages(unit, failed):
        add(data)
    return partial


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def estimate(
    units: Iterable[Unit],
    settings: Settings,
    jobs: int = 1,
    threads: bool = False,
    done: Callable[[Unit, Partial], None] | None = None,
) -> Partial:
    """Measures all units and merges their tallies. `jobs` 1 measures in this process;
    more use a pool of that many processes (or threads, for the benchmark). `done` is
    called after each unit, in this process (progress, error lines)."""
    total = Partial()
    stream = iter(units)
    if jobs <= 1:
        for unit in stream:
            part = measure_unit(unit, settings)
            total.merge(part)
            if done is not None:
                done(unit, part)
        return total
    # A pool costs a start-up of its own: one unit is measured here.
    head = [unit for _, unit in zip(range(2), stream, strict=False)]
    if len(head) < 2:
        return estimate(head, settings, 1, done=done)
    executor: Executor
    if threads:
        executor = ThreadPoolExecutor(jobs)
    else:
        # spawn, not fork: the progress bar's thread may be running.
        executor = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
    with executor:
        pending: dict[Future[Partial], Unit] = {}
        queued = _chain(head, stream)
        for unit in queued:
            pending[executor.submit(measure_unit, unit, settings)] = unit
            if len(pending) >= jobs * (1 + AHEAD):
                _collect(pending, total, done)
        while pending:
            _collect(pending, total, done)
    return total


def _chain(head: list[Unit], rest: Iterator[Unit]) -> Iterator[Unit]:
    yield from head
    yield from rest


def _collect(
    pending: dict[Future[Partial], Unit], total: Partial, done: Callable[[Unit, Partial], None] | None
) -> None:
    finished, _ = wait(list(pending), return_when=FIRST_COMPLETED)
    for future in finished:
        unit = pending.pop(future)
        part = future.result()
        total.merge(part)
        if done is not None:
            done(unit, part)
