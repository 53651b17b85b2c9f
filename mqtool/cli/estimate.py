"""`mqtool estimate`: the capacity planner's tool. Runs payload files (or a generated
corpus) through the engine's codecs and storage models and reports, per size class, what
queue, channel, log and HTTP compression would save. It never opens the store."""

from __future__ import annotations

import codecs as text_codecs
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

from mqtool.cli.main import App, fail
from mqtool.cli.options import Whole

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
EXIT_UNREADABLE = 1  # some inputs could not be read; the rest was estimated
MAX_GENERATED = 1_000_000  # generated messages of each size, at the most
MAX_PAGES = 16_777_216  # pages of a z/OS page set, as DEFINE PSID PAGES takes them
MAX_JOBS = 256  # worker processes, at the most
MAX_RATE = 1_000_000.0  # messages per second the sweeper forecast takes, at the most
MAX_OUTAGE = 366 * 86400.0  # seconds of an outage, at the most: a year
PROGRESS_FROM = 2  # work units (about 8 MB each) from which a terminal shows a progress bar
SENDER_VALUES = ("NONE", "ZLIBFAST", "ZLIBHIGH")  # a z/TPF sender's COMPMSG
RECEIVER_VALUES = {
    "ztpf": ("NONE", "ZLIBFAST", "ZLIBHIGH", "ANY"),
    "zos": ("NONE", "RLE", "ZLIBFAST", "ZLIBHIGH", "ANY"),
}


def _size(option: str, text: str | None, default: int) -> int:
    from mqtool.estimate.settings import SettingsError, parse_size

    if text is None:
        return default
    try:
        return parse_size(text)
    except SettingsError as exc:
        fail(f"{option}: {exc}")


def _compsize(option: str, text: str | None, default: int) -> int:
    """A COMPSIZE-like threshold: a size from 0 to the largest MQ message."""
    from mqtool.estimate.settings import MAX_MESSAGE

    size = _size(option, text, default)
    if size > MAX_MESSAGE:
        fail(f"{option}: at most 100MB (the largest MQ message); 0 is off")
    return size


def _values(option: str, text: str, allowed: tuple[str, ...]) -> tuple[str, ...]:
    values = tuple(part.strip().upper() for part in text.split(","))
    wrong = [value for value in values if value not in allowed]
    if not values or wrong or ("NONE" in values and len(values) > 1):
        fail(f"{option}: {text!r} is not a list of {', '.join(allowed)} (NONE alone)")
    return values


def _reports(text: str | None) -> tuple[str, ...]:
    from mqtool.estimate.settings import REPORTS

    if text is None:
        return REPORTS
    wanted = [part.strip().lower() for part in text.split(",")]
    wrong = [part for part in wanted if part not in REPORTS]
    if wrong or not wanted:
        fail(f"--report: {text!r} is not a list of {', '.join(REPORTS)}")
    return tuple(report for report in REPORTS if report in wanted)


def _setting(name: str, raw: str | None) -> Any:
    from mqtool.complex import SettingError, check_setting

    if raw is None:
        return None
    try:
        return check_setting("ztpf", name, raw)
    except SettingError as exc:
        fail(f"--{name}: {exc}")


