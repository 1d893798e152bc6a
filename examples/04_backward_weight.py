"""04 backward weight: dw = d conv2d / d w through gconv.conv_bwd_weight (torch) and gconv.Runner("bwd_weight").

    python examples/04_backward_weight.py

Both are compared with torch.nn.grad.conv2d_weight in float64 (max|out-ref|/max|ref| within the dtype's bound).
Cases: a grouped convolution with stride 2 and a depthwise one. The numpy runner takes fp16/fp32 only.
"""
import os

if not os.path.exists("/dev/nvidiactl"):  # no NVIDIA driver: interpret the Triton kernels on the CPU
    os.environ.setdefault("TRITON_INTERPRET", "1")  # must be set before torch/triton/gconv are imported

import torch

import gconv
from _common import ARCH, CASES, DTYPES, SHORT, Checks, randn, torch_args, where

checks = Checks()
print(f"backward-weight convolution on {where()}")
for dtype in DTYPES:
    for seed, (label, fields) in enumerate(CASES.items()):
        problem = gconv.Problem(direction="bwd_weight", dtype=SHORT[dtype], **fields)
        x = randn(problem.input_shape, dtype, seed=2 * seed)        # N x (G*C) x Hi x Wi
        dy = randn(problem.output_shape, dtype, seed=2 * seed + 1)  # N x (G*K) x Ho x Wo
        args = torch_args(problem)
        print(f"\n{label}, {SHORT[dtype]}: x {problem.input_shape} dy {problem.output_shape} "
              f"-> dw {problem.weight_shape}")
        print(f"  kernel: {gconv.select(problem, arch=ARCH).name}")
        dw_ref = torch.nn.grad.conv2d_weight(x.double().cpu(), problem.weight_shape, dy.double().cpu(), **args)

        dw = gconv.conv_bwd_weight(x, dy, problem.weight_shape, **args)
        checks.close("gconv.conv_bwd_weight(x, dy, weight_shape, ...)", dw, dw_ref, dtype)
        if dtype is torch.bfloat16:
            print("  [skip] gconv.Runner: numpy has no bfloat16")
            continue
        dw_np = gconv.Runner("bwd_weight").run(x.cpu().numpy(), dy.cpu().numpy(), problem)  # order: x, dy
        checks.close("gconv.Runner('bwd_weight').run(x, dy, problem) [numpy]", torch.from_numpy(dw_np), dw_ref, dtype)
checks.finish()
