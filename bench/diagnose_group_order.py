"""Where the time of small-C/G implicit-GEMM kernels goes (H100): per (problem, kernel), the sweep's time
(runtime.api.execute, channel padding included), the kernel alone on the (padded) problem, and the same kernel with
its group blocks walked fastest (a patched copy of the generated source, launched on a flat 1-D grid), checked
against the unpatched kernel's output; then a torch.profiler breakdown of one execute().

    python -m bench.diagnose_group_order --out $OUT/group-order.csv
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import torch

from gconv.paths import REPO_ROOT
from gconv.runtime import api
from gconv.runtime.grid import tile_grid
from gconv.runtime.kernels import import_kernel_module, load_kernel_module
from gconv.runtime.launch import run
from gconv.runtime.registry import entries_by_name
from gconv.schemas import Problem

from .summary import geomean, row_line, write_dict_rows
from .timing import kernel_operands, median_ms, operand_sets, rotations_for

OUTER = ("    pid_m, pid_n = _tile_coordinates(tl.program_id(0), num_pid_m, num_pid_n)\n"
         "    _conv_tile(\n        pid_m, pid_n, tl.program_id(1),")
INNER = ("    group_blocks = tl.cdiv(G, {merge})\n"
         "    pid_m, pid_n = _tile_coordinates(tl.program_id(0) // group_blocks, num_pid_m, num_pid_n)\n"
         "    _conv_tile(\n        pid_m, pid_n, tl.program_id(0) % group_blocks,")

CASES = [  # (problem key fields, kernels): the worst C/G <= 16 problems of the bf16 training sweeps, and controls
    ("fwd", dict(N=32, G=64, C=6, K=6, Hi=64, Wi=64, Y=3, X=3, pad_h=1, pad_w=1),
     ["fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg4", "fwd_bf16_igemm_m64n16k32_w2_s3_ms_g1_v1_mg1"]),
    ("fwd", dict(N=32, G=128, C=12, K=12, Hi=64, Wi=64, Y=3, X=3, pad_h=1, pad_w=1),
     ["fwd_bf16_igemm_m128n16k32_w4_s3_ms_g1_v8_mg1", "fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg4"]),
    ("fwd", dict(N=32, G=8, C=6, K=3, Hi=128, Wi=128, Y=3, X=3, pad_h=1, pad_w=1),
     ["fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg8", "fwd_bf16_igemm_m128n16k32_w4_s3_ms_g1_v1_mg1"]),
    ("fwd", dict(N=8, G=128, C=12, K=6, Hi=73, Wi=73, Y=3, X=3, pad_h=1, pad_w=1),
     ["fwd_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg4"]),
    ("fwd", dict(N=32, G=32, C=16, K=8, Hi=112, Wi=112, Y=5, X=5, pad_h=2, pad_w=2),
     ["fwd_bf16_igemm_m128n16k32_w4_s3_ms_g1_v1_mg1"]),
    ("bwd_data", dict(N=32, G=128, C=12, K=12, Hi=64, Wi=64, Y=3, X=3, pad_h=1, pad_w=1),
     ["bwd_data_bf16_igemm_m128n32k32_w4_s3_ms_g1_v1_mg8"]),
    ("bwd_data", dict(N=32, G=32, C=16, K=8, Hi=112, Wi=112, Y=5, X=5, pad_h=2, pad_w=2),
     ["bwd_data_bf16_igemm_m128n32k32_w4_s3_ms_g1_v1_mg8"]),
    ("fwd", dict(N=32, G=2, C=112, K=112, Hi=112, Wi=112, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
     ["fwd_bf16_igemm_m128n128k64_w8_s3_ms_g8_v8_mg1"]),
]


def inner_source(source: str, merge: int) -> str:
    if OUTER not in source:
        raise ValueError("not a non-persistent igemm kernel")
    if "tl.program_id(2)" in source:
        raise ValueError("a split igemm kernel: its splits (and last-arrival counters) take the 3-D grid")
    return source.replace(OUTER, INNER.format(merge=merge))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--profile", action="store_true", help="also print a torch.profiler table per execute()")
    args = parser.parse_args(argv)
    entries = entries_by_name("default")
    scratch = Path(tempfile.mkdtemp(prefix="group-order-"))
    rows = []
    for direction, fields, kernels in CASES:
        problem = Problem(direction=direction, dtype="bf16", **fields)
        count = rotations_for(problem)
        sets = operand_sets(problem, "cuda", count)
        for name in kernels:
            entry = entries[name]
            config = entry.config
            target, padding, padded, outs = kernel_operands(entry, problem, sets)
            module = load_kernel_module(REPO_ROOT / entry.source)
            patched = scratch / f"{name}_inner.py"
            patched.write_text(inner_source((REPO_ROOT / entry.source).read_text(), config.groups_to_merge))
            inner = import_kernel_module(patched)
            g0, g1, g2 = tile_grid(config, target)
            flat = (g0 * g1, 1, g2)

            def launch_inner(i):
                a, b = padded[i % count]
                out = outs[i % count]
                p = target
                x, w, y = (a, b, out) if direction == "fwd" else (out, b, a)
                inner.kernel[flat](x, w, y, p.N, p.G, p.C, p.K, p.Hi, p.Wi, p.Ho, p.Wo, p.Y, p.X, p.stride_h,
                                   p.stride_w, p.pad_h, p.pad_w, p.dil_h, p.dil_w, *x.stride(), *w.stride(), *y.stride(),
                                   num_warps=config.num_warps, num_stages=config.num_stages)

            execute_ms = median_ms(lambda i: api.execute(problem, *sets[i % count], kernel=name, rule_set="default"))
            raw_ms = median_ms(lambda i: run(module, config, target, *padded[i % count], outs[i % count]))
            expected = outs[0].float().clone()
            inner_ms = median_ms(launch_inner)
            launch_inner(0)
            torch.cuda.synchronize()
            error = (outs[0].float() - expected).abs().max().item()
            row = dict(problem=problem.key, kernel=name, padding=str(padding) if padding else "", grid=f"{g0}x{g1}x{g2}",
                       execute_ms=execute_ms, raw_ms=raw_ms, inner_ms=inner_ms, inner_max_diff=error,
                       raw_over_inner=raw_ms / inner_ms)
            rows.append(row)
            print(row_line(row), flush=True)
            if args.profile:
                from torch.profiler import ProfilerActivity, profile
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    for i in range(3):
                        api.execute(problem, *sets[i % count], kernel=name, rule_set="default")
                    torch.cuda.synchronize()
                print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=8), flush=True)
    write_dict_rows(args.out, rows)
    print(f"raw / inner geomean over {len(rows)} pairs: {geomean([r['raw_over_inner'] for r in rows]):.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
