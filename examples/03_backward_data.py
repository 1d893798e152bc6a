"""03 backward data: dx = d conv2d / d x through gconv.conv_bwd_data (torch) and gconv.Runner("bwd_data") (numpy).

    python examples/03_backward_data.py

Both are compared with torch.nn.grad.conv2d_input in float64 (max|out-ref|/max|ref| within the dtype's bound).
Cases: a grouped convolution with stride 2 and a depthwise one. The numpy runner takes fp16/fp32 only.
"""
import os

if not os.path.exists("/dev/nvidiactl"):  # no NVIDIA driver: interpret the Triton kernels on the CPU
    os.environ.setdefault("TRITON_INTERPRET", "1")  # must be set before torch/triton/gconv are imported

import torch

import gconv
from _common import ARCH, CASES, DTYPES, SHORT, Checks, randn, torch_args, where

checks = Checks()
print(f"backward-data convolution on {where()}")
for dtype in DTYPES:
    for seed, (label, fields) in enumerate(CASES.items()):
        problem = gconv.Problem(direction="bwd_data", dtype=SHORT[dtype], **fields)
        dy = randn(problem.output_shape, dtype, seed=2 * seed)     # N x (G*K) x Ho x Wo
        w = randn(problem.weight_shape, dtype, seed=2 * seed + 1)  # (G*K) x C x Y x X
        args = torch_args(problem)
        print(f"\n{label}, {SHORT[dtype]}: dy {problem.output_shape} w {problem.weight_shape} "
              f"-> dx {problem.input_shape}")
        print(f"  kernel: {gconv.select(problem, arch=ARCH).name}")
        from_shapes = gconv.Problem.from_tensors(problem.input_shape, w, **args, direction="bwd_data")
        checks.check("Problem.from_tensors(x_shape, w, ..., direction='bwd_data') == the problem",
                     from_shapes == problem)
        dx_ref = torch.nn.grad.conv2d_input(problem.input_shape, w.double().cpu(), dy.double().cpu(), **args)

        dx = gconv.conv_bwd_data(dy, w, problem.input_shape, **args)
        checks.close("gconv.conv_bwd_data(dy, w, input_shape, ...)", dx, dx_ref, dtype)
        if dtype is torch.bfloat16:
            print("  [skip] gconv.Runner: numpy has no bfloat16")
            continue
        dx_np = gconv.Runner("bwd_data").run(dy.cpu().numpy(), w.cpu().numpy(), problem)  # order: dy, w
        checks.close("gconv.Runner('bwd_data').run(dy, w, problem) [numpy]", torch.from_numpy(dx_np), dx_ref, dtype)
checks.finish()
