"""The figures of each report, per size class and in total, from the merged tallies:
plain numbers (JSON-ready), with the column each is shown in. The sweeper forecast runs
the engine's sweeper model (mqtool/engine/ztpf/sweeper.py) on the class's messages."""

from __future__ import annotations

import itertools
import os
import platform
import sys
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from mqtool.engine import codecs
from mqtool.engine.zos.logrecords import PUT_HEADER
from mqtool.engine.ztpf.figures import INTERVAL, SwbSettings, checkpoint_ios
from mqtool.engine.ztpf.sweeper import SweepForecast, forecast
from mqtool.estimate.measure import HTTP_CODINGS, TECHNIQUES, Partial, Tally, needed
from mqtool.estimate.settings import Settings, SizeClass, human

PATTERN_SLOTS = 4096  # arrivals in one period of the sweeper forecast's message mix
MAX_FORECAST_PUTS = 2_000_000  # puts the sweeper forecast simulates at the most
KEEP = 0.95  # the swb and bytes goals keep this share of the full reduction


@dataclass(frozen=True)
class Column:
    key: str  # JSON key
    heading: str  # table and CSV heading
    report: str  # "" for the columns every report shows
    kind: str  # int, pct, num1, num2, text
    table: bool = True  # shown in the terminal table (JSON and CSV have every column)


def _columns() -> list[Column]:
    out = [
        Column("size_class", "size class", "", "text"),
        Column("messages", "messages", "", "int"),
        Column("original_bytes", "original bytes", "", "int"),
        Column("mean_bytes", "mean bytes", "", "int", table=False),
    ]
    for technique in TECHNIQUES:
        name = technique.lower()
        out.append(Column(f"{name}_bytes", f"{technique} bytes", "ratios", "int", table=False))
        out.append(Column(f"{name}_reduction", f"{technique} %", "ratios", "pct"))
    out += [
        Column("queue_reduction", "compress %", "ztpf", "pct"),
        Column("compressed_messages", "compressed msgs", "ztpf", "int"),
        Column("stored_bytes", "stored bytes", "ztpf", "int", table=False),
        Column("swbs", "SWBs", "ztpf", "int", table=False),
        Column("swbs_compressed", "SWBs compressed", "ztpf", "int", table=False),
        Column("swbs_per_message", "SWBs/msg", "ztpf", "num2"),
        Column("swbs_per_message_compressed", "SWBs/msg comp", "ztpf", "num2"),
        Column("swb_reduction", "SWB red. %", "ztpf", "pct"),
        Column("sweep_ios_per_message", "sweep I/Os/msg", "ztpf", "num2"),
        Column("sweep_ios_per_message_compressed", "sweep I/Os/msg comp", "ztpf", "num2"),
        Column("checkpoint_ios_per_message", "ckpt I/Os/msg", "ztpf", "num2"),
        Column("checkpoint_ios_per_message_compressed", "ckpt I/Os/msg comp", "ztpf", "num2"),
        Column("puts", "puts", "sweeper", "int"),
        Column("sweeps", "sweeps", "sweeper", "int"),
        Column("sweep_every_seconds", "every s", "sweeper", "num2"),
        Column("first_sweep_seconds", "first s", "sweeper", "num2", table=False),
        Column("sweeps_compressed", "sweeps comp", "sweeper", "int"),
        Column("sweep_every_seconds_compressed", "every s comp", "sweeper", "num2"),
        Column("first_sweep_seconds_compressed", "first s comp", "sweeper", "num2", table=False),
        Column("sweep_ios_per_put", "I/Os/put", "sweeper", "num2"),
        Column("sweep_ios_per_put_compressed", "I/Os/put comp", "sweeper", "num2"),
        Column("sweep_io_reduction", "I/O red. %", "sweeper", "pct"),
        Column("refused_puts", "refused", "sweeper", "int"),
        Column("refused_puts_compressed", "refused comp", "sweeper", "int"),
        Column("wire_bytes", "wire bytes", "channel", "int"),
        Column("wire_reduction", "wire red. %", "channel", "pct"),
        Column("compressed_on_wire", "compressed", "channel", "int"),
        Column("inflated_before_sending", "inflated", "channel", "int"),
        Column("http_hardware", "hardware", "http", "int"),
        Column("http_software", "software", "http", "int"),
        Column("http_none", "none", "http", "int"),
    ]
    for coding in HTTP_CODINGS:
        out.append(Column(f"http_{coding}_bytes", f"{coding} bytes", "http", "int", table=False))
        out.append(Column(f"http_{coding}_reduction", f"{coding} %", "http", "pct"))
    out += [
        Column("pages_per_message", "pages/msg", "zos", "num2"),
        Column("pages_per_message_compressed", "pages/msg comp", "zos", "num2"),
        Column("page_set_messages", "page set msgs", "zos", "int"),
        Column("page_set_messages_compressed", "page set msgs comp", "zos", "int"),
        Column("log_bytes_per_message", "log bytes/msg", "zos", "num1"),
        Column("log_bytes_per_message_complog", "log bytes/msg RLE", "zos", "num1"),
        Column("log_reduction", "log red. %", "zos", "pct"),
    ]
    for technique in TECHNIQUES:
        out.append(Column(f"{technique.lower()}_us", f"{technique} us/msg", "cpu", "num2"))
    return out


