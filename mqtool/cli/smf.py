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

# The queue record (QSTAT): report label, key of the record's figures (mqtool/engine/zos/stats.py),
# in the order and with the labels of MQSMF's QSTAT block as IBM's MQ for z/OS 9.4
# performance report (seed 002) prints it, down to Failed MQGET Browses; the lines after
# that (the browses' reasons, rolled back gets, expired messages, MQOPENs and MQCLOSEs)
# are QQST figures the seed's extract cuts off: their labels are mqtool's.
QUEUE_FIELDS: tuple[tuple[str, str], ...] = (
    ("Queue Name", "queue"),
    ("Disposition", "disposition"),
    ("Pageset ID", "psid"),
    ("Bufferpool ID", "bufferpool"),
    ("Current Depth", "depth"),
    ("Open Output Count", "output_handles"),
    ("Open Input Count", "input_handles"),
    ("QTIME Short", "qtime_short"),
    ("QTIME Long", "qtime_long"),
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
    ("Fast Puts", "fast_puts"),
    ("Fast Puts Bytes", "fast_put_bytes"),
    ("Rolled Back Puts", "rolled_puts"),
    ("Failed MQPUTs", "put_fails"),
    ("Failed MQPUT1s", "put1_fails"),
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
    ("Non-Persistent MQGETs Browses", "browses_np"),  # sic: the seed's label
    ("MQGET Browse Bytes", "browse_bytes"),
    ("Persistent MQGET Browse Bytes", "browse_bytes_p"),
    ("Non-Persistent MQGET Browse Bytes", "browse_bytes_np"),
    ("Failed MQGETs", "get_fails"),
    ("Failed MQGET Browses", "browse_fails"),
    ("Rolled Back Gets", "rolled_gets"),
    ("Expired Messages", "expired"),
    ("MQOPENs", "opens"),
    ("MQCLOSEs", "closes"),
)
# The failures by reason code follow their total: key of the total -> key of the reasons, label.
REASONS = {
    "put_fails": ("put_fail_reasons", "Failed MQPUTs with MQRC"),
    "put1_fails": ("put1_fail_reasons", "Failed MQPUT1s with MQRC"),
    "get_fails": ("get_fail_reasons", "Failed MQGETs with MQRC"),
    "browse_fails": ("browse_fail_reasons", "Failed MQGET Browses with MQRC"),
}
# The reasons QQST counts apart (no message 2033, truncated 2080), always shown; a put
# failure and another reason are in the total only, as MQSMF shows them.
SHOWN_REASONS = {"get_fails": ("2033", "2080"), "browse_fails": ("2033", "2080")}
TIMES = ("last_put", "last_get")

