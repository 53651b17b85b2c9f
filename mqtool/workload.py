"""Workload in scripts: the `.put`, `.get` and `.console` directives, and the payload
sources (`--file`, `--data`, generated) that `mqtool put` shares with them."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mqtool import inputs
from mqtool.clock import Clock, ClockError, parse_duration
from mqtool.directives import engine_system as _engine_system
from mqtool.engine import payload as payload_module
from mqtool.engine.core import mqtm
from mqtool.engine.core.dynamic import DEFAULT_DYNAMIC_NAME, dynamic_name
from mqtool.engine.core.handle import QueueHandle
from mqtool.engine.core.message import (
    Message,
    PutOptions,
    PutResult,
    Selector,
    check_length,
    format_id,
    parse_id,
)
from mqtool.engine.core.reasons import NO_MSG_AVAILABLE, UNKNOWN_OBJECT_NAME, MQError, describe
from mqtool.engine.core.resolve import resolve
from mqtool.engine.core.streams import get_stream, put_stream
from mqtool.engine.platforms import NoPubSub, model, open_queue, open_topic
from mqtool.engine.zos.events import describe as describe_event
from mqtool.engine.zos.pcf import MQFMT_EVENT
from mqtool.messages import ECHO
from mqtool.response import FAILED, SYNTAX, Response
from mqtool.sizes import SizeError, parse_size
from mqtool.state import StoreError

if TYPE_CHECKING:
    from mqtool.parse.command import Directive
    from mqtool.session import Session
    from mqtool.state import SystemRecord, Transaction

_NO_CLOCK = Clock(frozen_at=None)  # checks a DynamicQName's form (its time part is not used)
DEFAULT_SIZE = 1024  # generated payloads when no size is given
MAX_EVERY = 86400.0  # seconds between the messages of a paced .put, at the most
PREVIEW = 40  # characters of a text payload shown by .get
# How MQT0152W ends: why a put stopped before its last message.
INTERRUPTED = "interrupted"
STORE_FAILED = "stopped: the state file failed (see the error that follows)"
_BLANKS = {ord("\n"): " ", ord("\r"): " ", ord("\t"): " "}


class WorkloadError(ValueError):
    """A put's payload options or input that cannot be used."""


@dataclass
class PayloadSpec:
    """Where the payloads of a put come from."""

    files: tuple[str, ...] = ()
    data: tuple[str, ...] = ()
    pattern: str | None = None
    size: int | None = None
    count: int | None = None
    seed: int = 0

    def check(self) -> None:
        generated = self.pattern is not None or self.size is not None
        if generated and (self.files or self.data):
            raise WorkloadError("give a generated payload (pattern, size) or files/data, not both")
        if self.files and self.data:
            raise WorkloadError("give files or data, not both")
        if self.pattern is not None and self.pattern not in payload_module.PATTERNS:
            raise WorkloadError(f"pattern {self.pattern!r} unknown; patterns: {', '.join(payload_module.PATTERNS)}")
        if self.size is not None and self.size < 0:
            raise WorkloadError("size must be 0 or more")
        if self.count is not None and self.count < 0:
            raise WorkloadError("count must be 0 or more")

    @property
    def generated(self) -> bool:
        return not self.files and not self.data

    def total(self) -> int:
        """How many messages the spec makes."""
        count = 1 if self.count is None else self.count
        if self.generated:
            return count
        return count * (len(self.files) + len(self.data))

    def largest(self) -> int | None:
        """The length of the longest payload, known without making or reading any
        (None when there are none), so that MAXMSGL can be checked first."""
        if self.total() == 0:
            return None
        if self.generated:
            return DEFAULT_SIZE if self.size is None else self.size
        lengths = [len(text.encode("utf-8")) for text in self.data]
        for name in self.files:
            try:
                lengths.append(inputs.file_size(name))  # readable, not read
            except inputs.InputError as exc:
                raise WorkloadError(f"cannot read {name}: {exc}") from None
        return max(lengths)

    def payloads(self) -> Iterator[bytes]:
        """The payloads, lazily (a file is read when its turn comes)."""
        count = 1 if self.count is None else self.count
        if self.generated:
            pattern = self.pattern or "xml"
            size = DEFAULT_SIZE if self.size is None else self.size
            generate = payload_module.generate
            for index in range(count):
                yield generate(pattern, size, self.seed, index)
            return
        for text in self.data:
            raw = text.encode("utf-8")
            for _ in range(count):
                yield raw
        for name in self.files:
            raw = read_file(name)
            for _ in range(count):
                yield raw


