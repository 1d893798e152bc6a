"""split_image: a batch whose activations exceed 32-bit indexing runs as launches over slices of whole images.

CK's split_image option splits N (or H) so that each launch indexes in 32 bits. gconv slices the batch on the host:
a slice of a channels_last tensor along N is a view with the same strides (N is its outermost dimension), so every
kernel of every rule set runs the slices as they are, each slice problem selected like any other. No kernel differs
with or without it, so it is a property of the runtime rather than an axis of the rules (DESIGN.md names both; the
closing note of 2026-11-23 says why). The weight is not sliced: it must fit 32-bit indexing itself.

fwd and bwd_data write each slice's result into its rows of the output; bwd_weight sums the slices' weight gradients
in fp32 and casts once.
"""
from __future__ import annotations

from gconv.schemas import Direction, Problem
from gconv.schemas.problem import MAX_INDEX

LIMIT = MAX_INDEX  # elements one launch may index (a module attribute, so tests can shrink it)


def image_elements(problem: Problem) -> int:
    """Elements of one image of the activations (x, and y or dy): what each slice holds per image."""
    p = problem
    return max(p.G * p.C * p.Hi * p.Wi, p.G * p.K * p.Ho * p.Wo)


def needs_slices(problem: Problem) -> bool:
    return problem.N * image_elements(problem) > LIMIT


def batch_slices(problem: Problem) -> list[tuple[int, int]]:
    """[n0, n1) ranges of whole images whose activations each index in 32 bits, in order; ValueError when one image
    alone does not."""
    per_image = image_elements(problem)
    if per_image > LIMIT:
        raise ValueError(f"one image of this problem has {per_image} elements (x: G*C*Hi*Wi, y: G*K*Ho*Wo); gconv's "
                         f"kernels index with 32-bit integers and slice batches only into whole images (at most "
                         f"{LIMIT} elements per image)")
    step = LIMIT // per_image
    return [(n0, min(problem.N, n0 + step)) for n0 in range(0, problem.N, step)]


def sliced_operands(direction: Direction, a, b, n0: int, n1: int) -> tuple:
    """The runner-order operands of one slice: fwd (x, w), bwd_data (dy, w), bwd_weight (x, dy)."""
    return (a[n0:n1], b[n0:n1]) if direction is Direction.bwd_weight else (a[n0:n1], b)
