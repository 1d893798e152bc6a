"""01 basic: a grouped convolution through gconv.conv_fwd, and a tiny model through gconv.nn.

    python examples/01_basic.py

Checks the result against torch.nn.functional.conv2d in float64, then converts a small nn.Sequential with
gconv.nn.convert and compares its forward and backward (input and parameter gradients) with the same model
in float64.
"""
import os

if not os.path.exists("/dev/nvidiactl"):  # no NVIDIA driver: interpret the Triton kernels on the CPU
    os.environ.setdefault("TRITON_INTERPRET", "1")  # must be set before torch/triton/gconv are imported

import copy

import torch
import torch.nn.functional as F

import gconv
from _common import ARCH, DEVICE, DTYPES, ON_GPU, SHORT, Checks, randn, where

checks = Checks()
print(f"gconv {gconv.__version__} on {where()}")

# 1. One grouped convolution: x is N x (G*C) x H x W, w is (G*K) x C x Y x X (torch's layout), C, K per group.
N, G, C, K, H = (8, 4, 32, 32, 28) if ON_GPU else (2, 4, 8, 8, 8)
dtype = DTYPES[0]
args = dict(stride=1, padding=1, dilation=1, groups=G)
x = randn((N, G * C, H, H), dtype, seed=0)
w = randn((G * K, C, 3, 3), dtype, seed=1)
problem = gconv.Problem.from_tensors(x, w, **args)
choice = gconv.select(problem, arch=ARCH)
print(f"\n1. conv_fwd: x {tuple(x.shape)} w {tuple(w.shape)} {SHORT[dtype]} groups={G} -> problem {problem.key}")
print(f"   selected kernel: {choice.name}")
print(f"   why: {choice.reason}")
y = gconv.conv_fwd(x, w, **args)
y_ref = F.conv2d(x.double().cpu(), w.double().cpu(), **args)
checks.check("result shape and dtype", y.shape == y_ref.shape and y.dtype == dtype,
             f"{tuple(y.shape)} {y.dtype}")
checks.close("conv_fwd vs float64 F.conv2d", y, y_ref, dtype)

# 2. A tiny model: gconv.nn.Conv2d directly, and gconv.nn.convert on an existing torch model.
print("\n2. gconv.nn: a model's forward and backward")
dtype = torch.float16 if ON_GPU else torch.float32
torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Conv2d(16, 16, 3, padding=1, groups=2),             # grouped, G=2
    torch.nn.SiLU(),                                              # smooth: no ReLU kink for rounding to flip
    torch.nn.Conv2d(16, 16, 3, stride=2, padding=1, groups=16),  # depthwise, stride 2
    torch.nn.SiLU(),
    torch.nn.Conv2d(16, 8, 1, groups=4, bias=False),              # grouped pointwise
)
reference_model = copy.deepcopy(model).double()                   # float64 copy with the same parameters
model = gconv.nn.convert(model.to(DEVICE, dtype))                 # in place; returns the model
converted = sum(isinstance(m, gconv.nn.Conv2d) for m in model)
checks.check("gconv.nn.convert replaced every Conv2d", converted == 3, f"{converted} of 3 are gconv.nn.Conv2d")
reference_model.load_state_dict({k: v.double().cpu() for k, v in model.state_dict().items()})  # dtype-rounded

x = randn((2, 16, H, H), dtype, seed=2).requires_grad_()
x_ref = x.detach().double().cpu().requires_grad_()
out, out_ref = model(x), reference_model(x_ref)
weights = randn(out.shape, dtype, seed=3)  # loss = sum(out * weights): a non-uniform upstream gradient
(out.float() * weights.float()).sum().backward()
(out_ref * weights.double().cpu()).sum().backward()
checks.close("model forward", out, out_ref, dtype)
checks.close("d loss / d input", x.grad, x_ref.grad, dtype)
for (name, p), p_ref in zip(model.named_parameters(), reference_model.parameters()):
    checks.close(f"d loss / d {name}", p.grad, p_ref.grad, dtype)

layer = gconv.nn.Conv2d(8, 12, 3, stride=2, padding=1, dilation=2, groups=4).to(DEVICE, dtype)
x = randn((2, 8, H, H), dtype, seed=4)
expected = F.conv2d(x.double().cpu(), layer.weight.double().cpu(), layer.bias.double().cpu(), stride=2, padding=1,
                    dilation=2, groups=4)
checks.close("gconv.nn.Conv2d(8, 12, 3, stride=2, dilation=2, groups=4)", layer(x), expected, dtype)
checks.finish()