def read_file(name: str) -> bytes:
    """A file put as one message: a regular file of at most the largest MQ message."""
    try:
        return inputs.read_file(name, inputs.MAX_MESSAGE, "the largest MQ message")
    except inputs.InputError as exc:
        raise WorkloadError(f"cannot read {name}: {exc}") from None


def route(handle: QueueHandle) -> str:
    """How the opened name resolved, when it is not a local queue:
    ` (QR-X via transmission queue Y)`, ` (QALIAS(A) resolved to T)`."""
    resolved = handle.resolved
    model = handle.model
    made = handle.created
    if made is not None:
        template = model.object_name(model.model_type, str(made.status.get("model", "")))
        return f" ({template} opened dynamic queue {made.name}, DEFTYPE({made.attrs.get('DEFTYPE')}))"
    if resolved is None or resolved.opened.type == model.local_type:
        return ""
    target = resolved.local.name
    opened = model.object_name(resolved.opened.type, resolved.opened.name)
    if resolved.opened.type == model.remote_type:
        return f" ({opened} via transmission queue {target})"
    return f" ({opened} resolved to {target})"


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


@dataclass
class PutTally:
    count: int = 0
    length: int = 0
    stored: int = 0
    compressed: int = 0
    persistent: int = 0

    def add(self, results: list[PutResult]) -> None:
        for result in results:
            self.count += 1
            self.length += result.length
            self.stored += result.stored
            self.compressed += 1 if result.codec else 0
            self.persistent += 1 if result.persistent else 0

    def fields(self, queue: str, route_text: str) -> dict[str, Any]:
        return {
            "messages": plural(self.count, "message"),
            "queue": queue,
            "route": route_text,
            "length": plural(self.length, "byte"),
            "stored": self.stored,
            "compressed": self.compressed,
            "persistent": self.persistent,
        }


# -- directives --------------------------------------------------------------------
def _usage(directive: Directive, reason: str) -> Response:
    response = Response(status=SYNTAX)
    response.add("MQT0003E", name=directive.name, reason=reason)
    return response


def _integer(directive: Directive, key: str, low: int, high: int) -> int | None:
    raw = directive.options.get(key)
    if raw is None:
        return None
    try:
        return inputs.whole(raw, low, high)
    except inputs.InputError as exc:
        raise WorkloadError(f"{key}={exc.value} {exc.reason}") from None


def _size(directive: Directive, key: str) -> int | None:
    raw = directive.options.get(key)
    if raw is None:
        return None
    try:
        return parse_size(raw)
    except SizeError as exc:
        raise WorkloadError(f"{key}={raw}: {exc}") from None


def _yes_no(directive: Directive, key: str) -> bool | None:
    raw = directive.options.get(key)
    if raw is None:
        return None
    value = raw.strip().lower()
    if value in ("yes", "y", "true", "1"):
        return True
    if value in ("no", "n", "false", "0"):
        return False
    raise WorkloadError(f"{key}={raw} must be yes or no")


def _ids(directive: Directive) -> tuple[bytes | None, bytes | None]:
    try:
        msgid = parse_id(directive.options["msgid"]) if "msgid" in directive.options else None
        correlid = parse_id(directive.options["correlid"]) if "correlid" in directive.options else None
    except ValueError as exc:
        raise WorkloadError(str(exc)) from None
    return msgid, correlid


def _duration(directive: Directive, key: str) -> float | None:
    raw = directive.options.get(key)
    if raw is None:
        return None
    try:
        return parse_expiry(raw) if key == "expiry" else parse_duration(raw)
    except ClockError as exc:
        raise WorkloadError(f"{key}={raw}: {exc}") from None


