"""Where the wire work of a channel batch runs: the compression of the sending side and
the inflation of the receiving side (`wire.carry`), beside the store work of the
batch, which stays in the process that holds the transaction.

Three ways, the same bytes from each (`carry` is pure):

- a helper process (Linux): `python -m mqtool.engine.channels.offload`, started the
  first time a batch has enough to carry, ended when its parent ends (it reads end of
  file on its pipe, also after a kill -9 of the parent). The messages travel through
  a shared memory file (memfd) of SLOTS slots, one chunk of messages per slot; the
  pipes carry only the small description of each chunk and of its results. A
  message the receiving side inflated to the very bytes the sending side read is not
  copied back (the parent puts its own copy of the same bytes). A batch may leave
  chunks under way when it gives the helper back (`Carrier.close(keep=True)`: the
  channel's next batch, read ahead while this one commits); their answers are read
  in order by whoever waits for a later chunk, and kept in their `Pending`.
- a thread beside the store work, when there is no helper (another system, the
  helper cannot start or has ended, another batch of this process holds it, a message
  larger than a slot, a chunk too small to be worth it). zlib-ng and isal release the
  interpreter while they work, but the hand-offs of the interpreter lock between the
  thread and the store work cost the store work about as much as the thread saves
  on a 2-core machine; the helper has no lock to share.
- at once, for a chunk with nothing to compress or inflate.

Measured by `python benchmarks/bench_channels.py` (benchmarks/README.md has the figures).
MQTOOL_CHANNEL_HELPER=0 turns the helper off (the thread does the work); `always` uses
it for every batch with wire work, however small (the tests do).
"""

from __future__ import annotations

import atexit
import mmap
import os
import pickle
import signal
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import IO

from mqtool.engine import codecs
from mqtool.engine.channels import wire

HELPER_VARIABLE = "MQTOOL_CHANNEL_HELPER"
SLOT_BYTES = 1024 * 1024  # the stored bytes of one chunk, and as much for what it inflates
SLOTS = 6  # 12 MiB of shared memory, touched only as far as the chunks reach
HELPER_MIN_BYTES = 2 * 1024 * 1024  # a batch carries at least this much before the helper starts
_LENGTH = struct.Struct("<I")


@dataclass(frozen=True)
class Job:
    """One message to carry: as stored on the transmission queue, and how."""

    stored: bytes
    codec: str  # as stored ("" when not compressed)
    length: int  # the original length
    technique: str  # the channel's technique for this message
    compsize: int
    inflate: bool  # the receiving side inflates it

    @property
    def idle(self) -> bool:
        """Nothing to compress nor inflate: the bytes go as they are."""
        return self.technique == wire.NONE and not self.codec and len(self.stored) == self.length

    @property
    def footprint(self) -> int:
        return max(len(self.stored), self.length)


Result = wire.Carried | wire.CarryError


class Pending:
    """The wire work of one chunk, under way; `result()` waits for it."""

    def result(self) -> list[Result]:
        raise NotImplementedError


class _Ready(Pending):
    def __init__(self, results: list[Result]) -> None:
        self._results = results

    def result(self) -> list[Result]:
        return self._results


class _Threaded(Pending):
    def __init__(self, future: Future[list[Result]]) -> None:
        self._future = future

    def result(self) -> list[Result]:
        return self._future.result()


def carry_all(jobs: Sequence[Job], frozen: bool) -> list[Result]:
    """The chunk's wire work in this thread."""
    perf = _frozen_perf if frozen else time.perf_counter
    results: list[Result] = []
    for job in jobs:
        try:
            results.append(wire.carry(job.stored, job.codec, job.length, job.technique, job.compsize, job.inflate,
                                      perf))  # fmt: skip
        except wire.CarryError as error:
            results.append(error)
    return results


def _frozen_perf() -> float:
    return 0.0


def _idle(job: Job) -> wire.Carried:
    return wire.Carried("", job.length, False, False, job.stored, 0, 0)


class Carrier:
    """The wire work of one batch, chunk after chunk, in order. Holds the helper for
    the batch when it can have it; `close()` gives it back."""

    def __init__(self, frozen: bool, expected_bytes: int) -> None:
        self.frozen = frozen
        wanted = os.environ.get(HELPER_VARIABLE, "").strip().lower()
        big_enough = expected_bytes >= HELPER_MIN_BYTES or wanted == "always"
        self.wants_helper = big_enough and wanted not in ("0", "no", "off")
        self.helper: _Helper | None = None

    def start(self, jobs: Sequence[Job]) -> Pending:
        if all(job.idle for job in jobs):
            return _Ready([_idle(job) for job in jobs])
        if self.wants_helper:
            self.wants_helper = False  # taken at the first chunk with work to do, once
            self.helper = _Helper.take()
        if self.helper is not None and sum(job.footprint for job in jobs) <= SLOT_BYTES:
            pending = self.helper.submit(jobs, self.frozen)
            if pending is not None:
                return pending
        return _Threaded(_pool().submit(carry_all, list(jobs), self.frozen))

    def start_ahead(self, jobs: Sequence[Job]) -> Pending | None:
        """Starts a chunk of the next batch in the helper, if this batch holds it and a
        slot is free now (never waits, never a thread); None otherwise."""
        if self.helper is None or sum(job.footprint for job in jobs) > SLOT_BYTES:
            return None
        return self.helper.submit(jobs, self.frozen, wait=False)

    def close(self, keep: bool = False) -> None:
        """Gives the helper back; with `keep`, the chunks still under way stay there
        (started with `start_ahead` for the next batch)."""
        if self.helper is not None:
            self.helper.give_back(keep)
            self.helper = None


