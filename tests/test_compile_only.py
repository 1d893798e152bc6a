"""runtime.launch.compile_only: inside it a launch compiles its kernel for the arguments (JITFunction.warmup) and runs
nothing, which `gconv bench sweep --overlap-compile` relies on beside a timed window; outside it, kernels run."""
from types import SimpleNamespace

import torch

from gconv.paths import REPO_ROOT
from gconv.runtime.kernels import load_kernel_module
from gconv.runtime.launch import compile_only, launch, run
from gconv.runtime.reference import (INTERPRETER_ERROR_BOUND, empty_operands, poisoned_output, random_operands,
                                     reference, relative_error)
from gconv.runtime.registry import entries_by_name
from gconv.schemas import KernelConfig, Problem

KERNEL = "fwd_fp32_igemm_m64n32k32_w4_s3_ms_g1_v1_mg1"
PROBLEM = Problem(direction="fwd", dtype="fp32", N=2, G=2, C=3, K=5, Hi=6, Wi=7, Y=3, X=3, pad_h=1, pad_w=1)


def test_inside_compile_only_no_kernel_runs_and_after_it_the_same_launch_does():
    entry = entries_by_name("tests")[KERNEL]
    module = load_kernel_module(REPO_ROOT / entry.source)
    a, b = random_operands(PROBLEM, seed=5)
    out = poisoned_output(PROBLEM)
    with compile_only():
        run(module, entry.config, PROBLEM, a, b, out)
    assert torch.isnan(out).all()  # nothing written
    run(module, entry.config, PROBLEM, a, b, out)
    assert relative_error(out, reference(PROBLEM, a, b)) <= INTERPRETER_ERROR_BOUND[PROBLEM.dtype]


class RecordingKernel:
    """A JIT function's two entry points, recorded: kernel[grid](*args, **options) and kernel.warmup(...)."""

    def __init__(self):
        self.calls = []

    def __getitem__(self, grid):
        return lambda *args, **options: self.calls.append(("launch", grid, args, options))

    def warmup(self, *args, grid, **options):
        self.calls.append(("warmup", grid, args, options))


def test_compile_only_hands_warmup_exactly_what_the_launch_gets():
    config = KernelConfig.from_name("fwd_fp32_igemm_m64n32k32_w4_s3_pers_g1_v1_mg1")  # with the persistent grid
    module = SimpleNamespace(kernel=RecordingKernel())
    x, w = empty_operands(PROBLEM)
    y = torch.empty(PROBLEM.output_shape).contiguous(memory_format=torch.channels_last)
    with compile_only():
        launch(module, config, PROBLEM, x, w, y, num_programs=3)
    launch(module, config, PROBLEM, x, w, y, num_programs=3)
    (kind_in, *inside), (kind_after, *after) = module.kernel.calls
    assert (kind_in, kind_after) == ("warmup", "launch")
    assert inside[0] == after[0] == (3, 1, 1) and inside[2] == after[2] == {"num_warps": 4, "num_stages": 3}
    same = [id(v) if isinstance(v, torch.Tensor) else v for v in inside[1]]
    assert same == [id(v) if isinstance(v, torch.Tensor) else v for v in after[1]] and len(same) == 32
    assert same[:3] == [id(x), id(w), id(y)]


def test_empty_operands_are_laid_out_as_the_random_ones():
    """Stride for stride, size-1 dimensions too: a sweep compiles ahead on empty operands and times on random ones,
    and Triton specialises on a stride of 1. (A depthwise weight [G, 1, Y, X] had channel stride 1 empty and Y * X
    random: every depthwise fwd kernel compiled again inside its timed first run, which the give-up then took for
    its time -- seed 13's 744 rows of 0.7-15 s.)"""
    depthwise = dict(G=8, C=1, K=1)
    for changes in ({}, depthwise, {**depthwise, "N": 1}, {"N": 1, "Hi": 1, "Wi": 1, "Y": 1, "X": 1, "pad_h": 0,
                                                           "pad_w": 0}):
        for direction in ("fwd", "bwd_data", "bwd_weight"):
            problem = PROBLEM.model_copy(update={"direction": direction, **changes})
            for empty, filled in zip(empty_operands(problem), random_operands(problem)):
                assert (empty.shape, empty.stride(), empty.dtype) == (filled.shape, filled.stride(), filled.dtype)
    weight = random_operands(PROBLEM.model_copy(update=depthwise))[1]
    assert weight.shape == (8, 1, 3, 3) and weight.stride() == (9, 9, 3, 1)
