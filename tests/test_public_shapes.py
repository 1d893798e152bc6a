"""bench/public_shapes.py: DeepBench's non-vision layers as training problems, the committed file fresh."""
import pytest

import bench.public_shapes as public
from bench.problems import read_problems
from gconv.schemas import DType, Problem

COMMITTED = public.Path(__file__).parents[1] / "bench" / "problems" / "public-deepbench-bf16.csv"


def test_the_committed_problem_file_is_what_the_module_writes(tmp_path, capsys):
    out = tmp_path / "public.csv"
    assert public.main(["--dtype", "bf16", "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote 153 problems (51 layers x 3 directions) to {out}\n"
    assert out.read_text() == COMMITTED.read_text()
    assert not list(tmp_path.glob("*.tmp"))


def test_layers_are_dense_off_the_imagenet_sizes_and_as_deepbench_writes_them():
    problems = read_problems(COMMITTED)
    assert {p.G for p in problems} == {1} and {p.dtype for p in problems} == {DType.bf16}
    assert not [p for p in problems if p.Hi in public.IMAGENET_SIZES and p.Wi in public.IMAGENET_SIZES]
    first = next(p for p in problems if p.direction.value == "fwd")  # DeepSpeech's first layer: 20 wide, 5 high
    assert (first.Wi, first.Hi, first.X, first.Y, first.stride_w, first.stride_h) == (700, 161, 20, 5, 2, 2)
    assert (first.Wo, first.Ho) == (341, 79)  # the second layer's input, 341 x 79 with C = 32
    assert any((p.Wi, p.Hi, p.C, p.N) == (341, 79, 32, 32) for p in problems)


def test_an_imagenet_sized_layer_is_refused(monkeypatch):
    monkeypatch.setattr(public, "DEEPBENCH_LAYERS", [(56, 56, 64, 8, 64, 3, 3, 1, 1, 1, 1)])
    with pytest.raises(ValueError, match=r"^DeepBench layer 56x56 is at ImageNet sizes: a model-zoo layer$"):
        public.deepbench_problems(DType.bf16)


def test_duplicate_layers_count_once(monkeypatch):
    layer = (108, 108, 3, 8, 64, 3, 3, 1, 1, 2, 2)
    monkeypatch.setattr(public, "DEEPBENCH_LAYERS", [layer, layer])
    assert public.deepbench_problems(DType.fp16) == [
        Problem(direction=d, dtype="fp16", N=8, G=1, C=3, K=64, Hi=108, Wi=108, Y=3, X=3, stride_h=2, stride_w=2,
                pad_h=1, pad_w=1, dil_h=1, dil_w=1) for d in ("fwd", "bwd_data", "bwd_weight")]