@click.command(context_settings=CONTEXT)
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@click.option(
    "--pattern",
    type=click.Choice(["xml", "json", "text", "random"]),
    help="Generate a corpus instead of reading files.",
)
@click.option(
    "--size", "sizes", metavar="SIZE[,SIZE...]", help="Sizes of the generated messages, e.g. 3000,32KB [1KB]."
)
@click.option(
    "--count",
    type=Whole(1, MAX_GENERATED),
    default=20,
    show_default=True,
    help=f"Generated messages of each size, 1-{MAX_GENERATED:,}.",
)
@click.option("--seed", type=Whole(0, 2**32 - 1), default=0, show_default=True, help="Seed of the generated corpus.")
@click.option(
    "--split-lines", is_flag=True, help="Each line of a file is one message (the line end is not part of it)."
)
@click.option(
    "--split", "split", metavar="BYTES", help="Cut files into fixed-length records of BYTES (the last may be shorter)."
)
@click.option("--encoding", metavar="CODEC", help="Re-encode UTF-8 text to this code page first, e.g. cp037 (EBCDIC).")
@click.option(
    "--report", "report_list", metavar="LIST", help="Reports to show: ratios,ztpf,sweeper,channel,http,zos,cpu [all]."
)
@click.option(
    "--classes",
    metavar="SIZE,...",
    help="Lower bounds of the size classes [0,1KB,4KB,16KB,64KB,256KB,1MB,4MB,16MB; each --size its own].",
)
@click.option(
    "--goal",
    type=click.Choice(["swb", "bytes", "cpu"]),
    default="swb",
    show_default=True,
    help="What the recommended COMPSIZE optimises.",
)
@click.option("--cpu", metavar="MODEL", help="z/TPF CPU: z15 and later have the zEDC accelerator [z15].")
@click.option(
    "--compsize", metavar="SIZE", help="z/TPF queue COMPSIZE: messages this long or longer are compressed; 0 off [1]."
)
@click.option("--swbsize", metavar="BYTES", help="z/TPF SWB size [1024].")
@click.option("--swbpool", metavar="N", help="SWBs available to MQ [33000].")
@click.option("--sweephi", metavar="PCT", help="SWB use that starts the sweeper [80].")
@click.option("--sweeplo", metavar="PCT", help="SWB use the sweeper sweeps down to [40].")
@click.option(
    "--rate",
    default="100/s",
    show_default=True,
    metavar="N/s",
    help="Arrival rate for the sweeper and checkpoint figures.",
)
@click.option(
    "--outage",
    default="60s",
    show_default=True,
    metavar="DURATION",
    help="How long nothing gets the messages (channel down).",
)
@click.option(
    "--compmsg",
    default="ZLIBFAST",
    show_default=True,
    metavar="LIST",
    help="The z/TPF sender channel's COMPMSG, in priority order.",
)
@click.option(
    "--rcvr-compmsg", default="ANY", show_default=True, metavar="LIST", help="The receiver channel's COMPMSG."
)
@click.option(
    "--rcvr-platform",
    type=click.Choice(["ztpf", "zos"]),
    default="ztpf",
    show_default=True,
    help="The receiver's platform (RLE needs zos).",
)
@click.option(
    "--xmitq-compsize",
    metavar="SIZE",
    help="COMPSIZE of the transmission queue, which the channel inherits [--compsize].",
)
@click.option("--compsizehw", metavar="SIZE", help="HTTP server: smallest body compressed in hardware; 0 never [1].")
@click.option(
    "--compsizesw",
    metavar="SIZE",
    help="HTTP server: smallest body compressed in software (no accelerator); 0 never [0].",
)
@click.option(
    "--pages",
    type=Whole(1, MAX_PAGES),
    default=18000,
    show_default=True,
    help=f"z/OS page set size in 4 KB pages, 1-{MAX_PAGES:,}.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["table", "json", "csv", "markdown"]),
    default="table",
    show_default=True,
    help="table for people, json or csv for scripts, markdown for documents.",
)
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE.png|svg",
    help="Draw compression ratio and SWB/page reduction against message size (needs mqtool[plot]).",
)
@click.option("--jobs", type=Whole(1, MAX_JOBS), help=f"Worker processes, 1-{MAX_JOBS} [one per core].")
@click.pass_obj
def estimate(app: App, paths: tuple[str, ...], **options: Any) -> None:
    """Capacity planning: run your own payloads through the engine's compression and storage
    models and see, per size class and in total, what z/TPF queue compression (SWBs, the
    sweeper, checkpoint I/Os), channel compression (bytes on the wire), HTTP compression and
    z/OS page sets and COMPLOG would give, with the best COMPSIZE for a goal and the CPU
    each codec costs on this machine. PATHs are files, folders (read recursively) or globs;
    each file is one message unless split. Nothing is written to the store.

    Exit status: 0 every input estimated, 1 some inputs could not be read (MQT0601E; the
    rest is estimated), 2 a bad option.

    \b
    Examples:
      mqtool estimate payloads/
      mqtool estimate 'archive/**/*.xml' --report ztpf,sweeper --rate 100/s --outage 60s
      mqtool estimate orders.log --split-lines --format csv > orders.csv
      mqtool estimate --pattern xml --size 3000,5000,12000,70000,200000 --report ztpf
      mqtool estimate payloads/ --goal cpu --plot ratios.png
    """
    from mqtool.clock import ClockError, parse_duration
    from mqtool.estimate import render, sources
    from mqtool.estimate.report import MAX_FORECAST_PUTS, build
    from mqtool.estimate.run import default_jobs
    from mqtool.estimate.run import estimate as run_units
    from mqtool.estimate.settings import (
        DEFAULT_LADDER,
        MAX_MESSAGE,
        Settings,
        SettingsError,
        classes_from,
        parse_rate,
        parse_sizes,
    )
    from mqtool.state.records import cpu_generation

    pattern: str | None = options["pattern"]
    generated = pattern is not None or options["sizes"] is not None
    if generated and paths:
        fail("give PATHs or a generated corpus (--pattern, --size), not both")
    if not generated and not paths:
        fail("nothing to estimate: give PATHs (files, folders, globs) or --pattern/--size")
    if options["split_lines"] and options["split"] is not None:
        fail("--split-lines and --split exclude each other")
    if generated and (options["split_lines"] or options["split"] is not None):
        fail("--split-lines and --split apply to files, not to a generated corpus")
    split = _size("--split", options["split"], 0)
    if options["split"] is not None and not 1 <= split <= MAX_MESSAGE:
        fail("--split: a record is 1 byte to 100MB (the largest MQ message)")
    try:
        option = "--size"
        sizes = parse_sizes(options["sizes"]) if options["sizes"] is not None else [1024]
        option = "--classes"
        bounds = parse_sizes(options["classes"]) if options["classes"] is not None else None
        option = "--rate"
        rate = parse_rate(options["rate"])
        option = "--outage"
        outage = parse_duration(options["outage"])
    except (SettingsError, ClockError) as exc:
        fail(f"{option}: {exc}")
    if any(size > MAX_MESSAGE for size in sizes):
        fail("--size: a message is at most 100MB (the largest MQ message)")
    if bounds is not None and any(bound > MAX_MESSAGE for bound in bounds):
        fail("--classes: a class starts at 100MB at the most (the largest MQ message)")
    if rate > MAX_RATE:
        fail(f"--rate: at most {MAX_RATE:,.0f} messages a second")
    if outage <= 0:
        fail("--outage: must be more than 0 seconds")
    if outage > MAX_OUTAGE:
        fail("--outage: at most a year (366d)")
    if bounds is not None:
        classes = classes_from(bounds)
    elif generated:
        classes = classes_from(sizes, exact=True)
    else:
        classes = classes_from(list(DEFAULT_LADDER))
    encoding = options["encoding"]
    if encoding is not None:
        try:
            text_codecs.lookup(encoding)
            "".encode(encoding)
        except (LookupError, TypeError):
            fail(f"--encoding: {encoding!r} is not a text encoding Python knows (e.g. cp037)")
    cpu = _setting("cpu", options["cpu"]) or "z15"
    swb = {name: _setting(name, options[name]) for name in ("swbsize", "swbpool", "sweephi", "sweeplo")}
    sweephi, sweeplo = swb["sweephi"] or 80, swb["sweeplo"] or 40
    if sweeplo >= sweephi:
        fail(f"--sweeplo {sweeplo} must be below --sweephi {sweephi}")
    compsize = _compsize("--compsize", options["compsize"], 1)
    rcvr_platform = options["rcvr_platform"]
    settings = Settings(
        reports=_reports(options["report_list"]),
        classes=classes,
        cpu=cpu,
        accelerator=cpu_generation(cpu) >= 15,
        swbsize=swb["swbsize"] or 1024,
        swbpool=swb["swbpool"] or 33000,
        sweephi=sweephi,
        sweeplo=sweeplo,
        compsize=compsize,
        xmitq_compsize=_compsize("--xmitq-compsize", options["xmitq_compsize"], compsize),
        rate=rate,
        outage=outage,
        goal=options["goal"],
        compmsg=_values("--compmsg", options["compmsg"], SENDER_VALUES),
        rcvr_compmsg=_values("--rcvr-compmsg", options["rcvr_compmsg"], RECEIVER_VALUES[rcvr_platform]),
        rcvr_platform=rcvr_platform,
        compsizehw=_compsize("--compsizehw", options["compsizehw"], 1),
        compsizesw=_compsize("--compsizesw", options["compsizesw"], 0),
        pages=options["pages"],
        encoding=encoding,
        timed=not app.clock.frozen,
    )
    puts = int(settings.rate * settings.outage)
    if settings.wants("sweeper") and puts > MAX_FORECAST_PUTS:
        fail(f"--rate x --outage is {puts} puts; the sweeper forecast simulates at most {MAX_FORECAST_PUTS:,}")
    plot: Path | None = options["plot"]
    if plot is not None:
        from mqtool.estimate.plot import PlotError, check

        try:
            check(plot)
        except PlotError as exc:
            fail(str(exc))

    err = sys.stderr
    errors_seen = [0]

    def report_error(source: str, reason: str) -> None:
        errors_seen[0] += 1
        line = render.message_line("MQT0601E", source=source, reason=reason)
        if progress is not None:
            progress.console.print(line, markup=False, highlight=False)
        else:
            click.echo(line, err=True)

    enumeration_errors: list[tuple[str, str]] = []

    def unit_stream() -> Iterator[sources.Unit]:
        if generated:
            return sources.generated_units(pattern or "xml", sizes, options["count"], options["seed"])

        def remember(source: str, reason: str) -> None:
            enumeration_errors.append((source, reason))
            report_error(source, reason)

        return sources.units(paths, options["split_lines"], split, remember)

    progress = None
    task = None
    if err.isatty():
        total_units = 0
        total_bytes = 0
        if generated:
            total_bytes = sum(sizes) * options["count"]
            total_units = sum(1 for _ in sources.generated_units(pattern or "xml", sizes, options["count"], 0))
        else:
            for unit in sources.units(paths, options["split_lines"], split, lambda source, reason: None):
                total_units += 1
                total_bytes += unit.size
        if total_units >= PROGRESS_FROM:
            from rich.console import Console
            from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

            progress = Progress(
                TextColumn("estimate"),
                BarColumn(),
                DownloadColumn(binary_units=True),
                TimeRemainingColumn(),
                console=Console(file=err),
                transient=True,
            )
            task = progress.add_task("estimate", total=total_bytes)
            progress.start()

    def done(unit: sources.Unit, part: Any) -> None:
        for source, reason in part.errors:
            report_error(source, reason)
        if progress is not None and task is not None:
            progress.advance(task, unit.size)

    try:
        partial = run_units(unit_stream(), settings, jobs=options["jobs"] or default_jobs(), done=done)
    finally:
        if progress is not None:
            progress.stop()
    partial.errors.extend(enumeration_errors)
    report = build(partial, settings)
    origin = _origin(generated, pattern or "xml", sizes, options["seed"], paths)
    if partial.unconverted and encoding is not None:
        count = f"{partial.unconverted:,} message" + ("" if partial.unconverted == 1 else "s")
        click.echo(render.message_line("MQT0602W", count=count, encoding=encoding), err=True)
    out = sys.stdout
    output_format = options["output_format"]
    if output_format == "json":
        render.json_text(report, origin, out)
    elif output_format == "csv":
        render.csv_text(report, out)
    elif output_format == "markdown":
        render.markdown(report, origin, out)
    else:
        render.table(report, origin, out)
    if plot is not None:
        from mqtool.estimate.plot import draw

        draw(report, plot)
    if errors_seen[0]:
        sys.exit(EXIT_UNREADABLE)


def _origin(generated: bool, pattern: str, sizes: list[int], seed: int, paths: tuple[str, ...]) -> str:
    if generated:
        listed = ", ".join(str(size) for size in sizes)
        return f"the generated {pattern} corpus ({listed} bytes, seed {seed})"
    shown = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    return shown