# The log manager's record as MQSMF's LOG report prints it (seed 002): the figures
# (label, key), the raw QJST counters (name, key) four to a line, the write requests of
# one page and of more, and (when zHyperLink wrote the log) its write figures.
LOG_FIGURES: tuple[tuple[str, str], ...] = (
    ("Total Number of pages written:", "pages"),
    ("Number of pages written/sec:", "pages_per_second"),
    ("Amount of data written/sec:", "megabytes_per_second"),
    ("Total Number of write requests:", "writes"),
    ("Number of write requests/sec:", "writes_per_second"),
    ("Pages written per I/O:", "pages_per_write"),
    ("Total number of read requests:", "read_requests"),
    ("Total number of copy1 new logs used during interval:", "new_logs_copy1"),
    ("Total number of copy2 new logs used during interval:", "new_logs_copy2"),
    ("Total number of new logs used which are zHyperWrite capable:", "zhw_capable"),
    ("Total number of new logs used which are zHyperWrite enabled:", "zhw_enabled"),
    ("Total number of new logs used which are zHyperLink capable:", "zhl_capable"),
    ("Total number of new logs used which are zHyperLink enabled:", "zhl_enabled"),
    ("Total number of new logs used which are encrypted:", "encrypted"),
)
LOG_COUNTERS: tuple[tuple[tuple[str, str], ...], ...] = (
    (("Write_Wait", "write_wait"), ("Write_Nowait", "write_nowait"), ("Write_Force", "write_force"),
     ("WTB", "buffer_waits")),
    (("Read_Stor", "read_stor"), ("Read_Active", "read_active"), ("Read_Archive", "read_archive"), ("TVC", "tvc")),
    (("BSDS_Reqs", "bsds"), ("CIs_Created", "cis_created"), ("BFWR", "bfwr"), ("ALR", "alr")),
    (("ALW", "offloads"), ("CIs_Offload", "cis_offloaded"), ("LLCheckpoints", "checkpoints")),
    (("Read_delayed", "read_delayed"), ("Tape_Lookahead", "tape_lookahead"), ("Lookahead_Mount", "lookahead_mount")),
    (("Write_Susp", "write_susp"), ("Write_Reqs", "writes"), ("CI_Writes", "pages")),
    (("Write_Serl", "write_serl"), ("Write_Thrsh", "threshold_writes"), ("Buff_Pagein", "buff_pagein")),
    (("Copy1_Used", "new_logs_copy1"), ("Copy2_Used", "new_logs_copy2")),
    (("Logs_ZHWC", "zhw_capable"), ("Logs_ZHWE", "zhw_enabled"), ("Logs_encr", "encrypted")),
)  # fmt: skip
LOG_FIELDS: tuple[str, ...] = (
    "buffer_waits", "cis_created", "pages", "pages_per_second", "megabytes_per_second", "writes",
    "writes_per_second", "pages_per_write", "read_requests", "new_logs_copy1", "new_logs_copy2", "zhw_capable",
    "zhw_enabled", "zhl_capable", "zhl_enabled", "encrypted", "write_wait", "write_nowait", "write_force",
    "read_stor", "read_active", "read_archive", "tvc", "bsds", "bfwr", "alr", "offloads", "cis_offloaded",
    "checkpoints", "read_delayed", "tape_lookahead", "lookahead_mount", "write_susp", "write_serl",
    "threshold_writes", "buff_pagein", "one_page_writes", "one_page_pages", "more_page_writes", "more_page_pages",
    "zhyperlink", "sync_one", "sync_more", "sync_pages", "async_one", "async_more", "async_pages", "switch_one",
    "switch_more", "switch_pages", "records", "original", "written", "comp_requests", "comp_original",
    "comp_written", "full_waits", "rba",
)  # fmt: skip
# The topic manager's record (QTST) and the publish/subscribe counts of the message
# manager's (QMST): key (IBM's field name, an array's element after _), label.
TOPIC_FIELDS: tuple[tuple[str, str], ...] = (
    ("QTSTSTOT", "Subscription requests"),
    ("QTSTSDUR", "Durable subscription requests"),
    ("QTSTSHIG_API", "Subscriptions high water, API"),
    ("QTSTSHIG_ADMIN", "Subscriptions high water, ADMIN"),
    ("QTSTSHIG_PROXY", "Subscriptions high water, PROXY"),
    ("QTSTSLOW_API", "Subscriptions low water, API"),
    ("QTSTSLOW_ADMIN", "Subscriptions low water, ADMIN"),
    ("QTSTSLOW_PROXY", "Subscriptions low water, PROXY"),
    ("QTSTSEXP", "Subscriptions expired"),
    ("QTSTTMSG", "Messages put to subscriber queues"),
    ("QTSTSPHW", "Most subscribers of one publication"),
    ("QTSTPTOT_API", "Publication requests, API"),
    ("QTSTPTOT_ADMIN", "Publication requests, ADMIN"),
    ("QTSTPTOT_PROXY", "Publication requests, PROXY"),
    ("QTSTPTHI", "Publish high water (copies)"),
    ("QTSTPTLO", "Publish low water (copies)"),
    ("QTSTPNOS", "Publications to no subscriber"),
    ("QTSTETHW", "Longest publish (seconds)"),
    ("QTSTETTO", "Total publish time (seconds)"),
    ("QMSTSUB", "MQSUB requests"),
    ("QMSTSUBR", "MQSUBRQ requests"),
    ("QMSTPUBS", "Publications"),
)
TOPIC_LABEL_WIDTH = 52
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
        elif value is None:
            value = 0  # a figure a record of an earlier mqtool lacks, or an oldest age of no message
        lines.append(_line(label, value))
        for code in SHOWN_REASONS.get(key, ()):
            reasons_key, reason_label = REASONS[key]
            lines.append(_line(f"{reason_label} {code}", dict(figures.get(reasons_key) or {}).get(code, 0)))
    return lines


