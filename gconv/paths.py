"""Where the repository's data lives: rule files, arch specs and the generated tree."""
from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(os.environ.get("GCONV_ROOT", Path(__file__).resolve().parent.parent))
RULES_DIR = REPO_ROOT / "rules"
ARCH_DIR = RULES_DIR / "arch"
GENERATED_DIR = REPO_ROOT / "generated"


def display_path(path: Path) -> str:
    """A path relative to the repository root when it lies inside it (stable in messages and headers)."""
    try:
        return Path(path).resolve().relative_to(REPO_ROOT.resolve()).as_posix()
    except ValueError:
        return str(path)
