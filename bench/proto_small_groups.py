"""Prototype (not a generated family yet): direct CUDA-core kernels for small groups (C/G and K/G up to 16, any
count), timed on the GPU against the best `default` kernel of a sweep file and cuDNN, in one process.

    python -m bench.proto_small_groups --sweep bench/results/train-seed4-default-bf16-gputime.csv \
        bench/results/train-default-bf16-gputime.csv --out $OUT/proto.csv

Each program owns a BLOCK_H x BLOCK_W tile of pixels x BLOCK_G groups x all channels of each group on the output
side (padded to a power of two, masked). The taps are unrolled, and so are the reduced channels of the group: per
tap and reduced channel one [pixels, groups] load, broadcast over the output channels in registers, so every input
element is loaded once per tap however many output channels use it (the `direct` family loads it once per output
channel; the `_cpg` depthwise kernels reduce a reshaped [pixels, groups, 1, CPG] product).
"""
from __future__ import annotations

import csv
import math
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import torch
import triton
import triton.language as tl

from gconv.runtime.api import execute
from gconv.runtime.kernels import load_kernel_module
from gconv.runtime.launch import run
from gconv.runtime.selection import forced_choice
from gconv.runtime.vendor import vendor_run
from gconv.schemas import Direction, KernelConfig, Problem

from .ab_variant import _PROVENANCE, twin_of
from gconv.generator.render import render
from .problems import shape_class
from .prototype_harness import compile_in_workers, prototype_arguments, write_rows
from .timing import median_ms, operand_sets, rotations_for

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"  # cpu: a smoke test under TRITON_INTERPRET=1


def synchronize() -> None:
    if DEVICE == "cuda":
        torch.cuda.synchronize()


