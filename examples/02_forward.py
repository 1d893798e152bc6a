"""02 forward: y = conv2d(x, w) through gconv.conv_fwd (torch tensors) and gconv.Runner("fwd") (numpy arrays).

    python examples/02_forward.py

Both are compared with torch.nn.functional.conv2d in float64 (max|out-ref|/max|ref| within the dtype's bound).
Cases: a grouped convolution with stride 2 and a depthwise one. The numpy runner takes fp16/fp32 only.
"""
import os

if not os.path.exists("/dev/nvidiactl"):  # no NVIDIA driver: interpret the Triton kernels on the CPU
    os.environ.setdefault("TRITON_INTERPRET", "1")  # must be set before torch/triton/gconv are imported

import torch
import torch.nn.functional as F

import gconv
from _common import ARCH, CASES, DTYPES, SHORT, Checks, randn, torch_args, where

checks = Checks()
print(f"forward convolution on {where()}")
for dtype in DTYPES:
    for seed, (label, fields) in enumerate(CASES.items()):
        problem = gconv.Problem(direction="fwd", dtype=SHORT[dtype], **fields)
        x = randn(problem.input_shape, dtype, seed=2 * seed)       # N x (G*C) x Hi x Wi
        w = randn(problem.weight_shape, dtype, seed=2 * seed + 1)  # (G*K) x C x Y x X
        args = torch_args(problem)
        print(f"\n{label}, {SHORT[dtype]}: x {problem.input_shape} w {problem.weight_shape} "
              f"-> y {problem.output_shape}")
        print(f"  kernel: {gconv.select(problem, arch=ARCH).name}")
        checks.check("Problem.from_tensors(x, w, ...) == the problem",
                     gconv.Problem.from_tensors(x, w, **args) == problem)
        y_ref = F.conv2d(x.double().cpu(), w.double().cpu(), **args)

        checks.close("gconv.conv_fwd(x, w, ...)", gconv.conv_fwd(x, w, **args), y_ref, dtype)
        if dtype is torch.bfloat16:
            print("  [skip] gconv.Runner: numpy has no bfloat16")
            continue
        y_np = gconv.Runner("fwd").run(x.cpu().numpy(), w.cpu().numpy(), problem)  # order: x, w
        checks.close("gconv.Runner('fwd').run(x, w, problem) [numpy]", torch.from_numpy(y_np), y_ref, dtype)
checks.finish()