def _log_figures(figures: dict[str, Any], start: float, end: float) -> dict[str, Any]:
    """A log record's figures as MQSMF's LOG report shows them: rates per second, the
    raw QJST counters (those of reads, tapes and I/O timing are 0: mqtool's log is
    written by its own model, never read back, and does no I/O to time) and the write
    requests of one page and of more, with how zHyperLink wrote them."""
    seconds = max(1e-9, end - start)
    get = lambda key: int(figures.get(key, 0))  # noqa: E731 - a record of an earlier mqtool lacks some
    writes, pages, one = get("writes"), get("pages"), get("one_writes")
    copies = get("copies") or 1
    new_logs = get("new_logs")
    more_writes, more_pages = writes - one, pages - one
    sync, asynchronous, switch = get("sync"), get("async"), get("switch_async")
    sync_one, async_one, switch_one = get("sync_one"), get("async_one"), get("switch_one")
    per_write = more_pages / more_writes if more_writes else 0.0
    derived = {key: figures.get(key, 0) for key in ("records", "original", "written", "comp_requests",
                                                     "comp_original", "comp_written", "full_waits", "rba")}  # fmt: skip
    derived |= {
        "buffer_waits": get("buffer_waits"),
        "cis_created": pages,
        "pages": pages,
        "pages_per_second": round(pages / seconds),
        "megabytes_per_second": round(get("written") / seconds / 1024 / 1024),
        "writes": writes,
        "writes_per_second": round(writes / seconds),
        "pages_per_write": round(pages / writes) if writes else 0,
        "read_requests": 0,
        "new_logs_copy1": new_logs,
        "new_logs_copy2": new_logs if copies == 2 else 0,
        "zhw_capable": get("zhw_capable"),
        "zhw_enabled": get("zhw_enabled"),
        "zhl_capable": get("zhl_capable"),
        "zhl_enabled": get("zhl_enabled"),
        "encrypted": 0,
        "write_wait": 0,
        "write_nowait": get("records"),
        "write_force": writes,
        "read_stor": 0,
        "read_active": 0,
        "read_archive": 0,
        "tvc": 0,
        "bsds": get("bsds"),
        "bfwr": writes,
        "alr": 0,
        "offloads": get("offloads"),
        "cis_offloaded": get("cis_offloaded"),
        "checkpoints": get("checkpoints"),
        "read_delayed": 0,
        "tape_lookahead": 0,
        "lookahead_mount": 0,
        "write_susp": writes,
        "write_serl": 0,
        "threshold_writes": get("threshold_writes"),
        "buff_pagein": 0,
        "one_page_writes": one,
        "one_page_pages": one,
        "more_page_writes": more_writes,
        "more_page_pages": more_pages,
        "zhyperlink": str(figures.get("zhyperlink", "OFF")),
        "sync_one": sync_one,
        "sync_more": sync - sync_one,
        "sync_pages": pages - get("async_pages") if sync else 0,
        "async_one": async_one,
        "async_more": asynchronous - async_one,
        "async_pages": get("async_pages"),
        "switch_one": switch_one,
        "switch_more": switch - switch_one,
        "switch_pages": switch_one + round((switch - switch_one) * per_write),
    }
    return derived


def _counter_line(pairs: tuple[tuple[str, str], ...], figures: dict[str, Any]) -> str:
    return " " + ", ".join(f"{name:<15}{figures[key]:>10}" for name, key in pairs) + ("," if len(pairs) == 2 else "")


