"""Every tiny instance, run under the Triton interpreter, against a float64 PyTorch reference.

Outputs are poisoned with NaN first, so an element a kernel fails to write fails the test. The interpreter
has no bf16 (numpy lacks it): a bf16 instance runs as its fp16 twin (same config and template, dtype token
swapped); its bf16 source itself is compiled to sm_90/sm_80 cubins by `gconv check`.
"""
import pytest

from gconv.generator.render import Provenance, render
from gconv.paths import REPO_ROOT
from gconv.runtime.kernels import load_kernel_module
from gconv.runtime.launch import run
from gconv.runtime.reference import (INTERPRETER_ERROR_BOUND, poisoned_output, random_operands, reference,
                                     relative_error)
from gconv.runtime.support import unsupported_reason
from gconv.schemas import DType, Problem, Registry

SHAPES = {
    # G > 1, odd channels, stride 2, padding, dilation 2, sizes no tile divides.
    "odd-s2-d2": dict(N=2, G=3, C=5, K=7, Hi=11, Wi=9, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1,
                      dil_h=2, dil_w=2),
    # Channels aligned for 16-byte vectors and TMA; rectangular filter, mixed stride and padding.
    "aligned-3x2": dict(N=2, G=2, C=16, K=32, Hi=10, Wi=7, Y=3, X=2, stride_h=1, stride_w=2, pad_h=2, pad_w=0,
                        dil_h=1, dil_w=1),
    # 1x1, stride 2, unpadded.
    "pointwise-s2": dict(N=3, G=2, C=8, K=32, Hi=13, Wi=11, Y=1, X=1, stride_h=2, stride_w=2, pad_h=0, pad_w=0,
                         dil_h=1, dil_w=1),
    # 1x1, stride 1, unpadded (what the explicit-GEMM kernels run): one dilated (it changes nothing for a 1x1 filter).
    "pointwise-s1-d2": dict(N=2, G=3, C=16, K=24, Hi=9, Wi=7, Y=1, X=1, stride_h=1, stride_w=1, pad_h=0, pad_w=0,
                            dil_h=2, dil_w=2),
    "pointwise-s1": dict(N=1, G=2, C=40, K=8, Hi=6, Wi=11, Y=1, X=1, stride_h=1, stride_w=1, pad_h=0, pad_w=0,
                         dil_h=1, dil_w=1),
    # Few channels per group, G not a multiple of the merge factor.
    "small-groups": dict(N=2, G=5, C=4, K=4, Hi=9, Wi=9, Y=3, X=3, stride_h=1, stride_w=1, pad_h=1, pad_w=1,
                         dil_h=2, dil_w=1),
    # Depthwise.
    "depthwise-s2": dict(N=2, G=16, C=1, K=1, Hi=9, Wi=10, Y=3, X=3, stride_h=2, stride_w=1, pad_h=1, pad_w=1,
                         dil_h=1, dil_w=2),
    "depthwise-5x5": dict(N=1, G=24, C=1, K=1, Hi=8, Wi=8, Y=5, X=5, stride_h=1, stride_w=1, pad_h=2, pad_w=2,
                          dil_h=1, dil_w=1),
    "depthwise-3x3": dict(N=2, G=40, C=1, K=1, Hi=7, Wi=13, Y=3, X=3, stride_h=1, stride_w=1, pad_h=0, pad_w=1,
                          dil_h=1, dil_w=1),
    # Depthwise with a channel multiplier.
    "multiplier-3x3": dict(N=2, G=9, C=1, K=2, Hi=6, Wi=9, Y=3, X=3, stride_h=1, stride_w=2, pad_h=1, pad_w=1,
                           dil_h=1, dil_w=1),
    "multiplier-d2": dict(N=1, G=6, C=1, K=2, Hi=7, Wi=7, Y=3, X=3, stride_h=2, stride_w=2, pad_h=2, pad_w=2,
                          dil_h=2, dil_w=2),
    # Sliding rows (row dilation 1): W dilation at stride 1, a multiplier at row stride 2.
    "depthwise-3x3-d2w": dict(N=1, G=16, C=1, K=1, Hi=10, Wi=11, Y=3, X=3, stride_h=1, stride_w=1, pad_h=1, pad_w=2,
                              dil_h=1, dil_w=2),
    "multiplier-s2": dict(N=2, G=8, C=1, K=2, Hi=11, Wi=8, Y=3, X=3, stride_h=2, stride_w=1, pad_h=1, pad_w=0,
                          dil_h=1, dil_w=2),
    "multiplier-s2x2": dict(N=1, G=5, C=1, K=2, Hi=12, Wi=9, Y=3, X=3, stride_h=2, stride_w=2, pad_h=0, pad_w=1,
                            dil_h=1, dil_w=1),
    "multiplier-s2x2-p1": dict(N=2, G=7, C=1, K=2, Hi=11, Wi=13, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1,
                               dil_h=1, dil_w=1),
    # Tiny groups (C = 2, 4), for the depthwise family's tiny-group kernels.
    "tiny-groups-s2": dict(N=2, G=8, C=2, K=2, Hi=9, Wi=11, Y=3, X=3, stride_h=2, stride_w=2, pad_h=1, pad_w=1,
                           dil_h=1, dil_w=1),
    "tiny-groups-d2": dict(N=1, G=6, C=2, K=2, Hi=8, Wi=7, Y=3, X=3, stride_h=1, stride_w=1, pad_h=2, pad_w=2,
                           dil_h=2, dil_w=2),
    "tiny-groups-c4": dict(N=2, G=16, C=4, K=1, Hi=7, Wi=9, Y=3, X=3, stride_h=1, stride_w=1, pad_h=1, pad_w=1,
                           dil_h=1, dil_w=1),
    "tiny-groups-c4-s2": dict(N=1, G=8, C=4, K=1, Hi=10, Wi=9, Y=3, X=3, stride_h=2, stride_w=1, pad_h=1, pad_w=2,
                              dil_h=1, dil_w=2),
    # Tiny groups with sliding rows (row stride 1, row dilation 1; bwd_data stride 1): a W dilation, 8 groups.
    "tiny-groups-c4-d2w": dict(N=1, G=8, C=4, K=1, Hi=9, Wi=11, Y=3, X=3, stride_h=1, stride_w=1, pad_h=1, pad_w=2,
                               dil_h=1, dil_w=2),
}