def parse_expiry(text: str) -> float:
    """An expiry as MQ counts it, tenths of a second (`300` is 30 s), or a duration
    with a unit (`30s`, `5m`); the same rule for `mqtool put --expiry` and `.put expiry=`.
    At most the MQMD's largest Expiry (an MQLONG of tenths: about 6.8 years)."""
    value = text.strip()
    if value.isascii() and value.isdigit():
        try:
            return inputs.whole(value, 0, inputs.MAX_EXPIRY) / 10
        except inputs.InputError as exc:
            raise ClockError(f"{exc.value} {exc.reason} tenths of a second") from None
    seconds = parse_duration(value)
    if seconds * 10 > inputs.MAX_EXPIRY:
        longest = f"{inputs.MAX_EXPIRY / 10:.1f}s"
        raise ClockError(f"{inputs.shown(text)} is longer than the longest expiry, {longest}")
    return seconds


@dataclass
class PutRequest:
    """The arguments of a `.put`, as read by `parse_put`."""

    queue: str
    spec: PayloadSpec
    options: PutOptions
    every: float
    syncpoint: bool  # all the messages in one unit of work
    topic: str | None = None  # publish on this topic string instead of putting to `queue`
    retain: bool = False  # with topic: the retained publication
    dynamic: str = DEFAULT_DYNAMIC_NAME  # DynamicQName, when the queue is a model queue
    put1: bool = False  # each message by MQPUT1 (the queue statistics count MQPUT1s apart)


def parse_put(directive: Directive) -> PutRequest:
    """Reads the arguments of `.put` (WorkloadError saying what is wrong): the one reader
    for the run and for its check (`mqtool run -v`)."""
    topic = directive.options.get("topic")
    if len(directive.args) != (0 if topic is not None else 1):
        raise WorkloadError("usage: .put QUEUE|topic=STRING [count=N] [size=N] [pattern=xml] ... (.help .put)")
    if topic is not None:
        from mqtool.engine.core.topics import TopicError, check_topic

        try:
            check_topic(topic, publishing=True)
        except TopicError as error:
            raise WorkloadError(f"topic={topic}: {error}") from None
    retain = bool(_yes_no(directive, "retain"))
    if retain and topic is None:
        raise WorkloadError("retain=yes applies to topic= only")
    spec = PayloadSpec(
        files=(directive.options["file"],) if "file" in directive.options else (),
        data=(directive.options["data"],) if "data" in directive.options else (),
        pattern=directive.options["pattern"].lower() if "pattern" in directive.options else None,
        size=_size(directive, "size"),
        count=_integer(directive, "count", 0, inputs.MAX_COUNT),
        seed=_integer(directive, "seed", 0, inputs.MAX_SEED) or 0,
    )
    spec.check()
    msgid, correlid = _ids(directive)
    options = PutOptions(
        persistent=_yes_no(directive, "persistent"),
        priority=_integer(directive, "priority", 0, 9),
        msgid=msgid,
        correlid=correlid or bytes(24),
        expiry=_duration(directive, "expiry"),
    )
    every = _duration(directive, "every") or 0.0
    if every > MAX_EVERY:
        raise WorkloadError(f"every={inputs.shown(directive.options['every'])} is longer than a day (1d at the most)")
    return PutRequest(
        directive.args[0].upper() if topic is None else f"topic '{topic}'",
        spec,
        options,
        every,
        bool(_yes_no(directive, "syncpoint")),
        topic,
        retain,
        _dynamic(directive),
        bool(_yes_no(directive, "put1")),
    )


def publication_fields(topic: str, messages: int, copies: int, retain: bool) -> dict[str, Any]:
    """The fields of MQT0104I: what a publication stream delivered."""
    return {
        "messages": plural(messages, "message"),
        "topic": topic,
        "copies": "1 copy" if copies == 1 else f"{copies} copies",
        "retained": "; the last is the retained publication" if retain and messages else "",
    }


def _dynamic(directive: Directive) -> str:
    """The DynamicQName of `dynamic=` (a name, or a prefix ending in *) for a model
    queue's MQOPEN; CSQ.* when not given (the z/OS default)."""
    text = directive.options.get("dynamic", DEFAULT_DYNAMIC_NAME).strip()
    try:
        dynamic_name(text, _NO_CLOCK, 0)
    except MQError as error:
        raise WorkloadError(f"dynamic={text}: {error.detail}") from None
    return text


def is_model(tx: Transaction, system: SystemRecord, queue: str) -> bool:
    """Whether `queue` names a model queue of the system (an MQOPEN makes a dynamic queue)."""
    kind = model(system.platform).model_type
    return bool(kind) and tx.get_object(system.name, kind, queue) is not None


