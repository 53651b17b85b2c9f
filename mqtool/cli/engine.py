"""`mqtool put`, `mqtool get`, `mqtool serve` and `mqtool console`: the message engine
and its console from the command line."""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, TextIO

import click

from mqtool import inputs, messages
from mqtool.cli.main import App, fail, find_system
from mqtool.cli.options import Decimal, Whole
from mqtool.listing import Column, csv_text, emit, format_option, plain_row

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
PROGRESS_FROM = 1000  # a progress bar only for this many messages or more (and on a terminal)
TICK_EVERY = 1.0  # seconds of wall time between timer catch-ups during a long stream

EXIT_OK = 0
EXIT_REFUSED = 1  # the queue manager refused (a reason code), or fewer messages than asked


def _engine_session(app: App, system_name: str | None = None) -> Any:
    """The session, on the current system (or --system) whose queue manager the engine
    runs, z/TPF or z/OS."""
    from mqtool.engine.platforms import PLATFORMS

    session = app.session(system_name)
    system = session.current_system()
    if system is None:
        fail("the complex has no system")
    if system.platform not in PLATFORMS:
        fail(f"the current system {system.name} has no queue manager mqtool runs (use --system)")
    session.tick()
    return session


def _system_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """`--system NAME` after the subcommand, as before it (`mqtool --system TPF2 put ...`)."""
    return click.option(
        "--system", "system_name", metavar="NAME", help="The system to use, z/TPF or z/OS [the current system]."
    )(command)


class _SizeType(click.ParamType):
    """A size with an optional unit (mqtool/sizes.py)."""

    name = "size"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        from mqtool.sizes import SizeError, parse_size

        try:
            return parse_size(str(value))
        except SizeError as exc:
            self.fail(str(exc), param, ctx)


def _ticker(session: Any) -> Callable[[], None] | None:
    """Catches up on timers every second of a long stream (wall clock only: a frozen
    clock does not move, so nothing can fall due)."""
    if session.clock.frozen:
        return None
    last = [time.monotonic()]

    def between() -> None:
        if time.monotonic() - last[0] >= TICK_EVERY:
            last[0] = time.monotonic()
            session.tick()

    return between


def _line(msg_id: str, **fields: Any) -> str:
    return f"{msg_id} {messages.text(msg_id, fields)}"


def _refused(action: str, queue: str, system: Any, error: Any, note: str = "", hint: bool = True) -> None:
    """MQT0120E for a refusal, and for MQRC 2085 the command that defines the queue
    (unless `hint` is false: a subscription's queue is the queue manager's to make)."""
    from mqtool.engine.core.reasons import UNKNOWN_OBJECT_NAME
    from mqtool.workload import define_command

    click.echo(_line("MQT0120E", action=action, queue=queue, reason=f"{error}{note}"), err=True)
    if error.reason == UNKNOWN_OBJECT_NAME and hint:
        command = f"mqtool cmd '{define_command(system, queue)}'"
        click.echo(_line("MQT0153I", queue=queue, system=system.name, command=command), err=True)


def _dynamic_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """--dynamic-name: the DynamicQName of a model queue's MQOPEN."""
    return click.option(
        "--dynamic-name",
        "dynamic_name",
        default="CSQ.*",
        show_default=True,
        metavar="NAME",
        help="A model queue opens a dynamic queue of this name (a prefix ending in * gets unique digits).",
    )(command)


def _dynamic_pattern(text: str) -> str:
    """A --dynamic-name checked as MQ would take it (exit 2 otherwise)."""
    from mqtool.clock import Clock
    from mqtool.engine.core.dynamic import dynamic_name
    from mqtool.engine.core.reasons import MQError

    try:
        dynamic_name(text, Clock(), 0)
    except MQError as error:
        fail(f"--dynamic-name {text}: {error.detail}")
    return text


def _stdin_lines(stream: IO[bytes], limit: int) -> Iterator[bytes]:
    """One message per line; a line is read up to `limit` + 1 bytes, so that one longer
    than any message can be is refused (MQRC 2030/2031) without being read whole."""
    while True:
        raw = stream.readline(limit + 3)
        if not raw:
            return
        if raw.endswith(b"\r\n"):
            yield raw[:-2]
        elif raw.endswith(b"\n"):
            yield raw[:-1]
        else:
            yield raw


def _stdout() -> TextIO:
    """Standard output (CliRunner replaces sys.stdout in tests); click.get_text_stream
    is deprecated from click 8.5."""
    return sys.stdout


def _expiry(text: str | None) -> float | None:
    if text is None:
        return None
    from mqtool.clock import ClockError
    from mqtool.workload import parse_expiry

    try:
        return parse_expiry(text)
    except ClockError as exc:
        fail(f"--expiry: {exc} (or tenths of a second, as MQ counts)")


