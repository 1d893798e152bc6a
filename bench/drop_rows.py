"""Drop measured rows whose kernels' code changed, so that a resumed sweep measures them again.

    python bench/drop_rows.py --where "direction == 'bwd_data' and algorithm == 'igemm' and stride_h * stride_w > 1" \
        FILE.csv [FILE.csv ...]

--where is the safe expression grammar of `gconv rules list --filter`, over a row's problem columns (direction,
dtype, N, G, C, K, Hi, Wi, Y, X, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, shape_class), its status, time_ms
(0 for a row without a time) and detail ('' where the file has none; e.g. detail == '' leaves out the rows a focus
sweep's scatter --note marked), and its kernel's axes (KernelConfig fields; the cuDNN rows have algorithm 'vendor'),
e.g. --where "time_ms >= 500 and algorithm != 'vendor'" for rows a mistimed run recorded. Each file is rewritten in
place through a temporary file (nothing half-written); the count dropped per file is printed. Resumed with the same
--out, `gconv bench sweep` then measures exactly the dropped (problem, kernel) pairs again.
"""
from __future__ import annotations

import argparse
import csv
import sys
from enum import Enum
from pathlib import Path
from typing import Callable

from gconv.errors import ExpressionError
from gconv.files import replacing
from gconv.schemas import KernelConfig
from gconv.schemas.expressions import parse

PROBLEM_INTS = ("N", "G", "C", "K", "Hi", "Wi", "Y", "X", "stride_h", "stride_w", "pad_h", "pad_w", "dil_h", "dil_w")
# The cuDNN rows' axes: the named ones (algorithm, pipeline) 'vendor', so that `pipeline == 'tma'` is false there and
# not a string compared with a number; the flags false (so `tap_major and ...` reads them); the numbers 0.
VENDOR_AXES = {name: "vendor" if isinstance(field.annotation, type) and issubclass(field.annotation, Enum)
               else False if field.annotation is bool else 0 for name, field in KernelConfig.model_fields.items()}


def row_fields(row: dict[str, str]) -> dict[str, object]:
    """What --where reads of a row: its problem columns, status, time, detail and its kernel's axes."""
    fields = {name: int(row[name]) for name in PROBLEM_INTS}
    fields.update(direction=row["direction"], dtype=row["dtype"], shape_class=row["shape_class"], status=row["status"],
                  time_ms=float(row["time_ms"]) if row["time_ms"] else 0.0, detail=row.get("detail") or "")
    kernel = row["kernel"]
    axes = VENDOR_AXES if kernel.startswith("cudnn") else KernelConfig.from_name(kernel).axes()
    return {**{k: v for k, v in axes.items() if k not in ("direction", "dtype")}, **fields}


def row_matches(expression, row: dict[str, str]) -> bool:
    """Whether a parsed --where expression selects row (an unknown field is a clear error)."""
    fields = row_fields(row)
    expression.check_names(fields)
    return expression.matches(fields)


def drop_rows(path: Path, where: str) -> tuple[int, int]:
    """Rewrite path without the rows where matches; (rows kept, rows dropped)."""
    expression = parse(where)
    return drop_rows_if(path, lambda row: row_matches(expression, row))


def drop_rows_if(path: Path, dropped: Callable[[dict[str, str]], bool]) -> tuple[int, int]:
    """Rewrite path without the rows dropped(row) is true of; (rows kept, rows dropped). Nothing half-written: the
    rows go to a temporary file renamed over path."""
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        header, rows = reader.fieldnames, list(reader)
    keep = [row for row in rows if not dropped(row)]
    with replacing(path, newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=header)  # the sweep's own dialect (\r\n lines)
        writer.writeheader()
        writer.writerows(keep)
    return len(keep), len(rows) - len(keep)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--where", required=True, help="the rows to drop (an expression)")
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for path in args.files:
        try:
            kept, dropped = drop_rows(path, args.where)
        except ExpressionError as error:  # raised before the file is rewritten
            parser.error(f"{path}: {error}")
        print(f"{path}: dropped {dropped} rows, kept {kept}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
