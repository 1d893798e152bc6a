"""Diagnose igemm bwd_data per stride-residue class on the GPU: max error of each class (hi % s, wi % s) against
float64 for a few kernels and problem variants. Prints one line per (problem, kernel)."""
import sys

import torch

from gconv.paths import REPO_ROOT
from gconv.runtime.kernels import load_kernel_module
from gconv.runtime.launch import run
from gconv.runtime.reference import poisoned_output, random_operands, reference
from gconv.runtime.registry import entries_by_name
from gconv.schemas import Problem

KERNELS = ["bwd_data_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1", "bwd_data_bf16_igemm_m64n32k32_w4_s2_ms_g1_v1_mg1",
           "bwd_data_bf16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_tm",
           "bwd_data_bf16_igemm_m64n64k32_w4_s3_tma_g8_v8_mg1_tm"]
BASE = dict(N=2, G=4, C=16, K=16, Hi=37, Wi=36, Y=5, X=5, stride_h=2, stride_w=2, pad_h=4, pad_w=4, dil_h=2, dil_w=2)
VARIANTS = {"even-pad-d2": {}, "pad2-d2-3x3": dict(Y=3, X=3, pad_h=2, pad_w=2), "pad0-d2": dict(pad_h=0, pad_w=0),
            "pad4-d1": dict(dil_h=1, dil_w=1), "pad3-d2": dict(pad_h=3, pad_w=3),
            "h-only-d2": dict(pad_h=4, pad_w=3), "w-only-d2": dict(pad_h=3, pad_w=4), "s2-1x1": dict(Y=1, X=1, pad_h=0,
            pad_w=0, dil_h=1, dil_w=1)}
entries = {**entries_by_name("full-tests"), **entries_by_name("full")}
for label, update in VARIANTS.items():
    p = Problem(direction="bwd_data", dtype="bf16", **{**BASE, **update})
    a, b = random_operands(p, device="cuda", seed=3)
    ref = reference(p, a, b)
    scale = ref.abs().max().item()
    for name in KERNELS:
        e = entries[name]
        out = poisoned_output(p, device="cuda")
        run(load_kernel_module(REPO_ROOT / e.source), e.config, p, a, b, out)
        torch.cuda.synchronize()
        err = (out.double().cpu() - ref).abs()
        classes = []
        for rh in range(2):
            for rw in range(2):
                cls = err[:, :, rh::2, rw::2]
                refc = ref[:, :, rh::2, rw::2].abs().max().item()
                nans = int(torch.isnan(out[:, :, rh::2, rw::2]).sum())
                classes.append(f"({rh},{rw}) err {cls.max().item() / scale:.3g} ref {refc:.3g} nan {nans}")
        print(f"{label:14} {name[9:]:44} " + " | ".join(classes), flush=True)
sys.exit(0)