def _id_option(name: str, text: str | None) -> bytes | None:
    if text is None:
        return None
    from mqtool.engine.core.message import parse_id

    try:
        return parse_id(text)
    except ValueError as exc:
        fail(f"{name}: {exc}")


def _check_topic_option(topic: str) -> None:
    """--topic: a topic string that can be published on (no wildcard level, no control
    character, at most 10240 characters)."""
    from mqtool.engine.core.topics import TopicError, check_topic

    try:
        check_topic(topic, publishing=True)
    except TopicError as error:
        fail(f"--topic {topic!r}: {error}")


def _topic_limit(tx: Any, system: Any, largest: int | None) -> int:
    """The largest publication the queue manager takes (its MAXMSGL); NoPubSub on z/TPF."""
    from mqtool.engine.core.reasons import MSG_TOO_BIG_FOR_Q_MGR, UNKNOWN_OBJECT_NAME, MQError
    from mqtool.engine.platforms import NoPubSub, model

    chosen = model(system.platform)
    if not chosen.pubsub:
        detail = f"{system.name} is a z/TPF system: z/TPF MQ has no publish/subscribe (no topics)"
        raise NoPubSub(UNKNOWN_OBJECT_NAME, detail)
    qmgr = chosen.queue_manager(tx, system)
    limit = int(qmgr.attrs.get("MAXMSGL", 4194304)) if qmgr is not None else 4194304
    if largest is not None and largest > limit:
        raise MQError(MSG_TOO_BIG_FOR_Q_MGR, f"{largest} bytes is more than the queue manager's MAXMSGL {limit}")
    return limit