@triton.jit
def small_groups_fwd(
    x_ptr, w_ptr, y_ptr, G, C, K, Hi, Wi, Ho, Wo, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w,
    sxn, sxh, sxw, swk, swc, swy, swx, syn, syh, syw,
    FILTER: tl.constexpr, CPG: tl.constexpr, KP: tl.constexpr,
    BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr, BLOCK_G: tl.constexpr,
):
    tiles_w = tl.cdiv(Wo, BLOCK_W)
    tiles_h = tl.cdiv(Ho, BLOCK_H)
    tile = tl.program_id(0)
    pixel = tl.arange(0, BLOCK_H * BLOCK_W)
    ho = (tile // tiles_w) % tiles_h * BLOCK_H + pixel // BLOCK_W
    wo = tile % tiles_w * BLOCK_W + pixel % BLOCK_W
    n = tile // (tiles_w * tiles_h)
    mask_p = (ho < Ho) & (wo < Wo)
    g = tl.program_id(1) * BLOCK_G + tl.arange(0, BLOCK_G)
    mask_g = g < G
    m = tl.arange(0, KP)
    filters = g[:, None] * K + m[None, :]
    mask_f = mask_g[:, None] & (m < K)[None, :]
    acc = tl.zeros((BLOCK_H * BLOCK_W, BLOCK_G, KP), dtype=tl.float32)
    x_image = x_ptr + n * sxn
    for tap in range(FILTER * FILTER):  # a runtime loop: unrolled taps x channels compile for minutes
        fy = tap // FILTER
        fx = tap - fy * FILTER
        h = ho * stride_h - pad_h + fy * dil_h
        w = wo * stride_w - pad_w + fx * dil_w
        inside = mask_p & (h >= 0) & (h < Hi) & (w >= 0) & (w < Wi)
        x_pixel = h * sxh + w * sxw
        if True:
            for c in tl.static_range(CPG):
                # Both loads are 3-D already ([pixels, groups, 1] and [1, groups, K]): loaded 2-D and expanded,
                # each would be moved through shared memory into the accumulator's layout at every step.
                xv = tl.load(x_image + x_pixel[:, None, None] + (g * CPG + c)[None, :, None],
                             mask=inside[:, None, None] & mask_g[None, :, None], other=0.0).to(tl.float32)
                wv = tl.load(w_ptr + filters[None, :, :] * swk + c * swc + fy * swy + fx * swx,
                             mask=mask_f[None, :, :], other=0.0)
                acc += xv * wv.to(tl.float32)
    out_channel = filters  # g*K + m
    y_offs = (n * syn + ho * syh + wo * syw)[:, None, None] + out_channel[None, :, :]
    tl.store(y_ptr + y_offs, acc.to(y_ptr.dtype.element_ty), mask=mask_p[:, None, None] & mask_f[None, :, :])


@triton.jit
def small_groups_bwd_data(
    dy_ptr, w_ptr, dx_ptr, G, C, K, Hi, Wi, Ho, Wo, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w,
    syn, syh, syw, swk, swc, swy, swx, sxn, sxh, sxw,
    FILTER: tl.constexpr, KPG: tl.constexpr, CP: tl.constexpr,
    BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr, BLOCK_G: tl.constexpr,
):
    tiles_w = tl.cdiv(Wi, BLOCK_W)
    tiles_h = tl.cdiv(Hi, BLOCK_H)
    tile = tl.program_id(0)
    pixel = tl.arange(0, BLOCK_H * BLOCK_W)
    hi = (tile // tiles_w) % tiles_h * BLOCK_H + pixel // BLOCK_W
    wi = tile % tiles_w * BLOCK_W + pixel % BLOCK_W
    n = tile // (tiles_w * tiles_h)
    mask_p = (hi < Hi) & (wi < Wi)
    g = tl.program_id(1) * BLOCK_G + tl.arange(0, BLOCK_G)
    mask_g = g < G
    c = tl.arange(0, CP)
    channels = g[:, None] * C + c[None, :]
    mask_c = mask_g[:, None] & (c < C)[None, :]
    acc = tl.zeros((BLOCK_H * BLOCK_W, BLOCK_G, CP), dtype=tl.float32)
    dy_image = dy_ptr + n * syn
    for tap in range(FILTER * FILTER):
        fy = tap // FILTER
        fx = tap - fy * FILTER
        h_num = hi + pad_h - fy * dil_h
        ho = h_num // stride_h
        w_num = wi + pad_w - fx * dil_w
        wo = w_num // stride_w
        inside = mask_p & (h_num >= 0) & (ho * stride_h == h_num) & (ho < Ho)
        inside = inside & (w_num >= 0) & (wo * stride_w == w_num) & (wo < Wo)
        dy_pixel = ho * syh + wo * syw
        if True:
            for m in tl.static_range(KPG):
                dyv = tl.load(dy_image + dy_pixel[:, None, None] + (g * KPG + m)[None, :, None],
                              mask=inside[:, None, None] & mask_g[None, :, None], other=0.0).to(tl.float32)
                wv = tl.load(w_ptr + ((g * KPG + m)[:, None] * swk + c[None, :] * swc + fy * swy + fx * swx)[None, :, :],
                             mask=mask_c[None, :, :], other=0.0)
                acc += dyv * wv.to(tl.float32)
    dx_offs = (n * sxn + hi * sxh + wi * sxw)[:, None, None] + channels[None, :, :]
    tl.store(dx_ptr + dx_offs, acc.to(dx_ptr.dtype.element_ty), mask=mask_p[:, None, None] & mask_c[None, :, :])


@triton.jit
def small_groups_bwd_weight(
    x_ptr, dy_ptr, ws_ptr, G, C, K, Hi, Wi, Ho, Wo, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w,
    sxn, sxh, sxw, syn, syh, syw, swk, swc, swy, swx, pixels, chunk,
    FILTER: tl.constexpr, KP: tl.constexpr, CP: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_G: tl.constexpr,
):
    """dw[g*K+m, c, fy, fx] += sum over this program's chunk of pixels of dy[.., g*K+m] * x[.. at the tap, g*C+c],
    into an fp32 workspace (atomics across the chunks); taps outer, so each tap's [pixels, groups, K, C] products
    stay in registers and are reduced over pixels once."""
    start = tl.program_id(0) * chunk
    stop = tl.minimum(start + chunk, pixels)
    g = tl.program_id(1) * BLOCK_G + tl.arange(0, BLOCK_G)
    mask_g = g < G
    m = tl.arange(0, KP)
    c = tl.arange(0, CP)
    mask_m = mask_g[:, None] & (m < K)[None, :]  # [BG, KP]
    mask_c = mask_g[:, None] & (c < C)[None, :]  # [BG, CP]
    dy_channel = g[:, None] * K + m[None, :]
    x_channel = g[:, None] * C + c[None, :]
    for tap in range(FILTER * FILTER):
        fy = tap // FILTER
        fx = tap - fy * FILTER
        if True:
            acc = tl.zeros((BLOCK_P, BLOCK_G, KP, CP), dtype=tl.float32)
            for p0 in range(start, stop, BLOCK_P):
                offs = p0 + tl.arange(0, BLOCK_P)
                mask_p = offs < stop
                wo = offs % Wo
                ho = (offs // Wo) % Ho
                n = offs // (Wo * Ho)
                h = ho * stride_h - pad_h + fy * dil_h
                w = wo * stride_w - pad_w + fx * dil_w
                inside = mask_p & (h >= 0) & (h < Hi) & (w >= 0) & (w < Wi)
                dyv = tl.load(dy_ptr + (n * syn + ho * syh + wo * syw)[:, None, None, None]
                              + dy_channel[None, :, :, None],
                              mask=mask_p[:, None, None, None] & mask_m[None, :, :, None], other=0.0).to(tl.float32)
                xv = tl.load(x_ptr + (n * sxn + h * sxh + w * sxw)[:, None, None, None] + x_channel[None, :, None, :],
                             mask=inside[:, None, None, None] & mask_c[None, :, None, :], other=0.0).to(tl.float32)
                acc += dyv * xv
            part = tl.sum(acc, axis=0)  # [BG, KP, CP]
            ws_offs = dy_channel[:, :, None] * swk + c[None, None, :] * swc + fy * swy + fx * swx
            tl.atomic_add(ws_ptr + ws_offs, part, mask=mask_m[:, :, None] & mask_c[:, None, :], sem="relaxed")


TILES = [(4, 8, 8, 4), (8, 8, 4, 4), (4, 16, 4, 4), (8, 16, 4, 8), (4, 8, 16, 4), (2, 16, 8, 4), (8, 8, 8, 8)]
# bwd_weight: (pixels per step, groups per program, warps, programs per SM)
WEIGHT_TILES = [(32, 1, 4, 4), (64, 1, 4, 4), (32, 2, 4, 4), (64, 2, 8, 4), (128, 1, 8, 2), (32, 4, 4, 8), (16, 4, 4, 4)]
SMS = 132


def launch_bwd_weight(problem: Problem, tile, a, b, out):
    p = problem
    block_p, bg, warps, per_sm = tile
    kp, cp = triton.next_power_of_2(p.K), triton.next_power_of_2(p.C)
    bg = max(1, min(bg, 8192 // (block_p * kp * cp)))  # at most 64 fp32 accumulators a thread at 4 warps
    pixels = p.N * p.Ho * p.Wo
    group_blocks = triton.cdiv(p.G, bg)
    split = max(1, min(triton.cdiv(pixels, block_p), SMS * per_sm // group_blocks))
    chunk = triton.cdiv(triton.cdiv(pixels, split), block_p) * block_p
    split = triton.cdiv(pixels, chunk)
    ws = torch.zeros(out.shape, dtype=torch.float32, device=out.device).contiguous(memory_format=torch.channels_last)
    a_s, y_s, w_s = a.stride(), b.stride(), ws.stride()
    small_groups_bwd_weight[(split, group_blocks)](
        a, b, ws, p.G, p.C, p.K, p.Hi, p.Wi, p.Ho, p.Wo, p.stride_h, p.stride_w, p.pad_h, p.pad_w, p.dil_h, p.dil_w,
        a_s[0], a_s[2], a_s[3], y_s[0], y_s[2], y_s[3], w_s[0], w_s[1], w_s[2], w_s[3], pixels, chunk,
        FILTER=p.Y, KP=kp, CP=cp, BLOCK_P=block_p, BLOCK_G=bg, num_warps=warps)
    out.copy_(ws)


def launch(problem: Problem, tile, a, b, out):
    p = problem
    if p.direction is Direction.bwd_weight:
        return launch_bwd_weight(problem, tile, a, b, out)
    bh, bw, bg, warps = tile
    side = (p.Hi, p.Wi) if p.direction is Direction.bwd_data else (p.Ho, p.Wo)
    grid = (p.N * triton.cdiv(side[0], bh) * triton.cdiv(side[1], bw), triton.cdiv(p.G, bg))
    common = (p.G, p.C, p.K, p.Hi, p.Wi, p.Ho, p.Wo, p.stride_h, p.stride_w, p.pad_h, p.pad_w, p.dil_h, p.dil_w)
    a_s, w_s, o_s = a.stride(), b.stride(), out.stride()
    strides = (a_s[0], a_s[2], a_s[3], w_s[0], w_s[1], w_s[2], w_s[3], o_s[0], o_s[2], o_s[3])
    if p.direction is Direction.fwd:
        small_groups_fwd[grid](a, b, out, *common, *strides, FILTER=p.Y, CPG=p.C, KP=triton.next_power_of_2(p.K),
                               BLOCK_H=bh, BLOCK_W=bw, BLOCK_G=bg, num_warps=warps)
    else:
        small_groups_bwd_data[grid](a, b, out, *common, *strides, FILTER=p.Y, KPG=p.K,
                                    CP=triton.next_power_of_2(p.C), BLOCK_H=bh, BLOCK_W=bw, BLOCK_G=bg,
                                    num_warps=warps)


def tiles_for(problem: Problem) -> list:
    return WEIGHT_TILES if problem.direction is Direction.bwd_weight else TILES


def best_default(sweeps: list[Path]) -> dict[str, tuple[Problem, str, float]]:
    """problem key -> (problem, best default kernel, its sweep time) for the small-group rows."""
    best: dict[str, tuple[Problem, str, float]] = {}
    for path in sweeps:
        for r in csv.DictReader(open(path)):
            if r["status"] != "ok" or r["kernel"].startswith("cudnn"):
                continue
            C, K, Y = int(r["C"]), int(r["K"]), int(r["Y"])
            if not (2 <= C <= 16 and K <= 16 and Y == int(r["X"])):
                continue
            t = float(r["time_ms"])
            if r["problem"] not in best or t < best[r["problem"]][2]:
                fields = {k: r[k] for k in Problem.model_fields if k in r}
                best[r["problem"]] = (Problem(**fields), r["kernel"], t)
    return best


def tap_major_twin(kernel: str, scratch: Path) -> tuple[KernelConfig, Path] | None:
    """The tap-major twin of a flat-walk igemm fwd kernel, rendered into scratch."""
    config = KernelConfig.from_name(kernel)
    if not kernel.startswith("fwd") or "_igemm_" not in kernel:
        return None
    twin = twin_of(config, {"tap_major": True})
    if twin is None:
        return None
    source = scratch / f"{twin.name}.py"
    if not source.exists():
        source.write_text(render(twin, _PROVENANCE))
    return twin, source


def warm(problem: Problem, kernel: str, scratch: str) -> str:
    """Compile every variant of one problem into Triton's cache (a worker process's job)."""
    a, b = operand_sets(problem, DEVICE, 1)[0]
    out = vendor_run(problem, a, b)
    jobs = [lambda: execute(problem, a, b, kernel=kernel, rule_set="default")]
    twin = tap_major_twin(kernel, Path(scratch))
    if twin and forced_choice(kernel, problem, "default").padding is None:
        jobs.append(lambda: run(load_kernel_module(twin[1]), twin[0], problem, a, b, out))
    jobs += [lambda tile=tile: launch(problem, tile, a, b, out) for tile in tiles_for(problem)]
    for job in jobs:
        try:
            job()
        except Exception:  # noqa: BLE001 - the timed pass records it
            pass
    synchronize()
    return problem.key


def main(argv: list[str] | None = None) -> int:
    args = prototype_arguments(__doc__.split("\n\n")[0], min_ms=0.03, compile_s=200.0, deadline_s=480.0, argv=argv)
    problems = {k: v for k, v in best_default(args.sweep).items() if args.min_ms <= v[2] <= args.max_ms}
    print(f"{len(problems)} problems", flush=True)
    scratch = Path(tempfile.mkdtemp(prefix="proto-"))
    started = time.monotonic()
    compiled = compile_in_workers(warm, [(p, kernel, str(scratch)) for p, kernel, _ in problems.values()],
                                  workers=args.workers, compile_s=args.compile_s, started=started)
    rows = []
    # the three directions of a shape one after the other, so a deadline cuts shapes, not a direction
    for key, (problem, kernel, _) in sorted(problems.items(), key=lambda item: item[0].removeprefix(item[1][0].direction.value)):
        if key not in compiled:
            continue
        if time.monotonic() - started > args.deadline_s:
            print("  timing deadline reached", flush=True)
            break
        count = rotations_for(problem)
        sets = operand_sets(problem, DEVICE, count)
        expected = vendor_run(problem, *sets[0]).float()
        scale = expected.abs().max().item() or 1.0
        outs = [torch.empty_like(expected, dtype=sets[0][0].dtype) for _ in range(count)]
        cudnn = median_ms(lambda i: vendor_run(problem, *sets[i % count]))
        # the base is timed as the sweep times it: through execute, channel padding (C/G % 8 != 0) included
        base_error = (execute(problem, *sets[0], kernel=kernel, rule_set="default").float() - expected).abs().max().item()
        assert base_error / scale < 0.05, f"{key}: {kernel} disagrees with cuDNN ({base_error / scale:.3g})"
        base = median_ms(lambda i: execute(problem, *sets[i % count], kernel=kernel, rule_set="default"))
        twin = tap_major_twin(kernel, scratch)
        twin_ms = math.nan  # the twin runs unpadded problems only (it is not in the registry, so nothing pads for it)
        if twin and forced_choice(kernel, problem, "default").padding is None:
            twin_module = load_kernel_module(twin[1])
            twin_ms = median_ms(lambda i: run(twin_module, twin[0], problem, *sets[i % count], outs[i % count]))
        timed = []
        for tile in tiles_for(problem):
            try:
                launch(problem, tile, *sets[0], outs[0])
                synchronize()
                error = (outs[0].float() - expected).abs().max().item() / scale
                t = median_ms(lambda i: launch(problem, tile, *sets[i % count], outs[i % count]))
            except Exception as exc:  # noqa: BLE001 - one variant's failure is a row
                error, t = f"{type(exc).__name__}: {str(exc)[:100]}", math.nan
            timed.append((t, tile, error))
            rows.append(dict(problem=key, direction=problem.direction.value, shape_class=shape_class(problem),
                             base=kernel, base_ms=base, tap_major_ms=twin_ms, cudnn_ms=cudnn, tile="x".join(map(str, tile)),
                             proto_ms=t, proto_err=error))
        ok = [x for x in timed if math.isfinite(x[0]) and isinstance(x[2], float) and x[2] < 0.05]
        best = min(ok, default=(math.nan, None, None))
        print(f"{key}: cudnn {cudnn:.4f} default {base:.4f} ({kernel}) tap-major twin {twin_ms:.4f} proto {best[0]:.4f} {best[1]} "
              f"-> {base / best[0]:.2f}x default, {cudnn / best[0]:.2f}x cudnn", flush=True)
        bad = [x for x in timed if not (isinstance(x[2], float) and x[2] < 0.05)]
        for x in bad:
            print(f"   BAD {x[1]}: {x[2]}", flush=True)
    if not rows:
        return 1
    write_rows(args.out, rows)
    ratios = defaultdict(list)
    for key in problems:
        mine = [r for r in rows if r["problem"] == key and isinstance(r["proto_err"], float) and r["proto_err"] < 0.05]
        if mine:
            best = min(r["proto_ms"] for r in mine)
            ratios[mine[0]["direction"]].append((mine[0]["base_ms"] / best, mine[0]["cudnn_ms"] / best))
    for direction, values in sorted(ratios.items()):
        gm = [math.exp(sum(math.log(v[i]) for v in values) / len(values)) for i in (0, 1)]
        print(f"{direction}: best prototype over best default {gm[0]:.2f}x, over cuDNN {gm[1]:.2f}x ({len(values)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
