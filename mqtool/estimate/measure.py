"""One message through the engine: the codecs of the techniques the reports need, the
z/TPF queue rule and SWBs, the channel wire, the HTTP server's size decision, the z/OS
pages and log records; the results are added into the tally of the message's size class
(sums and a small histogram, never a list per message), so memory stays bounded."""

from __future__ import annotations

import time
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field

from mqtool.engine import codecs
from mqtool.engine.channels import wire
from mqtool.engine.http.negotiate import decide
from mqtool.engine.zos.logrecords import get_record, put_record, put_record_encoded
from mqtool.engine.zos.pages import pages_for
from mqtool.engine.ztpf.figures import file_ios, swbs_for
from mqtool.engine.ztpf.model import QUEUE_CODEC, queue_stored
from mqtool.estimate.settings import Settings

# The techniques of the ratios report, in the order the tables show them.
TECHNIQUES: tuple[str, ...] = ("QUEUE", "ZLIBFAST", "ZLIBHIGH", "RLE", "GZIP", "DEFLATE")
HTTP_CODINGS: dict[str, str] = {"gzip": "GZIP", "deflate": "DEFLATE"}  # content coding -> codec row
# Bodies larger than this are streamed by the HTTP server without compression
# (mqtool/engine/http/server.py MAX_COMPRESSIBLE; not imported: that module pulls in h11).
HTTP_MAX_COMPRESSIBLE = 16 * 1024 * 1024
LOG_COMPLOG = "RLE"  # COMPLOG(RLE); ANY is the same on a machine without zEDC


@dataclass
class Tally:
    """The sums of one size class."""

    count: int = 0
    original: int = 0
    smallest: int = -1
    largest: int = 0
    codec_bytes: Counter[str] = field(default_factory=Counter)
    codec_ns: Counter[str] = field(default_factory=Counter)
    # z/TPF, at the queue's COMPSIZE; `_all`: every message offered to compression
    stored: int = 0
    compressed: int = 0
    stored_all: int = 0
    swbs_plain: int = 0
    swbs_comp: int = 0
    swbs_all: int = 0
    sweep_ios_plain: int = 0
    sweep_ios_comp: int = 0
    arrivals_plain: Counter[tuple[int, int]] = field(default_factory=Counter)  # (SWBs, I/Os) -> messages
    arrivals_comp: Counter[tuple[int, int]] = field(default_factory=Counter)
    # channel
    wire: int = 0
    wire_compressed: int = 0
    wire_inflated: int = 0
    # HTTP
    http_hw: int = 0
    http_sw: int = 0
    http_none: int = 0
    http_sent: Counter[str] = field(default_factory=Counter)  # coding -> bytes sent
    # z/OS
    pages_plain: int = 0
    pages_comp: int = 0
    log_plain: int = 0
    log_comp: int = 0

    def merge(self, other: Tally) -> None:
        for name, value in vars(other).items():
            if name == "smallest":
                if value >= 0:
                    self.smallest = value if self.smallest < 0 else min(self.smallest, value)
            elif name == "largest":
                self.largest = max(self.largest, value)
            elif isinstance(value, Counter):
                getattr(self, name).update(value)
            else:
                setattr(self, name, getattr(self, name) + value)


@dataclass
class Partial:
    """What one work unit measured: tallies by class index, and its troubles."""

    tallies: dict[int, Tally] = field(default_factory=dict)
    messages: int = 0
    bytes: int = 0
    unconverted: int = 0  # messages that were not UTF-8 text for --encoding
    errors: list[tuple[str, str]] = field(default_factory=list)  # (source, reason)

    def merge(self, other: Partial) -> None:
        for index, tally in other.tallies.items():
            mine = self.tallies.get(index)
            if mine is None:
                self.tallies[index] = tally
            else:
                mine.merge(tally)
        self.messages += other.messages
        self.bytes += other.bytes
        self.unconverted += other.unconverted
        self.errors.extend(other.errors)


def needed(settings: Settings) -> set[str]:
    """The techniques whose codec must run on every message for the chosen reports."""
    wanted: set[str] = set()
    if settings.wants("ratios") or settings.reports == ("cpu",):
        wanted.update(TECHNIQUES)
    if settings.wants("ztpf", "sweeper", "zos"):
        wanted.add(QUEUE_CODEC)
    if settings.wants("channel") and settings.accelerator and settings.xmitq_compsize:
        wanted.add(QUEUE_CODEC)
    if settings.wants("http"):
        wanted.update(HTTP_CODINGS.values())
    if settings.wants("zos"):
        wanted.add("RLE")
    return wanted