@click.command(context_settings=CONTEXT)
@click.argument("queue", required=False)
@_system_option
@click.option("--topic", metavar="STRING", help="Publish on this topic string instead (z/OS): a copy per subscriber.")
@click.option("--retain", is_flag=True, help="With --topic: keep it as the topic's retained publication.")
@click.option("--file", "files", multiple=True, metavar="PATH", help="A file as one message (repeatable; - is stdin).")
@click.option("--data", multiple=True, metavar="TEXT", help="Text as one message (repeatable).")
@click.option("--whole", is_flag=True, help="Standard input as one message (default: one message per line).")
@click.option("--pattern", type=click.Choice(["xml", "json", "random", "text"]), help="Generate payloads.")
@click.option("--size", type=_SizeType(), help="Size of each generated message: bytes, or 32KB, 4MB, 1MiB [1KB].")
@click.option(
    "--count",
    type=Whole(0, inputs.MAX_COUNT),
    help=f"Generated messages, or copies of each file/data, 0-{inputs.MAX_COUNT} [1].",
)
@click.option(
    "--seed",
    type=Whole(0, inputs.MAX_SEED),
    default=0,
    show_default=True,
    help=f"Seed of generated payloads, 0-{inputs.MAX_SEED}.",
)
@click.option("--persistent/--non-persistent", default=None, help="Persistence [the queue's DEFPSIST].")
@click.option("--priority", type=Whole(0, 9), help="Priority 0-9 [the queue's DEFPRTY, 0 on z/TPF].")
@click.option("--msgid", metavar="ID", help="Message id: 48 hex digits or up to 24 characters.")
@click.option("--correlid", metavar="ID", help="Correlation id: 48 hex digits or up to 24 characters.")
@click.option("--expiry", metavar="TIME", help="Expiry: tenths of a second (as MQ), or a duration such as 30s.")
@click.option(
    "--syncpoint", is_flag=True, help="All messages in one unit of work: committed together, or none (MAXUMSGS)."
)
@_dynamic_option
@click.option(
    "--put1", is_flag=True, help="Put each message by MQPUT1, as z/OS queue statistics count it (default: MQPUT)."
)
@click.option("-q", "--quiet", is_flag=True, help="Only the summary line, no line per message.")
@click.pass_obj
def put(
    app: App,
    queue: str | None,
    system_name: str | None,
    topic: str | None,
    retain: bool,
    files: tuple[str, ...],
    data: tuple[str, ...],
    whole: bool,
    pattern: str | None,
    size: int | None,
    count: int | None,
    seed: int,
    persistent: bool | None,
    priority: int | None,
    msgid: str | None,
    correlid: str | None,
    expiry: str | None,
    syncpoint: bool,
    dynamic_name: str,
    put1: bool,
    quiet: bool,
) -> None:
    """Put messages to a queue of the current system (z/TPF or z/OS): from --file, --data,
    generated (--pattern/--size/--count/--seed), or standard input (one message per
    line, or --whole). Persistent messages are committed one by one, non-persistent ones
    in batches; the line `MQT0102I Message N put ...` is printed only once its message is
    committed. Queue compression, SWBs, the sweeper and the statistics apply as for any
    put. A message longer than the queue's or the queue manager's MAXMSGL is refused
    before it is generated or read. Ctrl-C stops the put with the summary of what was
    committed (MQT0152W). A z/OS model queue's name makes a dynamic queue, as an MQOPEN
    does (--dynamic-name; the summary names it): a TEMPDYN one is gone again when the
    put ends, a PERMDYN one stays.

    Exit status: 0 every message put, 1 the queue manager refused one (MQRC reason;
    those before it stay put), 2 a bad option or unreadable input, 130 interrupted.

    With --topic STRING (instead of QUEUE) each message is published on a z/OS queue
    manager: one copy goes to the destination queue of every matching subscription, all
    in one unit of work with the publication (every subscriber has it or none has);
    MQT0104I says how many copies. --retain keeps it as the topic string's retained
    publication, which a subscription defined later receives. z/TPF MQ has no topics.

    The examples work in a new store when run in the order given.

    \b
    Examples:
      mqtool cmd 'ZMQSC DEFINE QL-TPFQ'
      mqtool put TPFQ --data 'hello'
      mqtool put TPFQ --pattern xml --size 32KB --count 1000 --non-persistent -q
      echo '<order id="42"/>' > order.xml && mqtool put TPFQ --file order.xml --persistent --priority 5
      seq 1 10 | mqtool put TPFQ -q
      mqtool cmd '-CSQ1 DEFINE QLOCAL(SCORES)' "-CSQ1 DEFINE SUB(ALL.SCORES) TOPICSTR('Sports/#') DEST(SCORES)"
      mqtool --system CSQ1 put --topic Sports/Football --data '2-1' --retain
      mqtool cmd '-CSQ1 DEFINE QMODEL(REPLY.MODEL) DEFTYPE(PERMDYN)'
      mqtool put REPLY.MODEL --system CSQ1 --dynamic-name 'REPLY.*' --data 'to a new queue'
    """
    from mqtool.engine.core.message import PutOptions, PutResult, check_length, format_id
    from mqtool.engine.core.reasons import MQError
    from mqtool.engine.core.resolve import resolve
    from mqtool.engine.core.streams import put_stream
    from mqtool.engine.platforms import NoPubSub, model, open_queue, open_topic
    from mqtool.state import StoreError
    from mqtool.workload import (
        INTERRUPTED,
        STORE_FAILED,
        PayloadSpec,
        PutTally,
        WorkloadError,
        is_model,
        plural,
        publication_fields,
        route,
    )

    if (queue is None) == (topic is None):
        fail("give a QUEUE or --topic STRING (one of them)")
    if retain and topic is None:
        fail("--retain applies to --topic only")
    if topic is not None:
        _check_topic_option(topic)
    queue = queue.upper() if queue is not None else f"topic '{topic}'"
    stdin = not files and not data and pattern is None and size is None
    if whole and not stdin:
        fail("--whole applies to standard input only")
    if stdin and count is not None:
        fail("--count needs --pattern/--size, --file or --data")
    if stdin and syncpoint:
        fail("--syncpoint needs --pattern/--size, --file or --data (a unit of work never waits for standard input)")
    spec = PayloadSpec(
        files=tuple(f for f in files if f != "-"), data=data, pattern=pattern, size=size, count=count, seed=seed
    )
    if "-" in files:
        if len(files) > 1 or data:
            fail("--file - (standard input) cannot be combined with other files or --data")
        stdin, whole = True, True
    try:
        spec.check()
        largest = None if stdin else spec.largest()  # standard input: each line is checked as read
    except WorkloadError as exc:
        fail(str(exc))
    options = PutOptions(
        persistent=persistent,
        priority=priority,
        msgid=_id_option("--msgid", msgid),
        correlid=_id_option("--correlid", correlid) or bytes(24),
        expiry=_expiry(expiry),
    )
    session = _engine_session(app, system_name)
    system = session.current_system()
    # The lengths are checked against MAXMSGL before a payload is generated or read (a
    # model queue's, whose dynamic queue the MQOPEN makes, when the put checks them).
    try:
        with session.store.transaction(write=False) as tx:
            if topic is not None:
                limit = _topic_limit(tx, system, largest)
            else:
                kind = model(system.platform).model_type
                template = tx.get_object(system.name, kind, queue) if is_model(tx, system, queue) else None
                resolved = None if template is not None else resolve(tx, system.name, queue, model(system.platform))
                limit = int(template.attrs.get("MAXMSGL", 4194304)) if template is not None else 0
                if resolved is not None:
                    limit = min(resolved.maxmsgl, resolved.qmgr_maxmsgl)
                    if largest is not None and not resolved.put_error:
                        check_length(resolved, largest)
    except NoPubSub as error:
        fail(error.detail)
    except MQError as error:
        _refused("Put to", queue, system, error)
        sys.exit(EXIT_REFUSED)
    if stdin:
        source: Iterator[bytes] = (
            iter([sys.stdin.buffer.read(limit + 1)]) if whole else _stdin_lines(sys.stdin.buffer, limit)
        )
        total = None
    else:
        source = spec.payloads()
        total = spec.total()
    handle: Any
    if topic is not None:
        handle = open_topic(session.store, session.clock, system.name, topic, system.platform, retain)
    else:
        handle = open_queue(session.store, session.clock, system.name, queue, system.platform)
        handle.dynamic_name = _dynamic_pattern(dynamic_name)
        handle.put1 = put1
    tally = PutTally()
    copies = [0]
    out = _stdout()
    progress = None
    if total is not None and total >= PROGRESS_FROM and not quiet and out.isatty():
        from rich.progress import Progress

        progress = Progress(transient=True)
        task = progress.add_task(f"put {queue}", total=total)
        progress.start()
    template = messages.CATALOGUE["MQT0102I"].template

    def acknowledge(results: list[PutResult]) -> None:
        if progress is not None:
            progress.advance(task, len(results))
        elif not quiet:
            number = tally.count
            lines = []
            for result in results:
                number += 1
                text = template.format(
                    number=number,
                    queue=queue,
                    msgid=format_id(result.msgid),
                    length=plural(result.length, "byte"),
                    stored=result.stored,
                    codec=" compressed" if result.codec else "",
                )
                lines.append(f"MQT0102I {text}\n")
            out.write("".join(lines))
            out.flush()
        tally.add(results)
        if topic is not None:
            copies[0] += sum(result.units for result in results)

    def stopped(ending: str) -> None:
        """MQT0152W: what was committed before the put stopped."""
        if progress is not None:
            progress.stop()
        fields = tally.fields(queue, route(handle))
        if total is not None:
            fields["messages"] = f"{tally.count} of {plural(total, 'message')}"
        click.echo(_line("MQT0152W", ending=ending, **fields))

    try:
        items = ((payload, options) for payload in source)
        result = put_stream(handle, items, acknowledge, _ticker(session), blocking=stdin, unit_of_work=syncpoint)
    except WorkloadError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        stopped(INTERRUPTED)
        raise
    except StoreError:
        stopped(STORE_FAILED)
        raise
    finally:
        if progress is not None:
            progress.stop()
    if tally.count or result.error is None:
        click.echo(_line("MQT0101I", **tally.fields(queue, route(handle))))
        if topic is not None:
            click.echo(_line("MQT0104I", **publication_fields(topic, tally.count, copies[0], retain)))
    if result.error is not None:
        backed = " (unit of work backed out)" if syncpoint else ""
        _refused("Put to", queue, system, result.error, backed)
        sys.exit(EXIT_REFUSED)


