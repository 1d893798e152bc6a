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
