"""Channel padding's cost on the GPU: runtime.api.execute of a kernel that pads (vector width 8 on channel counts it
does not divide) with runtime/padding.py's copies, against the same call with the copies it replaced (which built
the padded tensor in NCHW order and converted it to channels_last: two transposes more per operand), interleaved in
one process; plus the kernel alone on the padded problem.

    python -m bench.padding_speed --out $OUT/padding-speed.csv
"""
from __future__ import annotations

import argparse
import sys
from contextlib import contextmanager
from pathlib import Path

import torch

from gconv.paths import REPO_ROOT
from gconv.runtime import api, padding
from gconv.runtime.kernels import load_kernel_module
from gconv.runtime.launch import run
from gconv.runtime.registry import entries_by_name
from gconv.schemas import Problem

from .summary import geomean, row_line, write_dict_rows
from .timing import kernel_operands, median_ms, operand_sets, rotations_for

CASES = [  # bf16 training shapes whose best `default` kernel pads, and one per direction with K padded too
    ("fwd", dict(N=32, G=128, C=12, K=12, Hi=64, Wi=64, Y=3, X=3, pad_h=1, pad_w=1),
     "fwd_bf16_igemm_m128n16k32_w4_s3_ms_g1_v8_mg1"),
    ("fwd", dict(N=32, G=64, C=6, K=6, Hi=64, Wi=64, Y=3, X=3, pad_h=1, pad_w=1),
     "fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg4"),
    ("fwd", dict(N=8, G=128, C=12, K=6, Hi=73, Wi=73, Y=3, X=3, pad_h=1, pad_w=1),
     "fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg4"),
    ("fwd", dict(N=32, G=8, C=6, K=3, Hi=128, Wi=128, Y=3, X=3, pad_h=1, pad_w=1),
     "fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg8"),
    ("bwd_data", dict(N=32, G=128, C=12, K=12, Hi=64, Wi=64, Y=3, X=3, pad_h=1, pad_w=1),
     "bwd_data_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg4"),
    ("bwd_weight", dict(N=32, G=128, C=12, K=12, Hi=64, Wi=64, Y=3, X=3, pad_h=1, pad_w=1),
     "bwd_weight_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk16"),
]


# ---- The copies runtime/padding.py used before (the baseline of this comparison).

def transposing_pad_activation(t, groups, per_group):
    n, channels, h, w = t.shape
    c = channels // groups
    if c == per_group:
        return t
    out = t.new_zeros((n, groups, per_group, h, w))
    out[:, :, :c] = t.reshape(n, groups, c, h, w)
    return out.reshape(n, groups * per_group, h, w).contiguous(memory_format=torch.channels_last)


def transposing_pad_weight(w, groups, per_group_k, per_group_c):
    gk, c, y, x = w.shape
    k = gk // groups
    if (k, c) == (per_group_k, per_group_c):
        return w
    out = w.new_zeros((groups, per_group_k, per_group_c, y, x))
    out[:, :k, :c] = w.reshape(groups, k, c, y, x)
    return out.reshape(groups * per_group_k, per_group_c, y, x).contiguous(memory_format=torch.channels_last)


def transposing_unpad_activation(t, groups, per_group):
    n, channels, h, w = t.shape
    if channels // groups == per_group:
        return t
    return t.reshape(n, groups, channels // groups, h, w)[:, :, :per_group].reshape(n, groups * per_group, h, w) \
        .contiguous(memory_format=torch.channels_last)


def transposing_unpad_weight(w, groups, per_group_k, per_group_c):
    gk, c, y, x = w.shape
    k = gk // groups
    if (k, c) == (per_group_k, per_group_c):
        return w
    return w.reshape(groups, k, c, y, x)[:, :per_group_k, :per_group_c] \
        .reshape(groups * per_group_k, per_group_c, y, x).contiguous(memory_format=torch.channels_last)


@contextmanager
def transposing_copies():
    names = ("pad_activation", "pad_weight", "unpad_activation", "unpad_weight")
    saved = {name: getattr(padding, name) for name in names}
    for name in names:
        setattr(padding, name, globals()[f"transposing_{name}"])
    try:
        yield
    finally:
        for name, function in saved.items():
            setattr(padding, name, function)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    entries = entries_by_name("default")
    rows = []
    for direction, fields, name in CASES:
        problem = Problem(direction=direction, dtype="bf16", **fields)
        entry = entries[name]
        count = rotations_for(problem)
        sets = operand_sets(problem, "cuda", count)
        target, pad, padded, (out, *_) = kernel_operands(entry, problem, sets)

        def call(i):
            return api.execute(problem, *sets[i % count], kernel=name, rule_set="default")

        expected = call(0).float()
        with transposing_copies():
            before = call(0).float()
        times = {"single_pass_ms": [], "transposing_ms": []}
        for _ in range(2):  # interleaved
            times["single_pass_ms"].append(median_ms(call))
            with transposing_copies():
                times["transposing_ms"].append(median_ms(call))
        module = load_kernel_module(REPO_ROOT / entry.source)
        kernel_ms = median_ms(lambda i: run(module, entry.config, target, *padded[i % count], out))
        row = dict(problem=problem.key, kernel=name, padding=str(pad), kernel_only_ms=kernel_ms,
                   single_pass_ms=min(times["single_pass_ms"]), transposing_ms=min(times["transposing_ms"]),
                   same_result=bool(torch.equal(expected, before)))
        row["speed_up"] = row["transposing_ms"] / row["single_pass_ms"]
        rows.append(row)
        print(row_line(row), flush=True)
    write_dict_rows(args.out, rows)
    print(f"execute, transposing copies / single-pass copies, geomean over {len(rows)} problems: "
          f"{geomean([r['speed_up'] for r in rows]):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
