"""Prototype depthwise kernels (NHWC, channel multiplier M, filter size and M fixed at compile time).

Measured against gconv's current direct/igemm instances and cuDNN before any of it becomes a template:

    python bench/prototypes/depthwise.py --out DIR            # on the GPU: correctness + GPU-time table
    TRITON_INTERPRET=1 python bench/prototypes/depthwise.py --check-only --small   # on the CPU

Design (what the generated family will do if it wins):
- fwd: a program owns a BLOCK_H x BLOCK_W tile of output pixels x BLOCK_G input channels x all M multipliers;
  the taps are unrolled (tl.static_range) so every tap's loads are in flight at once; the input tile is
  re-read per tap from L1; output channels g*M + m are contiguous, so the store is one [P, BLOCK_G*M] tile.
- bwd_data: programs own one stride-residue class of input pixels (hi % s, wi % s), so a tap contributes to
  all of a program's pixels or to none: non-contributing taps are skipped by a scalar branch, never multiplied.
- bwd_weight: a program walks a run of output tiles for BLOCK_G channels, reads dy once per tile and keeps
  all taps' partial sums in one [TAPS, BLOCK_G*M] accumulator; splits add into an fp32 workspace.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from functools import partial
from pathlib import Path

import torch
import triton
import triton.language as tl

from gconv.bench.timing import median_ms


@triton.jit
def dw_fwd(x_ptr, w_ptr, y_ptr, Hi, Wi, Ho, Wo, G, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w,
           sxn, sxh, sxw, syn, syh, syw,
           FY: tl.constexpr, FX: tl.constexpr, M: tl.constexpr,
           BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr, BLOCK_G: tl.constexpr):
    tiles_w = tl.cdiv(Wo, BLOCK_W)
    tiles_h = tl.cdiv(Ho, BLOCK_H)
    pid = tl.program_id(0)
    tw = pid % tiles_w
    th = (pid // tiles_w) % tiles_h
    n = pid // (tiles_w * tiles_h)
    p = tl.arange(0, BLOCK_H * BLOCK_W)
    ho = th * BLOCK_H + p // BLOCK_W
    wo = tw * BLOCK_W + p % BLOCK_W
    mask_p = (ho < Ho) & (wo < Wo)
    g = tl.program_id(1) * BLOCK_G + tl.arange(0, BLOCK_G)
    mask_g = g < G
    x_img = x_ptr + n.to(tl.int64) * sxn
    if M == 1:
        acc = tl.zeros((BLOCK_H * BLOCK_W, BLOCK_G), dtype=tl.float32)
    else:
        m = tl.arange(0, M)
        oc = g[:, None] * M + m[None, :]
        acc = tl.zeros((BLOCK_H * BLOCK_W, BLOCK_G, M), dtype=tl.float32)
    for fy in tl.static_range(FY):
        h = ho * stride_h - pad_h + fy * dil_h
        row_ok = mask_p & (h >= 0) & (h < Hi)
        for fx in tl.static_range(FX):
            w = wo * stride_w - pad_w + fx * dil_w
            ok = row_ok & (w >= 0) & (w < Wi)
            xv = tl.load(x_img + (h * sxh + w * sxw)[:, None] + g[None, :], mask=ok[:, None] & mask_g[None, :],
                         other=0.0).to(tl.float32)
            if M == 1:
                wv = tl.load(w_ptr + g * (FY * FX) + (fy * FX + fx), mask=mask_g, other=0.0).to(tl.float32)
                acc += xv * wv[None, :]
            else:
                wv = tl.load(w_ptr + oc * (FY * FX) + (fy * FX + fx), mask=mask_g[:, None], other=0.0)
                acc += xv[:, :, None] * wv.to(tl.float32)[None, :, :]
    oc_flat = tl.program_id(1) * (BLOCK_G * M) + tl.arange(0, BLOCK_G * M)
    out = tl.reshape(acc, (BLOCK_H * BLOCK_W, BLOCK_G * M))
    y_offs = n.to(tl.int64) * syn + (ho * syh + wo * syw)[:, None] + oc_flat[None, :]
    tl.store(y_ptr + y_offs, out.to(y_ptr.dtype.element_ty), mask=mask_p[:, None] & (oc_flat < G * M)[None, :])


@triton.jit
def dw_bwd_data(dy_ptr, w_ptr, dx_ptr, Hi, Wi, Ho, Wo, G, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w,
                sxn, sxh, sxw, syn, syh, syw,
                FY: tl.constexpr, FX: tl.constexpr, M: tl.constexpr,
                BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr, BLOCK_G: tl.constexpr):
    # Residue grid: input pixels hi = rh + stride_h * qh share which taps reach them.
    hq = tl.cdiv(Hi, stride_h)
    wq = tl.cdiv(Wi, stride_w)
    tiles_w = tl.cdiv(wq, BLOCK_W)
    tiles_h = tl.cdiv(hq, BLOCK_H)
    pid = tl.program_id(0)
    tw = pid % tiles_w
    rest = pid // tiles_w
    th = rest % tiles_h
    rest = rest // tiles_h
    rw = rest % stride_w
    rest = rest // stride_w
    rh = rest % stride_h
    n = rest // stride_h
    p = tl.arange(0, BLOCK_H * BLOCK_W)
    qh = th * BLOCK_H + p // BLOCK_W
    qw = tw * BLOCK_W + p % BLOCK_W
    hi = rh + qh * stride_h
    wi = rw + qw * stride_w
    mask_p = (hi < Hi) & (wi < Wi)
    g = tl.program_id(1) * BLOCK_G + tl.arange(0, BLOCK_G)
    mask_g = g < G
    oc_flat = tl.program_id(1) * (BLOCK_G * M) + tl.arange(0, BLOCK_G * M)
    mask_oc = oc_flat < G * M
    dy_img = dy_ptr + n.to(tl.int64) * syn
    acc = tl.zeros((BLOCK_H * BLOCK_W, BLOCK_G), dtype=tl.float32)
    for fy in tl.static_range(FY):
        # ho * stride_h = hi + pad_h - fy * dil_h; shifted by a multiple of stride_h to stay non-negative.
        num_h = rh + pad_h - fy * dil_h + stride_h * FY * dil_h
        if num_h % stride_h == 0:
            ho = qh + num_h // stride_h - FY * dil_h
            row_ok = mask_p & (ho >= 0) & (ho < Ho)
            for fx in tl.static_range(FX):
                num_w = rw + pad_w - fx * dil_w + stride_w * FX * dil_w
                if num_w % stride_w == 0:
                    wo = qw + num_w // stride_w - FX * dil_w
                    ok = row_ok & (wo >= 0) & (wo < Wo)
                    dyv = tl.load(dy_img + (ho * syh + wo * syw)[:, None] + oc_flat[None, :],
                                  mask=ok[:, None] & mask_oc[None, :], other=0.0).to(tl.float32)
                    wv = tl.load(w_ptr + oc_flat * (FY * FX) + (fy * FX + fx), mask=mask_oc, other=0.0)
                    prod = dyv * wv.to(tl.float32)[None, :]
                    if M == 1:
                        acc += prod
                    else:
                        acc += tl.sum(tl.reshape(prod, (BLOCK_H * BLOCK_W, BLOCK_G, M)), axis=2)
    dx_offs = n.to(tl.int64) * sxn + (hi * sxh + wi * sxw)[:, None] + g[None, :]
    tl.store(dx_ptr + dx_offs, acc.to(dx_ptr.dtype.element_ty), mask=mask_p[:, None] & mask_g[None, :])


@triton.jit
def dw_bwd_weight(x_ptr, dy_ptr, dw_ptr, N, Hi, Wi, Ho, Wo, G, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w,
                  sxn, sxh, sxw, syn, syh, syw, tiles_per_split,
                  FY: tl.constexpr, FX: tl.constexpr, M: tl.constexpr, TAPS: tl.constexpr,
                  BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr, BLOCK_G: tl.constexpr):
    tiles_w = tl.cdiv(Wo, BLOCK_W)
    tiles_h = tl.cdiv(Ho, BLOCK_H)
    total = N * tiles_h * tiles_w
    first = tl.program_id(0) * tiles_per_split
    last = tl.minimum(first + tiles_per_split, total)
    g = tl.program_id(1) * BLOCK_G + tl.arange(0, BLOCK_G)
    mask_g = g < G
    oc_flat = tl.program_id(1) * (BLOCK_G * M) + tl.arange(0, BLOCK_G * M)
    mask_oc = oc_flat < G * M
    taps = tl.arange(0, TAPS)
    p = tl.arange(0, BLOCK_H * BLOCK_W)
    acc = tl.zeros((TAPS, BLOCK_G * M), dtype=tl.float32)
    for tile in range(first, last):
        tw = tile % tiles_w
        th = (tile // tiles_w) % tiles_h
        n = tile // (tiles_w * tiles_h)
        ho = th * BLOCK_H + p // BLOCK_W
        wo = tw * BLOCK_W + p % BLOCK_W
        mask_p = (ho < Ho) & (wo < Wo)
        dyv = tl.load(dy_ptr + n.to(tl.int64) * syn + (ho * syh + wo * syw)[:, None] + oc_flat[None, :],
                      mask=mask_p[:, None] & mask_oc[None, :], other=0.0).to(tl.float32)
        x_img = x_ptr + n.to(tl.int64) * sxn
        for fy in tl.static_range(FY):
            h = ho * stride_h - pad_h + fy * dil_h
            row_ok = mask_p & (h >= 0) & (h < Hi)
            for fx in tl.static_range(FX):
                w = wo * stride_w - pad_w + fx * dil_w
                ok = row_ok & (w >= 0) & (w < Wi)
                xv = tl.load(x_img + (h * sxh + w * sxw)[:, None] + g[None, :],
                             mask=ok[:, None] & mask_g[None, :], other=0.0).to(tl.float32)
                if M == 1:
                    part = tl.sum(dyv * xv, axis=0)
                else:
                    prod = tl.reshape(dyv, (BLOCK_H * BLOCK_W, BLOCK_G, M)) * xv[:, :, None]
                    part = tl.reshape(tl.sum(prod, axis=0), (BLOCK_G * M,))
                acc += tl.where((taps == fy * FX + fx)[:, None], part[None, :], 0.0)
    dw_offs = oc_flat[None, :] * (FY * FX) + taps[:, None]
    tl.atomic_add(dw_ptr + dw_offs, acc, mask=(taps < FY * FX)[:, None] & mask_oc[None, :])


# ----------------------------------------------------------------------------------------------- host side
def _p2(v: int) -> int:
    return 1 << max(0, (v - 1).bit_length())


def run_fwd(prob, x, w, y, block_h, block_w, block_g, warps):
    grid = (prob["N"] * triton.cdiv(prob["Ho"], block_h) * triton.cdiv(prob["Wo"], block_w),
            triton.cdiv(prob["G"], block_g))
    dw_fwd[grid](x, w, y, prob["Hi"], prob["Wi"], prob["Ho"], prob["Wo"], prob["G"], prob["s"], prob["s"],
                 prob["p"], prob["p"], prob["d"], prob["d"], x.stride(0), x.stride(2), x.stride(3),
                 y.stride(0), y.stride(2), y.stride(3), FY=prob["Y"], FX=prob["Y"], M=prob["M"],
                 BLOCK_H=block_h, BLOCK_W=block_w, BLOCK_G=block_g, num_warps=warps)


def run_bwd_data(prob, dy, w, dx, block_h, block_w, block_g, warps):
    s = prob["s"]
    grid = (prob["N"] * s * s * triton.cdiv(triton.cdiv(prob["Hi"], s), block_h)
            * triton.cdiv(triton.cdiv(prob["Wi"], s), block_w), triton.cdiv(prob["G"], block_g))
    dw_bwd_data[grid](dy, w, dx, prob["Hi"], prob["Wi"], prob["Ho"], prob["Wo"], prob["G"], s, s,
                      prob["p"], prob["p"], prob["d"], prob["d"], dx.stride(0), dx.stride(2), dx.stride(3),
                      dy.stride(0), dy.stride(2), dy.stride(3), FY=prob["Y"], FX=prob["Y"], M=prob["M"],
                      BLOCK_H=block_h, BLOCK_W=block_w, BLOCK_G=block_g, num_warps=warps)


def run_bwd_weight(prob, x, dy, dw, block_h, block_w, block_g, warps, sms=132, waves=2, workspace=None):
    tiles = prob["N"] * triton.cdiv(prob["Ho"], block_h) * triton.cdiv(prob["Wo"], block_w)
    gblocks = triton.cdiv(prob["G"], block_g)
    splits = max(1, min(tiles, (sms * waves) // gblocks))
    per_split = triton.cdiv(tiles, splits)
    splits = triton.cdiv(tiles, per_split)
    ws = workspace if workspace is not None else torch.zeros(dw.shape, dtype=torch.float32, device=dw.device)
    ws.zero_()
    dw_bwd_weight[(splits, gblocks)](x, dy, ws, prob["N"], prob["Hi"], prob["Wi"], prob["Ho"], prob["Wo"],
                                     prob["G"], prob["s"], prob["s"], prob["p"], prob["p"], prob["d"], prob["d"],
                                     x.stride(0), x.stride(2), x.stride(3), dy.stride(0), dy.stride(2),
                                     dy.stride(3), per_split, FY=prob["Y"], FX=prob["Y"], M=prob["M"],
                                     TAPS=_p2(prob["Y"] * prob["Y"]), BLOCK_H=block_h, BLOCK_W=block_w,
                                     BLOCK_G=block_g, num_warps=warps)
    dw.copy_(ws)


def synthetic_problems() -> list[dict]:
    """Synthetic depthwise shapes (not model-zoo layers): channels 32-512, multipliers 1-4, filters 3-7."""
    return [problem(32, 128, 1, 15, 5, 1), problem(32, 64, 4, 64, 5, 1, 2), problem(32, 64, 1, 56, 3, 1),
            problem(1, 64, 1, 8, 7, 2), problem(32, 96, 1, 112, 3, 2), problem(32, 192, 1, 28, 5, 1),
            problem(32, 384, 1, 14, 3, 1), problem(32, 144, 1, 56, 7, 1), problem(8, 256, 2, 40, 3, 1),
            problem(32, 32, 1, 112, 3, 1), problem(1, 512, 1, 28, 3, 1), problem(32, 240, 1, 28, 5, 2)]


def problem(N, G, M, H, Y, s, d=1):
    p = d * (Y - 1) // 2
    Ho = (H + 2 * p - d * (Y - 1) - 1) // s + 1
    return dict(N=N, G=G, M=M, Hi=H, Wi=H, Ho=Ho, Wo=Ho, Y=Y, s=s, p=p, d=d)


def tag(prob) -> str:
    return (f"n{prob['N']}_g{prob['G']}_m{prob['M']}_h{prob['Hi']}_y{prob['Y']}_s{prob['s']}_d{prob['d']}")


def kwargs(prob):
    return dict(stride=prob["s"], padding=prob["p"], dilation=prob["d"], groups=prob["G"])


def operands(prob, device, dtype, seed):
    gen = torch.Generator().manual_seed(seed)
    cl = torch.channels_last
    x = torch.randn(prob["N"], prob["G"], prob["Hi"], prob["Wi"], generator=gen).to(dtype).to(device)
    w = torch.randn(prob["G"] * prob["M"], 1, prob["Y"], prob["Y"], generator=gen).to(dtype).to(device)
    dy = torch.randn(prob["N"], prob["G"] * prob["M"], prob["Ho"], prob["Wo"], generator=gen).to(dtype).to(device)
    return x.contiguous(memory_format=cl), w.contiguous(), dy.contiguous(memory_format=cl)


def references(prob, x, w, dy):
    x64, w64, dy64 = x.double(), w.double(), dy.double()
    y = torch.nn.functional.conv2d(x64, w64, **kwargs(prob))
    dx = torch.nn.grad.conv2d_input(x.shape, w64, dy64, **kwargs(prob))
    dwt = torch.nn.grad.conv2d_weight(x64, w.shape, dy64, **kwargs(prob))
    return y, dx, dwt


def max_rel(out, ref) -> float:
    return float((out.double() - ref).abs().max() / ref.abs().max().clamp_min(1e-30))


def check(prob, device, dtype, configs) -> list[dict]:
    x, w, dy = operands(prob, device, dtype, 0)
    y_ref, dx_ref, dw_ref = references(prob, x, w, dy)
    rows = []
    for name, cfg in configs:
        y = torch.full_like(y_ref, float("nan"), dtype=dtype).contiguous(memory_format=torch.channels_last)
        dx = torch.full_like(x, float("nan"))
        dwt = torch.full_like(w, float("nan"))
        run_fwd(prob, x, w, y, *cfg)
        run_bwd_data(prob, dy, w, dx, *cfg)
        run_bwd_weight(prob, x, dy, dwt, *cfg)
        rows.append(dict(problem=tag(prob), config=name, fwd=max_rel(y, y_ref), bwd_data=max_rel(dx, dx_ref),
                         bwd_weight=max_rel(dwt, dw_ref)))
    return rows


def rotated_operands(prob, device, dtype) -> list[tuple]:
    """Enough operand sets (at most 8) that cycling through them spans 100 MiB, twice the H100's L2."""
    count = max(1, min(8, -(-100 * 2**20 // ((prob["N"] * prob["G"] * prob["Hi"] ** 2 * (1 + prob["M"])) * 2))))
    return [operands(prob, device, dtype, seed) for seed in range(count)]


def save_timings(out: Path | None, name: str, timings: list[dict]) -> None:
    if out:
        out.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(json.dumps(timings, indent=1))


# GPU time exactly as gconv profile / bench sweep measure it (sleep queued ahead of the timed calls).
gpu_ms = partial(median_ms, warmup=3, repeats=20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check-only", action="store_true")
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16 if device == "cuda" else torch.float16
    configs = [("h4w16g32w4", (4, 16, 32, 4)), ("h8w8g64w4", (8, 8, 64, 4)), ("h2w16g128w4", (2, 16, 128, 4)),
               ("h8w16g32w8", (8, 16, 32, 8)), ("h4w8g32w2", (4, 8, 32, 2))]
    if args.small:
        probs = [problem(2, 8, 1, 9, 3, 1), problem(1, 4, 2, 8, 5, 2), problem(2, 6, 4, 7, 3, 2, 2),
                 problem(1, 16, 1, 10, 7, 2)]
        configs = [("h2w4g8w4", (2, 4, 8, 4)), ("h4w4g4w2", (4, 4, 4, 2))]
    else:
        probs = synthetic_problems()
    rows = []
    if device == "cuda":  # one process per problem: the compiles (Triton's cache) happen in parallel
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(min(len(probs), os.cpu_count() or 1),
                                 mp_context=multiprocessing.get_context("spawn")) as pool:
            for found in pool.map(check, probs, [device] * len(probs), [dtype] * len(probs),
                                  [configs] * len(probs)):
                rows += found
    else:
        for prob in probs:
            started = time.perf_counter()
            rows += check(prob, device, dtype, configs)
            print(f"checked {tag(prob)} in {time.perf_counter() - started:.1f}s", file=sys.stderr, flush=True)
    bound = 4e-3 if dtype == torch.float16 else 3e-2
    bad = [r for r in rows if max(r["fwd"], r["bwd_data"], r["bwd_weight"]) > bound]
    for r in rows:
        print(f"{r['problem']:40s} {r['config']:12s} fwd {r['fwd']:.1e} bwd_data {r['bwd_data']:.1e} "
              f"bwd_weight {r['bwd_weight']:.1e}")
    print(f"{len(bad)} of {len(rows)} over the bound {bound}")
    if args.check_only or device == "cpu":
        sys.exit(1 if bad else 0)
    timings = []
    for prob in probs:
        ops = rotated_operands(prob, device, dtype)
        sets = len(ops)
        outs = dict(fwd=torch.empty_like(ops[0][2]), bwd_data=torch.empty_like(ops[0][0]),
                    bwd_weight=torch.empty_like(ops[0][1]))
        ws = torch.zeros(ops[0][1].shape, dtype=torch.float32, device=device)
        row = dict(problem=tag(prob), **prob)
        for name, cfg in configs:
            row[f"fwd/{name}"] = gpu_ms(lambda i: run_fwd(prob, ops[i % sets][0], ops[i % sets][1], outs["fwd"], *cfg))
            row[f"bwd_data/{name}"] = gpu_ms(
                lambda i: run_bwd_data(prob, ops[i % sets][2], ops[i % sets][1], outs["bwd_data"], *cfg))
            row[f"bwd_weight/{name}"] = gpu_ms(
                lambda i: run_bwd_weight(prob, ops[i % sets][0], ops[i % sets][2], outs["bwd_weight"], *cfg,
                                         workspace=ws))
        for mode in ("heuristic", "exhaustive"):
            torch.backends.cudnn.benchmark = mode == "exhaustive"
            row[f"fwd/cudnn-{mode}"] = gpu_ms(lambda i: torch.nn.functional.conv2d(
                ops[i % sets][0], ops[i % sets][1], **kwargs(prob)))
            row[f"bwd_data/cudnn-{mode}"] = gpu_ms(lambda i: torch.nn.grad.conv2d_input(
                ops[i % sets][0].shape, ops[i % sets][1], ops[i % sets][2], **kwargs(prob)))
            row[f"bwd_weight/cudnn-{mode}"] = gpu_ms(lambda i: torch.nn.grad.conv2d_weight(
                ops[i % sets][0], ops[i % sets][1].shape, ops[i % sets][2], **kwargs(prob)))
        timings.append(row)
        print(json.dumps(row), flush=True)
    save_timings(args.out, "prototype-depthwise.json", timings)


if __name__ == "__main__":
    main()
