"""The `weight_loads` template choice of the implicit-GEMM bwd_data kernels with scalar loads (generator/render.py
WEIGHT_LOADS): "step_ahead" loads the next reduction step's weights before this step's multiply. Under the interpreter
against float64 (one input channel at stride 2, steps that cross taps, classes no tap reaches, grouped channels),
compiled for sm_90 without spills, and where it applies; the shipped kernels keep "in_step"."""
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest

from gconv.bench.ptxas_usage import measure_one
from gconv.generator.render import Provenance, has_weight_loads, render, template_choices
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_source_matches_reference

PROVENANCE = Provenance(("rules/x.yaml",), "test", (), "test")
AHEAD = "b = b_next"
CASES = [
    # (kernel, problem fields): one input channel, K = 20 (a 32-deep step holds parts of two taps), stride 2 with
    # a filter wider than tall: four residue classes with 2-3 taps each; two images.
    ("bwd_data_fp16_igemm_m64n16k32_w2_s3_ms_g1_v1_mg1", dict(N=2, G=1, C=1, K=20, Hi=13, Wi=22, Y=3, X=5,
                                                              stride_h=2, stride_w=2, pad_w=1)),
    # Stride 3 with a 2x2 filter: some classes no tap reaches (no steps at all); K = 40 over two steps a tap.
    ("bwd_data_fp32_igemm_m64n32k32_w4_s3_ms_g1_v1_mg1", dict(N=1, G=2, C=3, K=40, Hi=10, Wi=11, Y=2, X=2,
                                                              stride_h=3, stride_w=3)),
    # Grouped, 5 channels a group over one 16-wide column tile, dilation 2 with padding.
    ("bwd_data_fp32_igemm_m128n16k32_w4_s3_ms_g1_v1_mg1", dict(N=2, G=3, C=5, K=7, Hi=9, Wi=8, Y=3, X=3, pad_h=2,
                                                               pad_w=2, dil_h=2, dil_w=2)),
]


def _source(name: str, choice: str) -> str:
    return render(KernelConfig.from_name(name), PROVENANCE, {"weight_loads": choice})


@pytest.mark.parametrize("name, fields", CASES, ids=[name for name, _ in CASES])
def test_weights_a_step_ahead_match_float64_reference(name, fields, tmp_path):
    config = KernelConfig.from_name(name)
    source = _source(name, "step_ahead")
    assert source.count(AHEAD) == 1
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    assert_source_matches_reference(path, config, Problem(direction="bwd_data", dtype=config.dtype, **fields), seed=4)


@pytest.mark.parametrize("name, applies", [
    ("bwd_data_bf16_igemm_m64n16k32_w2_s3_ms_g1_v1_mg1", True),
    ("bwd_data_bf16_igemm_m64n16k32_w2_s3_ms_g1_v1_mg1_tm", False),  # tap-major walk
    ("bwd_data_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg1", False),  # vector loads, pipelined by Triton
    ("bwd_data_bf16_igemm_m64n32k32_w4_s3_ms_g1_v1_mg8", False),  # merged groups
    ("fwd_bf16_igemm_m64n16k32_w2_s3_ms_g1_v1_mg1", False),
])
def test_only_the_scalar_flat_bwd_data_walk_takes_the_choice(name, applies):
    config = KernelConfig.from_name(name)
    assert has_weight_loads(config) is applies and template_choices(config)["weight_loads"] == "in_step"
    assert (_source(name, "step_ahead") != _source(name, "in_step")) is applies
    assert render(config, PROVENANCE) == _source(name, "in_step")


def test_an_incremental_walk_keeps_its_weights_in_step():
    name = "bwd_data_bf16_igemm_m64n16k32_w2_s3_ms_g1_v1_mg1"
    both = render(KernelConfig.from_name(name), PROVENANCE, {"weight_loads": "step_ahead", "k_walk": "incremental"})
    assert both == render(KernelConfig.from_name(name), PROVENANCE, {"k_walk": "incremental"})


def test_the_step_ahead_twin_compiles_for_sm_90_without_spills(tmp_path):
    """For DeepBench's one-channel layer, in a spawned interpreter as `gconv check` compiles (this session may have
    imported Triton to interpret)."""
    name = "bwd_data_bf16_igemm_m64n16k32_w2_s3_ms_g1_v1_mg1"
    problem = Problem(direction="bwd_data", dtype="bf16", N=32, G=1, C=1, K=32, Hi=161, Wi=700, Y=5, X=20,
                      stride_h=2, stride_w=2)
    path = tmp_path / f"{name}.py"
    path.write_text(_source(name, "step_ahead"))
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        usage = pool.submit(measure_one, str(path), name, problem, "sm_90").result()
    assert usage.stack_bytes == 0 and 0 < usage.registers <= 255, usage
