"""Per-problem comparison of two `gconv bench sweep` CSVs of the same problems (e.g. before and after a kernel family).

    python bench/compare_sweeps.py BEFORE.csv AFTER.csv [--labels before after] [--before-without TOKEN] > table.md

With --before-without, BEFORE's kernels whose names contain TOKEN are left out: one file against itself shows what a
kernel family adds (e.g. `--before-without _cpg` for the tiny-group kernels), measured in the same run.

For every problem in both files: the best cuDNN mode (the faster of heuristic and exhaustive, from AFTER), the best
gconv instance of each file, their speed-ups over cuDNN, and AFTER's winning kernel; then the geometric means per
direction. Times are whatever the files hold (compare files measured the same way).
"""
from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path

from gconv.bench.rows import read_rows
from gconv.bench.summary import geomean

CUDNN = ("cudnn-heuristic", "cudnn-exhaustive")


def best_times(path: Path, without: str | None = None
               ) -> tuple[dict[str, tuple[float, str]], dict[str, float], dict[str, str]]:
    """problem -> (best gconv ms, kernel); problem -> best cuDNN ms; problem -> direction. Kernels whose names contain
    `without` are left out."""
    gconv, cudnn, direction = {}, {}, {}
    for row in read_rows(path):
        if row["status"] != "ok" or not row["time_ms"] or (without and without in row["kernel"]):
            continue
        key, ms = row["problem"], float(row["time_ms"])
        direction[key] = row["direction"]
        if row["kernel"] in CUDNN:
            cudnn[key] = min(ms, cudnn.get(key, math.inf))
        elif ms < gconv.get(key, (math.inf, ""))[0]:
            gconv[key] = (ms, row["kernel"])
    return gconv, cudnn, direction


def compare(before: Path, after: Path, labels: tuple[str, str], before_without: str | None = None) -> str:
    old, _, _ = best_times(before, before_without)
    new, cudnn, direction = best_times(after)
    keys = sorted((k for k in new if k in old and k in cudnn), key=lambda k: (direction[k], k))
    lines = [f"| direction | problem | best cuDNN us | {labels[0]} us | {labels[1]} us | {labels[0]} vs cuDNN | "
             f"{labels[1]} vs cuDNN | {labels[1]} kernel |", "|---|---|---|---|---|---|---|---|"]
    ratios: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for k in keys:
        c, (o, _), (n, kernel) = cudnn[k], old[k], new[k]
        ratios[direction[k]].append((c / o, c / n))
        lines.append(f"| {direction[k]} | {k} | {c * 1e3:.1f} | {o * 1e3:.1f} | {n * 1e3:.1f} | {c / o:.2f}x | "
                     f"{c / n:.2f}x | {kernel} |")
    lines += ["", f"| direction | problems | geomean {labels[0]} vs cuDNN | geomean {labels[1]} vs cuDNN | "
                  f"geomean {labels[1]} vs {labels[0]} |", "|---|---|---|---|---|"]
    for d, pairs in sorted(ratios.items()):
        b, a = geomean([p[0] for p in pairs]), geomean([p[1] for p in pairs])
        lines.append(f"| {d} | {len(pairs)} | {b:.2f}x | {a:.2f}x | {a / b:.2f}x |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--labels", nargs=2, default=["before", "after"])
    parser.add_argument("--before-without", metavar="TOKEN", help="leave BEFORE's kernels whose names contain TOKEN out")
    args = parser.parse_args(argv)
    sys.stdout.write(compare(args.before, args.after, tuple(args.labels), args.before_without))
    return 0


if __name__ == "__main__":
    sys.exit(main())
