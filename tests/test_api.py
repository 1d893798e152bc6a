"""The public tensor API under the Triton interpreter, against float64 PyTorch references."""
import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import gconv
from gconv.runtime import selection
from gconv.runtime.reference import INTERPRETER_ERROR_BOUND
from gconv.schemas import DType

TORCH = {DType.fp16: torch.float16, DType.fp32: torch.float32}

CASES = {
    # G > 1, odd channels per group, stride 2, padding, dilation 2, sizes no tile divides
    "grouped-odd": dict(N=2, G=3, C=5, K=7, H=11, W=9, Y=3, X=3, stride=2, padding=1, dilation=2),
    # depthwise with tuple arguments
    "depthwise": dict(N=2, G=8, C=1, K=1, H=9, W=10, Y=3, X=3, stride=(2, 1), padding=(1, 1), dilation=(1, 2)),
    # aligned channels (vectorised kernels), rectangular filter
    "aligned": dict(N=1, G=2, C=16, K=16, H=7, W=6, Y=3, X=1, stride=1, padding=(1, 0), dilation=1),
}


def operands(case, dtype, layout, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(case["N"], case["G"] * case["C"], case["H"], case["W"], generator=g).to(dtype)
    w = torch.randn(case["G"] * case["K"], case["C"], case["Y"], case["X"], generator=g).to(dtype)
    if layout == "channels_last":
        x, w = x.contiguous(memory_format=torch.channels_last), w.contiguous(memory_format=torch.channels_last)
    return x, w


def conv_args(case):
    return dict(stride=case["stride"], padding=case["padding"], dilation=case["dilation"], groups=case["G"])


def assert_close(out, expected, dtype):
    bound = INTERPRETER_ERROR_BOUND[DType.fp16 if dtype is torch.float16 else DType.fp32]
    error = (out.double() - expected).abs().max().item() / expected.abs().max().item()
    assert error <= bound, f"relative error {error:.3g} > {bound}"


@pytest.mark.parametrize("layout", ["contiguous", "channels_last"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16], ids=["fp32", "fp16"])
@pytest.mark.parametrize("label", list(CASES))
def test_three_directions_match_float64(label, dtype, layout, monkeypatch):
    monkeypatch.setattr(selection, "VENDOR_COMPETES", False)  # gconv's kernels, even where a model would pick cuDNN
    case = CASES[label]
    x, w = operands(case, dtype, layout)
    args = conv_args(case)
    problem = gconv.Problem.from_tensors(x, w, **args)
    for direction in ("fwd", "bwd_data", "bwd_weight"):  # generated kernels, not the vendor path
        assert gconv.select(problem.with_direction(direction)).name.startswith(f"{direction}_")
    y_ref = F.conv2d(x.double(), w.double(), **args)
    y = gconv.conv_fwd(x, w, **args)
    assert y.shape == y_ref.shape and y.dtype == dtype and y.is_contiguous(memory_format=torch.channels_last)
    assert_close(y, y_ref, dtype)

    dy = torch.randn(y_ref.shape, generator=torch.Generator().manual_seed(1)).to(dtype)
    if layout == "channels_last":
        dy = dy.contiguous(memory_format=torch.channels_last)
    dx = gconv.conv_bwd_data(dy, w, tuple(x.shape), **args)
    assert_close(dx, torch.nn.grad.conv2d_input(x.shape, w.double(), dy.double(), **args), dtype)
    dw = gconv.conv_bwd_weight(x, dy, tuple(w.shape), **args)
    assert_close(dw, torch.nn.grad.conv2d_weight(x.double(), w.shape, dy.double(), **args), dtype)


def test_int_and_pair_arguments_give_the_same_problem():
    x, w = operands(CASES["grouped-odd"], torch.float32, "contiguous")
    a = gconv.Problem.from_tensors(x, w, stride=2, padding=1, dilation=2, groups=3)
    b = gconv.Problem.from_tensors(x, w, stride=(2, 2), padding=[1, 1], dilation=(2, 2), groups=3)
    assert a == b
    assert a.key == "fwd_fp32_n2_g3_c5_k7_hi11_wi9_y3_x3_s2x2_p1x1_d2x2"


def test_problem_as_written_in_the_design_selects_and_lists_kernels():
    problem = gconv.Problem(direction="fwd", dtype="bf16", N=32, G=32, C=4, K=4, Hi=56, Wi=56, Y=3, X=3,
                            stride_h=1, stride_w=1, pad_h=1, pad_w=1, dil_h=1, dil_w=1)
    names = gconv.kernels_for(problem)
    assert names[-1] == "cudnn" and len(names) > 5
    assert all(name.startswith("fwd_bf16_") for name in names[:-1])
    gconv.clear_cache()
    choice = gconv.select(problem)
    assert choice.name in names and choice.predicted_tflops > 0
    assert choice.source == "model"  # the checked-in heuristics/models/sm_90/fwd_bf16


def test_support_depends_only_on_the_support_key():
    """candidates() memoises per support_key: problems differing elsewhere must get the same support answers."""
    import random

    from gconv.runtime.padding import padding_for
    from gconv.runtime.registry import load_registry
    from gconv.runtime.support import support_key, unsupported_reason

    entries = load_registry("full").entries
    rng = random.Random(7)
    checked = 0
    for _ in range(60):
        fields = dict(direction=rng.choice(["fwd", "bwd_data", "bwd_weight"]), dtype=rng.choice(["fp16", "bf16"]),
                      G=rng.choice([1, 2, 3, 32]), C=rng.choice([1, 3, 6, 8, 16, 24]), K=rng.choice([1, 5, 8, 32]),
                      Y=rng.choice([1, 3, 7]), X=rng.choice([1, 3, 5]), stride_h=rng.choice([1, 2]),
                      stride_w=rng.choice([1, 2]), pad_h=rng.choice([0, 1, 3]), pad_w=rng.choice([0, 1]),
                      dil_h=rng.choice([1, 2]), dil_w=rng.choice([1, 2]))
        a = gconv.Problem(N=1, Hi=15, Wi=11, **fields)
        b = gconv.Problem(N=rng.choice([2, 32]), Hi=rng.randint(20, 90), Wi=rng.randint(20, 90), **fields)
        assert support_key(a) == support_key(b)
        for entry in entries:
            if entry.config.direction is a.direction and entry.config.dtype is a.dtype:
                assert unsupported_reason(entry.config, a) == unsupported_reason(entry.config, b), entry.name
                assert padding_for(entry.config, a) == padding_for(entry.config, b), entry.name
                checked += 1
    assert checked > 8_000


def test_row_dilation_is_part_of_the_support_key():
    """The sliding-rows kernels need row dilation 1: a dilated layer after an undilated one of the same shape must not
    inherit their memoised candidacy (it did before dil_h joined the key)."""
    from gconv.runtime.selection import kernels_for

    shape = dict(direction="fwd", dtype="fp32", N=1, G=6, C=1, K=2, Hi=12, Wi=12, Y=3, X=3, stride_h=2, pad_h=1,
                 pad_w=1)
    sliding = "fwd_fp32_depthwise_t4x8c64_f3_m2_sr2_w2_v1"
    assert sliding in kernels_for(gconv.Problem(**shape), "tiny")
    assert sliding not in kernels_for(gconv.Problem(**shape, dil_h=2), "tiny")


def test_gconv_vendor_0_in_the_environment_keeps_selections_to_the_instances():
    def competes(value):
        env = {k: v for k, v in os.environ.items() if k != "GCONV_VENDOR"} | ({"GCONV_VENDOR": value} if value else {})
        code = "from gconv.runtime import selection; print(selection.VENDOR_COMPETES)"
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                              check=True).stdout.strip()
    assert (competes(None), competes("1"), competes("0")) == ("True", "True", "False")