def define_command(system: SystemRecord, queue: str) -> str:
    """The command that defines a local queue on the system's platform."""
    if system.platform == "zos":
        return f"{system.attrs.get('cpf', '-' + system.name)} DEFINE QLOCAL({queue})"
    return f"ZMQSC DEFINE QL-{queue}"


def _refusal(response: Response, action: str, queue: str, system: SystemRecord, error: MQError, note: str = "") -> None:
    """MQT0120E, and after MQRC 2085 the command that defines the queue (MQT0153I)."""
    response.add("MQT0120E", action=action, queue=queue, reason=f"{error}{note}")
    if error.reason == UNKNOWN_OBJECT_NAME:
        response.add("MQT0153I", queue=queue, system=system.name, command=define_command(system, queue))


def do_put(session: Session, directive: Directive, current: SystemRecord | None) -> Response:
    """`.put QUEUE [count=N] [size=N] [pattern=P] [persistent=yes] [seed=N] [file=PATH]
    [data='text'] [priority=N] [msgid=ID] [correlid=ID] [expiry=DURATION] [every=DURATION]
    [syncpoint=yes] [put1=yes]`; with syncpoint=yes every message is put in one unit of
    work; with put1=yes each by MQPUT1 (as the statistics count it)."""
    system = _engine_system(session, directive, current)
    if isinstance(system, Response):
        return system
    try:
        request = parse_put(directive)
        spec, queue, every = request.spec, request.queue, request.every
        largest = spec.largest()  # an unreadable file is a usage error before anything is put
    except WorkloadError as error:
        return _usage(directive, str(error))
    if every > 0 and session.clock.frozen and not session.clock.can_advance(every * spec.total()):
        return _usage(directive, "count= times every= would move the frozen clock past the year 9998")
    # MAXMSGL is checked before a payload is made or read (a model queue's MQOPEN makes
    # the queue first: the put checks it).
    handle: Any
    try:
        if request.topic is not None:
            handle = open_topic(session.store, session.clock, system.name, request.topic, system.platform,
                                request.retain)  # fmt: skip
        else:
            with session.store.transaction(write=False) as tx:
                if not is_model(tx, system, queue):
                    resolved = resolve(tx, system.name, queue, model(system.platform))
                    if largest is not None and not resolved.put_error:
                        check_length(resolved, largest)
            handle = open_queue(session.store, session.clock, system.name, queue, system.platform)
            handle.dynamic_name = request.dynamic
            handle.put1 = request.put1
    except NoPubSub as error:
        response = Response(status=FAILED)
        response.add("MQT0120E", action="Put to", queue=queue, reason=str(error))
        return response
    except MQError as error:
        response = Response(status=FAILED)
        _refusal(response, "Put to", queue, system, error)
        return response
    tally = PutTally()
    clock = session.clock
    start = clock.timestamp()
    pace: Callable[[Transaction], bool] | None = None
    between: Callable[[], None] | None = None
    if every > 0:
        counter = [0]
        wall_start = time.monotonic()

        def pace(tx: Transaction) -> bool:
            """After each message: the clock moves on by `every` (a frozen clock is
            advanced, a wall clock waited for, outside the transaction); the batch
            ends when a timer falls due, so timers run between messages in time order."""
            counter[0] += 1
            if not clock.frozen:
                return True
            clock.advance(max(0.0, start + counter[0] * every - clock.timestamp()))
            due = tx.conn.execute("SELECT min(due) FROM timers").fetchone()[0]
            return due is not None and due <= clock.timestamp()

        def between() -> None:
            if not clock.frozen:
                time.sleep(max(0.0, wall_start + counter[0] * every - time.monotonic()))
            session.tick()

    items = ((data, request.options) for data in spec.payloads())
    copies = [0]

    def counted(results: list[PutResult]) -> None:
        tally.add(results)
        if request.topic is not None:
            copies[0] += sum(result.units for result in results)

    try:
        result = put_stream(handle, items, counted, between=between, pace=pace, unit_of_work=request.syncpoint)
    except (KeyboardInterrupt, StoreError) as stop:
        # What was committed is told before the interruption goes on up (Ctrl-C ends a
        # run; the shell goes back to its prompt).
        if session.emit is not None:
            fields = tally.fields(queue, route(handle))
            fields["messages"] = f"{tally.count} of {plural(spec.total(), 'message')}"
            stopped = Response(status=FAILED)
            ending = INTERRUPTED if isinstance(stop, KeyboardInterrupt) else STORE_FAILED
            stopped.add("MQT0152W", ending=ending, **fields)
            for line in session._finish(stopped, None).lines:
                session.emit(line)
        raise
    response = Response(status=FAILED if result.error else "ok")
    if tally.count or result.error is None:
        response.add("MQT0101I", **tally.fields(queue, route(handle)))
        if request.topic is not None:
            response.add("MQT0104I", **publication_fields(request.topic, tally.count, copies[0], request.retain))
    if every > 0 and tally.count:
        _sweep_summary(session, system.name, start, clock.timestamp(), tally.count, response)
    if result.error is not None:
        backed = " (unit of work backed out)" if request.syncpoint else ""
        _refusal(response, "Put to", queue, system, result.error, backed)
    return response


