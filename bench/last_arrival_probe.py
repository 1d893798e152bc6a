"""Is a last-arrival kernel wrong by itself, by a race, or by the dirt an earlier launch left in the kept workspace?
Runs each (problem, kernel) pair on the GPU, again and again (from a fresh workspace each time with --fresh), and
after every launch prints the error against cuDNN's output and what the launch left behind: non-zero workspace elements
and counters (a correct kernel leaves both zero). For a wrong run of an igemm kernel without pixel boxes it also says
which output tiles were wrong and which splits' partial sums (float64, from the pixel ranges the template gives each
split) best explain the wrong values.

    python -m bench.last_arrival_probe PROBLEM_KEY:KERNEL_NAME ... [--repeats 20] [--fresh] [--edit 'OLD=>NEW']

The kernels are rendered from the templates (they need be in no rule set); --edit replaces text in every rendered
source (a variant of the template, for a diagnosis).
"""
from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from collections import Counter
from pathlib import Path

import torch
import torch.nn.functional as F

from gconv.generator.render import Provenance, render
from gconv.runtime import arrival_workspace as kept
from gconv.runtime.kernels import load_kernel_module
from gconv.runtime.launch import run
from gconv.runtime.vendor import vendor_run
from gconv.schemas import Algorithm, KernelConfig, Problem

from .timing import operand_sets

_PROVENANCE = Provenance(("bench/last_arrival_probe.py",), "probe", (), "python -m bench.last_arrival_probe")
WRONG = 0.02  # an error (of the result's largest magnitude) this large is a wrong result, not rounding


def left_behind() -> tuple[int, list[int]]:
    """(non-zero workspace elements, the non-zero counter values) of every kept buffer."""
    floats = sum(int((f != 0).sum()) for f, _ in kept._BUFFERS.values())
    counters = [int(v) for _, c in kept._BUFFERS.values() for v in c[c != 0].tolist()]
    return floats, counters


def split_partials(problem: Problem, config: KernelConfig, x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    """[split_k, G*K, C, Y, X] float64: each split's sums over its pixel range (igemm without pixel boxes)."""
    p = problem
    cols = F.unfold(x.double(), (p.Y, p.X), dilation=(p.dil_h, p.dil_w), padding=(p.pad_h, p.pad_w),
                    stride=(p.stride_h, p.stride_w))  # [N, G*C*Y*X, L]
    pixels = p.N * p.Ho * p.Wo
    cols = cols.permute(0, 2, 1).reshape(pixels, p.G, p.C, p.Y, p.X)
    grads = dy.double().permute(0, 2, 3, 1).reshape(pixels, p.G, p.K)
    step = -(-pixels // config.split_k)
    chunk = -(-step // config.block_k) * config.block_k
    out = []
    for s in range(config.split_k):
        a, b = min(s * chunk, pixels), min((s + 1) * chunk, pixels)
        out.append(torch.einsum("pgk,pgcyx->gkcyx", grads[a:b], cols[a:b]).reshape(p.G * p.K, p.C, p.Y, p.X))
    return torch.stack(out)


def explain(problem: Problem, config: KernelConfig, out: torch.Tensor, expected: torch.Tensor, partials: torch.Tensor,
            scale: float) -> list[str]:
    """Where the wrong elements are (tiles) and which subset of splits each one's value is the sum of."""
    p = problem
    wrong = (out.double() - expected.double()).abs() > WRONG * scale
    index = wrong.nonzero()  # [E, 4]: filter (g*K + k), c, fy, fx
    if len(index) == 0:
        return []
    filt, c, fy, fx = index.unbind(1)
    g, k = filt // p.K, filt % p.K
    column = (fy * p.X + fx) * p.C + c
    tiles = Counter(zip(g.tolist(), (k // config.block_m).tolist(), (column // config.block_n).tolist()))
    total_tiles = p.G * -(-p.K // config.block_m) * -(-(p.Y * p.X * p.C) // config.block_n)
    values = out.double()[wrong]
    parts = partials[:, wrong]  # [S, E]
    per_tile = sorted(Counter(tiles.values()).items())[:6]
    lines = [f"    wrong {len(index)} of {out.numel()} elements ({int((values == 0).sum())} exactly zero) in "
             f"{len(tiles)} of {total_tiles} tiles; elements per wrong tile {per_tile}"]
    if config.split_k <= 10:
        subsets = torch.tensor(list(itertools.product((0.0, 1.0), repeat=config.split_k)), dtype=torch.float64,
                               device=parts.device)  # [2^S, S]
        sums = subsets @ parts  # [2^S, E]
        best = (sums - values).abs().argmin(0)
        residual = (sums.gather(0, best[None]) - values).abs().squeeze(0)
        patterns = Counter("".join("1" if v else "." for v in subsets[b].tolist()) for b in best.tolist())
        lines.append(f"    splits summed (1) per wrong element, most common: {patterns.most_common(6)}; median "
                     f"residual {residual.median().item() / scale:.4f} of the scale")
    return lines


def probe(problem: Problem, config: KernelConfig, source: Path, repeats: int, fresh: bool) -> list[str]:
    module = load_kernel_module(str(source))
    a, b = operand_sets(problem, "cuda" if torch.cuda.is_available() else "cpu", 1)[0]  # cpu: the interpreter
    expected = vendor_run(problem, a, b).float()
    scale = expected.abs().max().item() or 1.0
    partials = (split_partials(problem, config, a, b) if config.algorithm is Algorithm.igemm and config.tile_w == 0
                else None)
    lines = []
    kept.release_arrival_workspaces()
    for i in range(repeats):
        if fresh:
            kept.release_arrival_workspaces()
        out = torch.full_like(expected, float("nan"), dtype=a.dtype)
        run(module, config, problem, a, b, out)
        if out.is_cuda:
            torch.cuda.synchronize()
        error = (out.float() - expected).abs().max().item() / scale
        floats, counters = left_behind()
        lines.append(f"  run {i:2d}: error {error:.4f}  workspace non-zero {floats}  counters non-zero "
                     f"{len(counters)} {sorted(set(counters))[:8]}")
        if error > WRONG and partials is not None and i < 2:
            lines += explain(problem, config, out, expected, partials, scale)
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pairs", nargs="+", help="PROBLEM_KEY:KERNEL_NAME")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--fresh", action="store_true", help="a fresh workspace for every run")
    parser.add_argument("--edit", action="append", default=[], help="OLD=>NEW, replaced in every rendered source")
    args = parser.parse_args(argv)
    edits = [tuple(text.split("=>", 1)) for text in args.edit]
    scratch = Path(tempfile.mkdtemp(prefix="la-probe-"))
    for pair in args.pairs:
        key, name = pair.split(":")
        problem, config = Problem.from_key(key), KernelConfig.from_name(name)
        text = render(config, _PROVENANCE)
        for old, new in edits:
            if old not in text:
                print(f"{name}: no {old!r} to edit", flush=True)
            text = text.replace(old, new)
        source = scratch / f"{name}.py"
        source.write_text(text)
        print(f"{key} {name} {'edited ' + str(edits) if edits else ''}", flush=True)
        try:
            print("\n".join(probe(problem, config, source, args.repeats, args.fresh)), flush=True)
        except Exception as error:  # noqa: BLE001 - one pair's failure is a line, not the end of the probe
            print(f"  failed: {type(error).__name__}: {error}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
