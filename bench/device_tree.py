"""Fit the working tree into the device tool's 64 MiB: the device calls run `default` only, so the kernel sources no
`default` instance uses (`full` has ~4,900, `default` ~1,600) can leave the tree for the call and come back after.

    python -m bench.device_tree stash /tmp/gconv-stash [--results-but [NAME ...]]   # before the device call
    python -m bench.device_tree restore /tmp/gconv-stash                           # after it

stash moves generated/kernels/**.py files that the rule set's registry does not name into the stash folder (which
must be empty or absent), with the registries of the other sets that name any of them (unusable without their sources,
and ~9 MiB of the tree), and writes its manifest last, then generated/STASHED (git ignores it), beside which `gconv
generate` refuses to regenerate; restore moves every file of the manifest back and removes the stash and that marker.
Nothing is deleted: a stash left behind is restored by the same command. With --results-but, stash also moves every
file under bench/results but bench/results/NAME.csv of each NAME (a focus sweep's resumed file, bench/focus_sweep.py):
the committed sweeps (~40 MiB) and a focus sweep's ledger, which a call that only resumes focus sweeps never reads.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from gconv.generator.pipeline import STASH_MARKER
from gconv.paths import REPO_ROOT

MANIFEST = "manifest.json"


def registry_sources(root: Path, rule_set: str) -> set[str]:
    """The kernel sources (paths relative to root) that rule_set's registry names."""
    registry = root / "generated" / rule_set / "registry.json"
    return {entry["source"] for entry in json.loads(registry.read_text())["entries"]}


def unlisted_sources(root: Path, rule_sets: tuple[str, ...]) -> list[str]:
    """The kernel sources under root/generated/kernels (relative paths, sorted) that no registry of rule_sets uses."""
    listed = set().union(*(registry_sources(root, rule_set) for rule_set in rule_sets))
    kernels = root / "generated" / "kernels"
    return sorted(p.relative_to(root).as_posix() for p in kernels.rglob("*.py") if p.relative_to(root).as_posix()
                  not in listed)


def broken_registries(root: Path, rule_sets: tuple[str, ...], stashed: list[str]) -> list[str]:
    """The registries (relative paths, sorted) of the sets outside rule_sets that name a source in stashed."""
    gone = set(stashed)
    return sorted(registry.relative_to(root).as_posix() for registry in (root / "generated").glob("*/registry.json")
                  if registry.parent.name not in rule_sets and registry_sources(root, registry.parent.name) & gone)


def result_files(root: Path, kept_sweeps: tuple[str, ...]) -> list[str]:
    """The files under root/bench/results (relative paths, sorted) but bench/results/NAME.csv of each kept sweep NAME,
    each of which must exist (a misspelt name would leave the call nothing to resume)."""
    results = root / "bench" / "results"
    kept = {f"bench/results/{name}.csv" for name in kept_sweeps}
    for path in sorted(kept):
        if not (root / path).is_file():
            raise ValueError(f"{path} does not exist: --results-but names the focus sweeps a call resumes "
                             "(python -m bench.focus_sweep gather first)")
    return sorted(p.relative_to(root).as_posix() for p in results.rglob("*") if p.is_file()
                  and p.relative_to(root).as_posix() not in kept)


def stash(root: Path, stash_dir: Path, rule_sets: tuple[str, ...] = ("default",),
          results_but: tuple[str, ...] | None = None) -> int:
    """Move the sources no set of rule_sets uses, and the registries that name them, from root into stash_dir, and
    with results_but every result file but those sweeps' (result_files); how many files moved."""
    if stash_dir.exists() and any(stash_dir.iterdir()):
        raise ValueError(f"{stash_dir} is not empty: restore it first (python -m bench.device_tree restore {stash_dir})")
    sources = unlisted_sources(root, rule_sets)
    results = result_files(root, results_but) if results_but is not None else []
    paths = sources + broken_registries(root, rule_sets, sources) + results
    for path in paths:
        target = stash_dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(root / path, target)
    (stash_dir / MANIFEST).write_text(json.dumps({"root": str(root), "paths": paths}, indent=0) + "\n")
    (root / "generated" / STASH_MARKER).write_text(f"{len(paths)} files stashed in {stash_dir} (python -m "
                                                   f"bench.device_tree restore {stash_dir})\n")
    return len(paths)


def restore(root: Path, stash_dir: Path) -> int:
    """Move every file of stash_dir's manifest back under root, then remove stash_dir; how many moved."""
    manifest = stash_dir / MANIFEST
    if not manifest.exists():
        raise ValueError(f"{manifest} does not exist: nothing was stashed there (or the stash was cut off before its "
                         "manifest: move its files back by hand)")
    paths = json.loads(manifest.read_text())["paths"]
    for path in paths:
        if (stash_dir / path).exists():  # its folder may be gone: git removes the folders it empties
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(stash_dir / path, root / path)
    shutil.rmtree(stash_dir)
    (root / "generated" / STASH_MARKER).unlink(missing_ok=True)
    return len(paths)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["stash", "restore"])
    parser.add_argument("stash_dir", type=Path)
    parser.add_argument("--rule-set", nargs="+", default=["default"],
                        help="the sets the device calls run (stash keeps their sources)")
    parser.add_argument("--results-but", nargs="*", metavar="NAME",
                        help="stash: also move every file under bench/results but bench/results/NAME.csv of each NAME "
                             "(the focus sweeps the call resumes; none for a call that reads no result, an A/B)")
    args = parser.parse_args(argv)
    if args.results_but is not None and args.action != "stash":
        parser.error("--results-but goes with stash")
    try:
        if args.action == "stash":
            results_but = tuple(args.results_but) if args.results_but is not None else None
            moved = stash(REPO_ROOT, args.stash_dir, tuple(args.rule_set), results_but)
            what = "kernel sources, the registries naming them" + (" and result files" if results_but is not None
                                                                    else "")
            print(f"moved {moved} files ({what}) to {args.stash_dir}")
        else:
            print(f"moved {restore(REPO_ROOT, args.stash_dir)} files back from {args.stash_dir}")
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