class GetCount(click.ParamType):
    """`get --count`: a whole number 1 or more, or `all` (any case), as `.get count=` takes."""

    name = "N|all"
    ALL = "all"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int | str:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        text = str(value).strip()
        if text.lower() == self.ALL:
            return self.ALL
        try:
            return inputs.whole(text, 1, inputs.MAX_COUNT)
        except inputs.InputError as exc:
            self.fail(f"{exc}, or all", param, ctx)


class _WaitType(click.ParamType):
    """Seconds to wait for a message, up to MQ's longest wait interval, or `unlimited`
    (MQWI_UNLIMITED)."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        text = str(value).strip()
        if text.lower() in ("unlimited", "forever"):
            return float("inf")
        try:
            return inputs.decimal(text, 0.0, inputs.MAX_WAIT, "s")
        except inputs.InputError as exc:
            self.fail(f"{exc}, or 'unlimited'", param, ctx)


@click.command(context_settings=CONTEXT)
@click.argument("queue", required=False)
@_system_option
@click.option("--topic", metavar="STRING", help="Subscribe to this topic string instead (z/OS; # and + wildcards).")
@click.option("--durable", is_flag=True, help="With --topic: a durable subscription (--subname), kept when get ends.")
@click.option("--subname", metavar="NAME", help="With --topic: the subscription's name (made, or resumed if durable).")
@click.option("--new-only", is_flag=True, help="With --topic: no retained publications (MQSO_NEW_PUBLICATIONS_ONLY).")
@click.option("--selector", metavar="TEXT", help="With --topic: only publications this SQL92 selector picks.")
@click.option("--remove", "remove_sub", is_flag=True, help="With --durable: end the subscription when get ends.")
@click.option("--browse", is_flag=True, help="Browse: leave the messages on the queue.")
@click.option(
    "--count",
    type=GetCount(),
    help=f"Messages to get: a number 1-{inputs.MAX_COUNT}, or all (the same as --all, as .get count=all) [1].",
)
@click.option("--all", "all_messages", is_flag=True, help="Every message (until the queue is empty).")
@click.option(
    "--wait",
    type=_WaitType(),
    default=0.0,
    metavar="SECONDS",
    help=f"Wait for messages to arrive, up to {inputs.MAX_WAIT:g} seconds (MQ's longest), or 'unlimited'.",
)
@click.option("--msgid", metavar="ID", help="Only messages with this message id.")
@click.option("--correlid", metavar="ID", help="Only messages with this correlation id.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Write each message to DIR/MSGID.msg (exactly once, synced before the get commits).",
)
@click.option("--raw", is_flag=True, help="Write binary payloads to a terminal too (default: a notice instead).")
@click.option(
    "--decode",
    is_flag=True,
    help="Write trigger messages (MQTM) and configuration events (PCF) as one line of text each, decoded.",
)
@click.option(
    "--no-syncpoint",
    "no_syncpoint",
    is_flag=True,
    help="Remove each message before writing it out (at most once: a kill in between loses it).",
)
@_dynamic_option
@click.option("-q", "--quiet", is_flag=True, help="No summary on standard error.")
@click.pass_obj
def get(
    app: App,
    queue: str | None,
    system_name: str | None,
    topic: str | None,
    durable: bool,
    subname: str | None,
    new_only: bool,
    selector: str | None,
    remove_sub: bool,
    browse: bool,
    count: int | str | None,
    all_messages: bool,
    wait: float,
    msgid: str | None,
    correlid: str | None,
    out_dir: Path | None,
    raw: bool,
    decode: bool,
    no_syncpoint: bool,
    dynamic_name: str,
    quiet: bool,
) -> None:
    """Get messages from a queue of the current system (z/TPF or z/OS) (destructively; --browse
    leaves them), in priority order and first in, first out within a priority. Payloads
    go to standard output, each followed by a newline, or to --out DIR as exact files.
    Compressed messages are inflated (hardware with the accelerator, software without).

    Gets are under syncpoint: a message is written out (and flushed; with --out, synced
    to disk) before its removal commits, so a process killed at any moment loses no
    message. Standard output gets each message at least once (one written just before a
    kill is written again by the next get); --out DIR exactly once (a message written
    again keeps its one file). --no-syncpoint removes first and writes after: at most
    once. A message that cannot be written (a closed pipe, a full disk) stays on the
    queue. On a terminal a binary payload is not written: a notice says so (--raw writes
    it). --decode writes a trigger message or a z/OS configuration event
    (SYSTEM.ADMIN.CONFIG.EVENT) as one line of text: its fields, or the PCF header and
    each parameter by name. A z/OS model queue's name opens a new, empty dynamic queue, as an MQOPEN does
    (2033 then; MQT0778I names the queue).

    With --topic STRING (instead of QUEUE) get subscribes to the topic string on a z/OS
    queue manager, as an application's MQSUB does, and gets the publications from the
    subscription's managed queue (SYSTEM.MANAGED.NDURABLE.*, made from the topic's
    MNDURMDL model queue) while it runs: --wait N waits up to N seconds for each next
    one, --wait unlimited until Ctrl-C. A new subscription first receives the retained
    publications it matches (--new-only: none). The subscription is non-durable: it ends
    with the get, and its queue with it, also after Ctrl-C or SIGTERM; a get killed with
    kill -9 leaves it until the next mqtool command, which removes it (as a queue
    manager cleans up after a failed connection). DISPLAY SUB and SBSTATUS show it while
    it lives (SUBTYPE(API), DURABLE(NO)). --durable --subname NAME makes (or takes up
    again) a durable subscription: it stays when the get ends and keeps what is
    published meanwhile for the next `get --topic ... --durable --subname NAME`;
    --remove ends it too. The subscription's line (MQT0160I) and its end (MQT0161I,
    MQT0162I) go to standard error.

    Exit status: 0 the messages asked for were got (with --all: however many), 1 fewer
    (MQRC 2033), the queue manager refused (MQRC reason) or a binary payload was not
    written to a terminal, 2 a bad option or a message that cannot be written.

    The examples work in a new store when run in the order given.

    \b
    Examples:
      mqtool cmd 'ZMQSC DEFINE QL-TPFQ'
      mqtool put TPFQ --data 'order 42' --correlid ORDER42 && seq 1 10 | mqtool put TPFQ -q
      mqtool get TPFQ --wait 30 --correlid ORDER42
      mqtool get TPFQ --browse --count 5
      mqtool get TPFQ
      mqtool get TPFQ --all --out ./got
      mqtool --system CSQ1 cmd 'ALTER QMGR CONFIGEV(ENABLED)' 'DEFINE QLOCAL(AUDITED)'
      mqtool --system CSQ1 get SYSTEM.ADMIN.CONFIG.EVENT --browse --all --decode
      mqtool --system CSQ1 get --topic 'Sports/#' --all --wait 5 &
      mqtool --system CSQ1 put --topic Sports/Tennis --data '6-4'
      mqtool --system CSQ1 get --topic 'Sports/#' --durable --subname SCORES --all
    """
    from dataclasses import replace

    from mqtool.cli.delivery import BinaryOnTerminal, FolderSink, StreamSink
    from mqtool.engine.core.message import Message, Selector, format_id
    from mqtool.engine.core.reasons import NO_MSG_AVAILABLE, describe
    from mqtool.engine.core.streams import get_stream
    from mqtool.engine.platforms import open_queue
    from mqtool.state import StoreError
    from mqtool.workload import decoded, plural, route

    if count == GetCount.ALL:
        count, all_messages = None, True  # --count all is --all (and .get count=all)
    elif count is not None and all_messages:
        fail("give --count or --all, not both")
    if decode and out_dir is not None:
        fail("give --decode or --out, not both (--out writes each message's exact bytes)")
    request = _subscription_request(queue, topic, durable, subname, new_only, selector, remove_sub, browse)
    queue = queue.upper() if queue is not None else f"topic '{topic}'"
    wanted = None if all_messages else int(count or 1)
    chosen = Selector(_id_option("--msgid", msgid), _id_option("--correlid", correlid))
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            fail(f"cannot create {out_dir}: {exc.strerror or exc}")
    session = _engine_session(app, system_name)
    system = session.current_system()
    subscribed = None
    if request is not None:
        # From here to the end of the command SIGTERM ends it like Ctrl-C: the
        # subscription made next is closed on the way out.
        click.get_current_context().with_resource(_terminated_as_exit())
        subscribed = _subscribe(session, system, request, quiet)
        handle = open_queue(session.store, session.clock, system.name, subscribed.queue, system.platform)
    else:
        handle = open_queue(session.store, session.clock, system.name, queue, system.platform)
        handle.dynamic_name = _dynamic_pattern(dynamic_name)
    verb = "Browsed" if browse else "Got"
    action = "Browse of" if browse else "Get from"
    got = [0]  # messages handed on (and, for a get, committed)
    shown = [0]  # messages browsed so far

    def notice(message: Message) -> None:
        fields = {"number": shown[0], "queue": queue, "msgid": format_id(message.msgid)}
        click.echo(_line("MQT0151I", length=plural(message.length, "byte"), **fields), err=True)

    sink: FolderSink | StreamSink
    if out_dir is not None:
        sink = FolderSink(out_dir, session.store.path)
        where = str(out_dir)
    else:
        sink = StreamSink(sys.stdout.buffer, _stdout().isatty(), raw, notice if browse else None)
        where = "standard output"

    def committed(batch: list[Message]) -> None:
        got[0] += len(batch)
        if isinstance(sink, FolderSink):
            sink.committed(batch)

    def summary() -> None:
        # After a failure the summary is shown only when some messages came before it.
        if not quiet and got[0]:
            click.echo(_line("MQT0111I", verb=verb, messages=plural(got[0], "message"), queue=queue), err=True)

    def deliver(message: Message) -> None:
        shown[0] += 1
        text = decoded(message) if decode else None
        sink.deliver(message if text is None else replace(message, payload=text.encode("utf-8")))

    try:
        result = get_stream(
            handle,
            deliver,
            wanted,
            chosen,
            browse,
            wait,
            _ticker(session),
            syncpoint=not no_syncpoint,
            flush=sink.flush,
            committed=committed,
        )
    except BrokenPipeError:
        raise  # the reader went away (`| head`): quietly, as every command does
    except BinaryOnTerminal as exc:
        summary()
        message = exc.message
        fields = {"number": got[0] + 1, "queue": queue, "msgid": format_id(message.msgid)}
        click.echo(_line("MQT0150E", length=plural(message.length, "byte"), **fields), err=True)
        sys.exit(EXIT_REFUSED)
    except (KeyboardInterrupt, StoreError):
        summary()
        raise
    except OSError as exc:
        summary()
        fail(f"cannot write a message to {where}: {exc.strerror or exc}; it stays on the queue")
    finally:
        if subscribed is not None:
            _unsubscribe(session, system, subscribed, remove_sub, quiet)
    if handle.created is not None and not quiet:
        click.echo(_line("MQT0778I", queue=queue, purpose="input", route=route(handle)), err=True)
    if result.uncounted:
        click.echo(_line("MQT0713W", queue=queue, reason=result.uncounted), err=True)
    if not quiet and (result.count or result.error is None):
        click.echo(_line("MQT0111I", verb=verb, messages=plural(result.count, "message"), queue=queue), err=True)
    if result.error is not None:
        _refused(action, queue, system, result.error, hint=subscribed is None)
        sys.exit(EXIT_REFUSED)
    if wanted is not None and result.count < wanted:
        click.echo(_line("MQT0120E", action=action, queue=queue, reason=describe(NO_MSG_AVAILABLE)), err=True)
        sys.exit(EXIT_REFUSED)


def _subscription_request(
    queue: str | None,
    topic: str | None,
    durable: bool,
    subname: str | None,
    new_only: bool,
    selector: str | None,
    remove_sub: bool,
    browse: bool,
) -> Any:
    """The MQSUB that `get --topic` makes (None for a get from a queue); usage errors
    for options that do not fit together."""
    from mqtool.engine.core.subscriptions import NAME_MAX, Request
    from mqtool.engine.core.topics import TopicError, check_topic

    if (queue is None) == (topic is None):
        fail("give a QUEUE or --topic STRING (one of them)")
    if topic is None:
        for flag, given in (("--durable", durable), ("--subname", subname is not None), ("--new-only", new_only),
                            ("--selector", selector is not None), ("--remove", remove_sub)):  # fmt: skip
            if given:
                fail(f"{flag} applies to --topic only")
        return None
    try:
        check_topic(topic, publishing=False)
    except TopicError as error:
        fail(f"--topic {topic!r}: {error}")
    if durable and not (subname or "").strip():
        fail("--durable needs --subname NAME (a durable subscription is found again by its name)")
    if remove_sub and not durable:
        fail("--remove applies to --durable (a non-durable subscription always ends with the get)")
    if browse and not durable:
        fail("--browse of a topic needs --durable (a non-durable subscription's messages go when it ends)")
    if subname is not None and not 0 < len(subname) <= NAME_MAX:
        fail(f"--subname: 1 to {NAME_MAX} characters")
    return Request(topic, subname or "", durable, new_only, selector or "")


def _subscribe(session: Any, system: Any, request: Any, quiet: bool) -> Any:
    """MQSUB in a transaction of its own (MQT0160I on standard error); MQT0120E and exit
    status 1 when refused, 2 on z/TPF."""
    from mqtool.engine.core.reasons import MQError
    from mqtool.engine.platforms import NoPubSub
    from mqtool.subscribing import subscribe, subscribed_fields

    made = subscribe(session, system, request)
    if isinstance(made, NoPubSub):
        fail(made.detail)
    if isinstance(made, MQError):
        _refused("Subscribe to", f"topic '{request.topic}'", system, made)
        sys.exit(EXIT_REFUSED)
    if not quiet:
        click.echo(_line("MQT0160I", **subscribed_fields(made)), err=True)
    return made


def _unsubscribe(session: Any, system: Any, subscribed: Any, remove_sub: bool, quiet: bool) -> None:
    """MQCLOSE of the subscription (MQT0161I or MQT0162I on standard error)."""
    from mqtool.subscribing import close

    try:
        response = close(session, system, subscribed, remove_sub)
    except Exception:
        return  # the store failed: the next command's clean-up removes a non-durable subscription
    if not quiet or not response.ok:
        for message in response.messages:
            click.echo(_line(message.id, **message.fields), err=True)


class _Terminated(SystemExit):
    """SIGTERM during a get from a topic: ends the get like Ctrl-C does, so that its
    subscription is closed on the way out (status 143, as the signal gives)."""


@contextlib.contextmanager
def _terminated_as_exit() -> Iterator[None]:
    """SIGTERM raises _Terminated once (a second one while closing is ignored)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    raised = [False]

    def stop(signum: int, frame: Any) -> None:
        if raised[0]:
            return
        raised[0] = True
        raise _Terminated(128 + signal.SIGTERM)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# -- serve and console -------------------------------------------------------------