def tiny_entries():
    return Registry.from_json((REPO_ROOT / "generated" / "tiny" / "registry.json").read_text()).entries


def interpreter_module(entry, tmp_path_factory):
    """The instance's module; for bf16, its fp16 twin rendered to a temporary file."""
    if entry.config.dtype is not DType.bf16:
        return entry.config, load_kernel_module(REPO_ROOT / entry.source)
    twin = entry.config.model_copy(update={"dtype": DType.fp16})
    path = tmp_path_factory.mktemp("fp16-twins") / f"{twin.name}.py"
    path.write_text(render(twin, Provenance(("rules/tiny.yaml",), entry.rule, (), "test twin")))
    return twin, load_kernel_module(path)


@pytest.mark.parametrize("entry", tiny_entries(), ids=lambda e: e.name)
def test_tiny_instance_matches_float64_reference(entry, tmp_path_factory):
    config, module = interpreter_module(entry, tmp_path_factory)
    problems = {label: Problem(direction=config.direction, dtype=config.dtype, **shape)
                for label, shape in SHAPES.items()}
    supported = {label: p for label, p in problems.items() if unsupported_reason(config, p) is None}
    assert len(supported) >= 2, f"{entry.name} supports only {list(supported)}"
    # Sliding rows need row dilation 1 (and bwd_data stride 1): a W dilation stands in for them.
    assert any(p.stride_h > 1 or p.dil_h > 1 or (config.sliding_rows and p.dil_w > 1) for p in supported.values())
    bound = INTERPRETER_ERROR_BOUND[config.dtype]
    for label, problem in supported.items():
        a, b = random_operands(problem, seed=len(label))
        out = poisoned_output(problem)
        run(module, config, problem, a, b, out, num_programs=3)
        error = relative_error(out, reference(problem, a, b))
        assert error <= bound, f"{entry.name} on {label} ({problem.key}): relative error {error:.3g} > {bound}"


def test_poisoning_catches_an_unwritten_output():
    """The check itself can fail: a result buffer left as poisoned scores infinite error."""
    problem = Problem(direction="fwd", dtype="fp32", **SHAPES["odd-s2-d2"])
    a, b = random_operands(problem)
    assert relative_error(poisoned_output(problem), reference(problem, a, b)) == float("inf")


def test_unsupported_problems_are_explained():
    from gconv.schemas import KernelConfig

    config = KernelConfig.from_name("fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1")
    problem = Problem(direction="fwd", dtype="fp16", **SHAPES["odd-s2-d2"])
    assert unsupported_reason(config, problem) == "vector width 8 needs C % 8 == 0 (C=5)"
    assert unsupported_reason(config, problem.with_dtype("bf16")) == "kernel dtype fp16 != problem dtype bf16"
