"""Prototype v2 of depthwise backward-weight (M = 1): one accumulator tile per filter tap, no per-tile reduction.

v1 (depthwise.py) reduced every tap's products over the pixel tile on every tile (a cross-thread reduction per
tap per tile) and lost to cuDNN 0.1-0.5x. v2 keeps a [P, BLOCK_G] fp32 accumulator per tap (the source is
generated with one variable per tap, as a jinja template would), reads dy once per tile for all taps of its
tap rows, and reduces once at the end. Programs split the taps by rows (TAP_ROWS rows each) to bound registers.

    python bench/prototypes/depthwise_bwd_weight.py --out DIR      # GPU: check + GPU-time table vs cuDNN
    TRITON_INTERPRET=1 python bench/prototypes/depthwise_bwd_weight.py --small   # CPU check
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

import torch
import triton

sys.path.insert(0, str(Path(__file__).resolve().parent))
import depthwise as v1  # noqa: E402


def kernel_source(fx: int, tap_rows: int) -> str:
    taps = [(r, c) for r in range(tap_rows) for c in range(fx)]
    lines = [
        "import triton", "import triton.language as tl", "", "",
        "@triton.jit",
        "def kernel(x_ptr, dy_ptr, dw_ptr, N, Hi, Wi, Ho, Wo, G, FY, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w,",
        "           sxn, sxh, sxw, syn, syh, syw, tiles_per_split,",
        "           BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr, BLOCK_G: tl.constexpr):",
        f"    # taps: {tap_rows} filter rows x {fx} columns per program; program_id(2) picks the row block",
        "    tiles_w = tl.cdiv(Wo, BLOCK_W)",
        "    tiles_h = tl.cdiv(Ho, BLOCK_H)",
        "    total = N * tiles_h * tiles_w",
        "    first = tl.program_id(0) * tiles_per_split",
        "    last = tl.minimum(first + tiles_per_split, total)",
        "    g = tl.program_id(1) * BLOCK_G + tl.arange(0, BLOCK_G)",
        "    mask_g = g < G",
        f"    fy0 = tl.program_id(2) * {tap_rows}",
        "    p = tl.arange(0, BLOCK_H * BLOCK_W)",
    ]
    for r, c in taps:
        lines.append(f"    acc_{r}_{c} = tl.zeros((BLOCK_H * BLOCK_W, BLOCK_G), dtype=tl.float32)")
    lines += [
        "    for tile in range(first, last):",
        "        tw = tile % tiles_w",
        "        th = (tile // tiles_w) % tiles_h",
        "        n = tile // (tiles_w * tiles_h)",
        "        ho = th * BLOCK_H + p // BLOCK_W",
        "        wo = tw * BLOCK_W + p % BLOCK_W",
        "        mask_p = (ho < Ho) & (wo < Wo)",
        "        dyv = tl.load(dy_ptr + n.to(tl.int64) * syn + (ho * syh + wo * syw)[:, None] + g[None, :],",
        "                      mask=mask_p[:, None] & mask_g[None, :], other=0.0).to(tl.float32)",
        "        x_img = x_ptr + n.to(tl.int64) * sxn",
    ]
    for c in range(fx):
        lines.append(f"        w_{c} = wo * stride_w - pad_w + {c} * dil_w")
        lines.append(f"        col_ok_{c} = mask_p & (w_{c} >= 0) & (w_{c} < Wi)")
    for r in range(tap_rows):
        lines.append(f"        h_{r} = ho * stride_h - pad_h + (fy0 + {r}) * dil_h")
        lines.append(f"        row_ok_{r} = (h_{r} >= 0) & (h_{r} < Hi) & (ho * 0 + fy0 + {r} < FY)")
        for c in range(fx):
            lines.append(f"        xv = tl.load(x_img + (h_{r} * sxh + w_{c} * sxw)[:, None] + g[None, :],")
            lines.append(f"                     mask=(row_ok_{r} & col_ok_{c})[:, None] & mask_g[None, :], other=0.0)")
            lines.append(f"        acc_{r}_{c} += dyv * xv.to(tl.float32)")
    for r, c in taps:
        lines.append(f"    tl.atomic_add(dw_ptr + g * (FY * {fx}) + (fy0 + {r}) * {fx} + {c}, tl.sum(acc_{r}_{c}, axis=0),")
        lines.append(f"                  mask=mask_g & (g * 0 + fy0 + {r} < FY))")
    return "\n".join(lines) + "\n"


_kernels: dict = {}


def kernel_for(fx: int, tap_rows: int):
    key = (fx, tap_rows)
    if key not in _kernels:
        text = kernel_source(fx, tap_rows)
        digest = hashlib.sha1(text.encode()).hexdigest()[:12]
        path = Path(tempfile.gettempdir()) / f"gconv_dw_bwd_weight_{digest}.py"
        if not path.exists():
            path.write_text(text)
        spec = importlib.util.spec_from_file_location(f"gconv_dw_bwd_weight_{digest}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _kernels[key] = module.kernel
    return _kernels[key]


def run(prob, x, dy, dw, block_h, block_w, block_g, warps, tap_rows, waves=4, sms=132, workspace=None):
    fy = prob["Y"]
    tiles = prob["N"] * triton.cdiv(prob["Ho"], block_h) * triton.cdiv(prob["Wo"], block_w)
    gblocks, rblocks = triton.cdiv(prob["G"], block_g), triton.cdiv(fy, tap_rows)
    splits = max(1, min(tiles, (sms * waves) // (gblocks * rblocks)))
    per_split = triton.cdiv(tiles, splits)
    splits = triton.cdiv(tiles, per_split)
    ws = workspace if workspace is not None else torch.zeros(dw.shape, dtype=torch.float32, device=dw.device)
    ws.zero_()
    kernel_for(fy, tap_rows)[(splits, gblocks, rblocks)](
        x, dy, ws, prob["N"], prob["Hi"], prob["Wi"], prob["Ho"], prob["Wo"], prob["G"], fy, prob["s"], prob["s"],
        prob["p"], prob["p"], prob["d"], prob["d"], x.stride(0), x.stride(2), x.stride(3), dy.stride(0),
        dy.stride(2), dy.stride(3), per_split, BLOCK_H=block_h, BLOCK_W=block_w, BLOCK_G=block_g, num_warps=warps)
    dw.copy_(ws)


CONFIGS = [  # name, (block_h, block_w, block_g, warps), tap rows per program (0: all rows)
    ("h2w8g32w4", (2, 8, 32, 4), 0), ("h1w16g64w4", (1, 16, 64, 4), 0), ("h2w16g32w4", (2, 16, 32, 4), 0),
    ("h2w8g32w4r1", (2, 8, 32, 4), 1), ("h4w8g32w4r1", (4, 8, 32, 4), 1), ("h1w8g64w2r1", (1, 8, 64, 2), 1),
]


def check(prob, device, dtype):
    x, w, dy = v1.operands(prob, device, dtype, 0)
    _, _, dw_ref = v1.references(prob, x, w, dy)
    out = []
    for name, cfg, rows in CONFIGS:
        dw = torch.full_like(w, float("nan"))
        run(prob, x, dy, dw, *cfg, tap_rows=rows or prob["Y"])
        out.append((name, v1.max_rel(dw, dw_ref)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--small", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16 if device == "cuda" else torch.float16
    probs = ([v1.problem(2, 8, 1, 9, 3, 1), v1.problem(1, 16, 1, 10, 5, 2), v1.problem(2, 6, 1, 7, 3, 2, 2)]
             if args.small else [p for p in v1.synthetic_problems() if p["M"] == 1])
    bound = 4e-3 if dtype == torch.float16 else 3e-2
    bad = 0
    for prob in probs:
        for name, err in check(prob, device, dtype):
            bad += err > bound
            print(f"{v1.tag(prob):32s} {name:14s} max rel error {err:.1e}", flush=True)
    print(f"{bad} over the bound {bound}")
    if device == "cpu":
        sys.exit(1 if bad else 0)
    timings = []
    for prob in probs:
        ops = v1.rotated_operands(prob, device, dtype)
        sets = len(ops)
        dw = torch.empty_like(ops[0][1])
        ws = torch.zeros(dw.shape, dtype=torch.float32, device=device)
        row = dict(problem=v1.tag(prob))
        for name, cfg, rows in CONFIGS:
            row[name] = v1.gpu_ms(lambda i: run(prob, ops[i % sets][0], ops[i % sets][2], dw, *cfg,
                                                 tap_rows=rows or prob["Y"], workspace=ws))
        torch.backends.cudnn.benchmark = True
        row["cudnn-exhaustive"] = v1.gpu_ms(lambda i: torch.nn.grad.conv2d_weight(
            ops[i % sets][0], ops[i % sets][1].shape, ops[i % sets][2], **v1.kwargs(prob)))
        timings.append(row)
        print(json.dumps(row), flush=True)
    v1.save_timings(args.out, "prototype-depthwise-bwd-weight.json", timings)


if __name__ == "__main__":
    main()
