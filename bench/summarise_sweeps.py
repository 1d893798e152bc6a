"""The per direction x shape class summary of `gconv bench sweep` (speed-up of the best gconv instance over the best
cuDNN mode, % of roofline on problems >= 20 us) over the union of several sweep CSVs, optionally without the kernels
whose names contain a token (what a kernel family adds, measured in the same files), and the problems furthest from
the roofline (where the geomean loses most):

    python bench/summarise_sweeps.py bench/results/train-*-bf16*.csv [--without k64_] [--worst 5]
"""
from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

from gconv.bench.profile import best_per_problem, summarise
from gconv.bench.rows import read_rows
from gconv.tables import table


def sweep_rows(files: list[Path], without: str | None = None) -> list[dict]:
    """The rows of every file, less the kernels whose names contain without."""
    return [r for f in files for r in read_rows(f) if not (without and without in r["kernel"])]


def furthest_from_roofline(rows: list[dict], count: int) -> str:
    """Per direction, the count problems (roofline time >= 20 us, as summarise counts them) whose best gconv instance
    reaches the least % of the roofline: its class, the instance, its time and the best cuDNN mode's."""
    by_direction = defaultdict(list)
    for key, best in best_per_problem(rows).items():
        pct = best.roofline_pct
        if pct is not None:
            by_direction[best.row["direction"]].append((pct, key, best))
    body = []
    for direction in sorted(by_direction):
        for pct, key, best in sorted(by_direction[direction], key=lambda item: (item[0], item[1]))[:count]:
            cudnn = f"{best.vendor_ms * 1e3:.0f}" if best.vendor_ms is not None else "-"
            body.append([direction, best.row["shape_class"], key, best.row["kernel"], f"{pct:.1f}%",
                         f"{best.ms * 1e3:.0f}", cudnn])
    return table(["direction", "shape class", "problem", "best gconv instance", "% roofline", "us", "cuDNN us"], body)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--without", metavar="TOKEN", help="leave out kernels whose names contain TOKEN")
    parser.add_argument("--worst", type=int, default=0, metavar="N",
                        help="also list the N problems per direction furthest from the roofline")
    args = parser.parse_args(argv)
    if args.worst < 0:
        parser.error(f"--worst must be 0 or more, got {args.worst}")
    rows = sweep_rows(args.files, args.without)
    print(summarise(rows))
    if args.worst:
        print()
        print(furthest_from_roofline(rows, args.worst))


if __name__ == "__main__":
    main()
