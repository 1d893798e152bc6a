"""split_image (runtime/split_image.py) under the Triton interpreter: with the indexing limit shrunk to a few images,
batches run as slices of whole images, and every direction still equals the float64 reference; the slices and the
errors are exact."""
import pytest
import torch

from gconv.runtime import api, split_image
from gconv.runtime.reference import INTERPRETER_ERROR_BOUND, random_operands, reference, relative_error
from gconv.schemas import DType, Problem

PROBLEM = dict(dtype="fp32", N=5, G=2, C=4, K=4, Hi=6, Wi=6, Y=3, X=3, pad_h=1, pad_w=1)


def test_slices_are_whole_images_within_the_limit(monkeypatch):
    problem = Problem(direction="fwd", **PROBLEM)
    per_image = split_image.image_elements(problem)
    assert per_image == 2 * 4 * 6 * 6
    monkeypatch.setattr(split_image, "LIMIT", 2 * per_image + 1)
    assert split_image.needs_slices(problem)
    assert split_image.batch_slices(problem) == [(0, 2), (2, 4), (4, 5)]
    monkeypatch.setattr(split_image, "LIMIT", 5 * per_image)
    assert not split_image.needs_slices(problem)
    assert split_image.batch_slices(problem) == [(0, 5)]


def test_one_image_beyond_the_limit_is_refused(monkeypatch):
    problem = Problem(direction="bwd_data", **PROBLEM)
    monkeypatch.setattr(split_image, "LIMIT", 100)
    with pytest.raises(ValueError) as error:
        split_image.batch_slices(problem)
    assert str(error.value) == ("one image of this problem has 288 elements (x: G*C*Hi*Wi, y: G*K*Ho*Wo); gconv's "
                                "kernels index with 32-bit integers and slice batches only into whole images (at "
                                "most 100 elements per image)")


@pytest.mark.parametrize("direction", ["fwd", "bwd_data", "bwd_weight"])
@pytest.mark.parametrize("kernel", [None, "cudnn"])
def test_sliced_batches_equal_the_reference(monkeypatch, direction, kernel):
    problem = Problem(direction=direction, **PROBLEM)
    monkeypatch.setattr(split_image, "LIMIT", 2 * split_image.image_elements(problem))
    launched = []
    execute = api.execute

    def counting(part, a, b, **kwargs):
        launched.append(part.N)
        return execute(part, a, b, **kwargs)

    monkeypatch.setattr(api, "execute", counting)
    a, b = random_operands(problem, seed=3)
    out = counting(problem, a, b, kernel=kernel, rule_set="tests")
    assert launched == [5, 2, 2, 1]  # the whole problem, then its slices
    assert out.dtype == torch.float32 and out.is_contiguous(memory_format=torch.channels_last)
    assert relative_error(out, reference(problem, a, b)) < INTERPRETER_ERROR_BOUND[DType.fp32]