def test_selection_is_cached_per_problem():
    gconv.clear_cache()
    problem = gconv.Problem(direction="bwd_weight", dtype="fp32", N=8, G=4, C=24, K=24, Hi=14, Wi=14, Y=3, X=3,
                            pad_h=1, pad_w=1)
    first = gconv.select(problem)
    assert first.source == "rule"
    assert first.reason.startswith("fallback rule (no trained model for bwd_weight/fp32/sm_90): least estimated "
                                   "time of ")
    second = gconv.select(problem)
    assert (second.source, second.name, second.reason) == ("cache", first.name, f"cache ({first.reason})")
    other_set = gconv.select(problem, rule_set="full")
    assert other_set.source == "rule" and other_set.rule_set == "full"
    gconv.clear_cache()
    assert gconv.select(problem).source == "rule"


def test_a_forced_kernel_runs_and_pads_channels_it_needs_aligned():
    case = dict(N=2, G=2, C=6, K=6, H=7, W=7, Y=3, X=3, stride=1, padding=1, dilation=1)
    x, w = operands(case, torch.float16, "contiguous")
    name = "fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1"  # vector width 8: C=6 is padded to 8
    problem = gconv.Problem.from_tensors(x, w, padding=1, groups=2)
    assert name in gconv.kernels_for(problem, rule_set="tiny")
    y = gconv.conv_fwd(x, w, padding=1, groups=2, kernel=name, rule_set="tiny")
    assert_close(y, F.conv2d(x.double(), w.double(), padding=1, groups=2), torch.float16)
    vendor = gconv.conv_fwd(x, w, padding=1, groups=2, kernel="cudnn")
    assert_close(vendor, F.conv2d(x.double(), w.double(), padding=1, groups=2), torch.float16)


