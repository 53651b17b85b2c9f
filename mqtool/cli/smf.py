"""`mqtool smf`: the statistics records of a z/OS queue manager, as SMF would hold them,
in the style of the MQSMF reports: `qstat`, one block per queue per statistics interval
(SMF 115 subtype 216, collected with START TRACE(STAT) CLASS(5) and STATQ), and `log`,
the log manager's figures per interval (class 1 or 3), as text, CSV or JSON."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import click

from mqtool.cli.main import App, fail, platform_system

_CONTEXT = {"help_option_names": ["-h", "--help"]}
VRM = "940"  # the version, release and modification of MQ the records carry
LABEL_WIDTH = 44
FORMATS = click.Choice(["text", "csv", "json"])

# The queue record (QSTAT): report label, key of the record's figures (mqtool/engine/zos/stats.py).
QUEUE_FIELDS: tuple[tuple[str, str], ...] = (
    ("Queue Name", "queue"),
    ("Disposition", "disposition"),
    ("Pageset ID", "psid"),
    ("Bufferpool ID", "bufferpool"),
    ("Current Depth", "depth"),
    ("Open Output Count", "output_handles"),
    ("Open Input Count", "input_handles"),
    ("Last Put Time", "last_put"),
    ("Last Get Time", "last_get"),
    ("Uncommitted Changes", "uncommitted"),
    ("Oldest Message Age", "oldest_age"),
    ("Highest Depth", "depth_high"),
    ("Lowest Depth", "depth_low"),
    ("Total Puts", "puts_total"),
    ("MQPUTs", "puts"),
    ("Persistent MQPUTs", "puts_p"),
    ("Non-Persistent MQPUTs", "puts_np"),
    ("MQPUT1s", "put1s"),
    ("Persistent MQPUT1s", "put1s_p"),
    ("Non-Persistent MQPUT1s", "put1s_np"),
    ("Total Put Bytes", "put_bytes_total"),
    ("MQPUT Bytes", "put_bytes"),
    ("Persistent MQPUT Bytes", "put_bytes_p"),
    ("Non-Persistent MQPUT Bytes", "put_bytes_np"),
    ("MQPUT1 Bytes", "put1_bytes"),
    ("Persistent MQPUT1 Bytes", "put1_bytes_p"),
    ("Non-Persistent MQPUT1 Bytes", "put1_bytes_np"),
    ("Rolled Back Puts", "rolled_puts"),
    ("Failed MQPUTs", "put_fails"),
    ("Successfully Streamed Messages", "streamed"),
    ("Minimum Message Size Put", "size_min"),
    ("Maximum Message Size Put", "size_max"),
    ("Average Message Size Put", "size_avg"),
    ("MQGETs", "gets"),
    ("Persistent MQGETs", "gets_p"),
    ("Non-Persistent MQGETs", "gets_np"),
    ("MQGET Bytes", "get_bytes"),
    ("Persistent MQGET Bytes", "get_bytes_p"),
    ("Non-Persistent MQGET Bytes", "get_bytes_np"),
    ("MQGET Browses", "browses"),
    ("Persistent MQGET Browses", "browses_p"),
    ("Non-Persistent MQGET Browses", "browses_np"),
    ("MQGET Browse Bytes", "browse_bytes"),
    ("Persistent MQGET Browse Bytes", "browse_bytes_p"),
    ("Non-Persistent MQGET Browse Bytes", "browse_bytes_np"),
    ("Rolled Back Gets", "rolled_gets"),
    ("Failed MQGETs", "get_fails"),
    ("Failed MQGET Browses", "browse_fails"),
    ("MQOPENs", "opens"),
    ("MQCLOSEs", "closes"),
    ("Expired Messages", "expired"),
)
# The failures by reason code follow their total: key of the total -> key of the reasons, label.
REASONS = {
    "put_fails": ("put_fail_reasons", "Failed MQPUTs with MQRC"),
    "get_fails": ("get_fail_reasons", "Failed MQGETs with MQRC"),
    "browse_fails": ("browse_fail_reasons", "Failed MQGET Browses with MQRC"),
}
NO_MESSAGE = "2033"  # shown with its count even when 0, as MQSMF does
TIMES = ("last_put", "last_get")

# The log manager's record: label, key (or a figure derived from the record).
LOG_FIELDS: tuple[tuple[str, str], ...] = (
    ("Log records written", "records"),
    ("Total Number of pages written", "pages"),
    ("Number of pages written/sec", "pages_per_second"),
    ("Amount of data written/sec (MB/Sec)", "megabytes_per_second"),
    ("Total Number of write requests", "writes"),
    ("Number of write requests/sec", "writes_per_second"),
    ("Pages written per I/O", "pages_per_write"),
    ("Log bytes before compression", "original"),
    ("Log bytes written", "written"),
    ("Compression requests (COMPLOG)", "comp_requests"),
    ("Compressed record data before", "comp_original"),
    ("Compressed record data after", "comp_written"),
    ("Total number of copy1 new logs used", "new_logs_copy1"),
    ("Total number of copy2 new logs used", "new_logs_copy2"),
    ("New logs zHyperWrite capable", "zhw_capable"),
    ("New logs zHyperWrite enabled", "zhw_enabled"),
    ("New logs zHyperLink capable", "zhl_capable"),
    ("New logs zHyperLink enabled", "zhl_enabled"),
    ("Checkpoints", "checkpoints"),
    ("Active log data sets offloaded", "offloads"),
    ("Waits for offload (active logs full)", "full_waits"),
    ("zHyperLink log writes", "zhyperlink"),
    ("zHyperLink synchronous writes", "sync"),
    ("zHyperLink asynchronous writes", "async"),
    ("zHyperLink asynchronous writes at a switch", "switch_async"),
    ("Latest RBA", "rba"),
)
ZHYPERLINK_WORDS = {
    "OFF": "not used",
    "SYNC": "synchronous",
    "NOSESSIONS": "asynchronous (too few write sessions)",
    "NOTCAPABLE": "asynchronous (CPU before z14)",
}


def _zos_system(app: App, wanted: str | None) -> Any:
    return platform_system(app, wanted, "zos", "system {name} is z/TPF; SMF statistics belong to z/OS queue managers")


def _records(
    app: App, system_name: str | None, read: Callable[[Any, str], list[Any]]
) -> tuple[timedelta, Any, list[Any]]:
    """The system and its records, after a tick (intervals that have ended are written)."""
    from mqtool.session import display_offset

    system = _zos_system(app, system_name)
    app.session(system.name).tick()
    with app.store.transaction(write=False) as tx:
        records = read(tx, system.name)
    return display_offset(system), system, records


class _Times:
    """Record times in the system's local time, in the shapes the formats use."""

    def __init__(self, offset: timedelta) -> None:
        self.offset = offset

    def local(self, stamp: float) -> datetime:
        return datetime.fromtimestamp(stamp, UTC) + self.offset

    def smf(self, stamp: float) -> str:
        """2021/03/09,15:41:22 (MQSMF)."""
        return f"{self.local(stamp):%Y/%m/%d,%H:%M:%S}"

    def precise(self, stamp: float | None) -> str:
        """2021/03/09,15:41:22.000000, or 0 for never (MQSMF's last put and get)."""
        return "0" if stamp is None else f"{self.local(stamp):%Y/%m/%d,%H:%M:%S.%f}"

    def sheet(self, stamp: float | None, micro: bool = False) -> str:
        """2021-03-09 15:41:22 for a spreadsheet; blank for never."""
        if stamp is None:
            return ""
        return f"{self.local(stamp):%Y-%m-%d %H:%M:%S.%f}" if micro else f"{self.local(stamp):%Y-%m-%d %H:%M:%S}"

    def iso(self, stamp: float | None) -> str | None:
        if stamp is None:
            return None
        local = self.local(stamp).replace(tzinfo=None)
        sign = "-" if self.offset < timedelta(0) else "+"
        minutes = abs(int(self.offset.total_seconds())) // 60
        return f"{local:%Y-%m-%dT%H:%M:%S}{sign}{minutes // 60:02d}:{minutes % 60:02d}"


