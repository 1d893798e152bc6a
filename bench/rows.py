"""Measurement rows: the ProfileRow model and the CSV that `gconv profile` and `gconv bench sweep` append to.

Imports no torch: the sweep's parent process and its test doubles use it without paying for CUDA.
"""
from __future__ import annotations

import csv
import gzip
import io
import os
from collections import defaultdict
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from gconv.files import replacing
from gconv.schemas import Problem

from .problems import CSV_FIELDS, shape_class

CUDNN_MODES = ("cudnn-heuristic", "cudnn-exhaustive")
FAILED_STATUSES = ("crash", "timeout")  # the batch's process died or hung: no timing, retried with --retry-failed
STATUSES = ("ok", "wrong", "error") + FAILED_STATUSES  # wrong: timed, but its output is off cuDNN's (bench/profile.py)


class ProfileRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    problem: str
    kernel: str
    status: Literal["ok", "wrong", "error", "crash", "timeout"]
    time_ms: float | None
    tflops: float | None
    gbs: float | None
    roofline_pct: float | None
    detail: str = ""


ROW_FIELDS = list(dict.fromkeys(CSV_FIELDS + ["problem", "shape_class"] + list(ProfileRow.model_fields)))


def failed_row(problem: Problem, kernel: str, status: str, detail: str) -> ProfileRow:
    return ProfileRow(problem=problem.key, kernel=kernel, status=status, time_ms=None, tflops=None, gbs=None,
                      roofline_pct=None, detail=detail[-300:])


def noted_detail(detail: str, note: str) -> str:
    """A row's detail with a note (`gconv bench sweep --note`, e.g. the GPU it was measured on): the note alone for an
    empty detail, else '<detail>; <note>', so an error or a crash still says what went wrong and where."""
    if not note:
        return detail
    return f"{detail}; {note}" if detail else note


def csv_row(problem: Problem, row: ProfileRow | dict) -> dict:
    """A CSV row: the problem's fields, its shape class, then the measurement."""
    measured = row.model_dump() if isinstance(row, BaseModel) else ProfileRow(**row).model_dump()
    return {**problem.model_dump(mode="json"), "shape_class": shape_class(problem), **measured}


def read_rows(path: Path) -> list[dict]:
    """A sweep CSV's rows ([] for a missing file); a .gz path is read through gzip (rows kept aside compressed)."""
    if not path.exists():
        return []
    with (gzip.open(path, "rt", newline="") if path.suffix == ".gz" else open(path, newline="")) as f:
        return list(csv.DictReader(f))


def existing_rows(path: Path) -> list[dict]:
    """read_rows of a file that must exist: a report reading a misspelt path as an empty sweep would say nothing."""
    if not path.is_file():
        raise OSError(f"{path}: no such file")
    return read_rows(path)


def fastest_ms(rows: list[dict], selected=None) -> dict[str, float]:
    """Problem key -> the least time of its "ok" rows (those selected(row) is true of, if given)."""
    fastest: dict[str, float] = {}
    for row in rows:
        if row["status"] == "ok" and (selected is None or selected(row)):
            ms = float(row["time_ms"])
            fastest[row["problem"]] = min(ms, fastest.get(row["problem"], ms))
    return fastest


def done_kernels(rows: list[dict], *, include_failed: bool = True) -> dict[str, set[str]]:
    """Problem key -> kernels that already have a row (crash/timeout rows count only if include_failed)."""
    done: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        if include_failed or row["status"] not in FAILED_STATUSES:
            done[row["problem"]].add(row["kernel"])
    return done


def check_header(path: Path) -> None:
    """Refuse to append to a CSV whose columns differ from ROW_FIELDS (another tool's file, or an old format)."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with open(path, newline="") as f:
        header = next(csv.reader(f), [])
    if header != ROW_FIELDS:
        raise ValueError(f"{path}: columns {','.join(header)} differ from the measurement columns "
                         f"{','.join(ROW_FIELDS)}; write to a new file")


def drop_partial_line(path: Path) -> bool:
    """Cut a last line without its newline (a process killed mid-write); True if one was cut."""
    if not path.exists() or path.stat().st_size == 0:
        return False
    with open(path, "rb+") as f:
        data = f.read()
        if data.endswith(b"\n"):
            return False
        f.truncate(data.rfind(b"\n") + 1)
    return True


def _csv_text(rows: list[dict], header: bool) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=ROW_FIELDS)
    if header:
        writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def append_rows(path: Path, rows: list[dict]) -> None:
    """Append rows in one write, flushed and fsynced, so the file never holds half a batch."""
    new_file = not path.exists() or path.stat().st_size == 0
    if not rows and not new_file:
        return
    with open(path, "a", newline="") as f:
        f.write(_csv_text(rows, header=new_file))
        f.flush()
        os.fsync(f.fileno())


def rewrite_rows(path: Path, rows: list[dict]) -> None:
    """Replace the file's rows atomically (a temp file renamed over it)."""
    with replacing(path, newline="", fsync=True) as f:
        f.write(_csv_text(rows, header=True))