class Measurer:
    """Measures messages into tallies by size class, for one set of settings."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.partial = Partial()
        self._bounds = [size_class.lower for size_class in settings.classes]
        wanted = needed(settings)
        self._rle = "RLE" in wanted
        # Techniques with the same codec row give the same bytes: run the row once.
        groups: dict[codecs.CodecRow, list[str]] = {}
        for technique in TECHNIQUES:
            if technique in wanted and technique != "RLE":
                groups.setdefault(codecs.row(technique), []).append(technique)
        self._groups = [(names[0], tuple(names)) for names in groups.values()]
        self._technique = settings.technique
        self._ztpf = settings.wants("ztpf", "sweeper")
        self._channel = settings.wants("channel")
        self._http = settings.wants("http")
        self._zos = settings.wants("zos")
        # The corrected z/TPF rule (ztpf-http.md section 4 step 5): with the accelerator and
        # COMPSIZEHW > 0 only COMPSIZEHW counts; COMPSIZESW is for a CPU without it.
        hardware_only = settings.accelerator and settings.compsizehw > 0
        self._http_sw = 0 if hardware_only else settings.compsizesw

    def add(self, data: bytes) -> None:
        settings = self.settings
        partial = self.partial
        if settings.encoding is not None:
            try:
                data = data.decode("utf-8").encode(settings.encoding)
            except UnicodeError:
                partial.unconverted += 1
        length = len(data)
        partial.messages += 1
        partial.bytes += length
        index = bisect_right(self._bounds, length) - 1
        tally = partial.tallies.get(index)
        if tally is None:
            tally = partial.tallies[index] = Tally()
        tally.count += 1
        tally.original += length
        tally.smallest = length if tally.smallest < 0 else min(tally.smallest, length)
        tally.largest = max(tally.largest, length)
        timed = settings.timed
        out: dict[str, bytes] = {}
        for first, names in self._groups:
            started = time.perf_counter_ns() if timed else 0
            packed = codecs.compress(first, data)
            spent = time.perf_counter_ns() - started if timed else 0
            for name in names:
                out[name] = packed
                tally.codec_bytes[name] += len(packed)
                tally.codec_ns[name] += spent
        queued = out.get(QUEUE_CODEC)
        accelerator = settings.accelerator
        if self._ztpf:
            swbsize = settings.swbsize
            stored = len(queue_stored(data, settings.compsize, accelerator, queued)[0])
            stored_all = len(queue_stored(data, 1, accelerator, queued)[0])
            plain = (swbs_for(length, swbsize), file_ios(length))
            packed_cost = (swbs_for(stored, swbsize), file_ios(stored))
            tally.stored += stored
            tally.compressed += stored < length
            tally.stored_all += stored_all
            tally.swbs_plain += plain[0]
            tally.swbs_comp += packed_cost[0]
            tally.swbs_all += swbs_for(stored_all, swbsize)
            tally.sweep_ios_plain += plain[1]
            tally.sweep_ios_comp += packed_cost[1]
            tally.arrivals_plain[plain] += 1
            tally.arrivals_comp[packed_cost] += 1
        if self._channel:
            on_xmitq, codec = queue_stored(data, settings.xmitq_compsize, accelerator, queued)
            sent = wire.send(on_xmitq, codec, length, self._technique, settings.xmitq_compsize)
            tally.wire += len(sent.data)
            tally.wire_compressed += bool(sent.codec)
            tally.wire_inflated += sent.inflated
        if self._http:
            path = None
            if length <= HTTP_MAX_COMPRESSIBLE:
                path = decide(length, "gzip", accelerator, settings.compsizehw, self._http_sw)
            if path == "hw":
                tally.http_hw += 1
            elif path == "sw":
                tally.http_sw += 1
            else:
                tally.http_none += 1
            for coding, technique in HTTP_CODINGS.items():
                tally.http_sent[coding] += len(out[technique]) if path else length
        if self._rle:
            started = time.perf_counter_ns() if timed else 0
            encoded = len(codecs.compress("RLE", data))
            tally.codec_ns["RLE"] += time.perf_counter_ns() - started if timed else 0
            tally.codec_bytes["RLE"] += encoded
            if self._zos:
                got = get_record().written
                tally.log_plain += put_record(data, "NONE").written + got
                tally.log_comp += put_record_encoded(length, encoded, LOG_COMPLOG).written + got
        if self._zos:
            kept = len(queued) if queued is not None and len(queued) < length else length
            tally.pages_plain += pages_for(length)
            tally.pages_comp += pages_for(kept)