def test_forced_kernels_pad_both_channel_counts_in_every_direction():
    """C=6, K=6 per group under vector width 8: C and K padded to 8, the result unpadded, in all three directions."""
    case = dict(N=2, G=3, C=6, K=6, H=7, W=6, Y=3, X=3, stride=1, padding=1, dilation=1)
    x, w = operands(case, torch.float16, "channels_last")
    args = conv_args(case)
    y_ref = F.conv2d(x.double(), w.double(), **args)
    y = gconv.conv_fwd(x, w, **args, kernel="fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1", rule_set="tiny")
    assert_close(y, y_ref, torch.float16)
    dy = torch.randn(y_ref.shape, generator=torch.Generator().manual_seed(1)).to(torch.float16) \
        .contiguous(memory_format=torch.channels_last)
    dx_ref = torch.nn.grad.conv2d_input(x.shape, w.double(), dy.double(), **args)
    dx = gconv.conv_bwd_data(dy, w, x.shape, **args, kernel="bwd_data_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1",
                             rule_set="tiny")
    assert dx.shape == x.shape and dx.is_contiguous(memory_format=torch.channels_last)
    assert_close(dx, dx_ref, torch.float16)
    dw_ref = torch.nn.grad.conv2d_weight(x.double(), w.shape, dy.double(), **args)
    dw = gconv.conv_bwd_weight(x, dy, w.shape, **args, kernel="bwd_weight_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_sk1",
                               rule_set="tiny")
    assert dw.shape == w.shape and dw.is_contiguous(memory_format=torch.channels_last)
    assert_close(dw, dw_ref, torch.float16)


