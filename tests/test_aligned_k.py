"""The forward implicit-GEMM twins that read K as a multiple of the vector width (`_ak`, KernelConfig.aligned_k): their
store goes whole vectors at a time where the base's goes element by element (K % 16 != 0), they run only such K, they
compute right under the interpreter (merged groups and tap-major too), and the axis belongs to the vector igemm fwd
kernels only. bench/results/fwd-store/ has the device A/B."""
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest
from pydantic import ValidationError

from gconv.bench.ptxas_usage import memory_ops_one
from gconv.paths import REPO_ROOT
from gconv.runtime.registry import entries_by_name
from gconv.runtime.support import unsupported_reason
from gconv.schemas import KernelConfig, Problem

from interpreter_numerics import assert_rendered_matches_reference, assert_source_matches_reference

TWIN = "fwd_bf16_igemm_m128n64k32_w4_s3_ms_g8_v8_mg1_ak"


def problem(**fields) -> Problem:
    return Problem(**{"direction": "fwd", "dtype": "bf16", "N": 32, "G": 19, "C": 24, "K": 24, "Hi": 64, "Wi": 64,
                      "Y": 3, "X": 3, "pad_h": 1, "pad_w": 1, **fields})


def test_the_name_round_trips_and_the_twin_aligns_k():
    config = KernelConfig.from_name(TWIN)
    assert config.aligned_k and config.name == TWIN and config.vector_aligned_sizes == ("C", "K")
    assert KernelConfig.from_name(TWIN.removesuffix("_ak")).vector_aligned_sizes == ("C",)


@pytest.mark.parametrize("name", ["bwd_data_bf16_igemm_m128n64k32_w4_s3_ms_g8_v8_mg1_ak",
                                  "fwd_bf16_igemm_m128n64k32_w4_s3_ms_g8_v1_mg1_ak"])
def test_only_vector_forward_implicit_gemms_take_the_axis(name):
    with pytest.raises(ValidationError) as raised:
        KernelConfig.from_name(name)
    assert raised.value.errors()[0]["msg"] == (
        "Value error, aligned_k is an axis of the igemm fwd kernels of vector width > 1 (they read K as a multiple of "
        "it and store whole vectors)")


def test_twins_run_only_k_a_multiple_of_the_vector_but_not_of_16():
    config = entries_by_name("full")[TWIN].config
    assert unsupported_reason(config, problem()) is None
    assert unsupported_reason(config, problem(K=32)) == (
        "aligned_k twins run only K % 16 != 0 (K=32): their bases store whole vectors there")
    assert unsupported_reason(config, problem(K=20)) == "vector width 8 needs K % 8 == 0 (K=20)"


def test_the_twin_stores_whole_vectors_where_its_base_stores_elements():
    entries = entries_by_name("full")
    sources = [str(REPO_ROOT / entries[name].source) for name in (TWIN, TWIN.removesuffix("_ak"))]
    # In a spawned interpreter, as `gconv check` compiles: this session may have imported Triton to interpret.
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
        twin, base = pool.map(memory_ops_one, sources, [problem()] * 2, ["sm_90"] * 2)
    assert (twin["STG.E.128"], base["STG.E.U16"]) == (8, 64) and "STG.E.U16" not in twin


@pytest.mark.parametrize("name, fields", [
    ("fwd_fp16_igemm_m64n32k32_w4_s3_ms_g8_v8_mg1_ak", dict(G=3, C=8, K=24, Hi=9, Wi=7)),
    ("fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_ak", dict(G=2, C=16, K=40, Hi=6, Wi=9, stride_h=2, dil_w=2,
                                                           pad_w=2)),
    ("fwd_fp16_igemm_m128n64k64_w8_s3_ms_g8_v8_mg2_ak", dict(G=3, C=24, K=24, Hi=7, Wi=9, pad_h=1, pad_w=1)),
])
def test_twins_of_full_compute_right(name, fields):
    entry = entries_by_name("full")[name]
    assert_source_matches_reference(REPO_ROOT / entry.source, entry.config,
                                    problem(dtype="fp16", N=2, **fields), seed=3)


@pytest.mark.parametrize("name", ["fwd_fp16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg2_ak",
                                  "fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_tm_ak"])
def test_merged_and_tap_major_twins_compute_right(name, tmp_path):
    assert_rendered_matches_reference(KernelConfig.from_name(name), problem(dtype="fp16", N=2, G=4, C=8, K=24,
                                                                             Hi=7, Wi=8), tmp_path, seed=5)