def _log_text(system: Any, times: _Times, start: float, end: float, figures: dict[str, Any]) -> list[str]:
    lines = _header(system, times, start, end)
    derived = _log_figures(figures, start, end)
    pct = round(100 * derived["buffer_waits"] / derived["cis_created"]) if derived["cis_created"] else 0
    lines.append(f" Wait for buffers (should be 0): {derived['buffer_waits']:>12} out of {derived['cis_created']:>12}, "
                 f"{pct}%")  # fmt: skip
    for label, key in LOG_FIGURES:
        unit = " MB/Sec" if key == "megabytes_per_second" else ""
        lines.append(f" {label:<62}{derived[key]:>12}{unit}")
    lines.extend(_counter_line(pairs, derived) for pairs in LOG_COUNTERS)
    if derived["comp_requests"]:
        # QJST's COMPLOG counters: the seed's extract shows none, so the wording is mqtool's.
        lines.append(_counter_line((("Comp_Reqs", "comp_requests"), ("Comp_Uncmp", "comp_original"),
                                    ("Comp_Comp", "comp_written")), derived))  # fmt: skip
    seconds = max(1.0, end - start)
    copies = 2 if derived["new_logs_copy2"] or int(figures.get("copies", 1)) == 2 else 1
    lines.append(" ____,__ write requests,          CIs, Average I/O,   After I/O, pages/IO")
    lines.append("                                       time in uSec, time in uSec,")
    for copy in range(1, copies + 1):
        for size, writes_key, pages_key in ((" 1 page", "one_page_writes", "one_page_pages"),
                                            (">1 page", "more_page_writes", "more_page_pages")):  # fmt: skip
            writes, pages = derived[writes_key], derived[pages_key]
            per = round(pages / writes) if writes else 0
            lines.append(f" Log {copy},{size:<7} {writes:>9}, {pages:>12}, {0:>11}, {0:>11}, {per:>8}")
    lines.append(f" Standard deviation of first log, 1 page per I/O, response time +- {0:>5}")
    for size in (" 1 page", ">1 page"):
        lines.append(f" Log 1,{size:<7} Longest I/O     {0:>8}")
        lines.append(f" Log 1,{size:<7} Longest Request {0:>8}")
    rate = round(int(figures.get("written", 0)) / seconds / 1024 / 1024)
    lines += [f" Log write rate {rate:>6}MB/s per copy", " Logger I/O busy : 0.00%", " Logger task busy: 0.0%"]
    if derived["zhyperlink"] != "OFF":
        lines += _zhyperlink_lines(derived)
    return lines


def _zhyperlink_lines(derived: dict[str, Any]) -> list[str]:
    """MQSMF's zHyperLink sections: write requests of one page, of more, and their
    pages, by how they went (synchronously, asynchronously, asynchronously at a log
    switch); the I/O times are 0 (mqtool does no log I/O to time)."""
    switches = derived["new_logs_copy1"]
    rows = (
        ("Write requests", derived["one_page_writes"], derived["more_page_writes"], derived["pages"]),
        ("Sync writes", derived["sync_one"], derived["sync_more"], derived["sync_pages"]),
        ("Async writes", derived["async_one"], derived["async_more"], derived["async_pages"]),
        (" ...switch", derived["switch_one"], derived["switch_more"], derived["switch_pages"]),
    )
    # The averages are of the writes a switch made asynchronous (seed: 1.9 = (1 + 26) / 14
    # logs, 186.0 = 2604 pages / 14), not of every asynchronous write.
    at_switch = derived["switch_one"] + derived["switch_more"]
    lines = [" zHyperLink write stats", "   _____1 page,____>1 page,_____Total pages"]
    lines += [f" {label:<15}{one:>10}, {more:>10}, {total:>12}" for label, one, more, total in rows]
    lines.append(f" Average async writes per log switch: {at_switch / switches if switches else 0:.1f}")
    lines.append(
        f" Average async pages written per log switch: {derived['switch_pages'] / switches if switches else 0:.1f}"
    )
    lines += [" zHyperLink I/O stats", " __Pages,____Longest I/O,____Shortest I/O,____Total I/O____Avg I/O"]
    for size in ("1", ">1"):
        lines.append(f" {size:>7}, {0:>8} uSec, {0:>10} uSec, {0:>11} uSec, {0:>6.1f} uSec")
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
    """Queue statistics, one block per queue per interval in the layout of MQSMF's
    QSTAT report (`Label....value`, its labels in its order): depth (now, highest,
    lowest), handles, QTIME short and long term, last put and get, oldest message age,
    MQPUTs and MQPUT1s by persistence with bytes, fast puts, failed MQPUTs and MQPUT1s,
    streamed messages, message sizes, gets and browses with bytes and failures (MQRC
    2033 and 2080 apart), then rolled back gets, expired messages, opens and closes.
    CSV has one row per record with a heading row, and the failures by every reason;
    JSON a list of records.

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
    """The log manager's statistics per interval, in the layout of MQSMF's LOG report:
    waits for buffers, pages and write requests (and per second), MB/s, new active logs
    used, the raw QJST counters (Write_Nowait, Write_Force, BSDS_Reqs, CIs_Created,
    LLCheckpoints ...), the write requests of one page and of more and, when zHyperLink
    wrote the log, how its writes went (synchronous, asynchronous, at a log switch).
    CSV and JSON hold every figure under mqtool's names, with the records, bytes before
    and after COMPLOG compression and the latest RBA besides.

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
            derived = _log_figures(figures, start, end)
            entry |= {key: derived[key] for key in LOG_FIELDS}
            out.append(entry)
        click.echo(json.dumps(out, indent=2))
        return
    if fmt == "csv":
        headings = [*HEADINGS, *LOG_FIELDS]
        rows = []
        for start, end, figures in records:
            derived = _log_figures(figures, start, end)
            row = _row(system, times, start, end)
            for key in LOG_FIELDS:
                value = derived[key]
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


