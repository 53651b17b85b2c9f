"""mqtool estimate: exact figures on fixed corpora (sizes, SWBs, pages, wire bytes, which
do not depend on a codec's version; ratios with tolerances), the inputs (folders, globs,
split modes, empty and unreadable files, a 100 MB file), the output formats, the chart,
and that the store is never touched."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
import os
import re
import struct
from pathlib import Path
from typing import Any

import pytest

from mqtool.engine import codecs
from mqtool.engine.payload import generate
from mqtool.engine.zos.pages import pages_for
from mqtool.engine.ztpf.figures import swbs_for
from mqtool.engine.ztpf.model import queue_stored
from mqtool.estimate import sources
from mqtool.estimate.settings import MAX_MESSAGE, SettingsError, classes_from, parse_rate, parse_size
from tests.conftest import MQ

SEED_SIZES = (3000, 5000, 12000, 70000, 200000)


def estimate_json(mq: MQ, *args: str) -> dict[str, Any]:
    result = mq("estimate", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def by_class(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["size_class"]: row for row in document["classes"]}


def reduction(original: int, compressed: int) -> float:
    return 100.0 * (1 - compressed / original)


# -- exact figures on the seed's corpus -------------------------------------------------------
def test_seed_corpus_sizes_swbs_pages_exact_and_ratios_close(mq: MQ) -> None:
    document = estimate_json(mq, "--pattern", "xml", "--size", ",".join(map(str, SEED_SIZES)), "--count", "4")
    rows = by_class(document)
    assert list(rows) == [str(size) for size in SEED_SIZES]
    for size in SEED_SIZES:
        row = rows[str(size)]
        payloads = [generate("xml", size, 0, index) for index in range(4)]
        stored = [len(queue_stored(p, 1, True)[0]) for p in payloads]
        assert (row["messages"], row["original_bytes"], row["mean_bytes"]) == (4, 4 * size, size)
        # Sizes, SWBs and pages follow from lengths alone: exact.
        assert row["swbs"] == 4 * swbs_for(size)
        assert row["swbs_compressed"] == sum(swbs_for(n) for n in stored)
        assert row["stored_bytes"] == sum(stored)
        assert row["pages_per_message"] == pages_for(size)
        assert row["page_set_messages"] == 18000 // pages_for(size)
        assert row["compressed_messages"] == 4
        # z/OS log: a put record (384-byte header + data) and a get record (256) per message;
        # RLE does not shrink XML, so COMPLOG(RLE) writes the same.
        assert row["log_bytes_per_message"] == row["log_bytes_per_message_complog"] == 384 + size + 256
        # Ratios depend on the codec's version: compared with tolerances.
        queue = sum(len(codecs.compress("QUEUE", p)) for p in payloads)
        assert row["queue_reduction"] == pytest.approx(reduction(4 * size, queue), abs=0.1)
        assert row["swb_reduction"] == pytest.approx(reduction(4 * swbs_for(size), row["swbs_compressed"]), abs=0.1)
        assert row["zlibfast_reduction"] == pytest.approx(
            reduction(4 * size, sum(len(codecs.compress("ZLIBFAST", p)) for p in payloads)), abs=0.1
        )
        # The channel (ZLIBFAST, XMITQ COMPSIZE 1 on a z15) sends the queue-compressed form.
        assert row["wire_bytes"] == sum(stored) and row["compressed_on_wire"] == 4
    assert [rows[str(s)]["swbs_per_message"] for s in SEED_SIZES] == [3.0, 5.0, 12.0, 70.0, 199.0]
    assert [rows[str(s)]["pages_per_message"] for s in SEED_SIZES] == [1.0, 2.0, 4.0, 18.0, 49.0]
    # The seed's shape: at 3000 bytes one SWB of three saved; at the large sizes the SWB
    # reduction follows the compression ratio.
    assert rows["3000"]["swb_reduction"] == pytest.approx(33.3, abs=0.1)
    assert abs(rows["200000"]["swb_reduction"] - rows["200000"]["queue_reduction"]) < 1.0
    total = document["total"]
    assert total["messages"] == 20 and total["original_bytes"] == 4 * sum(SEED_SIZES)
    assert total["swbs"] == sum(row["swbs"] for row in rows.values())


def test_seed_http_table_sizes(mq: MQ) -> None:
    sizes = (3000, 5000, 12000, 20000, 40000, 64000, 128000, 240000)
    document = estimate_json(mq, "--pattern", "xml", "--size", ",".join(map(str, sizes)), "--count", "2",
                             "--report", "http")  # fmt: skip
    rows = by_class(document)
    assert list(rows) == [str(size) for size in sizes]
    for size in sizes:
        row = rows[str(size)]
        payloads = [generate("xml", size, 0, index) for index in range(2)]
        gzip = sum(len(codecs.compress("GZIP", p)) for p in payloads)
        assert row["http_gzip_bytes"] == gzip
        assert (row["http_hardware"], row["http_software"], row["http_none"]) == (2, 0, 0)
    reductions = [rows[str(size)]["http_gzip_reduction"] for size in sizes]
    assert reductions == sorted(reductions)  # larger bodies compress better, as in the seed's table


def test_sweeper_forecast_of_the_seed_scenario(mq: MQ) -> None:
    """32 KB XML every 10 ms with the channel down: every 4 s uncompressed (exactly the
    engine's figure), markedly less often compressed; fewer I/Os per message put."""
    document = estimate_json(mq, "--pattern", "xml", "--size", "32KB", "--count", "50", "--report", "sweeper",
                             "--rate", "100/s", "--outage", "60s")  # fmt: skip
    total = document["total"]
    assert (total["puts"], total["sweeps"], total["sweep_every_seconds"], total["first_sweep_seconds"]) == (
        6000, 14, 4.0, 7.99,
    )  # fmt: skip
    assert total["sweep_ios_per_put"] == pytest.approx(8.4)  # 1 + ceil(32768 / 4096) per swept message
    assert total["sweep_every_seconds_compressed"] > 2.5 * total["sweep_every_seconds"]
    assert 40 < total["sweep_io_reduction"] < 80
    assert total["refused_puts"] == total["refused_puts_compressed"] == 0


# -- settings that change the figures ------------------------------------------------------------
def test_channel_technique_and_xmitq_compsize(mq: MQ) -> None:
    corpus = ("--pattern", "json", "--size", "20000", "--count", "3", "--report", "ratios,channel")
    none = by_class(estimate_json(mq, *corpus, "--compmsg", "NONE"))["20000"]
    assert (none["wire_bytes"], none["compressed_on_wire"], none["inflated_before_sending"]) == (60000, 0, 3)
    fast = by_class(estimate_json(mq, *corpus, "--xmitq-compsize", "0"))["20000"]
    assert fast["wire_bytes"] == fast["zlibfast_bytes"] and fast["compressed_on_wire"] == 3
    high = by_class(estimate_json(mq, *corpus, "--compmsg", "ZLIBHIGH,ZLIBFAST", "--rcvr-compmsg", "ZLIBFAST"))
    assert high["20000"]["wire_bytes"] == high["20000"]["queue_bytes"]  # stored QUEUE form sent as it is
    refused = by_class(estimate_json(mq, *corpus, "--rcvr-compmsg", "NONE", "--compsize", "0"))["20000"]
    assert refused["wire_bytes"] == 60000


def test_http_thresholds_follow_the_corrected_rule(mq: MQ) -> None:
    corpus = ("--pattern", "xml", "--size", "3000,30000", "--count", "2", "--report", "http")
    z14 = by_class(estimate_json(mq, *corpus, "--cpu", "z14", "--compsizesw", "10000"))
    assert (z14["3000"]["http_none"], z14["30000"]["http_software"]) == (2, 2)
    z15 = by_class(estimate_json(mq, *corpus, "--compsizehw", "20000", "--compsizesw", "0"))
    assert (z15["3000"]["http_none"], z15["30000"]["http_hardware"]) == (2, 2)
    assert z15["3000"]["http_gzip_bytes"] == 6000
    off = by_class(estimate_json(mq, *corpus, "--cpu", "z14"))
    assert off["30000"]["http_none"] == 2 and off["30000"]["http_gzip_reduction"] == 0.0


def test_z14_has_no_queue_compression_and_no_recommendation(mq: MQ) -> None:
    document = estimate_json(mq, "--pattern", "xml", "--size", "8000", "--count", "2", "--cpu", "z14",
                             "--report", "ztpf")  # fmt: skip
    row = document["total"]
    assert row["swbs"] == row["swbs_compressed"] and row["compressed_messages"] == 0
    assert document["recommendation"]["compsize"] is None
    assert "no zEDC accelerator" in document["recommendation"]["reason"]


def test_recommendation_for_each_goal(mq: MQ) -> None:
    corpus = ("--pattern", "xml", "--size", "500,3000,70000", "--count", "5", "--report", "ztpf")
    swb = estimate_json(mq, *corpus)["recommendation"]
    # 500-byte messages take one SWB either way: compressing them saves none.
    assert swb["goal"] == "swb" and swb["compsize"] in (3000, 70000)
    assert swb["reason"].startswith(f"COMPSIZE {swb['compsize']}:")
    bytes_goal = estimate_json(mq, *corpus, "--goal", "bytes")["recommendation"]
    assert bytes_goal["compsize"] in (1, 500, 3000, 70000) and "bytes" in bytes_goal["reason"]
    frozen = estimate_json(mq, *corpus, "--goal", "cpu")["recommendation"]
    assert frozen["compsize"] is None and "frozen" in frozen["reason"]
    measured = mq("estimate", *corpus, "--goal", "cpu", "--format", "json", clock=None)
    assert measured.exit_code == 0, measured.output
    advice = json.loads(measured.stdout)["recommendation"]
    assert advice["compsize"] in (1, 500, 3000, 70000) and "bytes/us" in advice["reason"]
    incompressible = estimate_json(mq, "--pattern", "random", "--size", "5000", "--report", "ztpf")
    assert incompressible["recommendation"]["compsize"] == 0


def test_cpu_figures_are_this_machines_and_absent_with_a_frozen_clock(mq: MQ) -> None:
    frozen = estimate_json(mq, "--pattern", "text", "--size", "4000", "--count", "3", "--report", "cpu")
    assert frozen["total"]["queue_us"] is None and frozen["machine"] is None
    result = mq("estimate", "--pattern", "text", "--size", "4000", "--count", "3", "--report", "cpu", clock=None)
    assert result.exit_code == 0, result.output
    assert "THIS machine" in result.stdout and "z15 figures" in result.stdout
    measured = json.loads(mq("estimate", "--pattern", "text", "--size", "4000", "--report", "cpu",
                             "--format", "json", clock=None).stdout)  # fmt: skip
    assert all(measured["total"][f"{t}_us"] > 0 for t in ("queue", "zlibfast", "zlibhigh", "rle", "gzip", "deflate"))
    assert measured["machine"]["cpus"]


# -- inputs ------------------------------------------------------------------------------
@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "payloads"
    (root / "a" / "b").mkdir(parents=True)
    (root / "one.xml").write_bytes(generate("xml", 3000, 1, 0))
    (root / "a" / "two.json").write_bytes(generate("json", 5000, 1, 0))
    (root / "a" / "b" / "three.xml").write_bytes(generate("xml", 12000, 1, 0))
    (root / "a" / "empty.txt").write_bytes(b"")
    return root


def test_folders_are_read_recursively_and_empty_files_are_messages(mq: MQ, tree: Path) -> None:
    document = estimate_json(mq, str(tree), "--report", "ztpf,zos")
    total = document["total"]
    assert (total["messages"], total["original_bytes"]) == (4, 20000)
    rows = by_class(document)
    assert rows["0-1KB"]["messages"] == 1  # the empty file: one message of 0 bytes
    assert rows["0-1KB"]["swbs"] == 1 and rows["0-1KB"]["pages_per_message"] == 1.0
    assert rows["0-1KB"]["compressed_messages"] == 0  # nothing to gain: stored as it is
    assert document["summary"]["errors"] == []


def test_globs(mq: MQ, tree: Path) -> None:
    xml = estimate_json(mq, str(tree / "**" / "*.xml"), "--report", "ztpf")
    assert (xml["total"]["messages"], xml["total"]["original_bytes"]) == (2, 15000)
    result = mq("estimate", str(tree / "*.nothing"), "--report", "ztpf")
    assert result.exit_code == 1
    assert f"MQT0601E Cannot read {tree / '*.nothing'}: no file matches" in result.stderr


def test_unreadable_inputs_are_named_and_the_rest_is_estimated(mq: MQ, tree: Path) -> None:
    (tree / "a" / "gone.xml").symlink_to(tree / "nowhere.xml")
    locked = tree / "locked.xml"
    locked.write_bytes(b"<a/>")
    locked.chmod(0)
    missing = tree.parent / "missing.xml"
    try:
        result = mq("estimate", str(tree), str(missing), "--report", "ztpf", "--format", "json")
    finally:
        locked.chmod(0o644)
    assert result.exit_code == 1
    assert f"MQT0601E Cannot read {tree / 'a' / 'gone.xml'}: No such file or directory" in result.stderr
    assert f"MQT0601E Cannot read {missing}: No such file or directory" in result.stderr
    document = json.loads(result.stdout)
    readable = 5 if os.access(locked, os.R_OK) else 4  # root reads a mode-000 file
    assert document["total"]["messages"] == readable
    assert {error["source"] for error in document["summary"]["errors"]} >= {str(missing), str(tree / "a" / "gone.xml")}
    assert "Traceback" not in result.output


def test_split_lines_and_fixed_records(mq: MQ, tmp_path: Path) -> None:
    log = tmp_path / "orders.log"
    log.write_bytes(b"first line\r\nsecond\n\nlast without end")
    lines = estimate_json(mq, str(log), "--split-lines", "--report", "ztpf")
    assert (lines["total"]["messages"], lines["total"]["original_bytes"]) == (4, 10 + 6 + 0 + 16)
    records = estimate_json(mq, str(log), "--split", "10", "--report", "ztpf")
    assert (records["total"]["messages"], records["total"]["original_bytes"]) == (4, 36)  # 10, 10, 10, 6


def test_split_lines_across_unit_boundaries(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A line belongs to the unit it starts in: with tiny units every line is measured
    exactly once, whatever the boundaries cut."""
    from mqtool.estimate.run import estimate
    from mqtool.estimate.settings import Settings

    monkeypatch.setattr(sources, "UNIT_BYTES", 37)
    lines = [generate("text", n, 2, n)[:n] for n in (0, 5, 36, 37, 38, 80, 1, 0, 200, 3)]
    path = tmp_path / "lines.txt"
    path.write_bytes(b"\n".join(line.replace(b"\n", b" ") for line in lines) + b"\n")
    units = list(sources.units((str(path),), True, 0, lambda source, reason: None))
    assert len(units) > 5
    partial = estimate(units, Settings(reports=("ztpf",)), jobs=1)
    assert partial.messages == len(lines) and partial.bytes == sum(len(line) for line in lines)
    fixed = list(sources.units((str(path),), False, 7, lambda source, reason: None))
    assert all(unit.size % 7 == 0 for unit in fixed[:-1])
    assert estimate(fixed, Settings(reports=("ztpf",)), jobs=1).bytes == path.stat().st_size


def test_a_100_mb_file(mq: MQ, tmp_path: Path) -> None:
    """The largest MQ message (100 MB) is estimated whole; a byte more is refused with a
    clear error naming the file, and --split measures it as records."""
    block = b"\n".join(generate("xml", 32768, 0, index) for index in range(4))
    big = tmp_path / "big.xml"
    with big.open("wb") as handle:
        for _ in range(MAX_MESSAGE // len(block)):
            handle.write(block)
        handle.write(block[: MAX_MESSAGE % len(block)])
    assert big.stat().st_size == MAX_MESSAGE
    whole = estimate_json(mq, str(big), "--report", "ztpf")
    assert (whole["total"]["messages"], whole["total"]["original_bytes"]) == (1, MAX_MESSAGE)
    assert whole["total"]["swbs"] == swbs_for(MAX_MESSAGE)
    with big.open("ab") as handle:
        handle.write(b"x")
    result = mq("estimate", str(big), "--report", "ztpf")
    assert result.exit_code == 1
    assert f"MQT0601E Cannot read {big}: 104857601 bytes is more than 100MB, the largest MQ message" in result.stderr
    split = estimate_json(mq, str(big), "--split", "4MB", "--report", "ztpf")
    assert (split["total"]["messages"], split["total"]["original_bytes"]) == (26, MAX_MESSAGE + 1)


# -- outputs -------------------------------------------------------------------------------
def test_csv_parses_with_readable_headings_and_a_total_row(mq: MQ) -> None:
    result = mq("estimate", "--pattern", "xml", "--size", "3000,70000", "--count", "2", "--format", "csv")
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [row["size class"] for row in rows] == ["3000", "70000", "total"]
    assert rows[-1]["messages"] == "4" and rows[-1]["original bytes"] == str(2 * 73000)
    for heading in ("QUEUE reduction %", "SWBs per message compressed", "SWB reduction %", "wire bytes",
                    "pages per message", "log bytes per message complog", "sweep every seconds"):  # fmt: skip
        assert heading in rows[0], heading
    assert float(rows[0]["SWB reduction %"]) == pytest.approx(33.3)


def test_json_parses_and_names_its_columns(mq: MQ) -> None:
    document = estimate_json(mq, "--pattern", "json", "--size", "2KB", "--count", "3", "--encoding", "cp037")
    assert document["summary"]["messages"] == 3 and document["settings"]["technique"] == "ZLIBFAST"
    assert set(document["columns"]) == set(document["total"])
    assert document["settings"]["classes"][0] == {"lower": 0, "upper": 2048, "label": "0-2KB"}
    assert set(document["notes"]) == {"ratios", "ztpf", "sweeper", "channel", "http", "zos", "cpu"}


def test_table_and_markdown(mq: MQ) -> None:
    table = mq("estimate", "--pattern", "xml", "--size", "3000,200000", "--count", "2", "--report", "ztpf")
    assert table.exit_code == 0, table.output
    lines = table.stdout.splitlines()
    assert lines[0].startswith("MQT0600I Estimated 4 messages (406,000 bytes) from the generated xml corpus")
    assert "z/TPF queue: SWBs, sweeper and checkpoint I/Os per message" in table.stdout
    row = re.compile(r"^3000 +2 +6,000 +\d+\.\d% +2 +3\.00 +2\.00 +33\.3% +2\.00 +2\.00 ")
    assert any(row.match(line) for line in lines), lines
    assert "Best COMPSIZE for --goal swb: COMPSIZE" in lines[-1]
    assert "\x1b[" not in table.stdout  # no colour off a terminal
    markdown = mq("estimate", "--pattern", "xml", "--size", "3000,200000", "--count", "2", "--report", "ztpf",
                  "--format", "markdown").stdout  # fmt: skip
    assert "### z/TPF queue: SWBs, sweeper and checkpoint I/Os per message" in markdown
    assert "| size class | messages | original bytes | compress % |" in markdown
    assert "| **total** | **4** | **406,000** |" in markdown


def test_never_touches_the_store(mq: MQ, state_dir: Path) -> None:
    result = mq("estimate", "--pattern", "xml", "--size", "1KB", "--report", "ztpf")
    assert result.exit_code == 0, result.output
    assert not state_dir.exists()


@pytest.mark.slow
def test_process_pool_gives_the_same_report(mq: MQ) -> None:
    corpus = ("--pattern", "text", "--size", "1MB", "--count", "20", "--report", "ztpf,zos,http", "--format", "json")
    alone = mq("estimate", *corpus, "--jobs", "1")
    pooled = mq("estimate", *corpus, "--jobs", "2")
    assert alone.exit_code == pooled.exit_code == 0, pooled.output
    assert json.loads(alone.stdout) == json.loads(pooled.stdout)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


@pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None, reason="the plot extra (matplotlib) is not installed"
)
def test_plot_writes_a_png_and_an_svg(mq: MQ, tmp_path: Path) -> None:
    chart = tmp_path / "ratios.png"
    result = mq("estimate", "--pattern", "xml", "--size", ",".join(map(str, SEED_SIZES)), "--count", "2",
                "--plot", str(chart))  # fmt: skip
    assert result.exit_code == 0, result.output
    width, height = png_size(chart)
    assert width >= 600 and height >= 300
    if importlib.util.find_spec("PIL") is not None:
        from PIL import Image

        with Image.open(chart) as image:
            assert image.size == (width, height)
    svg = tmp_path / "ratios.svg"
    assert mq("estimate", "--pattern", "xml", "--size", "3000", "--plot", str(svg)).exit_code == 0
    assert svg.read_text(encoding="utf-8").lstrip().startswith("<?xml")


def test_plot_without_matplotlib_is_one_clear_error(mq: MQ, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mqtool.estimate import plot

    real = importlib.util.find_spec
    monkeypatch.setattr(plot.importlib.util, "find_spec", lambda name: None if name == "matplotlib" else real(name))
    result = mq("estimate", "--pattern", "xml", "--plot", str(tmp_path / "x.png"))
    assert result.exit_code == 2
    assert "--plot needs matplotlib, which is not installed: pip install 'mqtool[plot]'" in result.output
    assert not (tmp_path / "x.png").exists()
    wrong = mq("estimate", "--pattern", "xml", "--plot", str(tmp_path / "x.pdf"))
    assert wrong.exit_code == 2 and "must end in .png or .svg" in wrong.output


# -- encoding ---------------------------------------------------------------------------------
def test_ebcdic_copy_compresses_like_the_original(mq: MQ, tmp_path: Path) -> None:
    corpus = ("--pattern", "xml", "--size", ",".join(map(str, SEED_SIZES)), "--count", "4", "--report", "ratios,ztpf")
    plain = by_class(estimate_json(mq, *corpus))
    ebcdic = by_class(estimate_json(mq, *corpus, "--encoding", "cp037"))
    for size in SEED_SIZES:
        assert ebcdic[str(size)]["original_bytes"] == plain[str(size)]["original_bytes"]  # ASCII: one byte each
        for key in ("queue_reduction", "zlibfast_reduction", "gzip_reduction", "swb_reduction"):
            assert ebcdic[str(size)][key] == pytest.approx(plain[str(size)][key], abs=1.0), (size, key)
    binary = tmp_path / "binary.bin"
    binary.write_bytes(b"\xff\xfe\x00" * 100)
    result = mq("estimate", str(binary), "--encoding", "cp037", "--report", "ztpf")
    assert result.exit_code == 0
    assert "MQT0602W 1 message not UTF-8 text: measured as they are, not in cp037" in result.stderr


# -- options ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "nothing to estimate"),
        (("x", "--pattern", "xml"), "give PATHs or a generated corpus"),
        (("x", "--split-lines", "--split", "10"), "--split-lines and --split exclude each other"),
        (("--pattern", "xml", "--size", "3 bytes"), "is not a size"),
        (("--pattern", "xml", "--size", "200MB"), "at most 100MB"),
        (("--pattern", "xml", "--rate", "fast"), "is not a rate"),
        (("--pattern", "xml", "--outage", "soon"), "outage"),
        (("--pattern", "xml", "--encoding", "klingon"), "not a text encoding"),
        (("--pattern", "xml", "--compmsg", "ANY"), "--compmsg"),
        (("--pattern", "xml", "--rcvr-compmsg", "RLE"), "--rcvr-compmsg"),
        (("--pattern", "xml", "--report", "everything"), "--report"),
        (("--pattern", "xml", "--cpu", "z99"), "--cpu"),
        (("--pattern", "xml", "--sweephi", "30"), "must be below --sweephi"),
        (("--pattern", "xml", "--rate", "100000/s", "--outage", "1h"), "simulates at most"),
        (("x", "--split", "0"), "--split"),
    ],
)
def test_bad_options_are_one_line_tool_errors(
    mq: MQ, capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    from mqtool.cli.main import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--state", str(mq.state_dir), "estimate", *args])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("mqtool: error: ") and message in err and err.count("\n") == 1, err
    assert not mq.state_dir.exists()


def test_sizes_rates_and_classes() -> None:
    assert [parse_size(t) for t in ("3000", "32KB", "4MB", "1g", "2 KiB")] == [3000, 32768, 4194304, 1024**3, 2048]
    with pytest.raises(SettingsError):
        parse_size("12.3KB")  # not a whole number of bytes
    assert [parse_rate(t) for t in ("100/s", "6000/min", "100", "3600/h")] == [100.0, 100.0, 100.0, 1.0]
    labels = [c.label for c in classes_from([4096, 16384, 65536])]
    assert labels == ["0-4KB", "4KB-16KB", "16KB-64KB", "64KB+"]
    assert [c.label for c in classes_from([3000, 5000], exact=True)] == ["0-3000", "3000", "5000"]


def test_the_man_page_shows_what_estimate_prints(mq: MQ) -> None:
    """mqtool-estimate(1) puts mqtool's figures next to the seed's: they must stay what the
    tool prints (ratios within a point, for another codec version; SWB counts exactly)."""
    text = (Path(__file__).resolve().parent.parent / "man" / "extra" / "mqtool-estimate.1.troff").read_text()
    rows = by_class(estimate_json(mq, "--pattern", "xml", "--size", ",".join(map(str, SEED_SIZES)), "--report", "ztpf"))
    for size in SEED_SIZES:
        found = re.search(rf"^ *{size} +\d+% +([\d.]+)% +\d+% +([\d.]+)% +(\d+) +([\d.]+)$", text, re.MULTILINE)
        assert found is not None, size
        ratio, swb, plain, packed = found.groups()
        row = rows[str(size)]
        assert float(ratio) == pytest.approx(row["queue_reduction"], abs=1.0)
        assert float(swb) == pytest.approx(row["swb_reduction"], abs=1.0)
        assert int(plain) == row["swbs_per_message"]
        assert float(packed) == pytest.approx(row["swbs_per_message_compressed"], abs=0.5)
