"""A file as a git revision of its repository holds it (the bench tools that compare with committed versions)."""
from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path


def file_at(revision: str, path: Path) -> bytes:
    """The bytes of path at revision of the repository that holds it; OSError naming both where it is not there."""
    shown = subprocess.run(["git", "show", f"{revision}:./{path.name}"], cwd=Path(path).resolve().parent,
                           capture_output=True)
    if shown.returncode != 0:
        raise OSError(f"{path}: not in git revision {revision}: {shown.stderr.decode().strip()}")
    return shown.stdout


def rows_at(revision: str, path: Path) -> list[dict]:
    """The rows of a sweep CSV (.csv or .csv.gz, bench/rows.py read_rows) as git revision held it."""
    from gconv.bench.rows import read_rows

    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / path.name
        copy.write_bytes(file_at(revision, path))
        return read_rows(copy)
