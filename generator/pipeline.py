"""The generator's entry points: load rules and archs, expand, and write generated/ (the only side effects)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gconv.errors import GenerationError, RuleError
from gconv.paths import ARCH_DIR, GENERATED_DIR, REPO_ROOT, RULES_DIR
from gconv.schemas import ArchSpec

from .expand import Instance, expand_all
from .loader import RULE_SET_NAMES, LoadedRuleSet, load_arch, load_rule_sets
from .tree import render_tree, schema_files
from .writer import replace_tree, update_files


# Written into generated/ by bench/device_tree.py stash (and removed by its restore): the tree lacks sources.
STASH_MARKER = "STASHED"


@dataclass(frozen=True)
class Rules:
    """All rule sets with the arch specs they name."""

    sets: dict[str, LoadedRuleSet]
    archs: dict[str, ArchSpec]

    def expand(self) -> dict[str, list[Instance]]:
        return expand_all(self.sets, self.archs)


def load_rules(rules_dir: Path = RULES_DIR, arch_dir: Path = ARCH_DIR) -> Rules:
    sets = load_rule_sets(rules_dir)
    archs: dict[str, ArchSpec] = {}
    for loaded in sets.values():
        for index, name in enumerate(loaded.rule_set.archs):
            if name in archs:
                continue
            if not (arch_dir / f"{name}.yaml").exists():
                known = ", ".join(sorted(p.stem for p in arch_dir.glob("*.yaml")))
                raise RuleError(loaded.display_path, loaded.line(("archs", index)), f"archs[{index}]",
                                f"unknown arch {name!r}; expected one of: {known}",
                                hint=f"add {name}.yaml under {arch_dir.name}/ or remove it")
            archs[name] = load_arch(name, arch_dir)
    return Rules(sets, archs)


def render_generated(rules: Rules, only: str | None = None) -> dict[str, str]:
    return render_tree(rules.sets, rules.archs, only=only)


def generate(set_name: str | None = None, rules_dir: Path = RULES_DIR, out_dir: Path = GENERATED_DIR,
             schema_root: Path = REPO_ROOT) -> dict[str, str]:
    """Regenerate generated/ (all sets, swapped in whole) or one set's registry and kernels.

    Everything is rendered in memory first: a rule error leaves every file exactly as it was. A tree whose unused
    sources bench/device_tree.py stashed away (its STASH_MARKER file present) is refused: restoring the stash after
    regenerating would move the old sources back over the new ones.
    """
    marker = out_dir / STASH_MARKER
    if marker.exists():
        raise GenerationError(f"{marker.relative_to(out_dir.parent)} says: {marker.read_text().strip()} -- restore "
                              "the stash before regenerating")
    rules = load_rules(rules_dir)
    if set_name is not None and set_name not in rules.sets:
        raise RuleError(str(rules_dir), None, "", f"unknown rule set {set_name!r}; expected one of: "
                        f"{', '.join(RULE_SET_NAMES)}")
    files = render_generated(rules, only=set_name)
    if set_name is None:
        replace_tree(out_dir, files)
        update_files(schema_root, schema_files())
    else:
        update_files(out_dir, files)
    return files