def _topic_text(system: Any, times: _Times, start: float, end: float, figures: dict[str, Any]) -> list[str]:
    lines = _header(system, times, start, end)
    for key, label in TOPIC_FIELDS:
        value = figures.get(key, 0)
        if isinstance(value, float):
            value = f"{value:.6f}"
        lines.append(f"{key.split('_')[0] + ' ' + label:.<{TOPIC_LABEL_WIDTH}}{value}")
    return lines


@smf.command(name="topic", context_settings=_CONTEXT)
@click.option("--system", "system_name", metavar="NAME", help="The z/OS system [the current one, or the first].")
@click.option("--format", "fmt", type=FORMATS, default="text", show_default=True, help="Output format.")
@click.pass_obj
def topic_command(app: App, system_name: str | None, fmt: str) -> None:
    """Publish/subscribe statistics per interval: the topic manager's record (SMF 115
    subtype 2, QTST) and the publish/subscribe counts of the message manager's (QMST),
    collected while a STAT trace runs class 1, with IBM's field names: subscription
    requests (QTSTSTOT, durable QTSTSDUR), the most and fewest subscriptions by type
    (QTSTSHIG, QTSTSLOW), subscriptions expired (QTSTSEXP), messages put to subscriber
    queues (QTSTTMSG), publications by type (QTSTPTOT) and to no subscriber (QTSTPNOS),
    the most subscribers of one publication (QTSTSPHW), publish times (QTSTETHW,
    QTSTETTO), MQSUB calls (QMSTSUB) and publications (QMSTPUBS). CSV has a column per
    field, JSON a list of records.

    \b
    Examples:
      mqtool cmd '-CSQ1 START TRACE(STAT) CLASS(1)'
      mqtool smf topic
      mqtool smf topic --system CSQ1 --format json
    """
    from mqtool.engine.zos.stats import topic_records

    offset, system, found = _records(app, system_name, topic_records)
    times = _Times(offset)
    if fmt == "json":
        click.echo(json.dumps([_entry(system, times, start, end) | figures for start, end, figures in found], indent=2))
        return
    if fmt == "csv":
        rows = [[*_row(system, times, start, end), *(figures.get(key, 0) for key, _ in TOPIC_FIELDS)]
                for start, end, figures in found]  # fmt: skip
        _csv([*HEADINGS, *(key for key, _ in TOPIC_FIELDS)], rows)
        return
    if not found:
        click.echo(
            f"No topic manager statistics records on {system.name}: START TRACE(STAT) CLASS(1) collects them, "
            "one each STATIME."
        )
        return
    blocks = [_topic_text(system, times, start, end, figures) for start, end, figures in found]
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
    """Remove statistics records, as SMF data sets are offloaded and cleared: the queue,
    log and topic manager records of the intervals that ended before a time (--before), or all of
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
        queue_count, log_count, topic_count = remove(tx, system.name, cutoff, dry_run=dry_run)
    kept = retention_days(system)
    fields = {
        "queue_records": plural(queue_count, "queue statistics record"),
        "log_records": plural(log_count, "log statistics record"),
        "topic_records": plural(topic_count, "topic manager record"),
        "system": system.name,
        "which": which,
    }
    click.echo(_message("MQT0711I" if dry_run else "MQT0710I", fields))
    retention = f"{kept} days" if kept else "until purged (smfretain 0)"
    click.echo(f"Records of {system.name} are kept {retention}; mqtool system alter {system.name} --smfretain DAYS")


def _message(msg_id: str, fields: dict[str, Any]) -> str:
    from mqtool import messages

    return messages.line(msg_id, **fields)