def _local_time(systems: dict[str, Any], name: str, when: float) -> str:
    from mqtool.clock import parse_offset

    record = systems.get(name)
    offset = parse_offset(str(record.attrs.get("offset", "+00:00"))) if record is not None else None
    moment = datetime.fromtimestamp(when, UTC)
    if offset is not None:
        moment = moment + offset
    return f"{moment:%Y-%m-%d %H:%M:%S}"


@click.command(context_settings=CONTEXT)
@click.option(
    "--interval",
    type=Decimal(0.05, 5.0, "s"),
    default=0.2,
    show_default=True,
    help="Seconds between iterations of the loop, 0.05-5.",
)
@click.pass_obj
def serve(app: App, interval: float) -> None:
    """Run the systems in real time in the foreground: the timers (MQ monitor, sweeper,
    checkpoint, channels, expiry) several times a second, and the services (HTTP servers
    that are started). Console messages are printed as they arise, each after its
    system's name. Ctrl-C or SIGTERM stops it cleanly.

    \b
    Examples:
      mqtool serve
      mqtool --state ./lab serve --interval 0.5
    """
    from mqtool.cli.loop import SERVICES, ConsoleEntry, EngineLoop, default_services

    session = app.session()
    session.tick()
    names = ", ".join(system.name for system in session.systems()) or "no systems"

    def show(entry: ConsoleEntry) -> None:
        click.echo(f"{entry.system} {entry.text}")

    def report(text: str) -> None:
        click.echo(f"mqtool: serve: {text}", err=True)

    loop = EngineLoop(app.state_dir, app.clock, on_entry=show, on_error=report, interval=interval)
    for service in default_services(loop):
        loop.add_service(service)
    services = f", {len(SERVICES)} services" if SERVICES else ""
    click.echo(_line("MQT0140I", systems=names, services=services), err=True)
    started = time.monotonic()
    previous = signal.getsignal(signal.SIGTERM)
    signal.signal(signal.SIGTERM, lambda signum, frame: loop.stop())
    try:
        loop.run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    click.echo(_line("MQT0141I", seconds=f"{time.monotonic() - started:.1f}"), err=True)


