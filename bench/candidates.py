"""The registry instances of a rule set that run a problem as it is (without channel padding), optionally only those a
filter expression selects (the `gconv rules list --filter` grammar): what bench/ab_variant.py pairs with twins and
bench/ptxas_usage.py compiles."""
from __future__ import annotations

from gconv.generator.derived import filter_environment
from gconv.runtime.registry import entries_by_name
from gconv.runtime.selection import kernels_for
from gconv.runtime.support import unsupported_reason
from gconv.schemas import Problem, RegistryEntry
from gconv.schemas.expressions import parse


def runnable_entries(problem: Problem, rule_set: str, arch: str, where: str | None = None) -> list[RegistryEntry]:
    """Every candidate of problem (kernels_for order) that runs it unpadded and that where, if given, selects."""
    selected = parse(where) if where else None
    entries = entries_by_name(rule_set)
    out = []
    for name in kernels_for(problem, rule_set, arch):
        entry = entries.get(name)  # None: the vendor fallback, not a generated kernel
        if entry is None or unsupported_reason(entry.config, problem) is not None:
            continue
        if selected is None or selected.matches(filter_environment(entry.config, entry.rule)):
            out.append(entry)
    return out
