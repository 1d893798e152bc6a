"""Verify generated instances against a float64 reference on problems that cover every axis value.

Used by bench/verify_device.py on the GPU (every instance of full-tests) and by tests on the CPU interpreter.
"""
from __future__ import annotations

import traceback
from typing import Literal

import torch
from pydantic import BaseModel, ConfigDict

from gconv.paths import REPO_ROOT
from gconv.schemas import DType, KernelConfig, Problem, RegistryEntry

from .kernels import load_kernel_module
from .launch import run
from .reference import RELATIVE_ERROR_BOUND, poisoned_output, random_operands, reference, relative_error
from .support import unsupported_reason

# G = 1 and G > 1, depthwise (with and without a channel multiplier), tiny groups (C = 2, 4), odd C and K, stride 2,
# dilation 2, padding, 1x1 and 7x7 filters, sizes no tile divides, and channel counts aligned for 16-byte vectors and
# TMA.
DEVICE_SHAPES: dict[str, dict] = {
    "g1-aligned": dict(N=3, G=1, C=64, K=160, Hi=19, Wi=21, Y=3, X=3, pad_h=1, pad_w=1),
    "g2-s2-aligned": dict(N=4, G=2, C=128, K=64, Hi=30, Wi=30, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    "odd-s2-d2": dict(N=2, G=3, C=5, K=7, Hi=11, Wi=9, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1,
                      dil_h=2, dil_w=2),
    "small-groups": dict(N=4, G=12, C=4, K=4, Hi=17, Wi=17, Y=3, X=3, pad_h=1, pad_w=1),
    "merge-d2": dict(N=2, G=16, C=16, K=16, Hi=14, Wi=14, Y=3, X=3, pad_h=2, pad_w=2, dil_h=2, dil_w=2),
    # 8 channels and filters a group: 4 or 8 merged groups fill a 32-wide tile, K % 16 != 0 runs their aligned-K twins;
    # G = 12 leaves the last 8-group tile half empty.
    "merge-c8k8": dict(N=2, G=12, C=8, K=8, Hi=13, Wi=11, Y=3, X=3, pad_h=1, pad_w=1),
    "depthwise-s2": dict(N=4, G=64, C=1, K=1, Hi=29, Wi=31, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    "depthwise-5x5-d2": dict(N=2, G=96, C=1, K=1, Hi=20, Wi=20, Y=5, X=5, pad_h=4, pad_w=4, dil_h=2, dil_w=2),
    "multiplier-s2": dict(N=2, G=24, C=1, K=2, Hi=15, Wi=15, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    "multiplier4-odd": dict(N=2, G=40, C=1, K=4, Hi=13, Wi=14, Y=3, X=3, pad_h=1, pad_w=0),
    # Tiny groups: every (C, K) of the tiny-group kernels at 3x3, and K = 1 at 5x5 and 7x7; G = 24 leaves a partial
    # block of 16 groups.
    "tiny-groups-s2": dict(N=2, G=16, C=2, K=2, Hi=19, Wi=21, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    "tiny-groups-c2k1-d2": dict(N=2, G=24, C=2, K=1, Hi=13, Wi=12, Y=3, X=3, pad_h=2, pad_w=2, dil_h=2, dil_w=2),
    "tiny-groups-c2k4": dict(N=1, G=16, C=2, K=4, Hi=11, Wi=10, Y=3, X=3, pad_h=1, pad_w=1),
    "tiny-groups-c4k1-s2": dict(N=2, G=8, C=4, K=1, Hi=15, Wi=14, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    "tiny-groups-c4k2": dict(N=1, G=24, C=4, K=2, Hi=9, Wi=12, Y=3, X=3, pad_h=1, pad_w=0),
    "tiny-groups-c4k4-s2-d2": dict(N=1, G=8, C=4, K=4, Hi=17, Wi=17, Y=3, X=3, stride_h=2, stride_w=2, pad_h=2,
                                   pad_w=2, dil_h=2, dil_w=2),
    "tiny-groups-5x5-d2": dict(N=2, G=24, C=4, K=1, Hi=15, Wi=16, Y=5, X=5, pad_h=4, pad_w=4, dil_h=2, dil_w=2),
    "tiny-groups-5x5-s2": dict(N=1, G=16, C=2, K=1, Hi=19, Wi=18, Y=5, X=5, stride_h=2, stride_w=2, pad_h=2, pad_w=2),
    "tiny-groups-7x7": dict(N=1, G=8, C=2, K=1, Hi=17, Wi=16, Y=7, X=7, pad_h=3, pad_w=3),
    "tiny-groups-7x7-s2": dict(N=2, G=16, C=4, K=1, Hi=23, Wi=21, Y=7, X=7, stride_h=2, stride_w=2, pad_h=3, pad_w=3),
    # ... and every (C, K) with K > 1 at 5x5 and 7x7.
    "tiny-groups-5x5-c2k2": dict(N=1, G=16, C=2, K=2, Hi=13, Wi=14, Y=5, X=5, pad_h=2, pad_w=2),
    "tiny-groups-5x5-c4k2-s2": dict(N=2, G=8, C=4, K=2, Hi=17, Wi=15, Y=5, X=5,
                                    stride_h=2, stride_w=2, pad_h=2, pad_w=2),
    "tiny-groups-5x5-c2k4-d2": dict(N=1, G=24, C=2, K=4, Hi=15, Wi=13, Y=5, X=5, pad_h=4, pad_w=4, dil_h=2, dil_w=2),
    "tiny-groups-5x5-c4k4": dict(N=1, G=8, C=4, K=4, Hi=12, Wi=11, Y=5, X=5, pad_h=2, pad_w=1),
    "tiny-groups-7x7-c2k2-s2": dict(N=2, G=16, C=2, K=2, Hi=21, Wi=19, Y=7, X=7,
                                    stride_h=2, stride_w=2, pad_h=3, pad_w=3),
    "tiny-groups-7x7-c4k2": dict(N=1, G=24, C=4, K=2, Hi=14, Wi=13, Y=7, X=7, pad_h=3, pad_w=3),
    "tiny-groups-7x7-c2k4": dict(N=1, G=8, C=2, K=4, Hi=16, Wi=15, Y=7, X=7, pad_h=3, pad_w=2),
    "tiny-groups-7x7-c4k4-s2": dict(N=1, G=16, C=4, K=4, Hi=19, Wi=20, Y=7, X=7,
                                    stride_h=2, stride_w=2, pad_h=3, pad_w=3),
    "depthwise-7x7-s2": dict(N=2, G=48, C=1, K=1, Hi=23, Wi=22, Y=7, X=7, stride_h=2, stride_w=2, pad_h=3, pad_w=3),
    # Sliding rows: every (filter, multiplier) at row stride 1 (both strides 1, for bwd_data) and 2, with W dilation,
    # one-sided padding and heights no 4- or 8-row tile divides; 3x3 s1 m4, s2 m1/m2 and 7x7 s2 m1 are above.
    "sliding-3x3-m1": dict(N=2, G=64, C=1, K=1, Hi=18, Wi=17, Y=3, X=3, pad_h=1, pad_w=1),
    "sliding-3x3-m2-d2": dict(N=1, G=32, C=1, K=2, Hi=13, Wi=20, Y=3, X=3, pad_h=1, pad_w=2, dil_w=2),
    "sliding-3x3-m4-s2": dict(N=2, G=16, C=1, K=4, Hi=21, Wi=15, Y=3, X=3, stride_h=2, stride_w=1, pad_h=1, pad_w=1),
    "sliding-5x5-m1": dict(N=2, G=48, C=1, K=1, Hi=19, Wi=21, Y=5, X=5, pad_h=2, pad_w=2),
    "sliding-5x5-m1-s2": dict(N=1, G=32, C=1, K=1, Hi=22, Wi=19, Y=5, X=5, stride_h=2, stride_w=2, pad_h=2, pad_w=1),
    "sliding-5x5-m2-d2": dict(N=2, G=24, C=1, K=2, Hi=11, Wi=23, Y=5, X=5, pad_h=2, pad_w=4, dil_w=2),
    "sliding-5x5-m2-s2": dict(N=1, G=40, C=1, K=2, Hi=17, Wi=17, Y=5, X=5, stride_h=2, stride_w=2, pad_h=2, pad_w=2),
    "sliding-5x5-m4": dict(N=1, G=16, C=1, K=4, Hi=15, Wi=12, Y=5, X=5, pad_h=2, pad_w=1),
    "sliding-5x5-m4-s2": dict(N=2, G=8, C=1, K=4, Hi=19, Wi=14, Y=5, X=5, stride_h=2, stride_w=1, pad_h=1, pad_w=2),
    "sliding-7x7-m1": dict(N=2, G=72, C=1, K=1, Hi=23, Wi=21, Y=7, X=7, pad_h=3, pad_w=3),
    "sliding-7x7-m2": dict(N=1, G=32, C=1, K=2, Hi=17, Wi=26, Y=7, X=7, pad_h=3, pad_w=6, dil_w=2),
    "sliding-7x7-m2-s2": dict(N=2, G=16, C=1, K=2, Hi=25, Wi=18, Y=7, X=7, stride_h=2, stride_w=2, pad_h=3, pad_w=3),
    "sliding-7x7-m4": dict(N=1, G=24, C=1, K=4, Hi=14, Wi=15, Y=7, X=7, pad_h=3, pad_w=3),
    "sliding-7x7-m4-s2": dict(N=1, G=8, C=1, K=4, Hi=27, Wi=16, Y=7, X=7, stride_h=2, stride_w=2, pad_h=2, pad_w=3),
    # Sliding rows at stride 2 x 2 in bwd_data (stride-residue classes): the (filter, multiplier) pairs not above, odd
    # and even padding, G a multiple of 8 but not of 16.
    "sliding-s2x2-3x3-m1": dict(N=2, G=40, C=1, K=1, Hi=19, Wi=17, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=0),
    "sliding-s2x2-3x3-m2": dict(N=2, G=24, C=1, K=2, Hi=14, Wi=21, Y=3, X=3, stride_h=2, stride_w=2, pad_h=0, pad_w=1),
    "sliding-s2x2-3x3-m4": dict(N=1, G=40, C=1, K=4, Hi=17, Wi=18, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    "sliding-s2x2-5x5-m4": dict(N=2, G=24, C=1, K=4, Hi=18, Wi=13, Y=5, X=5, stride_h=2, stride_w=2, pad_h=2, pad_w=1),
    "sliding-s2x2-7x7-m4": dict(N=1, G=24, C=1, K=4, Hi=23, Wi=20, Y=7, X=7, stride_h=2, stride_w=2, pad_h=3, pad_w=2),
    # 1x1 depthwise, each multiplier (the 1x1 depthwise kernels), G a multiple of 8 but not of 16.
    "depthwise-1x1-s2": dict(N=2, G=40, C=1, K=1, Hi=13, Wi=15, Y=1, X=1, stride_h=2, stride_w=2),
    "depthwise-1x1-m2": dict(N=2, G=24, C=1, K=2, Hi=11, Wi=17, Y=1, X=1),
    "depthwise-1x1-m4-s2": dict(N=1, G=40, C=1, K=4, Hi=15, Wi=14, Y=1, X=1, stride_h=2, stride_w=1),
    "pointwise": dict(N=4, G=4, C=32, K=48, Hi=16, Wi=16, Y=1, X=1),
    "pointwise-odd": dict(N=3, G=3, C=24, K=40, Hi=9, Wi=11, Y=1, X=1),
    "stem-7x7-odd": dict(N=2, G=1, C=3, K=24, Hi=33, Wi=33, Y=7, X=7, stride_h=2, stride_w=2, pad_h=3, pad_w=3),
    # One input channel, a 5x20 filter, stride 2 (DeepBench's speech front ends, scaled down): 2*19*51 pixels over
    # 64 or 256 splits of the deep-split bwd_weight tiles.
    "one-channel-5x20-s2": dict(N=2, G=1, C=1, K=32, Hi=41, Wi=120, Y=5, X=20, stride_h=2, stride_w=2),
    # Stride 2, dilation 2, even padding: every tap reaches residue class (0, 0), none the other three (bwd_data);
    # H100 runs of the flat bwd_data walk got these classes wrong (bench/results/tap-major/README.md).
    "even-pad-s2-d2": dict(N=2, G=4, C=16, K=16, Hi=37, Wi=36, Y=5, X=5, stride_h=2, stride_w=2, pad_h=4, pad_w=4,
                           dil_h=2, dil_w=2),
    # Pixel boxes on channels no column tile divides: one tile a tap reading the next groups' channels (24), and a
    # second tile a tap half past the group's (96), 5x5 with the last group's reads past G*C
    "boxes-c24-s2": dict(N=4, G=3, C=24, K=40, Hi=20, Wi=18, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    "boxes-c96-5x5": dict(N=2, G=2, C=96, K=48, Hi=15, Wi=17, Y=5, X=5, pad_h=2, pad_w=2),
    # Merged pixel boxes (several tiny groups a tile): a last group block short of 16 and 8 groups (24 groups), tiles
    # wider than the merged groups (2 -> 6 at stride 2, 5x5 dilated), 16 filters a group (two in a 32-row tile), and
    # sixteen groups of 2 -> 2 under a 7x7 filter
    "merge-boxes-c4": dict(N=4, G=24, C=4, K=4, Hi=30, Wi=33, Y=3, X=3, pad_h=1, pad_w=1),
    "merge-boxes-c2-k6-s2": dict(N=2, G=40, C=2, K=6, Hi=25, Wi=22, Y=5, X=5, stride_h=2, stride_w=2, pad_h=4, pad_w=4,
                                 dil_h=2, dil_w=2),
    "merge-boxes-c8-k16": dict(N=3, G=12, C=8, K=16, Hi=14, Wi=14, Y=3, X=3, pad_h=1, pad_w=1),
    "merge-boxes-c2-k2-7x7": dict(N=2, G=48, C=2, K=2, Hi=17, Wi=19, Y=7, X=7, pad_h=3, pad_w=3),
    # fwd merged pixel boxes (stride 1): 6 -> 3 channels a group under a dilated 5x5 filter, boxes past a 19 x 23 image
    "merge-boxes-fwd-c6-k3-d2": dict(N=2, G=16, C=6, K=3, Hi=19, Wi=23, Y=5, X=5, pad_h=4, pad_w=4, dil_h=2, dil_w=2),
    # Groups 8 modulo 16 for every depthwise filter, multiplier, channel count and row stride the shapes above run only
    # with G a multiple of 16: a vector kernel's stated alignment changes its code where Triton's JIT sees G divisible
    # by 8 only (bench/results/aligned-sizes/)
    "aligned8-3x3": dict(N=2, G=40, C=1, K=1, Hi=17, Wi=18, Y=3, X=3, pad_h=1, pad_w=1),
    "aligned8-3x3-s2": dict(N=2, G=24, C=1, K=1, Hi=19, Wi=17, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    "aligned8-3x3-m2": dict(N=1, G=40, C=1, K=2, Hi=15, Wi=13, Y=3, X=3, pad_h=1, pad_w=1),
    "aligned8-5x5": dict(N=2, G=40, C=1, K=1, Hi=16, Wi=15, Y=5, X=5, pad_h=2, pad_w=2),
    "aligned8-5x5-s2": dict(N=1, G=24, C=1, K=1, Hi=21, Wi=19, Y=5, X=5, stride_h=2, stride_w=2, pad_h=2, pad_w=2),
    "aligned8-7x7-s2": dict(N=1, G=24, C=1, K=1, Hi=23, Wi=20, Y=7, X=7, stride_h=2, stride_w=2, pad_h=3, pad_w=3),
    "aligned8-7x7-m2": dict(N=1, G=24, C=1, K=2, Hi=16, Wi=17, Y=7, X=7, pad_h=3, pad_w=3),
    "aligned8-7x7-m2-s2": dict(N=1, G=8, C=1, K=2, Hi=25, Wi=19, Y=7, X=7, stride_h=2, stride_w=2, pad_h=3, pad_w=3),
    # the 64-pixel sliding-rows tiles of 32 channels at 5x5, multiplier 4, stride 1 (session 58), which every shape
    # above runs with G % 16 == 0 or at stride 2
    "aligned8-5x5-m4": dict(N=1, G=24, C=1, K=4, Hi=15, Wi=12, Y=5, X=5, pad_h=2, pad_w=1),
    "aligned8-c2k2": dict(N=2, G=24, C=2, K=2, Hi=13, Wi=14, Y=3, X=3, pad_h=1, pad_w=1),
    "aligned8-c2k4": dict(N=1, G=8, C=2, K=4, Hi=14, Wi=12, Y=3, X=3, pad_h=1, pad_w=1),
    "aligned8-5x5-c2k1": dict(N=1, G=24, C=2, K=1, Hi=15, Wi=14, Y=5, X=5, pad_h=2, pad_w=2),
    "aligned8-5x5-c2k2": dict(N=1, G=8, C=2, K=2, Hi=13, Wi=15, Y=5, X=5, pad_h=2, pad_w=2),
    "aligned8-7x7-c4k1": dict(N=1, G=24, C=4, K=1, Hi=15, Wi=16, Y=7, X=7, pad_h=3, pad_w=3),
    "aligned8-7x7-c2k2": dict(N=1, G=8, C=2, K=2, Hi=16, Wi=14, Y=7, X=7, pad_h=3, pad_w=3),
    "aligned8-7x7-c4k4": dict(N=1, G=8, C=4, K=4, Hi=14, Wi=15, Y=7, X=7, pad_h=3, pad_w=3),
    # The same for C (TMA bwd_data reads whole block_k steps of K: K = 64)
    "aligned8-c24-k64": dict(N=2, G=3, C=24, K=64, Hi=12, Wi=13, Y=3, X=3, pad_h=1, pad_w=1),
    # Tiny-group fwd with sliding rows (bench/results/tiny-sliding/): every (C, K, filter, row stride) of its kernels,
    # row dilation 1 as they need, G = 24 (a partial 16-group block, 8 modulo 16), sizes no tile divides; K = 8 also
    # runs the eight-filter per-tap and bwd_data kernels (bench/results/multiplier8/), which no shape above has.
    **{f"tiny-sliding-c{c}k{k}-{f}x{f}-s{s}": dict(N=1, G=24, C=c, K=k, Hi=4 * s + 2 * f + 1, Wi=2 * f + 3, Y=f, X=f,
                                                     stride_h=s, stride_w=s, pad_h=f // 2, pad_w=f // 2)
       for c in (2, 4) for k in (1, 2, 4, 8) for f in (3, 5, 7) for s in (1, 2)},
}


class VerificationRow(BaseModel):
    """One (instance, problem) run."""

    model_config = ConfigDict(extra="forbid")

    kernel: str
    direction: str
    dtype: str
    shape: str
    problem: str
    status: Literal["pass", "fail", "error"]
    relative_error: float | None
    bound: float
    detail: str = ""


class OperandCache:
    """Operands and float64 references per problem, computed once per process."""

    def __init__(self, device: str):
        self.device = device
        self._cache: dict[str, tuple] = {}

    def get(self, problem: Problem):
        if problem.key not in self._cache:
            a, b = random_operands(problem, device=self.device, seed=len(self._cache) + 1)
            self._cache[problem.key] = (a, b, reference(problem, a, b))
        return self._cache[problem.key]


def alignment_unseen_by_jit(config: KernelConfig, problem: Problem) -> bool:
    """Whether one of the sizes a vector kernel states aligned to its width (KernelConfig.vector_aligned_sizes) is not
    a multiple of 16 on problem: there the stated alignment is what the compiler knows, as the JIT's own divisibility
    specialisation does not see it (bench/device_aligned_sizes.sh verifies every vector kernel on such a shape)."""
    return any(getattr(problem, size) % 16 for size in config.vector_aligned_sizes)


def verify_instance(entry: RegistryEntry, shapes: dict[str, dict], operands: OperandCache,
                    bounds: dict[DType, float] = RELATIVE_ERROR_BOUND,
                    shapes_per_instance: int | None = None, misaligned_only: bool = False) -> list[VerificationRow]:
    """Run entry on every shape it supports (outputs poisoned first), or on the first shapes_per_instance of them in
    shapes' order, and with misaligned_only on those whose alignment the JIT cannot see only
    (alignment_unseen_by_jit); one row per shape, errors caught."""
    config = entry.config
    rows = []
    for label, shape in shapes.items():
        problem = Problem(direction=config.direction, dtype=config.dtype, **shape)
        if unsupported_reason(config, problem) is not None:
            continue
        if misaligned_only and not alignment_unseen_by_jit(config, problem):
            continue
        if shapes_per_instance is not None and len(rows) == shapes_per_instance:
            break
        bound = bounds[config.dtype]
        base = dict(kernel=entry.name, direction=config.direction.value, dtype=config.dtype.value, shape=label,
                    problem=problem.key, bound=bound)
        try:
            a, b, expected = operands.get(problem)
            out = poisoned_output(problem, device=operands.device)
            run(load_kernel_module(REPO_ROOT / entry.source), config, problem, a, b, out)
            if out.device.type == "cuda":
                torch.cuda.synchronize()
            error = relative_error(out, expected)
            status = "pass" if error <= bound else "fail"
            rows.append(VerificationRow(**base, status=status, relative_error=min(error, 1e30)))
        except Exception as exc:  # a crashing instance is a finding, not the end of the sweep
            lines = traceback.format_exception_only(type(exc), exc)
            rows.append(VerificationRow(**base, status="error", relative_error=None,
                                        detail=" ".join(line.strip() for line in lines)[-500:]))
    if not rows:
        rows.append(VerificationRow(kernel=entry.name, direction=config.direction.value, dtype=config.dtype.value,
                                    shape="-", problem="-", status="error", relative_error=None, bound=0.0,
                                    detail="no verification shape is supported by this instance" + (
                                        " and leaves its alignment unseen by the JIT" if misaligned_only else "")))
    return rows
