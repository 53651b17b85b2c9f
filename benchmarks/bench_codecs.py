"""Codec benchmark: which library and level each compression technique should use.

Measures zlib-ng (levels 1-9, the baseline), isal (levels 0-3) and, for reference
only, the standard library's zlib, on generated messages of 2 KB, 32 KB and 200 KB
(XML, and JSON and text so that a choice does not rest on one generator's
quirks): compress MB/s, decompress MB/s and size reduction. Then it applies the
rule that mqtool/engine/codecs.py records, and checks that table against it:

  a candidate qualifies for a technique when its size reduction is no more than
  0.5 percentage points below the zlib-ng baseline level of the technique, at
  every size and pattern (the queue display shows whole percents); the fastest
  qualifier by compress throughput (geometric mean over sizes and patterns)
  wins, but replaces the baseline only when it is at least 20% faster: timings
  on a shared machine vary by that much from run to run, and the table must not
  flip on noise. Exit status 1 when codecs.PREFERRED no longer passes.

Run:  python benchmarks/bench_codecs.py [--repeat 5] [--patterns xml,json,text]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType

from zlib_ng import zlib_ng

from mqtool.engine import codecs
from mqtool.engine.payload import generate

isal_zlib: ModuleType | None
try:
    from isal import isal_zlib
except ImportError:
    isal_zlib = None

# Message count per size: about 1 MB of payload per measurement.
SIZES = {2048: 500, 32768: 32, 200000: 5}
BASELINES = {"ZLIBFAST": 1, "ZLIBHIGH": 9, "QUEUE": 6, "GZIP": 6, "DEFLATE": 6}
RATIO_TOLERANCE = 0.005
MIN_SPEEDUP = 1.20


@dataclass(frozen=True)
class Result:
    library: str
    level: int
    size: int
    compress_mbs: float
    decompress_mbs: float
    reduction: float  # 1 - compressed / original


def best_time(func: Callable[[bytes], object], items: Sequence[bytes], repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        for item in items:
            func(item)
        best = min(best, time.perf_counter() - start)
    return best


def measure(
    name: str,
    level: int,
    pack: Callable[[bytes], bytes],
    unpack: Callable[[bytes], bytes],
    messages: dict[int, list[bytes]],
    repeat: int,
) -> list[Result]:
    results = []
    for size, items in messages.items():
        total = sum(map(len, items))
        packed = [pack(m) for m in items]
        assert [unpack(p) for p in packed] == items
        c_time = best_time(pack, items, repeat)
        d_time = best_time(unpack, packed, repeat)
        reduction = 1 - sum(map(len, packed)) / total
        results.append(Result(name, level, size, total / c_time / 1e6, total / d_time / 1e6, reduction))
    return results


def library_codec(module: ModuleType, level: int) -> tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]:
    return (lambda data: module.compress(data, level)), module.decompress


def geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


Table = dict[str, dict[tuple[str, int], list[Result]]]  # pattern -> candidate -> results


def qualifies(key: tuple[str, int], base_key: tuple[str, int], tables: Table) -> bool:
    for table in tables.values():
        base = {r.size: r.reduction for r in table[base_key]}
        if any(r.reduction < base[r.size] - RATIO_TOLERANCE for r in table[key]):
            return False
    return True


def speed(key: tuple[str, int], tables: Table) -> float:
    return geomean([r.compress_mbs for table in tables.values() for r in table[key]])


def choose(technique: str, tables: Table) -> tuple[tuple[str, int], str]:
    """The rule in the module docstring; returns the winner and why."""
    base_key = ("zlib-ng", BASELINES[technique])
    base_speed = speed(base_key, tables)
    qualified = [
        key for key in next(iter(tables.values())) if key[0] in ("zlib-ng", "isal") and qualifies(key, base_key, tables)
    ]
    best = max(qualified, key=lambda key: speed(key, tables))
    gain = speed(best, tables) / base_speed
    if best != base_key and gain < MIN_SPEEDUP:
        return (
            base_key,
            f"best qualifier {best[0]} {best[1]} is only {gain:.2f}x: keep baseline",
        )
    return best, f"{gain:.2f}x the baseline's compress speed"


def verdict(technique: str, winner: tuple[str, int], tables: Table) -> str:
    """Whether codecs.PREFERRED still stands: it qualifies and is within noise of the winner."""
    row = codecs.PREFERRED[technique]
    current = (row.library, row.level)
    if current == winner:
        return "codecs.py agrees"
    base_key = ("zlib-ng", BASELINES[technique])
    if qualifies(current, base_key, tables) and speed(current, tables) * MIN_SPEEDUP >= speed(winner, tables):
        return f"codecs.py has {current[0]} {current[1]}: within noise, keep"
    return f"codecs.py has {current[0]} {current[1]}: OUT OF DATE"


def cross_check(messages: dict[int, list[bytes]]) -> None:
    """Every library must read every other's zlib and gzip output (the QUEUE promise)."""
    modules = [zlib_ng, zlib] + ([isal_zlib] if isal_zlib is not None else [])
    sample = messages[32768][0]
    for wbits in (15, 31):
        for writer in modules:
            packed = writer.compress(sample, 1 if writer is isal_zlib else 6, wbits)
            for reader in modules:
                assert reader.decompress(packed, wbits) == sample, (writer, reader)


