"""`mqtool estimate` throughput (issue 11): 1 GB of payload files of mixed sizes (4 KB to
4 MB; XML, JSON and text) generated into a temporary folder, estimated with the default
reports (every codec: ZLIBFAST, QUEUE = ZLIBHIGH = DEFLATE, GZIP, RLE) as a whole
process. Reports MB/s and the peak RSS of the process tree (the estimate process and its
workers, sampled from /proc every 20 ms and added up).

Baseline, measured in the same run on a sample of the same files held in memory: the
raw codecs estimate must run (one compress per distinct codec row per message) on 2
threads; for context also on 1 thread and on 2 processes, and estimate's own measuring
loop on 2 threads against 2 processes (why estimate uses processes).

Targets: estimate >= 0.8x the raw codecs on 2 threads; peak RSS < 300 MB.

Run:  python benchmarks/bench_estimate.py [--megabytes 1024] [--sample 128]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

from userenv import user_env

from mqtool.engine import codecs
from mqtool.engine.payload import generate
from mqtool.estimate.measure import TECHNIQUES
from mqtool.estimate.run import estimate
from mqtool.estimate.settings import Settings
from mqtool.estimate.sources import units

# share of the bytes, per (size, pattern)
MIX = (
    (4096, "xml", 0.15),
    (32768, "json", 0.25),
    (200000, "xml", 0.25),
    (1 << 20, "text", 0.20),
    (4 << 20, "xml", 0.15),
)
RATIO_TARGET = 0.8
RSS_TARGET = 300 * 1024 * 1024
MQTOOL = [sys.executable, "-m", "mqtool"]


def make_corpus(folder: Path, megabytes: int) -> list[Path]:
    files: list[Path] = []
    for size, pattern, share in MIX:
        count = max(1, int(megabytes * (1 << 20) * share) // size)
        sub = folder / f"{pattern}-{size}"
        sub.mkdir()
        for index in range(count):
            path = sub / f"{index:06d}.{pattern}"
            path.write_bytes(generate(pattern, size, 7, index))
            files.append(path)
    return files


def rss_of_tree(root: int) -> int:
    """The resident memory of a process and all its descendants, in bytes."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    total, todo = 0, [root]
    page = os.sysconf("SC_PAGE_SIZE")
    while todo:
        pid = todo.pop()
        try:
            with open(f"/proc/{pid}/statm", encoding="ascii") as handle:
                total += int(handle.read().split()[1]) * page
        except OSError:
            pass
        todo.extend(children.get(pid, []))
    return total


def run_estimate(folder: Path) -> tuple[float, int, int]:
    """Wall seconds, peak RSS of the tree, bytes estimated."""
    env = user_env()
    started = time.perf_counter()
    child = subprocess.Popen([*MQTOOL, "estimate", str(folder), "--format", "json"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss_of_tree(child.pid))
            done.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = child.communicate()
    elapsed = time.perf_counter() - started
    done.set()
    sampler.join()
    if child.returncode != 0:
        raise SystemExit(f"mqtool estimate failed ({child.returncode}): {err.decode()[-500:]}")
    import json

    measured = json.loads(out)["summary"]["bytes"]
    return elapsed, peak[0], measured


def _rows() -> list[str]:
    seen: dict[codecs.CodecRow, str] = {}
    for technique in TECHNIQUES:
        seen.setdefault(codecs.row(technique), technique)
    return list(seen.values())


ROWS = _rows()


def codec_work(chunk: list[bytes]) -> int:
    for data in chunk:
        for technique in ROWS:
            codecs.compress(technique, data)
    return sum(map(len, chunk))


def raw_throughput(chunks: list[list[bytes]], executor: Executor | None) -> float:
    total = sum(len(data) for chunk in chunks for data in chunk)
    started = time.perf_counter()
    if executor is None:
        for chunk in chunks:
            codec_work(chunk)
    else:
        list(executor.map(codec_work, chunks))
    return total / (1 << 20) / (time.perf_counter() - started)


def estimate_throughput(sample: list[Path], threads: bool) -> float:
    settings = Settings()
    total = sum(path.stat().st_size for path in sample)
    work = list(units(tuple(str(p) for p in sample), False, 0, lambda source, reason: None))
    started = time.perf_counter()
    estimate(work, settings, jobs=2, threads=threads)
    return total / (1 << 20) / (time.perf_counter() - started)


def best(measure: Callable[[], float], repeat: int) -> float:
    return max(measure() for _ in range(repeat))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--megabytes", type=int, default=1024, help="corpus size [1024]")
    parser.add_argument("--sample", type=int, default=128, help="MB of the corpus for the in-memory baselines [128]")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each baseline; the best counts [2]")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mqtool-bench-", dir=os.environ.get("MQTOOL_BENCH_DIR")) as tmp:
        folder = Path(tmp) / "payloads"
        folder.mkdir()
        started = time.perf_counter()
        files = make_corpus(folder, options.megabytes)
        corpus = sum(path.stat().st_size for path in files)
        print(f"corpus: {len(files)} files, {corpus / (1 << 20):.0f} MB in {time.perf_counter() - started:.1f}s")
        step = max(1, round(corpus / (options.sample << 20)))
        sample = files[::step]
        payloads = [path.read_bytes() for path in sample]
        chunks = [payloads[i : i + 16] for i in range(0, len(payloads), 16)]
        print(f"baseline sample: {len(sample)} files, {sum(map(len, payloads)) / (1 << 20):.0f} MB; rows {ROWS}")
        one = best(lambda: raw_throughput(chunks, None), options.repeat)
        with ThreadPoolExecutor(2) as pool:
            two_threads = best(lambda: raw_throughput(chunks, pool), options.repeat)
        with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as procs:
            list(procs.map(codec_work, [[b"warm"]] * 2))
            two_procs = best(lambda: raw_throughput(chunks, procs), options.repeat)
        payloads.clear()  # the baselines are done: free the sample
        chunks.clear()
        loop_threads = estimate_throughput(sample, threads=True)
        loop_procs = estimate_throughput(sample, threads=False)
        elapsed, peak, measured = run_estimate(folder)
        if measured != corpus:
            raise SystemExit(f"estimate measured {measured} bytes of {corpus}")
        speed = corpus / (1 << 20) / elapsed
        ratio = speed / two_threads
        print(
            f"raw codecs: 1 thread {one:.1f} MB/s, 2 threads {two_threads:.1f} MB/s, 2 processes {two_procs:.1f} MB/s"
        )
        print(f"estimate's loop on the sample: 2 threads {loop_threads:.1f} MB/s, 2 processes {loop_procs:.1f} MB/s")
        print(f"mqtool estimate: {corpus / (1 << 20):.0f} MB in {elapsed:.1f}s = {speed:.1f} MB/s; "
              f"peak RSS {peak / (1 << 20):.0f} MB")  # fmt: skip
        print(f"RESULT estimate {speed:.1f} MB/s = {ratio:.2f}x raw codecs on 2 threads ({two_threads:.1f} MB/s), "
              f"target >= {RATIO_TARGET}x")  # fmt: skip
        print(f"RESULT peak RSS {peak / (1 << 20):.0f} MB (target < {RSS_TARGET >> 20} MB)")
        print(f"RESULT context: raw 1 thread {one:.1f}, 2 processes {two_procs:.1f} MB/s; "
              f"estimate loop threads {loop_threads:.1f}, processes {loop_procs:.1f} MB/s")  # fmt: skip
        return 0 if ratio >= RATIO_TARGET and peak < RSS_TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
