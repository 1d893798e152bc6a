"""Launch one generated kernel on torch tensors: grid, arguments, split-K workspace, TMA scratch."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import ModuleType

import torch
import triton

from gconv.schemas import Direction, KernelConfig, Pipeline, Problem

from .arrival_workspace import arrival_workspace
from .forward_twin import twin_filter
from .grid import arrival_blocks, streamk_steps, tile_grid
from .support import forward_twin

_COMPILE_ONLY: ContextVar[bool] = ContextVar("gconv_compile_only", default=False)


@contextmanager
def compile_only() -> Iterator[None]:
    """Inside, launch() compiles each kernel for its arguments into Triton's caches (JITFunction.warmup) instead of
    running it: what a benchmark's compile workers do beside a timed run, so that they put no kernel on the GPU. The
    torch operations around a launch (padding copies, workspaces) still run."""
    token = _COMPILE_ONLY.set(True)
    try:
        yield
    finally:
        _COMPILE_ONLY.reset(token)


def launch(module: ModuleType, config: KernelConfig, problem: Problem, x_like: torch.Tensor,
           w_like: torch.Tensor, y_like: torch.Tensor, *, num_programs: int | None = None) -> None:
    """Run the kernel once. Tensors are torch-shaped (N,C,H,W / K,C,Y,X) in any strides with channel stride 1.
    A last-arrival kernel gets its kept workspace and arrival counters (runtime/arrival_workspace.py) for its result:
    w_like (bwd_weight) or y_like (a split fwd kernel)."""
    p = problem
    args = [x_like, w_like, y_like, p.N, p.G, p.C, p.K, p.Hi, p.Wi, p.Ho, p.Wo, p.Y, p.X,
            p.stride_h, p.stride_w, p.pad_h, p.pad_w, p.dil_h, p.dil_w,
            *x_like.stride(), *w_like.stride(), *y_like.stride()]
    grid = tile_grid(config, problem)
    if config.pipeline in (Pipeline.persistent, Pipeline.streamk):
        units = streamk_steps(config, problem) if config.pipeline is Pipeline.streamk else 1  # per tile
        total = grid[0] * grid[1] * grid[2] * units
        programs = max(1, min(total, num_programs or _sm_count(x_like.device)))
        args.append(programs)
        grid = (programs, 1, 1)
    if config.last_arrival:
        result = y_like if problem.direction is Direction.fwd else w_like
        args += arrival_workspace(result, arrival_blocks(config, problem))
    if config.pipeline is Pipeline.tma:
        _ensure_tma_allocator()
        if config.explicit_gemm:
            _check_dense_pixels(x_like, problem)
    if _COMPILE_ONLY.get():
        module.kernel.warmup(*args, grid=grid, num_warps=config.num_warps, num_stages=config.num_stages)
        return
    module.kernel[grid](*args, num_warps=config.num_warps, num_stages=config.num_stages)


def _check_dense_pixels(x: torch.Tensor, problem: Problem) -> None:
    """The explicit-GEMM TMA kernels read the input as a [N*Hi*Wi, G*C] matrix of row stride sxw."""
    sxn, _, sxh, sxw = x.stride()
    if sxh != problem.Wi * sxw or (problem.N > 1 and sxn != problem.Hi * sxh):
        raise ValueError(f"explicit-GEMM TMA kernels need the input's pixels dense (channels_last), got strides "
                         f"{tuple(x.stride())} for shape {tuple(x.shape)}")


def _sm_count(device: torch.device) -> int:
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 4  # the interpreter: a few programs are enough to exercise the persistent loop


_allocator_set = False


def _ensure_tma_allocator() -> None:
    """Device-side tensor descriptors need global scratch memory; Triton asks for it through this hook."""
    global _allocator_set
    if _allocator_set:
        return

    def allocate(size: int, alignment: int, stream):
        device = "cuda" if torch.cuda.is_available() else "cpu"
        return torch.empty(size, dtype=torch.int8, device=device)

    triton.set_allocator(allocate)
    _allocator_set = True


def run(module: ModuleType, config: KernelConfig, problem: Problem, a: torch.Tensor, b: torch.Tensor,
        out: torch.Tensor, *, num_programs: int | None = None) -> torch.Tensor:
    """Compute problem into out with (a, b) in the CK runner order: fwd (x, w), bwd_data (dy, w), bwd_weight (x, dy).

    out must be torch-shaped with channel stride 1. A via_fwd bwd_data kernel runs the forward twin
    (Problem.forward_twin): dY and the twin filter (one pass over w, runtime/forward_twin.py) into dX. A split fwd
    kernel reduces by last arrival into out itself (in the kept workspace of runtime/arrival_workspace.py). bwd_weight
    with split_k > 1 (and StreamK) accumulates into a zeroed fp32 workspace with fp32 atomics and then casts into out
    (a last-arrival kernel does both itself, in a workspace the runtime keeps zeroed between launches); a two-stage
    kernel stores each split's partial sums in its own fp32 slice of a [split_k, K, Y, X, C] workspace (no zeroing,
    no atomics), and the slices' sum is cast into out.
    """
    if problem.direction is Direction.fwd:
        launch(module, config, problem, a, b, out, num_programs=num_programs)
    elif config.via_fwd:  # dX is the forward twin's output: dY convolved with the twin filter
        twin = forward_twin(problem)
        launch(module, config.kernel, twin, a, twin_filter(b, problem.G), out, num_programs=num_programs)
    elif problem.direction is Direction.bwd_data:
        launch(module, config, problem, out, b, a, num_programs=num_programs)
    elif config.two_stage:
        slices = two_stage_workspace(config.split_k, out)
        launch(module, config, problem, a, slices[0], b, num_programs=num_programs)
        out.copy_(slices.sum(0))
    elif config.accumulates_fp32:
        workspace = torch.zeros_like(out, dtype=torch.float32)
        launch(module, config, problem, a, workspace, b, num_programs=num_programs)
        out.copy_(workspace)
    else:
        launch(module, config, problem, a, out, b, num_programs=num_programs)
    return out


def two_stage_workspace(split_k: int, out: torch.Tensor) -> torch.Tensor:
    """split_k fp32 slices shaped like out (K, C, Y, X), each dense in channels_last order and split_k * numel apart:
    the layout the two-stage kernels index (slice s at s * numel elements, out's channels_last strides within)."""
    K, C, Y, X = out.shape
    return torch.empty((split_k, K, Y, X, C), dtype=torch.float32, device=out.device).permute(0, 1, 4, 2, 3)

