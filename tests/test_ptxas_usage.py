"""bench/ptxas_usage.py: the JIT's specialisation of a problem, depthwise kernels (a rolled bwd_data one, two of eight
filters a group) compiled for sm_90 on the CPU without spilling, vector kernels loading whole vectors where the JIT
cannot see the sizes aligned, and split bwd_weight kernels adding their partial sums without a fence per atomic
(two-stage ones without atomics)."""
import multiprocessing

import pytest
from concurrent.futures import ProcessPoolExecutor

from gconv.bench.ptxas_usage import (atomic_ops_one, integer_arguments, jit_specialisation, measure_one,
                                     memory_ops_one)
from gconv.generator.render import Provenance, render
from gconv.paths import REPO_ROOT
from gconv.runtime.registry import entries_by_name
from gconv.schemas import KernelConfig, Problem

PROBLEM = Problem(direction="bwd_data", dtype="bf16", N=32, G=64, C=1, K=4, Hi=64, Wi=64, Y=5, X=5, stride_h=1,
                  stride_w=1, pad_h=4, pad_w=4, dil_h=2, dil_w=2)


def test_integer_arguments_are_launchs_channels_last_strides():
    values = integer_arguments(PROBLEM)
    assert (values["Ho"], values["Wo"]) == (64, 64)
    assert [values[k] for k in ("sxn", "sxc", "sxh", "sxw")] == [64 * 64 * 64, 1, 64 * 64, 64]
    assert [values[k] for k in ("swk", "swc", "swy", "swx")] == [25, 1, 5, 1]
    assert [values[k] for k in ("syn", "syk", "syh", "syw")] == [64 * 64 * 256, 1, 64 * 256, 256]


def test_jit_specialisation_marks_multiples_of_16_and_ones():
    ints, ones = jit_specialisation(PROBLEM)
    assert ints == ("N", "G", "Hi", "Wi", "Ho", "Wo", "sxn", "sxh", "sxw", "syn", "syh", "syw")
    assert ones == ("C", "stride_h", "stride_w", "sxc", "swc", "swx", "syk")


def _eight_filter_problem(**fields) -> Problem:
    return Problem(direction=fields.pop("direction"), dtype="bf16", N=8, G=128, C=4, K=8, Hi=64, Wi=64, **fields)


SPILL_CASES = [
    # The rolled multiplier-4 kernel: unrolled, it spilled ~1-5 KB per thread (bench/results/tap-loop/).
    ("default", "bwd_data_bf16_depthwise_t4x16c32_f5_m4_w4_v8", PROBLEM),
    # Eight filters a group (bench/results/multiplier8/): the per-tap fwd tile that ran fastest most often, and the
    # eight-way split reduction of the sliding-rows bwd_data kernels (`full`) (the 16-group sliding fwd tiles spill
    # 0.4-5.5 KB a thread and are rarely near the best).
    ("default", "fwd_bf16_depthwise_t4x16c16_f5_m8_cpg4_w4_v8",
     _eight_filter_problem(direction="fwd", Y=5, X=5, stride_h=2, stride_w=2, pad_h=2, pad_w=2)),
    ("full", "bwd_data_bf16_depthwise_t4x8c8_f3_m8_cpg4_sr1_w2_v8",
     _eight_filter_problem(direction="bwd_data", Y=3, X=3, pad_h=1, pad_w=1)),
]


@pytest.mark.parametrize("rule_set, name, problem", SPILL_CASES, ids=[name for _, name, _ in SPILL_CASES])
def test_depthwise_kernels_compile_for_sm_90_without_spilling(rule_set, name, problem):
    entry = entries_by_name(rule_set)[name]
    # In a spawned interpreter, as `gconv check` compiles: this session may have imported Triton to interpret.
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        usage = pool.submit(measure_one, str(REPO_ROOT / entry.source), entry.name, problem, "sm_90").result()
    assert usage.stack_bytes == 0, usage
    assert 0 < usage.registers <= 255