HEADINGS = ["SMF ID", "Queue Manager", "Interval Start", "Interval End", "Duration (seconds)"]


def _entry(system: Any, times: _Times, start: float, end: float) -> dict[str, Any]:
    """What a record's JSON object begins with."""
    return {
        "smf_id": system.name,
        "queue_manager": system.name,
        "interval_start": times.iso(start),
        "interval_end": times.iso(end),
        "duration_seconds": round(end - start),
    }


def _row(system: Any, times: _Times, start: float, end: float) -> list[Any]:
    """What a record's CSV row begins with (under HEADINGS)."""
    return [system.name, system.name, times.sheet(start), times.sheet(end), round(end - start)]


def _header(system: Any, times: _Times, start: float, end: float) -> list[str]:
    return [
        f"{system.name},{system.name},{times.smf(end)},VRM:{VRM},",
        f"From {times.smf(start)} to {times.smf(end)}, duration {round(end - start)} seconds.",
    ]


def _line(label: str, value: Any) -> str:
    return f"{label:.<{LABEL_WIDTH}}{value}"


def _reason_text(reasons: dict[str, int]) -> str:
    from mqtool.engine.core.reasons import NAMES

    return "; ".join(f"{code} {NAMES.get(int(code), 'MQRC')}={count}" for code, count in reasons.items())


