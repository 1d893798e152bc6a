"""A file as a git revision of its repository holds it (the bench tools that compare with committed versions)."""
from __future__ import annotations

import subprocess
from pathlib import Path


def file_at(revision: str, path: Path) -> bytes:
    """The bytes of path at revision of the repository that holds it; OSError naming both where it is not there."""
    shown = subprocess.run(["git", "show", f"{revision}:./{path.name}"], cwd=Path(path).resolve().parent,
                           capture_output=True)
    if shown.returncode != 0:
        raise OSError(f"{path}: not in git revision {revision}: {shown.stderr.decode().strip()}")
    return shown.stdout