def test_depthwise_family_kernels_pad_three_channels_to_four_in_every_direction():
    """C=3 per group runs tiny's four-channel depthwise-family kernels (built for exactly C=4, K=1) with C padded to
    the next power of two, the result unpadded, in all three directions."""
    case = dict(N=2, G=8, C=3, K=1, H=6, W=7, Y=3, X=3, stride=1, padding=1, dilation=1)
    x, w = operands(case, torch.float16, "channels_last")
    args = conv_args(case)
    problem = gconv.Problem.from_tensors(x, w, **args)
    names = {direction: f"{direction}_fp16_depthwise_t4x8c16_f3_m1_cpg4_{tail}" for direction, tail in
             (("fwd", "sr1_w2_v8"), ("bwd_data", "sr1_w2_v8"), ("bwd_weight", "w4_v8_sk16la"))}
    assert names["fwd"] in gconv.kernels_for(problem, rule_set="tiny")
    y_ref = F.conv2d(x.double(), w.double(), **args)
    assert_close(gconv.conv_fwd(x, w, **args, kernel=names["fwd"], rule_set="tiny"), y_ref, torch.float16)
    dy = torch.randn(y_ref.shape, generator=torch.Generator().manual_seed(1)).to(torch.float16) \
        .contiguous(memory_format=torch.channels_last)
    dx_ref = torch.nn.grad.conv2d_input(x.shape, w.double(), dy.double(), **args)
    dx = gconv.conv_bwd_data(dy, w, x.shape, **args, kernel=names["bwd_data"], rule_set="tiny")
    assert dx.shape == x.shape
    assert_close(dx, dx_ref, torch.float16)
    dw_ref = torch.nn.grad.conv2d_weight(x.double(), w.shape, dy.double(), **args)
    dw = gconv.conv_bwd_weight(x, dy, w.shape, **args, kernel=names["bwd_weight"], rule_set="tiny")
    assert dw.shape == w.shape
    assert_close(dw, dw_ref, torch.float16)


def test_every_tiny_candidate_of_a_problem_gives_the_same_answer():
    """An exhaustive oracle runs kernels_for(problem) one by one with kernel=: each must be right."""
    case = CASES["grouped-odd"]
    x, w = operands(case, torch.float32, "channels_last")
    args = conv_args(case)
    expected = F.conv2d(x.double(), w.double(), **args)
    names = gconv.kernels_for(gconv.Problem.from_tensors(x, w, **args), rule_set="tiny")
    assert len(names) >= 3
    for name in names:
        assert_close(gconv.conv_fwd(x, w, **args, kernel=name, rule_set="tiny"), expected, torch.float32)


def test_numpy_runner_follows_ck_argument_order():
    case = CASES["grouped-odd"]
    x, w = operands(case, torch.float32, "contiguous")
    args = conv_args(case)
    problem = gconv.Problem.from_tensors(x, w, **args)
    y = gconv.Runner("fwd").run(x.numpy(), w.numpy(), problem)
    assert_close(torch.from_numpy(y), F.conv2d(x.double(), w.double(), **args), torch.float32)
    dy = torch.randn(problem.output_shape)
    dw = gconv.Runner("bwd_weight").run(x.numpy(), dy.numpy(), problem.with_direction("bwd_weight"))
    assert_close(torch.from_numpy(dw), torch.nn.grad.conv2d_weight(x.double(), w.shape, dy.double(), **args),
                 torch.float32)
    with pytest.raises(ValueError, match=r"^problem.direction is fwd but this Runner runs bwd_data$"):
        gconv.Runner("bwd_data").run(dy.numpy(), w.numpy(), problem)
    with pytest.raises(ValueError, match=r"^w must have shape \(21, 5, 3, 3\) for this problem, got \(21, 5, 3\)$"):
        gconv.Runner("fwd").run(x.numpy(), w.numpy()[..., 0], problem)


def test_conv2d_module_autograd_matches_torch():
    torch.manual_seed(0)
    reference = torch.nn.Conv2d(12, 8, 3, stride=2, padding=1, groups=4, bias=True).double()
    module = gconv.nn.Conv2d(12, 8, 3, stride=2, padding=1, groups=4, bias=True)
    with torch.no_grad():
        module.weight.copy_(reference.weight)
        module.bias.copy_(reference.bias)
    x = torch.randn(2, 12, 9, 9, dtype=torch.float64)
    x_ref, x_ours = x.clone().requires_grad_(), x.float().requires_grad_()
    reference(x_ref).square().sum().backward()
    module(x_ours).square().sum().backward()
    for ours, theirs in ((x_ours.grad, x_ref.grad), (module.weight.grad, reference.weight.grad),
                         (module.bias.grad, reference.bias.grad)):
        assert_close(ours, theirs, torch.float32)


