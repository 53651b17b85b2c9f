"""The commit policy of puts and gets from the CLI and the directives: a persistent
message commits on its own, non-persistent ones in batches; a put is acknowledged only
after its commit; a get under syncpoint is delivered before its removal commits (see
put_stream and get_stream)."""

from __future__ import annotations

import functools
import queue as queue_module
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from mqtool.engine.core.handle import QueueHandle
from mqtool.engine.core.message import Message, PutOptions, PutResult, Selector
from mqtool.engine.core.reasons import MQError
from mqtool.state import StoreError, Transaction

BATCH_MESSAGES = 1000  # non-persistent messages per commit
BATCH_BYTES = 8 * 1024 * 1024


@dataclass
class StreamResult:
    count: int = 0
    error: MQError | None = None
    uncounted: str = ""  # a browse that could not write its counts (why): it looked only


class _Source:
    """The items of a put stream. A source that may block (standard input) is read by a
    thread, so the stream can take what is ready without waiting while it holds the
    store's lock, and wait for more only between transactions."""

    PENDING = object()

    def __init__(self, items: Iterable[tuple[bytes, PutOptions]], blocking: bool) -> None:
        self._items = iter(items)
        self._ended = False
        self._queue: queue_module.Queue[tuple[str, object]] | None = None
        if blocking:
            self._queue = queue_module.Queue(maxsize=256)
            threading.Thread(target=self._fill, name="mqtool-put-source", daemon=True).start()

    def _fill(self) -> None:
        assert self._queue is not None
        try:
            for item in self._items:
                self._queue.put(("item", item))
            self._queue.put(("end", None))
        except BaseException as exc:  # handed to the stream, which raises it
            self._queue.put(("error", exc))

    def next(self, wait: bool) -> object:
        """The next item; None at the end; PENDING when not ready and `wait` is false."""
        if self._ended:
            return None
        if self._queue is None:
            item = next(self._items, None)
            self._ended = item is None
            return item
        try:
            kind, value = self._queue.get(block=wait)
        except queue_module.Empty:
            return self.PENDING
        if kind == "error":
            self._ended = True
            raise value  # type: ignore[misc]
        if kind == "end":
            self._ended = True
            return None
        return value


def _close_quietly(handle: QueueHandle) -> None:
    """MQCLOSE after a stream was interrupted or failed, if the queue is open, so its
    counts are written and its opens match its closes; a failure here (the store itself
    failed, say on a full disk) must not hide the error that ended the stream."""
    if not handle.is_open:
        return
    try:
        with handle.store.transaction() as tx:
            handle.close(tx)
    except Exception:
        pass


_Stream = TypeVar("_Stream", bound=Callable[..., StreamResult])


def _closes_on_failure(stream: _Stream) -> _Stream:
    """A stream that fails or is interrupted (Ctrl-C, a closed pipe, a full disk) still
    closes its queue (MQCLOSE), so the counts are written and opens match closes."""

    @functools.wraps(stream)
    def run(*args: Any, **kwargs: Any) -> StreamResult:
        try:
            return stream(*args, **kwargs)
        except BaseException:
            _close_quietly(args[0] if args else kwargs["handle"])
            raise

    return cast("_Stream", run)


