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
from _common import ARCH, DTYPES, ON_GPU, SHORT, Checks, randn, where

# Problem fields as in CK's benchmark CSV: C and K are channels *per group*.
CASES = {
    "grouped G=4, stride 2": dict(N=16, G=4, C=64, K=64, Hi=56, Wi=56, Y=3, X=3, stride_h=2, stride_w=2,
                                  pad_h=1, pad_w=1) if ON_GPU else
                             dict(N=2, G=4, C=4, K=8, Hi=9, Wi=9, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
    "depthwise 3x3": dict(N=16, G=256, C=1, K=1, Hi=28, Wi=28, Y=3, X=3, pad_h=1, pad_w=1) if ON_GPU else
                     dict(N=2, G=16, C=1, K=1, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1),
}


def torch_args(p: gconv.Problem) -> dict:
    return dict(stride=(p.stride_h, p.stride_w), padding=(p.pad_h, p.pad_w), dilation=(p.dil_h, p.dil_w), groups=p.G)


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