def _queue_text(system: Any, times: _Times, start: float, end: float, figures: dict[str, Any]) -> list[str]:
    lines = _header(system, times, start, end)
    for label, key in QUEUE_FIELDS:
        value = figures.get(key)
        if key in TIMES:
            value = times.precise(value)
        elif key == "oldest_age" and value is None:
            value = 0
        lines.append(_line(label, value))
        if key in REASONS:
            reasons_key, reason_label = REASONS[key]
            reasons = dict(figures.get(reasons_key) or {})
            if key != "put_fails":
                reasons.setdefault(NO_MESSAGE, 0)
            for code in sorted(reasons, key=int):
                lines.append(_line(f"{reason_label} {code}", reasons[code]))
    return lines


def _log_figures(figures: dict[str, Any], start: float, end: float) -> dict[str, Any]:
    """A log record's figures with the rates and ratios the report shows."""
    seconds = max(1e-9, end - start)
    writes = int(figures.get("writes", 0))
    copies = int(figures.get("copies", 1))
    derived = dict(figures)
    derived |= {
        "pages_per_second": round(int(figures.get("pages", 0)) / seconds, 2),
        "megabytes_per_second": round(int(figures.get("written", 0)) / seconds / 1024 / 1024, 2),
        "writes_per_second": round(writes / seconds, 2),
        "pages_per_write": round(int(figures.get("pages", 0)) / writes, 2) if writes else 0.0,
        "new_logs_copy1": int(figures.get("new_logs", 0)),
        "new_logs_copy2": int(figures.get("new_logs", 0)) if copies == 2 else 0,
    }
    return derived


def _log_text(system: Any, times: _Times, start: float, end: float, figures: dict[str, Any]) -> list[str]:
    lines = _header(system, times, start, end)
    derived = _log_figures(figures, start, end)
    for label, key in LOG_FIELDS:
        value = derived.get(key, 0)
        if key == "zhyperlink":
            value = ZHYPERLINK_WORDS.get(str(value), str(value))
        elif key == "rba":
            value = f"{int(value):016X}"
        elif isinstance(value, float):
            value = f"{value:.2f}"
        lines.append(_line(label, value))
    return lines


def _emit(lines: list[str]) -> None:
    click.echo("\n".join(lines))


def _csv(headings: list[str], rows: list[list[Any]]) -> None:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(headings)
    writer.writerows(rows)
    click.echo(out.getvalue(), nl=False)


