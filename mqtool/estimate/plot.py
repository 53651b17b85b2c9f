"""`mqtool estimate --plot`: compression ratio of each technique, and the SWB and page
reductions, against message size, with matplotlib (the optional extra `mqtool[plot]`)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from mqtool.estimate.measure import TECHNIQUES
from mqtool.estimate.report import Report

FORMATS = (".png", ".svg")


class PlotError(ValueError):
    """The chart cannot be drawn: matplotlib is missing, or the file type is not known."""


def check(path: Path) -> None:
    """Fails before anything is measured when the chart could not be drawn."""
    if path.suffix.lower() not in FORMATS:
        raise PlotError(f"--plot: {path} must end in .png or .svg")
    if importlib.util.find_spec("matplotlib") is None:
        raise PlotError("--plot needs matplotlib, which is not installed: pip install 'mqtool[plot]'")


def draw(report: Report, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # no display: write the file only
    from matplotlib import pyplot

    rows = [row for row in report.rows if row["messages"]]
    sizes = [max(1, row["mean_bytes"]) for row in rows]
    figure, (left, right) = pyplot.subplots(1, 2, figsize=(11, 4.5), constrained_layout=True)
    for technique in TECHNIQUES:
        key = f"{technique.lower()}_reduction"
        points = [(size, row.get(key)) for size, row in zip(sizes, rows, strict=True) if row.get(key) is not None]
        if points:
            left.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=technique)
    left.set_title("Compression ratio (size reduction)")
    for key, label in (("swb_reduction", "z/TPF SWBs"), ("zos_page_reduction", "z/OS pages")):
        points = [(size, _value(row, key)) for size, row in zip(sizes, rows, strict=True)]
        points = [(size, value) for size, value in points if value is not None]
        if points:
            right.plot([p[0] for p in points], [p[1] for p in points], marker="s", label=label)
    right.set_title("Storage reduction")
    for axes in (left, right):
        axes.set_xscale("log")
        axes.set_xlabel("message size (bytes, mean of the class)")
        axes.set_ylabel("%")
        axes.grid(True, which="both", alpha=0.3)
        if axes.has_data():
            axes.legend(fontsize="small")
    figure.suptitle(f"mqtool estimate: {report.partial.messages:,} messages")
    figure.savefig(path)
    pyplot.close(figure)


def _value(row: dict[str, object], key: str) -> float | None:
    if key == "zos_page_reduction":
        plain, packed = row.get("pages_per_message"), row.get("pages_per_message_compressed")
        if not isinstance(plain, (int, float)) or not isinstance(packed, (int, float)) or not plain:
            return None
        return round(100.0 * (1.0 - packed / plain), 1)
    value = row.get(key)
    return float(value) if isinstance(value, (int, float)) else None