# The table of `mqtool console` (csv has every field: _CONSOLE_FIELDS).
_CONSOLE_TABLE = (Column("local", "LOCAL TIME"), Column("system", "SYSTEM"), Column("text", "MESSAGE"))
_CONSOLE_FIELDS = ("id", "system", "time", "local", "text")


@click.command(context_settings=CONTEXT)
@click.option("-f", "--follow", is_flag=True, help="Keep printing new messages until Ctrl-C.")
@click.option("--system", "system_name", metavar="NAME", help="Only this system's messages [all systems].")
@format_option({"text": "table"})
@click.option("--last", type=Whole(1, inputs.MAX_COUNT), metavar="N", help="Only the last N messages.")
@click.pass_obj
def console(app: App, follow: bool, system_name: str | None, output_format: str, last: int | None) -> None:
    """Show the unsolicited console messages of the systems: QDEPTHHI warnings, sweeper
    notices, SWB shortages, CSQM587E and the like, with the local time and system of
    each. --format json gives a JSON array (JSON lines with --follow), csv a header and
    one row per message.

    \b
    Examples:
      mqtool console
      mqtool console --system TPF1 --last 20
      mqtool console --follow --format json
    """
    session = app.session()
    session.tick()
    wanted = system_name or app.system
    systems = {system.name: system for system in session.systems()}
    if wanted is not None:
        wanted = find_system(list(systems.values()), wanted).name
    store = session.store
    with store.transaction(write=False) as tx:
        rows = tx.console_since(wanted, 0)
    if last is not None:
        rows = rows[-last:]

    def record(row: tuple[int, str, float, str]) -> dict[str, Any]:
        row_id, name, when, text = row
        return {
            "id": row_id,
            "system": name,
            "time": datetime.fromtimestamp(when, UTC).isoformat().replace("+00:00", "Z"),
            "local": _local_time(systems, name, when),
            "text": text,
        }

    if not follow:
        emit([record(row) for row in rows], output_format, _CONSOLE_TABLE, _CONSOLE_FIELDS, stream=_stdout())
        return
    # Followed: each message as it comes, in the columns of the table (a local time is
    # 19 characters, a system name at most 8).
    widths = (19, max(len("SYSTEM"), *(len(name) for name in systems)), 0)
    if output_format == "table":
        click.echo(plain_row([column.heading for column in _CONSOLE_TABLE], _CONSOLE_TABLE, widths))
    elif output_format == "csv":
        click.echo(csv_text([], _CONSOLE_FIELDS, header=True), nl=False)

    def emit_one(row: tuple[int, str, float, str]) -> None:
        item = record(row)
        if output_format == "json":
            click.echo(json.dumps(item))
        elif output_format == "csv":
            click.echo(csv_text([item], _CONSOLE_FIELDS, header=False), nl=False)
        else:
            click.echo(plain_row([column.text(item) for column in _CONSOLE_TABLE], _CONSOLE_TABLE, widths))

    for row in rows:
        emit_one(row)
    after = rows[-1][0] if rows else _top(store)
    try:
        while True:
            time.sleep(0.25)
            with store.transaction(write=False) as tx:
                new = tx.console_since(wanted, after)
            for row in new:
                emit_one(row)
                after = row[0]
    except KeyboardInterrupt:
        return


def _top(store: Any) -> int:
    with store.transaction(write=False) as tx:
        return int(tx.conn.execute("SELECT coalesce(max(id), 0) FROM console").fetchone()[0])
