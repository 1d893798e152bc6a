"""Fit the working tree into the device tool's 64 MiB: the device calls run `default` only, so the kernel sources no
`default` instance uses (`full` has ~4,900, `default` ~1,600) can leave the tree for the call and come back after.

    python -m bench.device_tree stash /tmp/gconv-stash      # before the device call
    python -m bench.device_tree restore /tmp/gconv-stash    # after it

stash moves generated/kernels/**.py files that the rule set's registry does not name into the stash folder (which
must be empty or absent) and writes its manifest last; restore moves every file of the manifest back and removes the
stash. Nothing is deleted: a stash left behind is restored by the same command.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from gconv.paths import REPO_ROOT

MANIFEST = "manifest.json"


def unlisted_sources(root: Path, rule_sets: tuple[str, ...]) -> list[str]:
    """The kernel sources under root/generated/kernels (relative paths, sorted) that no registry of rule_sets uses."""
    listed = {entry["source"] for rule_set in rule_sets
              for entry in json.loads((root / "generated" / rule_set / "registry.json").read_text())["entries"]}
    kernels = root / "generated" / "kernels"
    return sorted(p.relative_to(root).as_posix() for p in kernels.rglob("*.py") if p.relative_to(root).as_posix()
                  not in listed)


def stash(root: Path, stash_dir: Path, rule_sets: tuple[str, ...] = ("default",)) -> int:
    """Move the sources no set of rule_sets uses from root into stash_dir; how many moved."""
    if stash_dir.exists() and any(stash_dir.iterdir()):
        raise ValueError(f"{stash_dir} is not empty: restore it first (python -m bench.device_tree restore {stash_dir})")
    paths = unlisted_sources(root, rule_sets)
    for path in paths:
        target = stash_dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(root / path, target)
    (stash_dir / MANIFEST).write_text(json.dumps({"root": str(root), "paths": paths}, indent=0) + "\n")
    return len(paths)


def restore(root: Path, stash_dir: Path) -> int:
    """Move every file of stash_dir's manifest back under root, then remove stash_dir; how many moved."""
    manifest = stash_dir / MANIFEST
    if not manifest.exists():
        raise ValueError(f"{manifest} does not exist: nothing was stashed there (or the stash was cut off before its "
                         "manifest: move its files back by hand)")
    paths = json.loads(manifest.read_text())["paths"]
    for path in paths:
        if (stash_dir / path).exists():
            shutil.move(stash_dir / path, root / path)
    shutil.rmtree(stash_dir)
    return len(paths)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["stash", "restore"])
    parser.add_argument("stash_dir", type=Path)
    parser.add_argument("--rule-set", nargs="+", default=["default"],
                        help="the sets the device calls run (stash keeps their sources)")
    args = parser.parse_args(argv)
    try:
        if args.action == "stash":
            print(f"moved {stash(REPO_ROOT, args.stash_dir, tuple(args.rule_set))} kernel sources to {args.stash_dir}")
        else:
            print(f"moved {restore(REPO_ROOT, args.stash_dir)} kernel sources back from {args.stash_dir}")
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