def _sweep_summary(session: Session, system: str, start: float, end: float, count: int, response: Response) -> None:
    from mqtool.engine.ztpf.sweeper import sweeps_between

    with session.store.transaction(write=False) as tx:
        sweeps = sweeps_between(tx, system, start, end)
    if not sweeps:
        return
    times = [row[0] for row in sweeps]
    interval = (times[-1] - times[0]) / (len(times) - 1) if len(times) > 1 else 0.0
    swept = sum(row[1] for row in sweeps)
    ios = sum(row[2] for row in sweeps)
    response.add(
        "MQT0103I",
        sweeps=len(sweeps),
        interval=f"{interval:.2f}",
        swept=swept,
        ios=ios,
        per_message=f"{ios / count:.2f}",
    )


def get_line(verb: str, queue: str, number: int, message: Message) -> dict[str, Any]:
    """The fields of MQT0110I: one message got or browsed."""
    stored = ""
    if message.codec:
        stored = f" (stored {message.stored}, inflated in {message.inflated})"
    data = ", binary"
    trigger = trigger_preview(message) or event_preview(message)
    try:
        text = None if trigger else message.payload.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if trigger:
        data = trigger
    if text is not None:
        # Line ends and tabs show as blanks; any other control character makes it binary.
        head = text[:PREVIEW].translate(_BLANKS)
        if head.isprintable():
            data = f", data '{head}{'...' if len(text) > PREVIEW else ''}'"
    return {
        "verb": verb,
        "queue": queue,
        "number": number,
        "msgid": format_id(message.msgid),
        "length": message.length,
        "stored": stored,
        "persistence": "persistent" if message.persistent else "non-persistent",
        "priority": message.priority,
        "swept": ", read back from file" if message.swept else "",
        "data": data,
    }


def trigger_preview(message: Message) -> str:
    """`, trigger message: ...` with the MQTM's fields, for a message whose format is
    MQFMT_TRIGGER; "" for any other message."""
    if message.header.get("format") != mqtm.MQFMT_TRIGGER:
        return ""
    try:
        fields = mqtm.unpack(
            message.payload,
            int(message.header.get("ccsid", mqtm.ZOS_CCSID)),
            int(message.header.get("encoding", mqtm.ZOS_ENCODING)),
        )
    except (TypeError, ValueError) as error:
        return f", trigger message that does not read: {error}"
    return (
        f", trigger message: QName {fields.qname}, ProcessName {fields.process or '(blank)'}, "
        f"TriggerData '{fields.trigger_data}', ApplType {fields.appl_type}, ApplId '{fields.appl_id}', "
        f"EnvData '{fields.env_data}', UserData '{fields.user_data}'"
    )


def event_preview(message: Message) -> str:
    """`, configuration event: ...` with the PCF header and each parameter by name, for
    a message whose format is MQEVENT and whose bytes read as a configuration event;
    "" for any other message."""
    if message.header.get("format") != MQFMT_EVENT:
        return ""
    try:
        text = describe_event(message.payload, int(message.header.get("encoding", mqtm.ZOS_ENCODING)))
    except (TypeError, ValueError) as error:
        return f", event message that does not read: {error}"
    return f", configuration event: {text}"


def decoded(message: Message) -> str | None:
    """A trigger message or configuration event as one line of text (its preview
    without the leading comma); None for any other message."""
    preview = trigger_preview(message) or event_preview(message)
    return preview.removeprefix(", ") or None