COLUMNS: tuple[Column, ...] = tuple(_columns())
TITLES: dict[str, str] = {
    "ratios": "Compression by technique (size reduction of each codec)",
    "ztpf": "z/TPF queue: SWBs, sweeper and checkpoint I/Os per message",
    "sweeper": "z/TPF sweeper",
    "channel": "Channel",
    "http": "z/TPF HTTP server",
    "zos": "z/OS: page sets and log",
    "cpu": "CPU",
}


@dataclass
class Recommendation:
    goal: str
    compsize: int | None  # None: no advice (no accelerator, nothing measured)
    reason: str


@dataclass
class Report:
    settings: Settings
    rows: list[dict[str, Any]]
    total: dict[str, Any]
    partial: Partial
    recommendation: Recommendation | None
    notes: dict[str, str] = field(default_factory=dict)  # report -> the line under its title

    def columns(self, report: str | None = None, table: bool = False) -> list[Column]:
        """The columns of one report (with the common ones), or of every chosen report."""
        chosen = self.settings.reports if report is None else (report,)
        wanted = needed(self.settings)
        out: list[Column] = []
        for column in COLUMNS:
            if column.report and column.report not in chosen:
                continue
            if any(column.key == other.key for other in out):
                continue
            if table and not column.table:
                continue
            technique = column.key.split("_")[0].upper()
            if column.report in ("ratios", "cpu") and technique not in wanted:
                continue
            out.append(column)
        return out


def _pct(part: float, whole: float) -> float | None:
    return None if not whole else round(100.0 * (1.0 - part / whole), 1)


def _per(value: float, count: int, digits: int = 2) -> float | None:
    return None if not count else round(value / count, digits)


def arrival_pattern(arrivals: Counter[tuple[int, int]], slots: int = PATTERN_SLOTS) -> list[tuple[int, int]]:
    """One period of the message mix: each kind of message (SWBs, I/Os) as often as the
    corpus has it (scaled to `slots` arrivals when larger), spread evenly over the period,
    so the forecast sees the mix rather than runs of one size."""
    total = sum(arrivals.values())
    if not total:
        return []
    counts = dict(arrivals)
    if total > slots:
        shares = {key: count * slots / total for key, count in arrivals.items()}
        counts = {key: int(share) for key, share in shares.items()}
        short = slots - sum(counts.values())
        for key in sorted(shares, key=lambda k: (counts[k] - shares[k], k))[:short]:
            counts[key] += 1
    placed = sorted(((index + 0.5) / count, key) for key, count in counts.items() for index in range(count))
    return [key for _, key in placed]


def sweep_forecast(arrivals: Counter[tuple[int, int]], settings: Settings) -> SweepForecast | None:
    pattern = arrival_pattern(arrivals)
    if not pattern:
        return None
    puts = int(settings.rate * settings.outage)
    swb = SwbSettings(settings.swbsize, settings.swbpool, settings.sweephi, settings.sweeplo)
    stream = itertools.islice(itertools.cycle(pattern), puts)
    return forecast(stream, 1.0 / settings.rate, swb)


