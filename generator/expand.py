"""Deterministic expansion of rule sets into kernel instances (pure: no file or GPU access)."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Iterator, Mapping

from pydantic import ValidationError

from gconv.errors import ExpressionError, RuleError
from gconv.schemas import Algorithm, ArchSpec, Constraint, Direction, KernelConfig, Rule

from .derived import constraint_environment, filter_environment
from .loader import LoadedRuleSet


@dataclass(frozen=True)
class Instance:
    """One expanded kernel: its config, the base rule that admitted it, the keep clauses and the archs."""

    config: KernelConfig
    rule: str
    archs: tuple[str, ...]
    selected_by: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        return self.config.name


@dataclass(frozen=True)
class Exclusion:
    """Why one candidate of a rule was not admitted on one arch."""

    arch: str
    constraint: Constraint
    source: str  # "set" or "rule"


def depthwise_group_channels(rule: Rule) -> list[int]:
    """The group_channels values a rule expands: its list, 1 for a depthwise rule without one, 0 (no axis) else."""
    if rule.algorithm is not Algorithm.depthwise:
        return [0]
    return rule.group_channels or [1]


def rule_candidates(rule: Rule, arch: ArchSpec) -> Iterator[dict]:
    """Every axis combination of a rule, as KernelConfig keyword arguments (in a fixed order). last_arrival is a way
    to reduce splits: an unsplit instance is expanded once, without it; via_fwd is an axis of bwd_data only (a rule's
    fwd instances are expanded once)."""
    for direction, dtype in itertools.product(rule.directions, rule.dtypes):
        for tile in rule.tiles:
            for (block_k, warps, tile_w, stages, pipeline, raster, vector, merge, split, filter_size,
                 multiplier, group_channels, tap_major, two_stage, explicit_gemm, sliding_rows) in itertools.product(
                tile.block_k, tile.num_warps, tile.tile_w or [0], rule.num_stages, rule.pipelines,
                rule.raster_groups, rule.vectors, rule.groups_to_merge, rule.split_k, rule.filter_sizes or [0],
                rule.multipliers or [0], depthwise_group_channels(rule), rule.tap_major, rule.two_stage,
                rule.explicit_gemm, rule.sliding_rows,
            ):
                for last_arrival, aligned_k, via_fwd in itertools.product(
                        rule.last_arrival if split > 1 else [False], rule.aligned_k,
                        rule.via_fwd if direction is Direction.bwd_data else [False]):
                    yield dict(
                        direction=direction, dtype=dtype, algorithm=rule.algorithm, block_m=tile.block_m,
                        block_n=tile.block_n, block_k=block_k, num_warps=warps, num_stages=stages, pipeline=pipeline,
                        raster_group=raster, vector_width=vector.width(arch.max_vector_bytes, dtype),
                        groups_to_merge=merge, split_k=split, tile_w=tile_w, filter_size=filter_size,
                        multiplier=multiplier, group_channels=group_channels, tap_major=tap_major,
                        two_stage=two_stage, explicit_gemm=explicit_gemm, sliding_rows=sliding_rows,
                        last_arrival=last_arrival, aligned_k=aligned_k, via_fwd=via_fwd,
                    )


def first_violation(config: KernelConfig, arch: ArchSpec, loaded: LoadedRuleSet, rule_index: int) -> Exclusion | None:
    """The first constraint (set-wide, then the rule's own) that config breaks on arch, or None."""
    env = constraint_environment(config, arch)
    rule = loaded.rule_set.rules[rule_index]
    scoped = [("set", i, c) for i, c in enumerate(loaded.rule_set.constraints)] + \
             [("rule", i, c) for i, c in enumerate(rule.constraints)]
    for source, index, constraint in scoped:
        try:
            ok = constraint.expression.matches(env)
        except ExpressionError as error:
            path = ("constraints", index, "expr") if source == "set" else \
                ("rules", rule_index, "constraints", index, "expr")
            raise RuleError(loaded.display_path, loaded.line(path), _dotted(path), error.format()) from None
        if not ok:
            return Exclusion(arch.name, constraint, source)
    return None


def _dotted(path: tuple) -> str:
    from .yaml_loader import format_key_path

    return format_key_path(path)


def build_config(loaded: LoadedRuleSet, rule_index: int, axes: dict) -> KernelConfig:
    try:
        return KernelConfig(**axes)
    except ValidationError as error:
        message = error.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
        rule = loaded.rule_set.rules[rule_index]
        raise RuleError(loaded.display_path, loaded.line(("rules", rule_index)), f"rules[{rule_index}]",
                        f"rule {rule.name!r} produces an invalid kernel configuration: {message}") from None


def expand_base(loaded: LoadedRuleSet, archs: Mapping[str, ArchSpec]) -> list[Instance]:
    """Expand a base set: each rule's product, kept per arch where every constraint holds."""
    admitted: dict[KernelConfig, tuple[str, set[str]]] = {}
    for rule_index, rule in enumerate(loaded.rule_set.rules):
        produced = 0
        for arch_name in loaded.rule_set.archs:
            arch = archs[arch_name]
            for axes in rule_candidates(rule, arch):
                config = build_config(loaded, rule_index, axes)
                if first_violation(config, arch, loaded, rule_index) is not None:
                    continue
                produced += 1
                first_rule, arch_set = admitted.setdefault(config, (rule.name, set()))
                arch_set.add(arch_name)
        if produced == 0:
            raise RuleError(loaded.display_path, loaded.line(("rules", rule_index)), f"rules[{rule_index}]",
                            f"rule {rule.name!r} admits no instance on any arch ({', '.join(loaded.rule_set.archs)})",
                            hint="its constraints exclude every axis combination; "
                                 f"run 'gconv rules explain <name> --rule-set {loaded.name}' on one to see which")
    instances = [Instance(config, rule_name, tuple(sorted(arch_set)))
                 for config, (rule_name, arch_set) in admitted.items()]
    return sorted(instances, key=lambda instance: instance.name)


def expand_derived(loaded: LoadedRuleSet, parent: list[Instance]) -> list[Instance]:
    """Filter the parent's instances by the `keep` clauses (first matching clause is recorded)."""
    rule_set = loaded.rule_set
    kept: list[Instance] = []
    used = [0] * len(rule_set.keep)
    for instance in parent:
        archs = tuple(a for a in instance.archs if a in rule_set.archs)
        if not archs:
            continue
        env = filter_environment(instance.config, instance.rule)
        for index, clause in enumerate(rule_set.keep):
            try:
                matched = clause.expression.matches(env)
            except ExpressionError as error:
                path = ("keep", index, "where")
                raise RuleError(loaded.display_path, loaded.line(path), _dotted(path), error.format()) from None
            if matched:
                used[index] += 1
                kept.append(Instance(instance.config, instance.rule, archs,
                                     instance.selected_by + (f"{rule_set.name}:{clause.name}",)))
                break
    for index, count in enumerate(used):
        if count == 0:
            clause = rule_set.keep[index]
            raise RuleError(loaded.display_path, loaded.line(("keep", index)), f"keep[{index}]",
                            f"keep clause {clause.name!r} selects no instance of {rule_set.extends!r}",
                            hint="an empty clause is dead weight: loosen 'where' or remove the clause")
    return kept


def expand_all(loaded_sets: Mapping[str, LoadedRuleSet], archs: Mapping[str, ArchSpec]) -> dict[str, list[Instance]]:
    """Expand every set (parents first); returns name -> instances sorted by name."""
    result: dict[str, list[Instance]] = {}

    def expand(name: str) -> list[Instance]:
        if name not in result:
            loaded = loaded_sets[name]
            parent = loaded.rule_set.extends
            result[name] = expand_base(loaded, archs) if parent is None else expand_derived(loaded, expand(parent))
        return result[name]

    for name in loaded_sets:
        expand(name)
    return result
