"""Row by row: how the times of the (problem, kernel) pairs two `gconv bench sweep` CSVs share compare, e.g. rows of
unchanged kernels measured again another way (`--overlap-compile`) against the committed ones.

    python bench/compare_rows.py BEFORE.csv AFTER.csv [--where EXPR] [--by FIELD] [--changed]
    python bench/compare_rows.py --rev REV FILE.csv [FILE.csv ...] [--where EXPR] [--by FIELD] [--changed]

--where selects rows as `bench/drop_rows.py` does (problem columns and the kernel's axes; cuDNN rows have algorithm
'vendor'). Per direction (and value of --by, one of the fields --where reads, e.g. shape_class): pairs, and the
geometric mean, P10, median and P90 of AFTER / BEFORE over the pairs both files time ("ok" rows). A measurement
method that changes nothing leaves the geomean near 1 and the spread at the noise of measuring twice. With --rev,
each FILE (a path in this repository) is AFTER and its committed version at git revision REV is BEFORE, the pairs
of every file pooled: rows measured again after their kernels changed, against the rows they replaced. --changed
keeps only the pairs whose time differs (the rows a focus sweep measured again, not the rows it kept, which would
each add an exact 1).
"""
from __future__ import annotations

import argparse
import math
import sys
from collections import defaultdict
from pathlib import Path

from gconv.bench.rows import existing_rows
from gconv.bench.summary import geomean
from gconv.errors import GconvError
from gconv.schemas.expressions import parse
from gconv.tables import table

sys.path.insert(0, str(Path(__file__).parent))
from drop_rows import row_fields, row_matches  # noqa: E402
from git_files import rows_at  # noqa: E402


def ratios(before: Path, after: Path, where: str | None = None, by: str | None = None,
           changed: bool = False) -> dict[str, list[float]]:
    """direction (with ' FIELD-value' for by) -> AFTER / BEFORE time of every (problem, kernel) both files time ("ok"
    rows) that where selects; with changed, only those whose time differs."""
    return row_ratios(existing_rows(before), existing_rows(after), where, by, changed)


def row_ratios(before: list[dict], after: list[dict], where: str | None = None, by: str | None = None,
               changed: bool = False) -> dict[str, list[float]]:
    """ratios of two files' rows."""
    expression = parse(where) if where else None
    old = {(r["problem"], r["kernel"]): float(r["time_ms"]) for r in before if r["status"] == "ok"}
    out = defaultdict(list)
    for row in after:
        key = (row["problem"], row["kernel"])
        if row["status"] != "ok" or key not in old or (changed and float(row["time_ms"]) == old[key]):
            continue
        if expression is not None and not row_matches(expression, row):
            continue
        group = row["direction"]
        if by is not None:
            fields = row_fields(row)
            if by not in fields:
                raise ValueError(f"--by {by!r} is not a row field; known: {', '.join(sorted(fields))}")
            group = f"{group} {fields[by]}"
        out[group].append(float(row["time_ms"]) / old[key])
    return dict(sorted(out.items()))


def committed_ratios(revision: str, files: list[Path], where: str | None = None,
                     by: str | None = None, changed: bool = False) -> dict[str, list[float]]:
    """ratios of each file against its version at a git revision, pooled over the files."""
    pooled = defaultdict(list)
    for path in files:
        after = existing_rows(path)  # before git is asked for its committed version
        for group, values in row_ratios(rows_at(revision, path), after, where, by, changed).items():
            pooled[group] += values
    return dict(sorted(pooled.items()))


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.floor(q * len(ordered)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", type=Path, nargs="+", help="BEFORE.csv AFTER.csv, or with --rev the files")
    parser.add_argument("--rev", help="compare each file with its committed version at this git revision")
    parser.add_argument("--where", help="only these rows (an expression, as bench/drop_rows.py)")
    parser.add_argument("--by", help="also group by this row field (e.g. shape_class, stride_h)")
    parser.add_argument("--changed", action="store_true", help="only the pairs whose time differs (rows measured again)")
    args = parser.parse_args(argv)
    if args.rev is None and len(args.files) != 2:
        parser.error("give BEFORE.csv AFTER.csv, or --rev REV and the files")
    try:
        if args.rev is None:
            groups = ratios(*args.files, args.where, args.by, args.changed)
        else:
            groups = committed_ratios(args.rev, args.files, args.where, args.by, args.changed)
    except (OSError, ValueError, GconvError) as error:
        print(f"compare_rows: {error}", file=sys.stderr)
        return 2
    rows = [[group, len(v), f"{geomean(v):.3f}", f"{quantile(v, 0.1):.3f}", f"{quantile(v, 0.5):.3f}",
             f"{quantile(v, 0.9):.3f}"] for group, v in groups.items()]
    print(table(["direction" if args.by is None else f"direction {args.by}", "pairs", "geomean after/before", "P10",
                 "median", "P90"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
