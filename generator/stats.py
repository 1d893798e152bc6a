"""Instance counts per set x direction x dtype x axis value, as text tables (for `gconv rules stats`)."""
from __future__ import annotations

from collections import Counter
from typing import Mapping

from gconv.schemas import Direction, DType
from gconv.tables import table

from .expand import Instance

AXES = ("algorithm", "pipeline", "block_m", "block_n", "block_k", "num_warps", "num_stages", "raster_group",
        "vector_width", "groups_to_merge", "split_k", "tap_major", "two_stage", "explicit_gemm", "group_channels",
        "sliding_rows", "last_arrival", "aligned_k", "via_fwd")


def _value(instance: Instance, axis: str) -> object:
    value = getattr(instance.config, axis)
    return getattr(value, "value", value)


def stats(expansions: Mapping[str, list[Instance]]) -> str:
    columns = [(d, t) for d in Direction for t in DType]
    rows = []
    for name, instances in expansions.items():
        counts = Counter((i.config.direction, i.config.dtype) for i in instances)
        rows.append([name] + [counts[c] for c in columns] + [len(instances)])
    header = ["set"] + [f"{d.value}/{t.value}" for d, t in columns] + ["total"]
    parts = ["Instances per set x direction x dtype", table(header, rows)]
    sets = list(expansions)
    for axis in AXES:
        values = sorted({_value(i, axis) for instances in expansions.values() for i in instances},
                        key=lambda v: (isinstance(v, str), v))
        for direction in Direction:
            per_set = {s: Counter(_value(i, axis) for i in expansions[s] if i.config.direction is direction)
                       for s in sets}
            rows = [[f"{axis}={v}"] + [per_set[s][v] for s in sets] for v in values
                    if any(per_set[s][v] for s in sets)]
            if rows:
                parts.append(f"\n{axis} ({direction.value})")
                parts.append(table(["value"] + sets, rows))
    return "\n".join(parts)