# -- the thread ------------------------------------------------------------------------------

_POOL: list[ThreadPoolExecutor] = []


def _pool() -> ThreadPoolExecutor:
    if not _POOL:
        _POOL.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="mqtool-channel"))
    return _POOL[0]


# -- the helper process, parent side -----------------------------------------------------------


class _HelperGone(Exception):
    """The helper process ended or answered nonsense: its chunks are carried here."""


class _InHelper(Pending):
    def __init__(self, helper: _Helper, slot: int, jobs: Sequence[Job], frozen: bool) -> None:
        self.helper = helper
        self.slot = slot
        self.jobs = jobs
        self.frozen = frozen
        self.results: list[Result] | None = None

    def result(self) -> list[Result]:
        if self.results is None:
            self.helper.collect(self)
        assert self.results is not None
        return self.results


class _Helper:
    """The helper process and its shared memory; one per process, used by one batch at
    a time."""

    _instance: _Helper | None = None
    _failed = False
    _lock = threading.Lock()

    def __init__(self) -> None:
        self.pid = os.getpid()
        fd = os.memfd_create("mqtool-channel", os.MFD_CLOEXEC)  # type: ignore[attr-defined,unused-ignore]
        try:
            os.ftruncate(fd, SLOTS * 2 * SLOT_BYTES)
            self.region = mmap.mmap(fd, SLOTS * 2 * SLOT_BYTES)
            self.process = subprocess.Popen(
                [sys.executable, "-m", "mqtool.engine.channels.offload", str(fd)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, pass_fds=(fd,),
                close_fds=True, start_new_session=True,  # Ctrl-C at a terminal is for the parent only
            )  # fmt: skip
        finally:
            os.close(fd)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests = self.process.stdin
        self.answers = self.process.stdout
        self.free = deque(range(SLOTS))
        self.waiting: deque[_InHelper] = deque()
        self.busy = False
        # The pipe and the slots: a chunk left under way by one batch (`give_back(keep)`)
        # may be collected by the next, in another thread.
        self.mutex = threading.RLock()
        atexit.register(self.end)

    @classmethod
    def take(cls) -> _Helper | None:
        """The helper for one batch, started the first time; None when there is none
        (not Linux, turned off, failed before, or another batch has it)."""
        if cls._failed or not hasattr(os, "memfd_create"):
            return None
        with cls._lock:
            helper = cls._instance
            if helper is not None and helper.pid != os.getpid():
                helper = cls._instance = None  # a forked child does not share its parent's helper
            if helper is None:
                try:
                    helper = cls._instance = _Helper()
                except (OSError, ValueError, subprocess.SubprocessError):
                    cls._failed = True
                    return None
            if helper.busy:
                return None
            helper.busy = True
            return helper

    def give_back(self, keep: bool = False) -> None:
        """The batch is done with the helper. Its chunks still under way are read now,
        or with `keep` left there (read in order when a later chunk is awaited)."""
        with self.mutex:
            if _Helper._instance is not self:
                self.waiting.clear()  # the batch ended in an error that ended the helper too
            elif not keep:
                for pending in list(self.waiting):
                    pending.result()  # read their answers: the pipe stays in step for the next batch
        with self._lock:
            self.busy = False

    def submit(self, jobs: Sequence[Job], frozen: bool, wait: bool = True) -> Pending | None:
        """Sends a chunk to the helper, once a slot is free (with `wait`, after reading
        the oldest chunk's answer when every slot is in use); None when it cannot."""
        with self.mutex:
            if wait and not self.free and self.waiting:
                self._collect(self.waiting[0])
            if not self.free or _Helper._instance is not self:
                return None
            return self._submit(jobs, frozen)

    def _submit(self, jobs: Sequence[Job], frozen: bool) -> Pending:
        slot = self.free.popleft()
        base = slot * 2 * SLOT_BYTES
        offset = base
        described = []
        for job in jobs:
            end = offset + len(job.stored)
            self.region[offset:end] = job.stored
            described.append((offset, len(job.stored), job.codec, job.length, job.technique, job.compsize,
                               job.inflate))  # fmt: skip
            offset = end
        pending = _InHelper(self, slot, jobs, frozen)
        try:
            request = pickle.dumps((base + SLOT_BYTES, frozen, described), pickle.HIGHEST_PROTOCOL)
            self.requests.write(_LENGTH.pack(len(request)) + request)
            self.requests.flush()
        except (OSError, ValueError):
            self._fail()
            pending.results = carry_all(jobs, frozen)
            self.free.append(slot)
            return pending
        except BaseException:
            self._fail(again=True)  # interrupted part-way (Ctrl-C): the pipe no longer says whole requests
            raise
        self.waiting.append(pending)
        return pending

    def collect(self, pending: _InHelper) -> None:
        """Reads the helper's answers up to this chunk's (they come in order)."""
        with self.mutex:
            self._collect(pending)

    def _collect(self, pending: _InHelper) -> None:
        while pending.results is None:
            if pending not in self.waiting:
                # Its answer can never come (the helper ended and its chunks were let go).
                pending.results = carry_all(pending.jobs, pending.frozen)
                return
            head = self.waiting.popleft()
            try:
                head.results = self._answer(head)
            except _HelperGone:
                self._fail()
                head.results = carry_all(head.jobs, head.frozen)
            except BaseException:
                self._fail(again=True)  # interrupted part-way (Ctrl-C): the answers are out of step
                raise
            self.free.append(head.slot)

    def _answer(self, pending: _InHelper) -> list[Result]:
        if _Helper._instance is not self:
            raise _HelperGone
        try:
            size = _LENGTH.unpack(_read(self.answers, _LENGTH.size))[0]
            answers = pickle.loads(_read(self.answers, size))
        except (OSError, EOFError, ValueError, struct.error, pickle.UnpicklingError) as exc:
            raise _HelperGone from exc
        if not isinstance(answers, list) or len(answers) != len(pending.jobs):
            raise _HelperGone
        results: list[Result] = []
        for job, answer in zip(pending.jobs, answers, strict=True):
            if answer[0] == "error":
                _, side, limit, text = answer
                error = codecs.CodecLimitError(text) if limit else codecs.CodecError(text)
                results.append(wire.CarryError(side, error))
                continue
            _, codec, wire_length, inflated, compressed_now, kept, at, size, send_us, receive_us = answer
            original: bytes | None
            if kept == "none":
                original = None
            elif kept == "same":
                original = job.stored
            else:
                original = bytes(self.region[at : at + size])
            results.append(wire.Carried(codec, wire_length, inflated, compressed_now, original, send_us, receive_us))
        return results

    def _fail(self, again: bool = False) -> None:
        """The helper is of no more use: ended. With `again`, the next batch starts a
        new one; otherwise (it died or answered nonsense) this process carries in
        threads from now on."""
        if not again:
            _Helper._failed = True
        if _Helper._instance is self:
            _Helper._instance = None
        self.end()

    def end(self) -> None:
        try:
            self.requests.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.answers.close()


def _read(stream: IO[bytes], size: int) -> bytes:
    data = stream.read(size)
    if len(data) != size:
        raise EOFError
    return bytes(data)


# -- the helper process, its own side -------------------------------------------------------------


def serve(region_fd: int, requests: IO[bytes], answers: IO[bytes]) -> None:
    """The helper's loop: a chunk described on `requests`, its messages in the shared
    region; the results on `answers`. Ends at end of file."""
    region = mmap.mmap(region_fd, SLOTS * 2 * SLOT_BYTES)
    view = memoryview(region)
    while True:
        head = requests.read(_LENGTH.size)
        if len(head) != _LENGTH.size:
            return
        output, frozen, described = pickle.loads(_read(requests, _LENGTH.unpack(head)[0]))
        perf = _frozen_perf if frozen else time.perf_counter
        answers_: list[tuple[object, ...]] = []
        for offset, size, codec, length, technique, compsize, inflate in described:
            stored = bytes(view[offset : offset + size])  # bytes: comparing a memoryview is slow
            try:
                done = wire.carry(stored, codec, length, technique, compsize, inflate, perf)
            except wire.CarryError as error:
                answers_.append(("error", error.side, isinstance(error.error, codecs.CodecLimitError),
                                 str(error.error)))  # fmt: skip
                continue
            original = done.original
            kept, at, kept_size = "none", 0, 0
            if original is not None:
                if not codec and (original is stored or original == stored):
                    kept = "same"  # inflated to the very bytes the sending side read
                else:
                    kept, at, kept_size = "copied", output, len(original)
                    region[output : output + kept_size] = original
                    output += kept_size
            answers_.append(("ok", done.codec, done.wire_length, done.inflated, done.compressed_now, kept, at,
                             kept_size, done.send_us, done.receive_us))  # fmt: skip
        answer = pickle.dumps(answers_, pickle.HIGHEST_PROTOCOL)
        answers.write(_LENGTH.pack(len(answer)) + answer)
        answers.flush()


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not argv[0].isdigit():
        print("mqtool: error: the channel helper is started by mqtool itself, with the descriptor of its "
              "shared memory", file=sys.stderr)  # fmt: skip
        return 2
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        serve(int(argv[0]), sys.stdin.buffer, sys.stdout.buffer)
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    except (OSError, ValueError) as exc:  # not a shared memory descriptor
        print(f"mqtool: error: the channel helper cannot map descriptor {argv[0]}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