def print_table(pattern: str, table: dict[tuple[str, int], list[Result]]) -> None:
    print(f"\npayload: {pattern}")
    header = f"{'library':<11}{'lvl':>4}"
    for size in SIZES:
        header += f" | {size:>6} B  comp MB/s  dec MB/s  reduct."
    print(header)
    print("-" * len(header))
    for (name, level), results in table.items():
        line = f"{name:<11}{level:>4}"
        for r in results:
            line += f" | {'':>8}{r.compress_mbs:>11.0f}{r.decompress_mbs:>10.0f}{r.reduction:>8.1%}"
        print(line)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="best of N timings (5)")
    parser.add_argument(
        "--patterns",
        default="xml,json,text",
        help="payload patterns; a choice must hold on each (xml,json,text)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    candidates: list[tuple[str, ModuleType, int]] = [("zlib-ng", zlib_ng, level) for level in range(1, 10)]
    if isal_zlib is not None:
        candidates += [("isal", isal_zlib, level) for level in range(4)]
    candidates += [("zlib", zlib, level) for level in (1, 6, 9)]

    print(f"best of {args.repeat}, zlib format, seed {args.seed}")
    print(
        f"zlib-ng {zlib_ng.ZLIBNG_VERSION}; stdlib zlib {zlib.ZLIB_RUNTIME_VERSION} "
        f"(reference only); {'isal not installed' if isal_zlib is None else codecs.describe('ZLIBFAST')}"
    )
    tables: Table = {}
    for pattern in args.patterns.split(","):
        messages = {
            size: [generate(pattern, size, args.seed, i) for i in range(count)] for size, count in SIZES.items()
        }
        cross_check(messages)
        table = {
            (name, level): measure(name, level, *library_codec(module, level), messages, args.repeat)
            for name, module, level in candidates
        }
        # The RLE row goes through codecs itself (it is this project's code), for information.
        table[("mqtool-rle", 0)] = measure(
            "mqtool-rle",
            0,
            lambda data: codecs.compress("RLE", data),
            lambda data: codecs.decompress("RLE", data),
            messages,
            args.repeat,
        )
        print_table(pattern, table)
        tables[pattern] = table

    print(
        f"\ndecision: size reduction at most {RATIO_TOLERANCE * 100:.1f} points below the baseline at every "
        f"size and pattern; fastest compress (geometric mean); switch at >= {MIN_SPEEDUP:.2f}x"
    )
    stale = 0
    for technique, base_level in BASELINES.items():
        winner, why = choose(technique, tables)
        said = verdict(technique, winner, tables)
        stale += said.endswith("OUT OF DATE")
        print(f"  {technique:<9} baseline zlib-ng {base_level} -> {winner[0]} {winner[1]} ({why}); {said}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
