"""Write a rendered tree to disk: into a temporary directory first, swapped in at the end (never half-written)."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Mapping

from gconv.files import replacing


def write_files(root: Path, files: Mapping[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def replace_tree(dest: Path, files: Mapping[str, str]) -> None:
    """Make dest contain exactly files: build a sibling temp dir, then swap it in with two renames."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.new-", dir=dest.parent))
    try:
        write_files(staging, files)
        retired = dest.parent / f".{dest.name}.old-{os.getpid()}"
        if dest.exists():
            os.rename(dest, retired)
        os.rename(staging, dest)
        shutil.rmtree(retired, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def update_files(root: Path, files: Mapping[str, str]) -> None:
    """Write files under root, each through a temp file and an atomic rename; leaves other files alone."""
    for relative, text in files.items():
        path = Path(root) / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        with replacing(path) as stream:
            stream.write(text)


def read_tree(root: Path) -> dict[str, str]:
    """Every file under root (relative POSIX paths), skipping caches."""
    root = Path(root)
    if not root.exists():
        return {}
    files = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            files[path.relative_to(root).as_posix()] = path.read_text()
    return files
