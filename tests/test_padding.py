"""Channel padding's copies (runtime/padding.py): zero channels appended per group, and dropped again, in
channels_last memory."""
import pytest
import torch

from gconv.runtime.padding import pad_activation, pad_weight, unpad_activation, unpad_weight


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