@pytest.mark.parametrize("name, fields, expected", [
    # C = K = 24: a multiple of the vector width 8 the JIT sees divisible by 8 only (it specialises on 16): every
    # masked channel run was loaded and stored 2 bytes at a time, now in 16-byte asynchronous copies.
    ("bwd_data_bf16_igemm_m128n32k32_w4_s3_ms_g1_v8_mg1", dict(G=16, C=24, K=24, Hi=128, Wi=128),
     {"LDGSTS.E.BYPASS.128": 15, "STG.E.128": 4}),
    # G * C = 456, the row stride, not a multiple of 16 either: the store went 2 bytes at a time (32 STG.E.U16, each
    # element's pixel decoded in the store's layout) until it said its offsets come VEC at a time (session 46).
    ("bwd_data_bf16_igemm_m128n32k32_w4_s3_ms_g1_v8_mg1", dict(G=19, C=24, K=24, Hi=64, Wi=64, stride_h=2, stride_w=2),
     {"LDGSTS.E.BYPASS.128": 15, "STG.E.128": 4}),
    # Tiny groups, G = 8: the [pixels, G * C/G] input tile in two 16-byte loads a tap (eight 4-byte ones before);
    # the one 2-byte load is a weight.
    ("fwd_bf16_depthwise_t4x8c16_f7_m2_cpg2_w2_v8", dict(G=8, C=2, K=2, Hi=128, Wi=128, Y=7, X=7, pad_h=3, pad_w=3),
     {"LDG.E.128": 2, "LDG.E.U16": 1, "STG.E.128": 2}),
])
def test_vector_kernels_load_whole_vectors_where_the_jit_cannot_see_the_sizes_aligned(name, fields, expected):
    entry = entries_by_name("default")[name]
    problem = Problem(direction=entry.config.direction, dtype="bf16", N=32, **{"Y": 3, "X": 3, "pad_h": 1,
                                                                                "pad_w": 1, **fields})
    assert any(getattr(problem, size) % 16 for size in entry.config.vector_aligned_sizes)  # unseen by the JIT
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        ops = pool.submit(memory_ops_one, str(REPO_ROOT / entry.source), problem, "sm_90").result()
    assert dict(ops) == expected


# acq_rel, tl.atomic_add's default, made each partial sum's atomic a MEMBAR.ALL.GPU, an ATOMG whose result is awaited
# and a CCTL.IVALL (64 of each a thread for the 64 x 128 tile below); relaxed ones are fire-and-forget REDG
# (render.py ATOMICS). Last arrival keeps one acq_rel counter increment (ATOMG.E.ADD, its fence and invalidation) and
# the counter's reset (ATOMG.E.EXCH).
@pytest.mark.parametrize("name, expected", [
    ("bwd_weight_bf16_igemm_m64n128k32_w4_s3_ms_g8_v8_mg1_sk16la",
     {"REDG.E.ADD.F32.FTZ.RN.STRONG.GPU": 64, "ATOMG.E.ADD.STRONG.GPU": 1, "ATOMG.E.EXCH.STRONG.GPU": 1,
      "MEMBAR.ALL.GPU": 2, "MEMBAR.ALL.CTA": 1, "CCTL.IVALL": 2}),
    ("bwd_weight_bf16_igemm_m32n64k32_w4_s3_ms_g1_v8_mg2_sk8", {"REDG.E.ADD.F32.FTZ.RN.STRONG.GPU": 16}),
    ("bwd_weight_bf16_depthwise_t4x16c32_f3_m1_sr1_w4_v8_sk64la",
     {"REDG.E.ADD.F32.FTZ.RN.STRONG.GPU": 3, "ATOMG.E.ADD.STRONG.GPU": 1, "ATOMG.E.EXCH.STRONG.GPU": 1,
      "MEMBAR.ALL.GPU": 2, "CCTL.IVALL": 2}),
])
def test_split_kernels_add_partial_sums_without_a_fence_each(name, expected):
    entry = entries_by_name("default")[name]
    problem = Problem(direction="bwd_weight", dtype="bf16", N=32, G=32, C=24, K=24, Hi=64, Wi=64, Y=3, X=3, stride_h=1,
                      stride_w=1, pad_h=1, pad_w=1, dil_h=1, dil_w=1)
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        ops = pool.submit(atomic_ops_one, str(REPO_ROOT / entry.source), problem, "sm_90").result()
    assert dict(ops) == expected


def test_a_two_stage_depthwise_kernel_stores_its_partial_sums_without_atomics(tmp_path):
    """A two-stage split (no rule set holds one yet: rendered from the templates) compiled for sm_90 stores each
    split's sums in its own slice: none of the reductions, atomics or fences of the sk64la kernel above."""
    config = KernelConfig.from_name("bwd_weight_bf16_depthwise_t4x16c32_f3_m1_sr1_w4_v8_sk64ts")
    source = tmp_path / f"{config.name}.py"
    source.write_text(render(config, Provenance(("rules/x.yaml",), "test", (), "test")))
    problem = Problem(direction="bwd_weight", dtype="bf16", N=32, G=32, C=1, K=1, Hi=64, Wi=64, Y=3, X=3, pad_h=1,
                      pad_w=1)
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        ops = pool.submit(atomic_ops_one, str(source), problem, "sm_90").result()
    assert dict(ops) == {}