@click.group(context_settings=_CONTEXT)
def smf() -> None:
    """Statistics records of a z/OS queue manager, as SMF would hold them. They are
    written at the end of each statistics interval (SET SYSTEM STATIME, minutes) while
    a STAT trace runs: CLASS(5) writes one queue record per queue with statistics on
    (its STATQ ON, or QMGR with ALTER QMGR STATQ(ON)), CLASS(1) or CLASS(3) the log
    manager's record. They are kept the system's smfretain days (7 by default);
    `mqtool smf purge` removes them sooner.

    \b
    Examples:
      mqtool cmd '-CSQ1 ALTER QMGR STATQ(ON)' '-CSQ1 START TRACE(STAT) CLASS(1,5)'
      mqtool smf qstat --queue 'PAY*'
      mqtool smf log --format csv > log.csv
      mqtool smf purge --before 2d --dry-run
    """


@smf.command(context_settings=_CONTEXT)
@click.option("--system", "system_name", metavar="NAME", help="The z/OS system [the current one, or the first].")
@click.option("--queue", metavar="NAME", help="One queue, or a generic name ending in * [all].")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True, help="Output format.")
@click.pass_obj
def qstat(app: App, system_name: str | None, queue: str | None, fmt: str) -> None:
    """Queue statistics, one block per queue per interval in the style of MQSMF's QSTAT
    report (`Label....value`): depth (now, highest, lowest), handles, last put and get,
    oldest message age, puts and MQPUT1s by persistence with bytes, gets and browses
    with bytes, failures by reason code, message sizes, opens, closes, expired and
    streamed messages. CSV has one row per record with a heading row; JSON a list of
    records.

    \b
    Examples:
      mqtool smf qstat
      mqtool smf qstat --system CSQ1 --queue PAYQ --format json
      mqtool smf qstat --format csv > qstat.csv
    """
    from mqtool.engine.zos.stats import queue_records

    pattern = queue.strip().upper() if queue else None
    offset, system, records = _records(app, system_name, lambda tx, name: queue_records(tx, name, pattern))
    times = _Times(offset)
    if fmt == "json":
        out = []
        for start, end, figures in records:
            entry = _entry(system, times, start, end)
            entry |= {key: (times.iso(value) if key in TIMES else value) for key, value in figures.items()}
            out.append(entry)
        click.echo(json.dumps(out, indent=2))
        return
    if fmt == "csv":
        headings = [*HEADINGS, *(label for label, _ in QUEUE_FIELDS)]
        headings += [f"{label} (code name=count)" for _, label in REASONS.values()]
        rows = []
        for start, end, figures in records:
            row = _row(system, times, start, end)
            for _, key in QUEUE_FIELDS:
                value = figures.get(key)
                row.append(times.sheet(value, micro=True) if key in TIMES else ("" if value is None else value))
            row += [_reason_text(figures.get(reasons_key) or {}) for reasons_key, _ in REASONS.values()]
            rows.append(row)
        _csv(headings, rows)
        return
    if not records:
        which = f" of {pattern}" if pattern else ""
        click.echo(
            f"No queue statistics records{which} on {system.name}: START TRACE(STAT) CLASS(5) and STATQ collect "
            "them, one per queue each STATIME."
        )
        return
    blocks = [_queue_text(system, times, start, end, figures) for start, end, figures in records]
    _emit([line for block in blocks for line in [*block, ""]][:-1])