def figures(size_class: SizeClass | None, tally: Tally, settings: Settings) -> dict[str, Any]:
    """Every figure of one class (or the total when `size_class` is None)."""
    count = tally.count
    row: dict[str, Any] = {
        "size_class": size_class.label if size_class else "total",
        "messages": count,
        "original_bytes": tally.original,
        "mean_bytes": round(tally.original / count) if count else 0,
    }
    for technique in TECHNIQUES:
        name = technique.lower()
        done = technique in tally.codec_bytes
        row[f"{name}_bytes"] = tally.codec_bytes[technique] if done else None
        row[f"{name}_reduction"] = _pct(tally.codec_bytes[technique], tally.original) if done else None
        row[f"{name}_us"] = _per(tally.codec_ns[technique] / 1000, count) if done and settings.timed else None
    if settings.wants("ztpf", "sweeper"):
        per_checkpoint = max(1, round(settings.rate * INTERVAL))

        def checkpoint(stored: int) -> float | None:
            if not count:
                return None
            return round(checkpoint_ios(round(per_checkpoint * stored / count)) / per_checkpoint, 2)

        row.update(
            compressed_messages=tally.compressed,
            stored_bytes=tally.stored,
            swbs=tally.swbs_plain,
            swbs_compressed=tally.swbs_comp,
            swbs_per_message=_per(tally.swbs_plain, count),
            swbs_per_message_compressed=_per(tally.swbs_comp, count),
            swb_reduction=_pct(tally.swbs_comp, tally.swbs_plain),
            sweep_ios_per_message=_per(tally.sweep_ios_plain, count),
            sweep_ios_per_message_compressed=_per(tally.sweep_ios_comp, count),
            checkpoint_ios_per_message=checkpoint(tally.original),
            checkpoint_ios_per_message_compressed=checkpoint(tally.stored),
        )
    if settings.wants("sweeper"):
        plain = sweep_forecast(tally.arrivals_plain, settings)
        packed = sweep_forecast(tally.arrivals_comp, settings)
        row.update(_sweeps(plain, ""))
        row.update(_sweeps(packed, "_compressed"))
        plain_ios = row["sweep_ios_per_put"]
        row["sweep_io_reduction"] = _pct(row["sweep_ios_per_put_compressed"] or 0, plain_ios) if plain_ios else None
    if settings.wants("channel"):
        row.update(
            wire_bytes=tally.wire,
            wire_reduction=_pct(tally.wire, tally.original),
            compressed_on_wire=tally.wire_compressed,
            inflated_before_sending=tally.wire_inflated,
        )
    if settings.wants("http"):
        row.update(http_hardware=tally.http_hw, http_software=tally.http_sw, http_none=tally.http_none)
        for coding in HTTP_CODINGS:
            row[f"http_{coding}_bytes"] = tally.http_sent[coding]
            row[f"http_{coding}_reduction"] = _pct(tally.http_sent[coding], tally.original)
    if settings.wants("zos"):
        row.update(
            pages_per_message=_per(tally.pages_plain, count),
            pages_per_message_compressed=_per(tally.pages_comp, count),
            # A page set holds as many messages as its pages over the mean pages per message
            # (pages.messages_held for messages of one length).
            page_set_messages=settings.pages * count // tally.pages_plain if tally.pages_plain else None,
            page_set_messages_compressed=settings.pages * count // tally.pages_comp if tally.pages_comp else None,
            log_bytes_per_message=_per(tally.log_plain, count, 1),
            log_bytes_per_message_complog=_per(tally.log_comp, count, 1),
            log_reduction=_pct(tally.log_comp, tally.log_plain),
        )
    return row


def _sweeps(result: SweepForecast | None, suffix: str) -> dict[str, Any]:
    keys = ("sweeps", "sweep_every_seconds", "first_sweep_seconds", "sweep_ios_per_put", "refused_puts")
    out: dict[str, Any] = {f"{key}{suffix}": None for key in keys}
    if result is not None:
        interval = result.interval
        out[f"sweeps{suffix}"] = result.sweeps
        out[f"sweep_every_seconds{suffix}"] = None if interval is None else round(interval, 2)
        out[f"first_sweep_seconds{suffix}"] = None if result.first is None else round(result.first, 2)
        out[f"sweep_ios_per_put{suffix}"] = _per(result.ios, result.puts)
        out[f"refused_puts{suffix}"] = result.refused
    if not suffix:
        out["puts"] = result.puts if result is not None else 0
    return out


def recommend(present: list[tuple[SizeClass, Tally]], settings: Settings) -> Recommendation:
    """The best queue COMPSIZE for the goal, with its reason in one line."""
    goal = settings.goal
    if not settings.accelerator:
        return Recommendation(goal, None, f"no COMPSIZE helps: a {settings.cpu} has no zEDC accelerator, so "
                              "z/TPF never compresses messages on its queues")  # fmt: skip
    if not present:
        return Recommendation(goal, None, "no messages were estimated")
    if goal == "cpu":
        return _cpu_goal(present, settings)
    unit = "SWBs" if goal == "swb" else "bytes"

    def saving(tally: Tally) -> int:
        return tally.swbs_plain - tally.swbs_all if goal == "swb" else tally.original - tally.stored_all

    full = sum(saving(tally) for _, tally in present)
    if full <= 0:
        return Recommendation(goal, 0, f"COMPSIZE 0 (off): compressing saves no {unit} on these payloads")
    chosen = 0
    for index in range(len(present)):
        if sum(saving(tally) for _, tally in present[index:]) >= KEEP * full:
            chosen = index
    kept = sum(saving(tally) for _, tally in present[chosen:])
    compsize = max(1, present[chosen][0].lower)
    messages = sum(tally.count for _, tally in present)
    compressed = sum(tally.count for _, tally in present[chosen:])
    return Recommendation(
        goal,
        compsize,
        f"COMPSIZE {compsize}: messages of {human(compsize)} and more give {100 * kept / full:.0f}% of the {unit} "
        f"saved by compressing every message ({kept} of {full}) while compressing "
        f"{100 * compressed / messages:.0f}% of the messages",
    )