def test_convert_swaps_eligible_convs_and_keeps_parameters():
    model = torch.nn.Sequential(torch.nn.Conv2d(4, 8, 3, padding="same", groups=2), torch.nn.ReLU(),
                                torch.nn.Sequential(torch.nn.Conv2d(8, 8, 3, padding=1, padding_mode="reflect")),
                                torch.nn.Conv2d(8, 8, 1, groups=8))
    weight = model[0].weight
    x = torch.randn(1, 4, 6, 6)
    expected = model(x)
    converted = gconv.nn.convert(model)
    assert [type(m).__name__ for m in (converted[0], converted[2][0], converted[3])] == ["Conv2d"] * 3
    assert isinstance(converted[0], gconv.nn.Conv2d) and isinstance(converted[3], gconv.nn.Conv2d)
    assert not isinstance(converted[2][0], gconv.nn.Conv2d)  # reflect padding stays with PyTorch
    assert converted[0].weight is weight
    assert (converted(x) - expected).abs().max().item() < 1e-4


def test_importing_gconv_loads_neither_torch_nor_triton():
    code = "import sys, gconv; gconv.Problem; print('torch' in sys.modules, 'triton' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout == "False False\n"


def test_cpu_without_the_interpreter_uses_the_vendor_path(monkeypatch):
    monkeypatch.delenv("TRITON_INTERPRET")
    x, w = operands(CASES["grouped-odd"], torch.float32, "contiguous")
    args = conv_args(CASES["grouped-odd"])
    assert_close(gconv.conv_fwd(x, w, **args), F.conv2d(x.double(), w.double(), **args), torch.float32)
    with pytest.raises(ValueError, match=r"^CPU tensors run gconv kernels only under the Triton interpreter: set "
                                         r"TRITON_INTERPRET=1 before importing gconv, or move the tensors to a CUDA "
                                         r"device$"):
        gconv.conv_fwd(x, w, **args, kernel="fwd_fp32_direct_p64c32_w4_v1", rule_set="tiny")


