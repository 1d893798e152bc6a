"""The `loop_stages` template choice of the innermost loops without tensor cores (generator/render.py: the depthwise
and direct bwd_weight pixel loops, the direct fwd / bwd_data channel loops, the rolled depthwise tap loops):
tl.range(..., num_stages=N) against float64 under the interpreter, where it applies, and what it changes in the
sm_90 code (the loop's loads become cp.async copies into shared memory)."""
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest

from gconv.ci.compile_check import ptx_counts
from gconv.generator.render import Provenance, has_pipelinable_loop, render, template_choices, template_name
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_source_matches_reference

PROVENANCE = Provenance(("rules/x.yaml",), "test", (), "test")
CASES = [
    # (kernel, problem fields): several tiles per program (N x tiles > SPLIT_K), tiles cut by the image edge, groups no
    # block divides; depthwise with a multiplier, a tiny group, and the direct kernel's pixel chunks.
    ("bwd_weight_fp32_depthwise_t2x8c16_f5_m2_w4_v1_sk4", dict(N=3, G=9, K=2, Hi=10, Wi=9, Y=5, X=5, stride_h=2,
                                                                pad_h=2, pad_w=1, dil_w=2)),
    ("bwd_weight_fp16_depthwise_t4x8c32_f3_m1_w4_v8_sk1", dict(N=2, G=40, K=1, Hi=11, Wi=12, Y=3, X=3, stride_w=2,
                                                                pad_h=1, pad_w=1)),
    ("bwd_weight_fp32_depthwise_t8x8c8_f3_m1_cpg4_w4_v1_sk16", dict(N=3, G=6, C=4, K=1, Hi=12, Wi=9, Y=3, X=3,
                                                                     stride_h=2, pad_h=2, pad_w=1, dil_h=2)),
    ("bwd_weight_fp32_direct_p64c32_w4_v1_sk4", dict(N=3, G=5, C=3, K=2, Hi=9, Wi=11, Y=3, X=3, stride_h=2,
                                                      pad_h=1, pad_w=1)),
    # The direct kernels' channel (filter) loops, and the rolled tap-column loops (7x7 tiny groups roll theirs).
    ("fwd_fp32_direct_p64c32_w4_v1", dict(N=2, G=3, C=5, K=4, Hi=9, Wi=8, Y=3, X=3, stride_h=2, pad_h=1, pad_w=1)),
    ("bwd_data_fp32_direct_p64c32_w4_v1", dict(N=2, G=3, C=4, K=5, Hi=9, Wi=8, Y=3, X=3, stride_w=2, pad_h=1,
                                                pad_w=1)),
    ("fwd_fp16_depthwise_t4x8c16_f7_m1_cpg4_w4_v8", dict(N=1, G=24, C=4, K=1, Hi=12, Wi=10, Y=7, X=7, stride_w=2,
                                                          pad_h=3, pad_w=3)),
    ("bwd_data_fp32_depthwise_t2x4c16_f7_m2_cpg2_w2_v1", dict(N=2, G=7, C=2, K=2, Hi=13, Wi=11, Y=7, X=7,
                                                               stride_h=2, pad_h=3, pad_w=2, dil_w=2)),
]
TAP_COLUMNS = "for fx in tl.range(FILTER, loop_unroll_factor=1, num_stages=3):"
LOOP_BY_TEMPLATE = {  # the pipelined loop each template's source holds
    "depthwise_bwd_weight.py.j2": "for tile in tl.range(first, last, num_stages=3):",
    "direct_bwd_weight.py.j2": "for p0 in tl.range(p_start, p_end, BLOCK_P, num_stages=3):",
    "direct_fwd.py.j2": "for c in tl.range(C, num_stages=3):",
    "direct_bwd_data.py.j2": "for k in tl.range(K, num_stages=3):",
    "depthwise_fwd.py.j2": TAP_COLUMNS,
    "depthwise_bwd_data.py.j2": TAP_COLUMNS,
}


def _source(name: str, stages: str) -> str:
    return render(KernelConfig.from_name(name), PROVENANCE, {"loop_stages": stages})


@pytest.mark.parametrize("name, fields", CASES, ids=[name for name, _ in CASES])
def test_pipelined_pixel_loop_matches_float64_reference(name, fields, tmp_path):
    config = KernelConfig.from_name(name)
    source = _source(name, "3")
    assert source.count(LOOP_BY_TEMPLATE[template_name(config)]) == 1 and source.count("num_stages=3") == 1
    path = tmp_path / f"{name}.py"
    path.write_text(source)
    problem = Problem(direction=config.direction, dtype=config.dtype, **{"C": 1, **fields})
    assert_source_matches_reference(path, config, problem, seed=11)


def test_one_stage_is_the_plain_loop():
    for name, _ in CASES:
        config = KernelConfig.from_name(name)
        assert has_pipelinable_loop(config, template_choices(config)["tap_loop"])
        assert "num_stages=" not in _source(name, "1")


@pytest.mark.parametrize("name, default_stages", [(name, "3" if "bwd_weight" in name and "depthwise" in name else "1")
                                                  for name, _ in CASES])
def test_default_pipelines_only_the_depthwise_bwd_weight_pixel_loop(name, default_stages):
    # The H100 A/B (bench/results/loop-stages/): three stages won there, lost in the rolled tap loops, tied in direct.
    config = KernelConfig.from_name(name)
    assert template_choices(config)["loop_stages"] == default_stages
    assert render(config, PROVENANCE) == _source(name, default_stages)


@pytest.mark.parametrize("name", ["fwd_bf16_depthwise_t4x8c32_f3_m1_w2_v8",  # unrolled taps: no loop
                                  "fwd_bf16_depthwise_t4x16c32_f3_m1_sr1_w4_v8",  # sliding rows: not this choice's
                                  "bwd_weight_bf16_igemm_m64n64k32_w4_s3_ms_g1_v8_mg1_sk1"])  # pipelined by tl.dot
def test_templates_without_a_plain_loop_ignore_the_choice(name):
    config = KernelConfig.from_name(name)
    assert not has_pipelinable_loop(config, template_choices(config)["tap_loop"])
    assert _source(name, "3") == _source(name, "1")


ALIGNED = ("G", "sxn", "sxh", "sxw", "syn", "syh", "syw")  # as the JIT marks a channels_last problem of 16k channels


@pytest.mark.parametrize("name, plain_vector_loads", [
    ("bwd_weight_bf16_depthwise_t4x8c32_f3_m1_w4_v8_sk16", 4),  # one dy and three x tiles per step
    ("fwd_bf16_depthwise_t4x16c16_f7_m4_cpg4_w4_v8", 4),  # a 7x7 tiny-group forward's rolled tap columns
])
def test_pipelined_loop_copies_its_loads_asynchronously_on_sm_90(name, plain_vector_loads, tmp_path):
    counts = {}
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        for stages in ("1", "3"):
            path = tmp_path / f"{name}_{stages}.py"
            path.write_text(_source(name, stages))
            counts[stages] = pool.submit(ptx_counts, path, "sm_90", ALIGNED).result()
    # 16-byte vector loads in the plain loop; cp.async copies into shared memory when pipelined.
    assert counts["1"]["ld.global.v4.b32"] == plain_vector_loads and counts["1"]["cp.async.cg.shared.global"] == 0
    assert counts["3"]["cp.async.cg.shared.global"] > 0 and counts["3"]["ld.global.v4.b32"] == 0