@_closes_on_failure
def put_stream(
    handle: QueueHandle,
    items: Iterable[tuple[bytes, PutOptions]],
    on_commit: Callable[[list[PutResult]], None],
    between: Callable[[], None] | None = None,
    batch_messages: int = BATCH_MESSAGES,
    pace: Callable[[Transaction], bool] | None = None,
    blocking: bool = False,
    unit_of_work: bool = False,
) -> StreamResult:
    """Puts every item; a persistent message commits on its own, non-persistent ones in
    batches. `on_commit` hears of each message only after its commit (so an
    acknowledgement means it is stored); `between` runs between transactions (timers).
    `pace(tx)` runs after each put (it may move the clock) and says whether the batch
    must end there (a timer falls due). With `blocking` (items from standard input) the
    stream never waits for input while it holds the store's lock. Stops at the first
    refusal, which it returns; the messages before it stay put. With `unit_of_work` (a
    put under syncpoint) every message is put in one transaction, committed at the end;
    a refusal backs the whole unit out (nothing stays put), and the queue manager's
    limit on messages per unit of work applies (z/OS MAXUMSGS, 2024). Interrupted or
    failed, it still closes the queue (MQCLOSE), so the counts are written."""
    store = handle.store
    result = StreamResult()
    source = _Source(items, blocking)
    handle.syncpoint = unit_of_work
    backed_out = False
    opened = False
    done = False
    while not done:
        item = source.next(wait=True)  # waiting for input happens outside any transaction
        committed: list[PutResult] = []
        with store.transaction() as tx:
            if not opened:
                try:
                    handle.open(tx)
                except MQError as error:
                    result.error = error
                    return result
                opened = True
            try:
                size = 0
                while True:
                    if item is None:
                        done = True
                        break
                    if item is _Source.PENDING:
                        break
                    payload, options = cast("tuple[bytes, PutOptions]", item)
                    try:
                        put = handle.put(tx, payload, options)
                    except MQError as error:
                        result.error = error
                        done = True
                        if unit_of_work:
                            tx.fail()  # backed out: none of the unit's puts stand
                            handle.rolled_back(tx)
                            committed, backed_out = [], True
                        break
                    committed.append(put)
                    size += put.length
                    paced = pace(tx) if pace is not None else False
                    if unit_of_work:
                        item = source.next(wait=True)
                        continue
                    if put.persistent or paced or len(committed) >= batch_messages or size >= BATCH_BYTES:
                        break
                    item = source.next(wait=False)
            except BaseException:
                handle.rolled_back(tx)  # the transaction rolls back: its puts did not happen
                raise
            if done and not backed_out:
                handle.close(tx)
        if backed_out:
            with store.transaction() as tx:
                handle.close(tx)
        result.count += len(committed)
        if committed:
            on_commit(committed)
        if between is not None and not done:
            between()
    return result


HOLD_SECONDS = 0.1  # a get's batch under syncpoint ends once its delivery has held the lock this long


class Undelivered(Exception):
    """Raised by a `deliver` callback that will not take a message (it stays on the
    queue, uncounted): the stream stops and raises it to its caller."""


def get_stream(
    handle: QueueHandle,
    deliver: Callable[[Message], None],
    count: int | None = 1,
    selector: Selector | None = None,
    browse: bool = False,
    wait: float = 0.0,
    between: Callable[[], None] | None = None,
    batch_messages: int = 64,
    batch_bytes: int = 4 * 1024 * 1024,
    *,
    syncpoint: bool = True,
    flush: Callable[[], None] | None = None,
    committed: Callable[[list[Message]], None] | None = None,
) -> StreamResult:
    """Gets (or browses) up to `count` messages (None: all) and hands each to `deliver`.

    Under syncpoint (the default) a get is a unit of work: each message is handed to
    `deliver` inside the transaction that removes it, `flush` makes the batch's delivery
    durable (flush the pipe, sync the folder), and only then does the removal commit. A
    process killed at any moment so loses no message: one delivered but not yet
    committed is delivered again by the next get (at least once; exactly once for a
    sink that recognises it, as `mqtool get --out` does). A persistent message commits
    on its own, non-persistent ones in batches (`batch_messages`, `batch_bytes`, or
    HOLD_SECONDS of delivery, so a slow reader holds the store's write lock for one
    short batch at a time; a reader that stops reading holds it until it reads again).
    `committed` hears of each batch after its commit.

    Without syncpoint (and for a browse, which removes nothing) `deliver` runs after the
    commit, so the reader never holds the lock, and a process killed between the two
    loses the batch (at most once).

    When `deliver` or `flush` fails (a closed pipe, a full disk, `Undelivered`), the
    messages not delivered are put back in their places, uncounted, what was delivered
    stays got, the queue is closed (MQCLOSE, counts written) and the error is raised.
    With `wait`, an empty queue is polled for up to that many seconds. A browse on a
    full disk looks without counting (`uncounted` says why)."""
    if not browse and handle.store.full_disk is not None:
        # Nothing can be removed (its commit would fail after the message was handed on).
        raise StoreError(handle.store.full_disk, full=True)
    shown = [0]

    def delivered(message: Message) -> None:
        deliver(message)
        shown[0] += 1

    def run(write: bool) -> StreamResult:
        return _get_stream(
            handle, delivered, count, selector, browse, wait, between, batch_messages, batch_bytes,
            syncpoint=syncpoint, flush=flush, committed=committed, write=write,
        )  # fmt: skip

    try:
        return run(write=True)
    except StoreError as exc:
        if not (browse and exc.full) or shown[0]:
            raise
        # A browse that cannot write its counts (MQOPEN, browses, MQCLOSE) for want of
        # disk still shows the messages: an operator looks at a full store to decide
        # what to clear. The counts are made in transactions that are rolled back.
        result = run(write=False)
        result.uncounted = str(exc)
        return result