x4 = torch.zeros(2, 6, 8, 8)
w4 = torch.zeros(4, 3, 3, 3)
BAD_FWD = [
    (dict(x=[1, 2]), TypeError, "x must be a torch.Tensor, got list"),
    (dict(x=torch.zeros(2, 6, 8)), ValueError, "x must be 4-D (N, G*C, H, W), got shape (2, 6, 8)"),
    (dict(w=torch.zeros(4, 3, 3)), ValueError, "w must be 4-D (G*K, C, Y, X), got shape (4, 3, 3)"),
    (dict(x=x4.double()), TypeError, "x has dtype torch.float64; supported: torch.float16, torch.bfloat16, "
                                     "torch.float32"),
    (dict(w=w4.half()), TypeError, "w has dtype torch.float16 but x has dtype torch.float32"),
    (dict(w=w4.to("meta")), ValueError, "w is on meta but x is on cpu"),
    (dict(groups=0), ValueError, "groups must be positive, got 0"),
    (dict(groups=2.0), TypeError, "groups must be an int, got float"),
    (dict(groups=4), ValueError, "the input has 6 channels, not divisible by groups=4"),
    (dict(groups=3), ValueError, "the weight has 4 output channels, not divisible by groups=3"),
    (dict(w=torch.zeros(4, 2, 3, 3)), ValueError, "the weight has 2 input channels per group but the input has 6 "
                                                  "channels / groups=2 = 3"),
    (dict(stride=0), ValueError, "stride must be positive, got 0"),
    (dict(stride=(1, -1)), ValueError, "stride must be positive, got (1, -1)"),
    (dict(stride=(1, 2, 3)), TypeError, "stride must be an int or a pair of ints, got (1, 2, 3)"),
    (dict(stride="2"), TypeError, "stride must be an int or a pair of ints, got str"),
    (dict(dilation=0), ValueError, "dilation must be positive, got 0"),
    (dict(padding=-1), ValueError, "padding must be non-negative, got -1"),
    (dict(x=torch.zeros(2, 6, 2, 2)), ValueError, "output size would be 0x0: the dilated filter (3x3) is larger "
                                                  "than the padded input (2x2)"),
    (dict(x=torch.zeros(1, 1, 1, 1).expand(2, 6, 2**16, 2**13)), ValueError,
     "one image of x has 3221225472 elements; gconv's kernels index with 32-bit integers and slice batches only into "
     "whole images (at most 2147483647 elements per image)"),
    (dict(w=torch.zeros(1, 1, 1, 1).expand(2**15, 3, 2**12, 2**3)), ValueError,
     "w has 3221225472 elements; gconv's kernels index with 32-bit integers (at most 2147483647 elements per weight "
     "tensor; activations run in slices of whole images)"),
    (dict(kernel="fwd_fp32_nope"), ValueError, "kernel 'fwd_fp32_nope' is not in rule set 'default'; "
                                               "gconv.kernels_for(problem) lists the kernels that run this problem"),
    (dict(kernel="fwd_fp16_direct_p64c32_w4_v8", rule_set="tiny"), ValueError,
     "kernel 'fwd_fp16_direct_p64c32_w4_v8' cannot run this problem: kernel dtype fp16 != problem dtype fp32"),
    (dict(rule_set="huge"), ValueError, "rule_set must be one of full, full-tests, tiny, tests, profiler, default; "
                                        "got 'huge'"),
]


@pytest.mark.parametrize("changes, error, message", BAD_FWD, ids=[m[:40] for _, _, m in BAD_FWD])
def test_bad_forward_arguments_are_named(changes, error, message):
    args = dict(x=x4, w=w4, stride=1, padding=0, dilation=1, groups=2)
    args.update(changes)
    with pytest.raises(error) as raised:
        gconv.conv_fwd(args.pop("x"), args.pop("w"), **args)
    assert str(raised.value) == message


def test_bad_backward_arguments_are_named():
    dy = torch.zeros(2, 4, 6, 6)
    with pytest.raises(ValueError) as raised:
        gconv.conv_bwd_data(dy, w4, (2, 6, 9, 9), groups=2)
    assert str(raised.value) == ("dy has shape (2, 4, 6, 6) but the convolution's output is (2, 4, 7, 7) for these "
                                 "shapes, stride, padding and dilation")
    with pytest.raises(ValueError) as raised:
        gconv.conv_bwd_data(dy, w4, (2, 6, 8), groups=2)
    assert str(raised.value) == "input_shape must be 4 positive ints (N, G*C, H, W), got (2, 6, 8)"
    with pytest.raises(ValueError) as raised:
        gconv.conv_bwd_weight(x4, dy, (4, 3, 3, 0), groups=2)
    assert str(raised.value) == "weight_shape must be 4 positive ints (G*K, C, Y, X), got (4, 3, 3, 0)"
    with pytest.raises(TypeError) as raised:
        gconv.conv_bwd_weight(x4, dy.half(), (4, 3, 3, 3), groups=2)
    assert str(raised.value) == "dy has dtype torch.float16 but x has dtype torch.float32"


def test_bf16_on_the_cpu_interpreter_is_refused_clearly():
    x, w = x4.bfloat16(), w4.bfloat16()
    with pytest.raises(TypeError) as raised:
        gconv.conv_fwd(x, w, groups=2)
    assert str(raised.value) == ("bf16 tensors cannot run under the Triton interpreter (numpy has no bfloat16); use "
                                 "fp16 or fp32 on the CPU, or a CUDA device")