@dataclass
class GetRequest:
    """The arguments of a `.get`, as read by `parse_get`."""

    queue: str
    count: int | None  # None: all
    browse: bool
    selector: Selector
    syncpoint: bool
    dynamic: str = DEFAULT_DYNAMIC_NAME  # DynamicQName, when the queue is a model queue
    topic: str | None = None  # get the publications of a subscription on this topic string


def parse_get(directive: Directive) -> GetRequest:
    """Reads the arguments of `.get` (WorkloadError saying what is wrong), for the run
    and for its check."""
    topic = directive.options.get("topic")
    if len(directive.args) != (0 if topic is not None else 1):
        raise WorkloadError("usage: .get QUEUE|topic=STRING [count=N|all] [browse=yes] [syncpoint=no]")
    if topic is not None:
        from mqtool.engine.core.topics import TopicError, check_topic

        try:
            check_topic(topic, publishing=False)
        except TopicError as error:
            raise WorkloadError(f"topic={topic}: {error}") from None
    raw_count = directive.options.get("count", "1").strip().lower()
    count = None if raw_count == "all" else _integer(directive, "count", 1, inputs.MAX_COUNT) or 1
    msgid, correlid = _ids(directive)
    syncpoint = _yes_no(directive, "syncpoint")
    return GetRequest(
        directive.args[0].upper() if topic is None else f"topic '{topic}'",
        count,
        bool(_yes_no(directive, "browse")),
        Selector(msgid, correlid),
        True if syncpoint is None else syncpoint,
        _dynamic(directive),
        topic,
    )


def do_get(session: Session, directive: Directive, current: SystemRecord | None) -> Response:
    """`.get QUEUE [count=N|all] [browse=yes] [msgid=ID] [correlid=ID] [syncpoint=no]`.
    Under syncpoint each message's MQT0110I line is printed (through `session.emit`)
    before its get commits, so a kill loses no message: at least once."""
    system = _engine_system(session, directive, current)
    if isinstance(system, Response):
        return system
    try:
        request = parse_get(directive)
    except WorkloadError as error:
        return _usage(directive, str(error))
    queue, count, browse = request.queue, request.count, request.browse
    verb = "Browsed" if browse else "Got"
    response = Response()
    emit = session.emit
    number = [0]
    temporary = None  # a subscription made for this .get alone (the session held none on the topic)
    source = queue
    if request.topic is not None:
        from mqtool import subscribing
        from mqtool.engine.core.subscriptions import Request

        held = subscribing.held_on(session, system.name, request.topic)
        if held is None:
            made = subscribing.subscribe(session, system, Request(request.topic))
            if isinstance(made, MQError):
                response.status = FAILED
                response.add("MQT0120E", action="Subscribe to", queue=queue, reason=str(made))
                return response
            told = Response()
            told.add("MQT0160I", **subscribing.subscribed_fields(made))
            if emit is None:
                response.messages += told.messages
            else:
                for text in session._finish(told, None).lines:
                    emit(text)
            held = temporary = made
        source = held.queue
    handle = open_queue(session.store, session.clock, system.name, source, system.platform)
    handle.dynamic_name = request.dynamic

    def deliver(message: Message) -> None:
        number[0] += 1
        fields = get_line(verb, queue, number[0], message)
        if emit is None:
            response.add("MQT0110I", **fields)
            return
        line = Response()
        line.add("MQT0110I", **fields)
        for text in session._finish(line, None).lines:
            emit(text)

    try:
        result = get_stream(handle, deliver, count, request.selector, browse, syncpoint=request.syncpoint)
    finally:
        if temporary is not None:
            ended = subscribing.close(session, system, temporary)
    action = "Browse of" if browse else "Get from"
    if result.uncounted:
        response.add("MQT0713W", queue=queue, reason=result.uncounted)
    if result.error is not None and request.topic is not None:
        response.status = FAILED  # a subscription's queue is the queue manager's to make: no DEFINE hint
        response.add("MQT0120E", action=action, queue=queue, reason=str(result.error))
    elif result.error is not None:
        response.status = FAILED
        _refusal(response, action, queue, system, result.error)
    elif count is None:
        response.add("MQT0112I", queue=queue, reason=describe(NO_MSG_AVAILABLE))
    elif result.count < count:
        response.status = FAILED
        response.add("MQT0120E", action=action, queue=queue, reason=describe(NO_MSG_AVAILABLE))
    if temporary is not None:
        response.messages += ended.messages
    return response