@_closes_on_failure
def _get_stream(
    handle: QueueHandle,
    deliver: Callable[[Message], None],
    count: int | None,
    selector: Selector | None,
    browse: bool,
    wait: float,
    between: Callable[[], None] | None,
    batch_messages: int,
    batch_bytes: int,
    *,
    syncpoint: bool,
    flush: Callable[[], None] | None,
    committed: Callable[[list[Message]], None] | None,
    write: bool = True,
) -> StreamResult:
    """get_stream's work; `write` False: every transaction is rolled back (a browse that
    only looks)."""
    store = handle.store
    result = StreamResult()
    opened = False
    after = 0  # the row id of the last message browsed
    deadline: float | None = None
    pause = 0.01
    under_syncpoint = syncpoint and not browse
    failure: BaseException | None = None
    while count is None or result.count < count:
        batch: list[Message] = []
        exhausted = False  # the last get found no message
        with store.transaction(write=write) as tx:
            if not opened:
                try:
                    handle.open(tx, "browse" if browse else "get")
                except MQError as error:
                    result.error = error
                    return result
                opened = True
            size = 0
            started = time.monotonic()
            try:
                while count is None or result.count + len(batch) < count:
                    try:
                        message = handle.get(tx, selector, browse, after)
                    except MQError as error:
                        result.error = error
                        break
                    if message is None:
                        exhausted = True
                        break
                    if under_syncpoint:
                        try:
                            deliver(message)
                        except BaseException as exc:
                            failure = exc
                            handle.restore(tx, [message])
                            break
                    batch.append(message)
                    size += message.length
                    if browse:
                        after = message.row_id
                    if (
                        (message.persistent and not browse)
                        or len(batch) >= batch_messages
                        or size >= batch_bytes
                        or (under_syncpoint and time.monotonic() - started >= HOLD_SECONDS)
                    ):
                        break
                if under_syncpoint and batch and flush is not None:
                    try:
                        flush()
                    except BaseException as exc:
                        # Not known to be delivered: all of the batch stays.
                        failure = failure or exc
                        handle.restore(tx, batch)
                        batch = []
            except BaseException:
                handle.rolled_back(tx)  # the transaction rolls back: its gets did not happen
                raise
        if under_syncpoint:
            result.count += len(batch)
        else:
            for index, message in enumerate(batch):
                try:
                    deliver(message)
                except BaseException as exc:
                    failure = exc
                    if not browse:
                        with store.transaction(write=write) as tx:
                            handle.restore(tx, batch[index:])
                    batch = batch[:index]
                    break
                result.count += 1
            if failure is None and batch and flush is not None:
                flush()
        if committed is not None and batch:
            committed(batch)
        if failure is not None:
            raise failure
        if result.error is not None:
            break
        if batch:
            deadline = None
            pause = 0.01
            if between is not None:
                between()
            if not (exhausted and wait <= 0):
                continue  # without a wait, the queue found empty is the end: no second look
            break
        if wait <= 0:
            break
        if deadline is None:
            deadline = time.monotonic() + wait
        if time.monotonic() >= deadline:
            break
        time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
        pause = min(pause * 2, 0.2)
        if between is not None:
            between()
    if opened:
        with store.transaction(write=write) as tx:
            handle.close(tx)
    return result