def _cpu_goal(present: list[tuple[SizeClass, Tally]], settings: Settings) -> Recommendation:
    if not settings.timed:
        return Recommendation("cpu", None, "the cpu goal needs measured CPU times, and the clock is frozen (--clock)")
    rates = [
        (size_class, (tally.original - tally.stored_all) / max(1.0, tally.codec_ns["QUEUE"] / 1000))
        for size_class, tally in present
    ]
    best_class, best = max(rates, key=lambda pair: pair[1])
    if best <= 0:
        return Recommendation("cpu", 0, "COMPSIZE 0 (off): compressing saves nothing on these payloads")
    chosen = len(rates) - 1
    for index in range(len(rates) - 1, -1, -1):
        if rates[index][1] < best / 2:
            break
        chosen = index
    compsize = max(1, rates[chosen][0].lower)
    below = f"; below it {rates[chosen - 1][1]:.0f}" if chosen else ""
    return Recommendation(
        "cpu",
        compsize,
        f"COMPSIZE {compsize}: from there on each microsecond of compression on this machine saves at least half "
        f"the bytes of the best class ({best:.0f} bytes/us in {best_class.label}{below})",
    )


def machine() -> dict[str, str]:
    """This machine, for the CPU report's label."""
    return {
        "machine": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "cpus": str(os.cpu_count() or 1),
        "python": sys.version.split()[0],
        "codecs": "; ".join(codecs.describe(technique) for technique in TECHNIQUES),
    }


def build(partial: Partial, settings: Settings) -> Report:
    """The report of everything measured."""
    partial.errors.sort()
    present = [(size_class, partial.tallies[index]) for index, size_class in enumerate(settings.classes)
               if index in partial.tallies]  # fmt: skip
    total = Tally()
    for _, tally in present:
        total.merge(tally)
    rows = [figures(size_class, tally, settings) for size_class, tally in present]
    recommendation = recommend(present, settings) if settings.wants("ztpf", "sweeper") else None
    return Report(settings, rows, figures(None, total, settings), partial, recommendation, notes(settings))


def notes(settings: Settings) -> dict[str, str]:
    """The line under each report's title: what its figures assume."""
    accelerator = "with the zEDC accelerator" if settings.accelerator else "without the accelerator (no compression)"
    rate = f"{settings.rate:g}/s"
    return {
        "ratios": "size reduction of each codec on every message (a larger output shows as a negative %)",
        "ztpf": f"{settings.cpu} {accelerator}, queue COMPSIZE {settings.compsize}, SWBSIZE {settings.swbsize}; "
        f"checkpoint I/Os for persistent messages at {rate}",
        "sweeper": f"messages at {rate} for {settings.outage:g}s on a memory queue nothing gets from (a transmission "
        f"queue whose channel is down), SWBPOOL {settings.swbpool}, SWEEPHI {settings.sweephi}%, "
        f"SWEEPLO {settings.sweeplo}%",
        "channel": f"COMPMSG {','.join(settings.compmsg)} to a {settings.rcvr_platform} receiver with COMPMSG "
        f"{','.join(settings.rcvr_compmsg)}: {settings.technique} negotiated; XMITQ COMPSIZE {settings.xmitq_compsize}",
        "http": f"{settings.cpu}, COMPSIZEHW {settings.compsizehw}, COMPSIZESW {settings.compsizesw}; bytes sent "
        "with each content coding",
        "zos": f"page sets of {settings.pages} pages (z/OS stores messages as put: 'comp' is a message compressed "
        f"before the put); log records of persistent put + get, {PUT_HEADER}-byte put header, COMPLOG(RLE)",
        "cpu": "microseconds per message on THIS machine, one core per codec call; the seed's mils per message are "
        "z15 figures with the zEDC accelerator and cannot be reproduced on a workstation"
        if settings.timed
        else "not measured: the clock is frozen (--clock)",
    }