@smf.command(name="log", context_settings=_CONTEXT)
@click.option("--system", "system_name", metavar="NAME", help="The z/OS system [the current one, or the first].")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True, help="Output format.")
@click.pass_obj
def log_command(app: App, system_name: str | None, fmt: str) -> None:
    """The log manager's statistics per interval, in the style of MQSMF's LOG report:
    log records, pages and write requests (and per second), MB/s, bytes before and after
    COMPLOG compression, new active logs used, checkpoints, offloads, and how zHyperLink
    writes went (synchronous, asynchronous, asynchronous at a log switch).

    \b
    Examples:
      mqtool smf log
      mqtool smf log --system CSQ1 --format csv
    """
    from mqtool.engine.zos.stats import log_records

    offset, system, records = _records(app, system_name, log_records)
    times = _Times(offset)
    if fmt == "json":
        out = []
        for start, end, figures in records:
            entry = _entry(system, times, start, end)
            entry |= {key: _log_figures(figures, start, end).get(key, 0) for _, key in LOG_FIELDS}
            out.append(entry)
        click.echo(json.dumps(out, indent=2))
        return
    if fmt == "csv":
        headings = [*HEADINGS, *(label for label, _ in LOG_FIELDS)]
        rows = []
        for start, end, figures in records:
            derived = _log_figures(figures, start, end)
            row = _row(system, times, start, end)
            for _, key in LOG_FIELDS:
                value = derived.get(key, 0)
                row.append(f"{int(value):016X}" if key == "rba" else value)
            rows.append(row)
        _csv(headings, rows)
        return
    if not records:
        click.echo(
            f"No log statistics records on {system.name}: START TRACE(STAT) CLASS(1) or CLASS(3) collects them, "
            "one each STATIME."
        )
        return
    blocks = [_log_text(system, times, start, end, figures) for start, end, figures in records]
    _emit([line for block in blocks for line in [*block, ""]][:-1])


@smf.command(context_settings=_CONTEXT)
@click.option("--system", "system_name", metavar="NAME", help="The z/OS system [the current one, or the first].")
@click.option(
    "--before",
    metavar="TIME|AGE",
    help="The records of intervals that ended before this instant (2021-03-09T15:41:22Z) or this long ago (7d, 12h).",
)
@click.option("--all", "every", is_flag=True, help="Every record of the system.")
@click.option("--dry-run", is_flag=True, help="Count what would be removed; remove nothing.")
@click.pass_obj
def purge(app: App, system_name: str | None, before: str | None, every: bool, dry_run: bool) -> None:
    """Remove statistics records, as SMF data sets are offloaded and cleared: the queue
    and log records of the intervals that ended before a time (--before), or all of
    them (--all), and say how many. Records are also removed as new ones are written
    once they are older than the system's retention (mqtool system alter NAME
    --smfretain DAYS; 7 by default, 0 keeps them until purged).

    \b
    Examples:
      mqtool smf purge --before 2d --dry-run
      mqtool smf purge --system CSQ1 --before 2021-03-09T00:00:00Z
      mqtool smf purge --all
    """
    from mqtool.clock import ClockError, parse_duration, parse_instant
    from mqtool.engine.zos.stats import purge as remove
    from mqtool.engine.zos.stats import retention_days
    from mqtool.workload import plural

    if every == (before is not None):
        fail("give --before TIME (or an age such as 7d) or --all")
    system = _zos_system(app, system_name)
    cutoff: float | None = None
    which = "every interval"
    if before is not None:
        try:
            cutoff = app.clock.timestamp() - parse_duration(before)
        except ClockError:
            try:
                cutoff = parse_instant(before).timestamp()
            except ClockError:
                fail(f"--before: {before!r} is not a time (2021-03-09T15:41:22Z) or an age (7d, 12h, 30m)")
        moment = datetime.fromtimestamp(cutoff, UTC)
        which = f"intervals ended before {moment:%Y-%m-%dT%H:%M:%S}Z"
    with app.store.transaction(write=not dry_run) as tx:
        queue_count, log_count = remove(tx, system.name, cutoff, dry_run=dry_run)
    kept = retention_days(system)
    fields = {
        "queue_records": plural(queue_count, "queue statistics record"),
        "log_records": plural(log_count, "log statistics record"),
        "system": system.name,
        "which": which,
    }
    click.echo(_message("MQT0711I" if dry_run else "MQT0710I", fields))
    retention = f"{kept} days" if kept else "until purged (smfretain 0)"
    click.echo(f"Records of {system.name} are kept {retention}; mqtool system alter {system.name} --smfretain DAYS")


def _message(msg_id: str, fields: dict[str, Any]) -> str:
    from mqtool import messages

    return messages.line(msg_id, **fields)
