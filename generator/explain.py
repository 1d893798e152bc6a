"""Say which rule admits or excludes a kernel configuration, set by set (for `gconv rules explain`)."""
from __future__ import annotations

from gconv.schemas import ArchSpec, Direction, KernelConfig, Rule

from .derived import filter_environment
from .expand import depthwise_group_channels, first_violation
from .pipeline import Rules


def axis_mismatch(rule: Rule, config: KernelConfig, arch: ArchSpec) -> str | None:
    """The first axis whose value the rule does not list, or None if the config is in the rule's product."""
    checks = [
        ("direction", config.direction, rule.directions),
        ("dtype", config.dtype, rule.dtypes),
        ("algorithm", config.algorithm, [rule.algorithm]),
    ]
    for axis, value, allowed in checks:
        if value not in allowed:
            return f"{axis}={value.value} not in [{', '.join(v.value for v in allowed)}]"
    tiles = [t for t in rule.tiles if (t.block_m, t.block_n) == (config.block_m, config.block_n)]
    if not tiles:
        listed = ", ".join(f"{t.block_m}x{t.block_n}" for t in rule.tiles)
        return f"tile {config.block_m}x{config.block_n} not in [{listed}]"
    if not any(config.block_k in t.block_k and config.num_warps in t.num_warps for t in tiles):
        options = "; ".join(f"block_k {t.block_k}, warps {t.num_warps}" for t in tiles)
        return f"block_k={config.block_k}, num_warps={config.num_warps} not offered for this tile ({options})"
    widths = sorted({v.width(arch.max_vector_bytes, config.dtype) for v in rule.vectors})
    more = [
        ("num_stages", config.num_stages, rule.num_stages),
        ("pipeline", config.pipeline, rule.pipelines),
        ("raster_group", config.raster_group, rule.raster_groups),
        ("vector_width", config.vector_width, widths),
        ("groups_to_merge", config.groups_to_merge, rule.groups_to_merge),
        ("split_k", config.split_k, rule.split_k),
        ("tap_major", config.tap_major, rule.tap_major),
        ("two_stage", config.two_stage, rule.two_stage),
        ("explicit_gemm", config.explicit_gemm, rule.explicit_gemm),
        ("filter_size", config.filter_size, rule.filter_sizes or [0]),
        ("multiplier", config.multiplier, rule.multipliers or [0]),
        ("group_channels", config.group_channels, depthwise_group_channels(rule)),
        ("sliding_rows", config.sliding_rows, rule.sliding_rows),
        ("last_arrival", config.last_arrival, rule.last_arrival if config.split_k > 1 else [False]),
        ("aligned_k", config.aligned_k, rule.aligned_k),
        ("via_fwd", config.via_fwd, rule.via_fwd if config.direction is Direction.bwd_data else [False]),
    ]
    for axis, value, allowed in more:
        if value not in allowed:
            shown = [getattr(v, "value", v) for v in allowed]
            return f"{axis}={getattr(value, 'value', value)} not in {shown}"
    return None


def explain(name: str, rules: Rules, set_names: list[str] | None = None) -> str:
    config = KernelConfig.from_name(name)
    expansions = rules.expand()
    lines = [config.name]
    for set_name in set_names or list(rules.sets):
        loaded = rules.sets[set_name]
        member = next((i for i in expansions[set_name] if i.config == config), None)
        verdict = f"IN ({', '.join(member.archs)})" if member else "NOT IN"
        lines.append(f"  {set_name} [{loaded.display_path}]: {verdict}")
        if loaded.rule_set.extends is None:
            other_directions = 0
            for index, rule in enumerate(loaded.rule_set.rules):
                if config.direction not in rule.directions:
                    other_directions += 1
                    continue
                for arch_name in loaded.rule_set.archs:
                    arch = rules.archs[arch_name]
                    mismatch = axis_mismatch(rule, config, arch)
                    if mismatch:
                        lines.append(f"    rule {rule.name!r} on {arch_name}: not in its axes: {mismatch}")
                        break
                    violation = first_violation(config, arch, loaded, index)
                    if violation:
                        lines.append(f"    rule {rule.name!r} on {arch_name}: excluded by {violation.source} constraint "
                                     f"'{violation.constraint.expr}' ({violation.constraint.why})")
                    else:
                        lines.append(f"    rule {rule.name!r} on {arch_name}: ADMITS")
            if other_directions:
                lines.append(f"    ({other_directions} rules for other directions not shown)")
            continue
        parent = loaded.rule_set.extends
        in_parent = next((i for i in expansions[parent] if i.config == config), None)
        if in_parent is None:
            lines.append(f"    not in parent set {parent!r}")
            continue
        env = filter_environment(config, in_parent.rule)
        for clause in loaded.rule_set.keep:
            if clause.expression.matches(env):
                lines.append(f"    kept by clause {clause.name!r}: {clause.where}")
                break
        else:
            lines.append(f"    in parent {parent!r} but no keep clause matches "
                         f"({', '.join(c.name for c in loaded.rule_set.keep)})")
    return "\n".join(lines)
