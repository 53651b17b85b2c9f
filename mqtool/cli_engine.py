"""`mqtool put`, `mqtool get`, `mqtool serve` and `mqtool console`: the message engine
and its console from the command line."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, TextIO

import click

from mqtool import messages
from mqtool.cli import App, fail, find_system
from mqtool.listing import Column, csv_text, emit, format_option, plain_row

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
PROGRESS_FROM = 1000  # a progress bar only for this many messages or more (and on a terminal)
TICK_EVERY = 1.0  # seconds of wall time between timer catch-ups during a long stream

EXIT_OK = 0
EXIT_REFUSED = 1  # the queue manager refused (a reason code), or fewer messages than asked


def _engine_session(app: App) -> Any:
    """The session, on a current system whose queue manager the engine runs."""
    from mqtool.engine.platforms import PLATFORMS

    session = app.session()
    system = session.current_system()
    if system is None:
        fail("the complex has no system")
    if system.platform not in PLATFORMS:
        fail(f"the current system {system.name} has no queue manager mqtool runs (use --system)")
    session.tick()
    return session


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


def _stdin_lines(stream: IO[bytes]) -> Iterator[bytes]:
    for raw in stream:
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


@click.command(context_settings=CONTEXT)
@click.argument("queue")
@click.option("--file", "files", multiple=True, metavar="PATH", help="A file as one message (repeatable; - is stdin).")
@click.option("--data", multiple=True, metavar="TEXT", help="Text as one message (repeatable).")
@click.option("--whole", is_flag=True, help="Standard input as one message (default: one message per line).")
@click.option("--pattern", type=click.Choice(["xml", "json", "random", "text"]), help="Generate payloads.")
@click.option("--size", type=click.IntRange(0), help="Bytes per generated message [1024].")
@click.option("--count", type=click.IntRange(0), help="Generated messages, or copies of each file/data [1].")
@click.option("--seed", type=click.IntRange(0), default=0, show_default=True, help="Seed of generated payloads.")
@click.option("--persistent/--non-persistent", default=None, help="Persistence [the queue's DEFPSIST].")
@click.option("--priority", type=click.IntRange(0, 9), help="Priority 0-9 [the queue's DEFPRTY, 0 on z/TPF].")
@click.option("--msgid", metavar="ID", help="Message id: 48 hex digits or up to 24 characters.")
@click.option("--correlid", metavar="ID", help="Correlation id: 48 hex digits or up to 24 characters.")
@click.option("--expiry", metavar="TIME", help="Expiry: tenths of a second (as MQ), or a duration such as 30s.")
@click.option(
    "--syncpoint", is_flag=True, help="All messages in one unit of work: committed together, or none (MAXUMSGS)."
)
@click.option("-q", "--quiet", is_flag=True, help="Only the summary line, no line per message.")
@click.pass_obj
def put(
    app: App,
    queue: str,
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
    quiet: bool,
) -> None:
    """Put messages to a queue of the current system (z/TPF or z/OS): from --file, --data,
    generated (--pattern/--size/--count/--seed), or standard input (one message per
    line, or --whole). Persistent messages are committed one by one, non-persistent ones
    in batches; the line `MQT0102I Message N put ...` is printed only once its message is
    committed. Queue compression, SWBs, the sweeper and the statistics apply as for any
    put.

    Exit status: 0 every message put, 1 the queue manager refused one (MQRC reason;
    those before it stay put), 2 a bad option or unreadable input.

    \b
    Examples:
      mqtool put TPFQ --data 'hello'
      mqtool put TPFQ --pattern xml --size 32768 --count 1000 --non-persistent
      mqtool put TPFQ --file order.xml --persistent --priority 5
      seq 1 10 | mqtool put TPFQ
    """
    from mqtool.engine.core.message import PutOptions, PutResult, format_id
    from mqtool.engine.core.streams import put_stream
    from mqtool.engine.platforms import open_queue
    from mqtool.workload import PayloadSpec, PutTally, WorkloadError, plural, route

    queue = queue.upper()
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
        for name in spec.files:
            if not Path(name).is_file():
                fail(f"cannot read {name}: no such file")
    except WorkloadError as exc:
        fail(str(exc))
    options = PutOptions(
        persistent=persistent,
        priority=priority,
        msgid=_id_option("--msgid", msgid),
        correlid=_id_option("--correlid", correlid) or bytes(24),
        expiry=_expiry(expiry),
    )
    session = _engine_session(app)
    system = session.current_system()
    if stdin:
        source: Iterator[bytes] = iter([sys.stdin.buffer.read()]) if whole else _stdin_lines(sys.stdin.buffer)
        total = None
    else:
        source = spec.payloads()
        total = spec.total()
    handle = open_queue(session.store, session.clock, system.name, queue, system.platform)
    tally = PutTally()
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

    try:
        items = ((payload, options) for payload in source)
        result = put_stream(handle, items, acknowledge, _ticker(session), blocking=stdin, unit_of_work=syncpoint)
    except WorkloadError as exc:
        fail(str(exc))
    finally:
        if progress is not None:
            progress.stop()
    if tally.count or result.error is None:
        click.echo(_line("MQT0101I", **tally.fields(queue, route(handle))))
    if result.error is not None:
        backed = " (unit of work backed out)" if syncpoint else ""
        click.echo(_line("MQT0120E", action="Put to", queue=queue, reason=f"{result.error}{backed}"), err=True)
        sys.exit(EXIT_REFUSED)


def _writer(out_dir: Path | None) -> Callable[[Any], None]:
    """Where got messages go: standard output (each followed by a newline) or one file
    per message in out_dir (`MSGID.msg`, exact bytes; persistent ones synced to disk).
    They run after the get has committed (see get_stream)."""
    if out_dir is None:
        stream = sys.stdout.buffer

        def to_stdout(message: Any) -> None:
            stream.write(message.payload)
            stream.write(b"\n")
            stream.flush()

        return to_stdout

    from mqtool.engine.core.message import format_id

    def to_file(message: Any) -> None:
        name = format_id(message.msgid)
        path = out_dir / f"{name}.msg"
        suffix = 0
        while path.exists():
            suffix += 1
            path = out_dir / f"{name}.{suffix}.msg"
        with open(path, "wb") as handle:
            handle.write(message.payload)
            if message.persistent:
                handle.flush()
                os.fsync(handle.fileno())

    return to_file


@click.command(context_settings=CONTEXT)
@click.argument("queue")
@click.option("--browse", is_flag=True, help="Browse: leave the messages on the queue.")
@click.option("--count", type=click.IntRange(1), help="Messages to get [1].")
@click.option("--all", "all_messages", is_flag=True, help="Every message (until the queue is empty).")
@click.option("--wait", type=click.FloatRange(0), default=0.0, metavar="SECONDS", help="Wait for messages to arrive.")
@click.option("--msgid", metavar="ID", help="Only messages with this message id.")
@click.option("--correlid", metavar="ID", help="Only messages with this correlation id.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), help="Write MSGID.msg files here.")
@click.option("-q", "--quiet", is_flag=True, help="No summary on standard error.")
@click.pass_obj
def get(
    app: App,
    queue: str,
    browse: bool,
    count: int | None,
    all_messages: bool,
    wait: float,
    msgid: str | None,
    correlid: str | None,
    out_dir: Path | None,
    quiet: bool,
) -> None:
    """Get messages from a queue of the current system (z/TPF or z/OS) (destructively; --browse
    leaves them), in priority order and first in, first out within a priority. Payloads
    go to standard output, each followed by a newline, or to --out DIR as exact files.
    Compressed messages are inflated (hardware with the accelerator, software without).
    A message is written out after its removal commits; one that cannot be written (a
    closed pipe, a full disk) is put back in its place on the queue.

    Exit status: 0 the messages asked for were got (with --all: however many), 1 fewer
    (MQRC 2033) or the queue manager refused (MQRC reason), 2 a bad option.

    \b
    Examples:
      mqtool get TPFQ
      mqtool get TPFQ --all --out ./got
      mqtool get TPFQ --browse --count 5
      mqtool get TPFQ --wait 30 --correlid ORDER42
    """
    from mqtool.engine.core.message import Selector
    from mqtool.engine.core.reasons import NO_MSG_AVAILABLE, describe
    from mqtool.engine.core.streams import get_stream
    from mqtool.engine.platforms import open_queue
    from mqtool.workload import plural

    if count is not None and all_messages:
        fail("give --count or --all, not both")
    queue = queue.upper()
    wanted = None if all_messages else (count or 1)
    selector = Selector(_id_option("--msgid", msgid), _id_option("--correlid", correlid))
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            fail(f"cannot create {out_dir}: {exc.strerror or exc}")
    session = _engine_session(app)
    system = session.current_system()
    handle = open_queue(session.store, session.clock, system.name, queue, system.platform)
    try:
        result = get_stream(handle, _writer(out_dir), wanted, selector, browse, wait, _ticker(session))
    except BrokenPipeError:
        raise  # the reader went away (`| head`): quietly, as every command does
    except OSError as exc:
        fail(f"cannot write the message: {exc.strerror or exc}; it stays on the queue")
    verb = "Browsed" if browse else "Got"
    action = "Browse of" if browse else "Get from"
    # After a refusal the summary is shown only when some messages came before it.
    if not quiet and (result.count or result.error is None):
        click.echo(_line("MQT0111I", verb=verb, messages=plural(result.count, "message"), queue=queue), err=True)
    if result.error is not None:
        click.echo(_line("MQT0120E", action=action, queue=queue, reason=str(result.error)), err=True)
        sys.exit(EXIT_REFUSED)
    if wanted is not None and result.count < wanted:
        click.echo(_line("MQT0120E", action=action, queue=queue, reason=describe(NO_MSG_AVAILABLE)), err=True)
        sys.exit(EXIT_REFUSED)


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
    type=click.FloatRange(0.05, 5.0),
    default=0.2,
    show_default=True,
    help="Seconds between iterations of the loop.",
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
    from mqtool.loop import SERVICES, ConsoleEntry, EngineLoop, default_services

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
@click.option("--last", type=click.IntRange(1), metavar="N", help="Only the last N messages.")
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
