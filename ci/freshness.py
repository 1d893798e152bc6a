"""Freshness gate: regenerate into a temporary tree and byte-compare it with generated/."""
from __future__ import annotations

import difflib
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from gconv.generator.pipeline import load_rules, render_generated
from gconv.generator.tree import regenerate_command, schema_files
from gconv.generator.writer import read_tree, write_files
from gconv.paths import GENERATED_DIR, REPO_ROOT, RULES_DIR

DIFF_LINES_PER_FILE = 12
DIFF_FILES_SHOWN = 8
NAMES_SHOWN = 20


@dataclass
class RegistryChange:
    """Instance names a registry gains, loses, or keeps with different contents (rule, hash, archs)."""

    added: list[str]
    removed: list[str]
    changed: list[str]

    def summary(self) -> str:
        return f"{len(self.added)} added, {len(self.removed)} removed, {len(self.changed)} changed"


def registry_change(checked_in: str, regenerated: str) -> RegistryChange | None:
    """Compare two registry.json texts by instance name; None when either is not a readable registry."""
    try:
        old, new = (_entries_by_name(text) for text in (checked_in, regenerated))
    except (ValueError, KeyError, TypeError):
        return None
    return RegistryChange(sorted(set(new) - set(old)), sorted(set(old) - set(new)),
                          sorted(name for name in set(old) & set(new) if old[name] != new[name]))


def _entries_by_name(text: str) -> dict[str, dict]:
    return {entry["name"]: entry for entry in json.loads(text)["entries"]}


@dataclass
class Drift:
    """Differences between what the rules generate and what is checked in (paths relative to the root)."""

    added: list[str] = field(default_factory=list)  # generated now, missing on disk
    removed: list[str] = field(default_factory=list)  # on disk, no longer generated
    changed: list[str] = field(default_factory=list)
    diffs: dict[str, list[str]] = field(default_factory=dict)
    registry_changes: dict[str, "RegistryChange"] = field(default_factory=dict)

    @property
    def clean(self) -> bool:
        return not (self.added or self.removed or self.changed)

    def report(self) -> str:
        if self.clean:
            return "generated/ is fresh: regenerating from rules/ gives identical bytes"
        lines = ["generated/ is stale: the rules generate something else than what is checked in"]
        for title, paths in (("added", self.added), ("removed", self.removed), ("changed", self.changed)):
            if paths:
                lines.append(f"  {title} ({len(paths)}):")
                lines += [f"    {_describe(path)}" for path in paths]
        for path, change in self.registry_changes.items():
            lines.append(f"--- {path}: instances {change.summary()}")
            lines += [f"  + {name}" for name in change.added[:NAMES_SHOWN]]
            lines += [f"  - {name}" for name in change.removed[:NAMES_SHOWN]]
            lines += [f"  ~ {name}" for name in change.changed[:NAMES_SHOWN]]
            hidden = sum(max(0, len(names) - NAMES_SHOWN) for names in (change.added, change.removed, change.changed))
            if hidden:
                lines.append(f"  ... and {hidden} more")
        shown = [p for p in self.changed if p in self.diffs][:DIFF_FILES_SHOWN]
        for path in shown:
            lines.append(f"--- diff {path} (first {DIFF_LINES_PER_FILE} lines)")
            lines += self.diffs[path][:DIFF_LINES_PER_FILE]
        lines.append(f"fix: run '{regenerate_command()}' and commit the result")
        return "\n".join(lines)


def _describe(path: str) -> str:
    """Name the kernel instance for kernel sources, the path otherwise."""
    name = Path(path).stem
    return f"{path}  (instance {name})" if "/kernels/" in path else path


def check_freshness(rules_dir: Path = RULES_DIR, generated_dir: Path = GENERATED_DIR,
                    repo_root: Path = REPO_ROOT, only: str | None = None) -> Drift:
    """Compare the whole tree, or with only=S just S's registry and the kernel sources it lists (CMake's check)."""
    rules = load_rules(rules_dir)
    with tempfile.TemporaryDirectory(prefix="gconv-check-") as temp:
        write_files(Path(temp), render_generated(rules, only=only))
        expected = {f"generated/{k}": v for k, v in read_tree(Path(temp)).items()}
    actual = {f"generated/{k}": v for k, v in read_tree(generated_dir).items()}
    if only is not None:  # other sets' files are not this set's concern
        return _compare({k: v for k, v in actual.items() if k in expected}, expected)
    for path, text in schema_files().items():
        expected[path] = text
        on_disk = repo_root / path
        if on_disk.exists():
            actual[path] = on_disk.read_text()
    return _compare(actual, expected)


def _compare(actual: dict[str, str], expected: dict[str, str]) -> Drift:
    drift = Drift()
    drift.added = sorted(set(expected) - set(actual))
    drift.removed = sorted(set(actual) - set(expected))
    for path in sorted(set(expected) & set(actual)):
        if expected[path] != actual[path]:
            drift.changed.append(path)
            change = registry_change(actual[path], expected[path]) if path.endswith("/registry.json") else None
            if change is not None:
                drift.registry_changes[path] = change
                continue
            drift.diffs[path] = list(difflib.unified_diff(
                actual[path].splitlines(), expected[path].splitlines(), "checked-in", "regenerated", lineterm="", n=1))
    return drift
