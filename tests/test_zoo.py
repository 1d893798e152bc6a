"""bench/zoo_shapes.py and bench/zoo_report.py: real-network layers held out for evaluation, and their per-model
totals; and no shipped model trains on a held-out problem."""
import hashlib

import pytest
import torch

from gconv.bench.problems import read_problems
from gconv.bench.zoo_report import pass_totals, read_layers, shape_key, totals_table, trained_on_shapes
from gconv.bench.zoo_shapes import (ZooLayer, explicit_padding, write_layers, zoo_layer, zoo_problems)
from gconv.heuristics.dataset import ProblemMeasurements, read_measurements
from gconv.heuristics.model import locate_model
from gconv.paths import REPO_ROOT
from gconv.schemas import Direction, DType

SHAPE = dict(G=32, C=4, K=4, Hi=56, Wi=56, Y=3, X=3, stride_h=1, stride_w=1, pad_h=1, pad_w=1, dil_h=1, dil_w=1)


def test_a_grouped_conv2d_becomes_its_layer_shape_per_group():
    conv = torch.nn.Conv2d(128, 256, (5, 3), stride=2, padding=(2, 1), dilation=(1, 2), groups=32)
    assert zoo_layer("net", "blocks.0", conv, (28, 30)) == ZooLayer(
        model="net", layer="blocks.0", G=32, C=4, K=8, Hi=28, Wi=30, Y=5, X=3, stride_h=2, stride_w=2, pad_h=2,
        pad_w=1, dil_h=1, dil_w=2)
    same = torch.nn.Conv2d(16, 16, 5, padding="same", dilation=2, groups=16)
    assert zoo_layer("net", "dw", same, (14, 14)).pad_h == 4


def test_padding_the_convolution_cannot_state_is_refused():
    assert explicit_padding("valid", (3, 3), (1, 1), (1, 1)) == (0, 0)
    with pytest.raises(ValueError) as error:
        explicit_padding("same", (4, 4), (1, 1), (1, 1))
    assert str(error.value) == ("padding 'same' at stride (1, 1), filter (4, 4), dilation (1, 1) is asymmetric: not a "
                                "gconv problem")

    class Conv2dSame(torch.nn.Conv2d):  # timm's dynamic-padding convolutions are named so
        pass

    with pytest.raises(ValueError) as error:
        zoo_layer("net", "stem", Conv2dSame(8, 8, 3, stride=2, groups=8), (32, 32))
    assert str(error.value) == ("net stem: Conv2dSame pads its input itself ('same' padding at run time); its hooked "
                                "input size is not the convolution's")


def test_problems_are_each_distinct_shape_at_n32_in_every_direction_then_at_n1_in_fwd():
    a, b = ZooLayer(model="x", layer="a", **SHAPE), ZooLayer(model="y", layer="b", **{**SHAPE, "Hi": 28, "Wi": 28})
    again = ZooLayer(model="y", layer="c", **SHAPE)
    problems = zoo_problems([a, b, again], DType.bf16)
    assert [(p.direction.value, p.N, p.Hi) for p in problems] == [
        ("fwd", 32, 56), ("bwd_data", 32, 56), ("bwd_weight", 32, 56), ("fwd", 32, 28), ("bwd_data", 32, 28),
        ("bwd_weight", 32, 28), ("fwd", 1, 56), ("fwd", 1, 28)]
    assert zoo_problems([a, b, again], DType.bf16, frozenset(problems[1:6])) == [problems[0], *problems[6:]]


def test_the_layers_file_counts_each_models_layers_of_a_shape(tmp_path):
    layers = [ZooLayer(model="x", layer=f"l{i}", **SHAPE) for i in range(3)] + [ZooLayer(model="y", layer="m",
                                                                                         **SHAPE)]
    write_layers(tmp_path / "layers.csv", layers)
    assert [(layer.model, layer.layer, count) for layer, count in read_layers(tmp_path / "layers.csv")] == [
        ("x", "l0", 3), ("y", "m", 1)]


