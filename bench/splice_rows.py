"""A sweep CSV with some of its rows' measurements taken from another sweep of the same problems: what a selector or an
oracle would see if those rows had been measured that other way (another chip, an older kernel).

    python bench/splice_rows.py BASE.csv SOURCE.csv --where EXPR --out OUT.csv

OUT is BASE with every row EXPR selects (bench/drop_rows.py's grammar) whose (problem, kernel) SOURCE also holds
given SOURCE's status, time and rates; every other row is BASE's. Rank a `gconv validate --selector measured` by OUT
and measure it on BASE, e.g. BASE the H100's rows and SOURCE the H200's or an older revision's
(`git show REV:FILE > OLD.csv`): how much of BASE's oracle a stand-in for those rows keeps
(`relaxed-atomics/README.md` "Measured again on an H200"). Prints the rows spliced; OUT is written whole or not at all.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gconv.bench.drop_rows import row_matches
from gconv.bench.rows import ProfileRow, read_rows, rewrite_rows
from gconv.errors import ExpressionError
from gconv.schemas.expressions import parse

# What a measurement of a (problem, kernel) pair holds: the ProfileRow fields but those naming the pair.
MEASURED_FIELDS = tuple(field for field in ProfileRow.model_fields if field not in ("problem", "kernel"))


def splice_rows(base: list[dict], source: list[dict], where: str) -> tuple[list[dict], int]:
    """base's rows, those where selects taking source's measurement of the same (problem, kernel); (rows, spliced)."""
    expression = parse(where)
    measured = {(row["problem"], row["kernel"]): row for row in source}
    out, spliced = [], 0
    for row in base:
        other = measured.get((row["problem"], row["kernel"]))
        if row_matches(expression, row) and other is not None:  # every row read: a misspelt field is always named
            row = {**row, **{field: other[field] for field in MEASURED_FIELDS}}
            spliced += 1
        out.append(row)
    return out, spliced


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base", type=Path)
    parser.add_argument("source", type=Path)
    parser.add_argument("--where", required=True, help="the rows to take from SOURCE (bench/drop_rows.py's grammar)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    for path in (args.base, args.source):
        if not path.exists():
            parser.error(f"{path} does not exist")
    try:
        rows, spliced = splice_rows(read_rows(args.base), read_rows(args.source), args.where)
    except ExpressionError as error:
        parser.error(str(error))
    rewrite_rows(args.out, rows)
    print(f"{args.out}: {len(rows)} rows, {spliced} of them from {args.source}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