# -- .open and .close: handles held across commands -------------------------------------
OPEN_PURPOSES = {"input": "get", "output": "put"}


@dataclass
class OpenRequest:
    queue: str
    purpose: str  # "get" (input) or "put" (output)
    dynamic: str


def parse_open(directive: Directive) -> OpenRequest:
    """Reads the arguments of `.open QUEUE [input|output] [dynamic=NAME*]`."""
    if not 1 <= len(directive.args) <= 2:
        raise WorkloadError("usage: .open QUEUE [input|output] [dynamic=NAME*]")
    word = directive.args[1].lower() if len(directive.args) == 2 else "input"
    if word not in OPEN_PURPOSES:
        raise WorkloadError(f"{directive.args[1]}: input or output")
    return OpenRequest(directive.args[0].upper(), OPEN_PURPOSES[word], _dynamic(directive))


def parse_close(directive: Directive) -> str:
    if len(directive.args) != 1:
        raise WorkloadError("usage: .close QUEUE")
    return directive.args[0].upper()


def _held(session: Session) -> dict[tuple[str, str], QueueHandle]:
    held: dict[tuple[str, str], QueueHandle] = session.state.setdefault("open_handles", {})
    return held


def do_open(session: Session, directive: Directive, current: SystemRecord | None) -> Response:
    """`.open QUEUE [input|output] [dynamic=NAME*]`: an MQOPEN that stays open until
    `.close QUEUE` or the end of the mqtool process (a trigger monitor's hold on its
    initiation queue, an application's input handle; a model queue's name makes a
    dynamic queue)."""
    system = _engine_system(session, directive, current)
    if isinstance(system, Response):
        return system
    try:
        request = parse_open(directive)
    except WorkloadError as error:
        return _usage(directive, str(error))
    held = _held(session)
    if (system.name, request.queue) in held:
        return _usage(directive, f"{request.queue} is open already (.close {request.queue} first)")
    handle = open_queue(session.store, session.clock, system.name, request.queue, system.platform)
    handle.dynamic_name = request.dynamic
    response = Response()
    try:
        with session.store.transaction() as tx:
            handle.open(tx, request.purpose)
    except MQError as error:
        response.status = FAILED
        _refusal(response, "Open of", request.queue, system, error)
        return response
    held[(system.name, request.queue)] = handle
    purpose = "input" if request.purpose == "get" else "output"
    response.add("MQT0778I", queue=request.queue, purpose=purpose, route=route(handle))
    return response


def do_close(session: Session, directive: Directive, current: SystemRecord | None) -> Response:
    """`.close QUEUE`: MQCLOSE of a queue `.open` holds (a temporary dynamic queue is
    deleted; the last input handle of a triggered queue looks at its trigger again)."""
    system = _engine_system(session, directive, current)
    if isinstance(system, Response):
        return system
    try:
        queue = parse_close(directive)
    except WorkloadError as error:
        return _usage(directive, str(error))
    handle = _held(session).pop((system.name, queue), None)
    if handle is None:
        return _usage(directive, f"{queue} is not open (.open {queue} opens it)")
    with session.store.transaction() as tx:
        handle.close(tx)
    response = Response()
    response.add("MQT0779I", queue=queue, route=route(handle))
    return response


def parse_console(directive: Directive) -> bool:
    """Reads the arguments of `.console`: True for `all`."""
    if directive.args and [arg.lower() for arg in directive.args] != ["all"]:
        raise WorkloadError("usage: .console [all]")
    return bool(directive.args)


def do_console(session: Session, directive: Directive, current: SystemRecord | None) -> Response:
    """`.console [all]`: the console messages raised since the last `.console` (or all)."""
    try:
        every = parse_console(directive)
    except WorkloadError as error:
        return _usage(directive, str(error))
    after = 0 if every else int(session.state.get("console_after", 0))
    with session.store.transaction(write=False) as tx:
        rows = tx.console_since(None, after)
    response = Response()
    response.add("MQT0130I", count=len(rows))
    for row_id, system, _when, text in rows:
        response.add(ECHO, text=f"{system} {text}")
        after = max(after, row_id)
    session.state["console_after"] = max(after, int(session.state.get("console_after", 0)))
    return response
