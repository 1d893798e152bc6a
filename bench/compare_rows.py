"""Row by row: how the times of the (problem, kernel) pairs two `gconv bench sweep` CSVs share compare, e.g. rows of
unchanged kernels measured again another way (`--overlap-compile`) against the committed ones.

    python bench/compare_rows.py BEFORE.csv AFTER.csv [--where EXPR]

--where selects rows as `bench/drop_rows.py` does (problem columns and the kernel's axes; cuDNN rows have algorithm
'vendor'). Per direction: pairs, and the geometric mean, P10, median and P90 of AFTER / BEFORE over the pairs both
files time ("ok" rows). A measurement method that changes nothing leaves the geomean near 1 and the spread at the
noise of measuring twice.
"""
from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path

from gconv.bench.rows import read_rows
from gconv.bench.summary import geomean
from gconv.errors import GconvError
from gconv.schemas.expressions import parse
from gconv.tables import table

sys.path.insert(0, str(Path(__file__).parent))
from drop_rows import row_matches  # noqa: E402


def ratios(before: Path, after: Path, where: str | None = None) -> dict[str, list[float]]:
    """direction -> AFTER / BEFORE time of every (problem, kernel) both files time ("ok" rows) that where selects."""
    for path in (before, after):
        if not path.is_file():
            raise OSError(f"{path}: no such file")
    expression = parse(where) if where else None
    old = {(r["problem"], r["kernel"]): float(r["time_ms"]) for r in read_rows(before) if r["status"] == "ok"}
    out = defaultdict(list)
    for row in read_rows(after):
        key = (row["problem"], row["kernel"])
        if row["status"] != "ok" or key not in old:
            continue
        if expression is not None and not row_matches(expression, row):
            continue
        out[row["direction"]].append(float(row["time_ms"]) / old[key])
    return dict(sorted(out.items()))


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.floor(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--where", help="only these rows (an expression, as bench/drop_rows.py)")
    args = parser.parse_args(argv)
    try:
        by_direction = ratios(args.before, args.after, args.where)
    except (OSError, ValueError, GconvError) as error:
        print(f"compare_rows: {error}", file=sys.stderr)
        return 2
    rows = [[direction, len(v), f"{geomean(v):.3f}", f"{quantile(v, 0.1):.3f}", f"{quantile(v, 0.5):.3f}",
             f"{quantile(v, 0.9):.3f}"] for direction, v in by_direction.items()]
    print(table(["direction", "pairs", "geomean after/before", "P10", "median", "P90"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
