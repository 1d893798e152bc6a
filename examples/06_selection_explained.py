"""06 selection explained: what gconv.select returns for a few problems, the per-problem cache, and kernel=.

    python examples/06_selection_explained.py [--rule-set NAME]

Selection is pure Python (no kernel runs), so real network sizes are shown even on a CPU. The forcing part runs
small problems and checks them against float64.
"""
import os

if not os.path.exists("/dev/nvidiactl"):  # no NVIDIA driver: interpret the Triton kernels on the CPU
    os.environ.setdefault("TRITON_INTERPRET", "1")  # must be set before torch/triton/gconv are imported

import argparse

import torch
import torch.nn.functional as F

import gconv
from _common import ARCH, DTYPES, ON_GPU, SHORT, Checks, randn, where
from gconv.runtime.selection import candidates

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--rule-set", default=None, help="rule set to select from (default: $GCONV_RULE_SET or 'default')")
rule_set = parser.parse_args().rule_set

SHOWN = {
    "ResNeXt grouped 3x3, fwd": dict(direction="fwd", dtype="fp16", N=32, G=32, C=4, K=4, Hi=56, Wi=56, Y=3, X=3,
                                     pad_h=1, pad_w=1),
    "depthwise 3x3, fwd": dict(direction="fwd", dtype="bf16", N=32, G=256, C=1, K=1, Hi=28, Wi=28, Y=3, X=3,
                               pad_h=1, pad_w=1),
    "odd channels, bwd_weight": dict(direction="bwd_weight", dtype="fp16", N=32, G=2, C=30, K=30, Hi=56, Wi=56, Y=3,
                                     X=3, pad_h=1, pad_w=1),
    "grouped stride 2, bwd_data": dict(direction="bwd_data", dtype="fp32", N=16, G=4, C=64, K=64, Hi=56, Wi=56, Y=3,
                                       X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1),
}

checks = Checks()
print(f"kernel selection on {where()}; arch {ARCH}; rule set {rule_set or '(default)'}")
gconv.clear_cache()
for label, fields in SHOWN.items():
    problem = gconv.Problem(**fields)
    choice = gconv.select(problem, arch=ARCH, rule_set=rule_set)
    names = gconv.kernels_for(problem, rule_set=rule_set, arch=ARCH)  # registry instances, then "cudnn"
    print(f"\n{label}: {problem.key}  ({problem.flops / 1e9:.2f} GFLOP)")
    print(f"  name              {choice.name}")
    print(f"  predicted TFLOP/s {choice.predicted_tflops}")
    print(f"  source            {choice.source}")
    print(f"  reason            {choice.reason}")
    print(f"  padding           {choice.padding or '-'}")
    print(f"  candidates        {len(names)} from gconv.kernels_for(problem) (the last is {names[-1]!r}, the vendor)")
    checks.check("the choice is one of kernels_for(problem)", choice.name in names)
    checks.check("first select() is computed, not cached", choice.source in ("rule", "model"), choice.source)
    again = gconv.select(problem, arch=ARCH, rule_set=rule_set)
    checks.check("second select() is a cache hit with the same kernel",
                 again.source == "cache" and again.name == choice.name, f"source={again.source!r}")

# Forcing a kernel with kernel=: any name from kernels_for(problem) (padding is applied if it needs some).
dtype = DTYPES[0] if ON_GPU else torch.float32
N, H = (8, 28) if ON_GPU else (2, 8)
args = dict(stride=1, padding=1, groups=2)
x = randn((N, 2 * 6, H, H), dtype, seed=0)   # C = 6 channels per group: the vectorised kernels need padding
w = randn((2 * 8, 6, 3, 3), dtype, seed=1)
problem = gconv.Problem.from_tensors(x, w, **args)
y_ref = F.conv2d(x.double().cpu(), w.double().cpu(), **args)
found = candidates(problem, rule_set=rule_set, arch=ARCH)
selected = gconv.select(problem, arch=ARCH, rule_set=rule_set).name
plain = next((c.name for c in found if c.entry and c.padding is None and c.name != selected), None)
padded = next((c for c in found if c.padding is not None), None)
print(f"\nforcing kernels on {problem.key} ({SHORT[dtype]}), selected: {selected}")
checks.close("no kernel= (the selected one)", gconv.conv_fwd(x, w, **args, rule_set=rule_set), y_ref, dtype)
if plain is not None:
    checks.close(f"kernel={plain!r}", gconv.conv_fwd(x, w, **args, kernel=plain, rule_set=rule_set), y_ref, dtype)
if padded is not None:
    checks.close(f"kernel={padded.name!r} ({padded.padding})",
                 gconv.conv_fwd(x, w, **args, kernel=padded.name, rule_set=rule_set), y_ref, dtype)
checks.close("kernel='cudnn' (the vendor path)", gconv.conv_fwd(x, w, **args, kernel="cudnn"), y_ref, dtype)
wrong = next((c.name for c in candidates(problem.with_direction("bwd_data"), rule_set=rule_set, arch=ARCH)
              if c.entry), None)
if wrong is not None:
    checks.raises(f"kernel={wrong!r} (a bwd_data kernel) is refused", ValueError,
                  gconv.conv_fwd, x, w, **args, kernel=wrong, rule_set=rule_set)
checks.raises("kernel='no_such_kernel' is refused", ValueError, gconv.conv_fwd, x, w, **args, kernel="no_such_kernel",
              rule_set=rule_set)
checks.finish()
