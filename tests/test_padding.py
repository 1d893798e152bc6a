"""Channel padding's copies (runtime/padding.py): zero channels appended per group, and dropped again, in
channels_last memory."""
import pytest
import torch

from gconv.runtime.padding import (ChannelPadding, pad_activation, pad_weight, padding_for, unpad_activation,
                                   unpad_weight)
from gconv.schemas import KernelConfig, Problem


def _activation(n, groups, c, h, w, layout):
    t = torch.arange(n * groups * c * h * w, dtype=torch.float64).reshape(n, groups * c, h, w) + 1
    return t.contiguous(memory_format=torch.channels_last) if layout == "channels_last" else t


@pytest.mark.parametrize("layout", ["channels_last", "contiguous"])
def test_pad_activation_appends_zero_channels_to_each_group_and_unpad_drops_them(layout):
    t = _activation(2, 3, 5, 4, 3, layout)
    padded = pad_activation(t, groups=3, per_group=8)
    assert padded.shape == (2, 24, 4, 3) and padded.is_contiguous(memory_format=torch.channels_last)
    for g in range(3):
        assert torch.equal(padded[:, 8 * g:8 * g + 5], t[:, 5 * g:5 * g + 5])
        assert not padded[:, 8 * g + 5:8 * g + 8].any()
    back = unpad_activation(padded, groups=3, per_group=5)
    assert torch.equal(back, t) and back.is_contiguous(memory_format=torch.channels_last)


def test_pad_weight_pads_filters_and_channels_per_group_and_unpad_drops_them():
    w = (torch.arange(2 * 3 * 5 * 3 * 2, dtype=torch.float64).reshape(6, 5, 3, 2) + 1) \
        .contiguous(memory_format=torch.channels_last)
    padded = pad_weight(w, groups=2, per_group_k=4, per_group_c=8)
    assert padded.shape == (8, 8, 3, 2) and padded.is_contiguous(memory_format=torch.channels_last)
    for g in range(2):
        assert torch.equal(padded[4 * g:4 * g + 3, :5], w[3 * g:3 * g + 3])
        assert not padded[4 * g + 3].any() and not padded[4 * g:4 * g + 4, 5:].any()
    back = unpad_weight(padded, groups=2, per_group_k=3, per_group_c=5)
    assert torch.equal(back, w) and back.is_contiguous(memory_format=torch.channels_last)


def test_nothing_to_pad_returns_the_tensor_itself():
    t = _activation(1, 2, 8, 3, 3, "channels_last")
    assert pad_activation(t, 2, 8) is t and unpad_activation(t, 2, 8) is t


def test_the_benchmark_baseline_copies_give_the_same_tensors():
    """bench/padding_speed.py times the copies this module replaced against it: both must compute the same thing."""
    from gconv.bench import padding_speed as old

    t = _activation(2, 3, 5, 4, 3, "channels_last")
    assert torch.equal(old.transposing_pad_activation(t, 3, 8), pad_activation(t, 3, 8))
    assert torch.equal(old.transposing_unpad_activation(pad_activation(t, 3, 8), 3, 5), t)
    w = torch.randn(6, 5, 3, 2, dtype=torch.float64).contiguous(memory_format=torch.channels_last)
    assert torch.equal(old.transposing_pad_weight(w, 2, 4, 8), pad_weight(w, 2, 4, 8))
    assert torch.equal(old.transposing_unpad_weight(pad_weight(w, 2, 4, 8), 2, 3, 5), w)


def _grouped(C, K, **fields):
    return Problem(direction="fwd", dtype="bf16", N=1, G=16, C=C, K=K, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1,
                   **fields)


@pytest.mark.parametrize("C, K, size, padded", [(3, 3, "m4_cpg4", (4, 4)), (3, 1, "m1_cpg4", (4, 1)),
                                                (2, 3, "m4_cpg2", (2, 4)), (3, 4, "m4_cpg4", (4, 4)),
                                                (4, 4, "m4_cpg4", None), (3, 5, "m4_cpg4", None),
                                                (1, 1, "m1_cpg4", None), (5, 4, "m4_cpg4", None),
                                                (3, 6, "m8_cpg4", (4, 8)), (4, 5, "m8_cpg4", (4, 8)),
                                                (3, 5, "m8_cpg4", None)])
def test_depthwise_family_kernels_pad_channels_to_the_next_power_of_two(C, K, size, padded):
    """A depthwise-family kernel is built for exactly C = group_channels and K = multiplier; other channel counts pad
    up to the next power of two where that is its size and the work at most doubles (3 x 5 -> 4 x 8 would not; 4 x 4
    runs unpadded; 5 is more than the kernel's 4). The eight-filter kernels take 3 x 6 and 4 x 5."""
    config = KernelConfig.from_name(f"fwd_bf16_depthwise_t4x16c16_f3_{size}_w4_v8")
    expected = None if padded is None else ChannelPadding(C=C, K=K, padded_C=padded[0], padded_K=padded[1])
    assert padding_for(config, _grouped(C, K)) == expected


@pytest.mark.parametrize("name, C, K", [("fwd_bf16_depthwise_t4x16c16_f3_m8_cpg4_w4_v8", 4, 4),
                                        ("fwd_bf16_depthwise_t4x16c16_f3_m4_cpg2_w4_v4", 2, 2)])
def test_no_alignment_pads_a_depthwise_family_kernel(name, C, K):
    """Its vectors run along the groups: 4 x 4 is not padded to 4 x 8 for the 16-byte alignment, nor 2 x 2 to 2 x 4
    for 4-wide vectors (kernels of twice the work, never the fastest: bench/results/multiplier8/)."""
    assert padding_for(KernelConfig.from_name(name), _grouped(C, K)) is None


def test_a_depthwise_problem_is_not_padded_into_a_grouped_one():
    """C = 1 is its own power of two: the one-channel kernels run it, never the two-channel ones at twice the work."""
    config = KernelConfig.from_name("fwd_bf16_depthwise_t4x16c16_f3_m1_cpg2_w4_v8")
    assert padding_for(config, _grouped(1, 1)) is None