def test_pass_totals_sum_count_times_each_layers_time():
    layers = [(ZooLayer(model="x", layer="a", **SHAPE), 3), (ZooLayer(model="x", layer="b", **{**SHAPE, "C": 8}), 1)]
    measurements, selected = {}, {}
    for index, (layer, _) in enumerate(layers):
        for direction in Direction:
            for batch in (32, 1):
                problem = layer.problem(direction, DType.bf16, batch)
                measurements[problem.key] = ProblemMeasurements(problem=problem, kernels={"k1": 1.0 + index,
                                                                                         "k2": 3.0}, cudnn_ms=4.0,
                                                                vendor_ms=4.0)
                selected[problem.key] = 3.0
    # layer a's fwd shape was trained on as fp16 (a sibling dtype's problem): its 3 layers count in fwd N=32 only
    trained_on = frozenset({shape_key(layers[0][0].problem(Direction.fwd, DType.fp16, 32))})
    totals = pass_totals(layers, measurements, selected, DType.bf16, trained_on)
    assert [(t.direction, t.batch) for t in totals] == [("fwd", 32), ("bwd_data", 32), ("bwd_weight", 32), ("fwd", 1)]
    assert (totals[0].layers, totals[0].cudnn_ms, totals[0].selected_ms, totals[0].oracle_ms) == (4, 16.0, 12.0, 5.0)
    assert [t.trained_on for t in totals] == [3, 0, 0, 0]
    assert totals[0].speedup == pytest.approx(16 / 12) and totals[0].efficiency == pytest.approx(5 / 12)
    assert totals_table(totals).splitlines()[2].split() == ["x", "fwd", "32", "4", "3", "16000", "12000", "1.33x",
                                                            "5000", "41.7%"]
    del selected[layers[1][0].problem(Direction.bwd_data, DType.bf16, 32).key]
    with pytest.raises(ValueError) as error:
        pass_totals(layers, measurements, selected, DType.bf16)
    assert str(error.value) == ("x b: bwd_data_bf16_n32_g32_c8_k4_hi56_wi56_y3_x3_s1x1_p1x1_d1x1 has no complete "
                                "measurement (cuDNN and a pick)")


HELD_OUT_PROBLEM_FILES = ["zoo-timm-bf16.csv", "zoo2-timm-bf16.csv", "heldout-seed6007-synthetic-bf16.csv",
                          "heldout-seed6007-synthetic-fp16.csv",
                          "heldout-seed6011-synthetic-fp16.csv", "baseline-synthetic-bf16.csv", "baseline-synthetic-fp16.csv", "depthwise-synthetic-bf16.csv",
                          "depthwise-synthetic-fp16.csv", "tiny-groups-synthetic-bf16.csv"]


@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
@pytest.mark.parametrize("direction", ["fwd", "bwd_data", "bwd_weight"])
def test_no_shipped_model_trains_on_a_held_out_problem(direction, dtype):
    held_out = {p.key for name in HELD_OUT_PROBLEM_FILES for p in read_problems(REPO_ROOT / "bench" / "problems" / name)}
    shipped = locate_model(direction, dtype, "sm_90")
    files = [REPO_ROOT / f for f in shipped.metadata.data_files]
    assert hashlib.sha256(b"".join(f.read_bytes() for f in sorted(files))).hexdigest() == shipped.metadata.data_sha256
    trained_on = set(read_measurements(files))
    assert trained_on and not trained_on & held_out


def test_trained_on_shapes_are_the_shipped_models_training_problems_in_either_dtype():
    shapes = trained_on_shapes(DType.bf16, "sm_90", None)
    # the first rows of a bf16 and of an fp16 training file, and a held-out problem
    bf16 = read_problems(REPO_ROOT / "bench" / "problems" / "train-network-like-seed7-synthetic-bf16.csv")[0]
    fp16 = read_problems(REPO_ROOT / "bench" / "problems" / "train-seed5-synthetic-fp16.csv")[0]
    held_out = read_problems(REPO_ROOT / "bench" / "problems" / "heldout-seed6007-synthetic-bf16.csv")[0]
    assert shape_key(bf16) in shapes and shape_key(fp16.model_copy(update={"dtype": DType.bf16})) in shapes
    assert shape_key(held_out) not in shapes
