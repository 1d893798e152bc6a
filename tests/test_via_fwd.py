"""via_fwd: bwd_data instances that run a stride-1 problem as its forward twin (Problem.forward_twin) on the forward
kernel of the same axes. Names, validation, rules, sources, support, the estimate and the features; numerics under
the interpreter are in test_forward_twin.py, the C selector's agreement in test_native_selector.py."""
import math

import numpy as np
import pytest
from pydantic import ValidationError

from gconv.errors import RuleError
from gconv.generator.render import Provenance, render
from gconv.heuristics.analytic import estimate, twin_filter_seconds
from gconv.heuristics.features import (DERIVED_FEATURES, FEATURE_NAMES, derived_features, feature_matrix,
                                       feature_rows, problem_features)
from gconv.runtime.padding import padded_problem, padding_for
from gconv.runtime.registry import entries_by_name, load_arch_spec
from gconv.runtime.selection import candidates
from gconv.runtime.support import unsupported_reason
from gconv.schemas import KernelConfig, Problem, Rule

FWD = "fwd_bf16_igemm_m128n64k32_w4_s3_ms_g8_v8_mg1"
VIA = "bwd_data_bf16_igemm_m128n64k32_w4_s3_ms_g8_v8_mg1_vf"
SPEC = load_arch_spec("sm_90")


def bwd_data(**fields) -> Problem:
    sizes = dict(N=4, G=4, C=40, K=24, Hi=14, Wi=12, Y=3, X=3, pad_h=1, pad_w=1)
    return Problem(direction="bwd_data", dtype="bf16", **{**sizes, **fields})


def test_the_name_round_trips_and_the_kernel_is_the_forward_one():
    config = KernelConfig.from_name(VIA)
    assert config.via_fwd and config.name == VIA
    assert config.kernel == KernelConfig.from_name(FWD)
    assert config.kernel is KernelConfig.from_name(VIA).kernel  # one object: the feature caches key on identity
    assert KernelConfig.from_name(FWD).kernel is not None and not KernelConfig.from_name(FWD).via_fwd
    split = KernelConfig.from_name("bwd_data_bf16_igemm_m64n64k64_w4_s3_ms_g8_v8_mg1_vf_sk4la")
    assert split.split_k == 4 and split.last_arrival and split.kernel.direction.value == "fwd"


def test_vector_sizes_are_named_in_the_bwd_data_problems_terms():
    """The forward kernel vectorises its twin's C (and with aligned_k its K): the problem's K (and C)."""
    assert KernelConfig.from_name(VIA).vector_aligned_sizes == ("K",)
    aligned = KernelConfig.from_name("bwd_data_bf16_igemm_m128n64k32_w4_s3_ms_g8_v8_mg1_ak_vf")
    assert aligned.vector_aligned_sizes == ("K", "C")


@pytest.mark.parametrize("name, message", [
    ("fwd_bf16_igemm_m128n64k32_w4_s3_ms_g8_v8_mg1_vf",
     "via_fwd is an axis of the igemm bwd_data kernels (a stride-1 bwd_data problem runs as its forward twin on a "
     "forward kernel), got fwd igemm"),
    ("bwd_data_bf16_igemm_m64n32k32_w4_s3_ms_g8_v8_mg2_xg_vf",
     "via_fwd runs the forward kernel of the same axes, which is invalid: explicit_gemm is an axis of the igemm fwd "
     "kernels of one group per tile, multistage or tma, without tap_major (a 1x1 filter has one tap)"),
])
def test_invalid_via_configs_are_refused_with_the_reason(name, message):
    with pytest.raises(ValidationError) as raised:
        KernelConfig.from_name(name)
    assert raised.value.errors()[0]["msg"] == f"Value error, {message}"


def test_a_rule_makes_twins_only_of_igemm_with_bwd_data_among_its_directions():
    base = dict(name="r", dtypes=["bf16"], algorithm="igemm", tiles=[{"block_m": 64, "block_n": 64, "num_warps": [4]}],
                via_fwd=[True])
    assert Rule(**base, directions=["fwd", "bwd_data"]).via_fwd == [True]
    with pytest.raises(ValidationError) as raised:
        Rule(**base, directions=["fwd"])
    assert raised.value.errors()[0]["msg"] == (
        "Value error, via_fwd: [true] makes bwd_data twins of igemm forward kernels: it needs the igemm algorithm and "
        "bwd_data among the directions")


def test_full_twins_every_igemm_forward_kernel_and_the_derived_sets_keep_them_deliberately():
    full = entries_by_name("full")
    forward = {name for name, e in full.items() if e.config.direction.value == "fwd"
               and e.config.algorithm.value == "igemm"}
    twins = {name for name, e in full.items() if e.config.via_fwd}
    assert {full[name].config.kernel.name for name in twins} == forward
    assert all(full[name].rule == full[full[name].config.kernel.name].rule for name in twins)
    assert [name for name, e in entries_by_name("tiny").items() if e.config.via_fwd] == [  # the C library's set
        "bwd_data_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1_vf"]
    for rule_set in ("default", "profiler"):  # the twins of the merged pixel boxes (bench/results/bwd-data-via-fwd/)
        kept = {e.config.kernel.name for e in entries_by_name(rule_set).values() if e.config.via_fwd}
        assert kept == {name for name, e in entries_by_name(rule_set).items()
                        if e.rule == "igemm-fwd-merge-boxes" and not e.config.via_fwd}, rule_set
    for rule_set in ("tests", "full-tests"):
        assert any(e.config.via_fwd for e in entries_by_name(rule_set).values()), rule_set


def test_the_source_is_the_forward_kernels_under_the_twins_name():
    via = KernelConfig.from_name(VIA)
    provenance = Provenance(rule_files=("rules/full.yaml",), rule="igemm-fwd", selected_by=(),
                            regenerate="gconv generate --all")
    twin_lines = render(via, provenance).splitlines()
    base_lines = render(via.kernel, provenance).splitlines()
    runs = [line for line in twin_lines if line.startswith("# Runs:")]
    assert runs == ["# Runs:       stride-1 bwd_data as its forward twin (dY, the flipped channel-swapped filter -> dX) "
                    "on this forward kernel"]
    twin_lines.remove(runs[0])
    changed = [(a, b) for a, b in zip(twin_lines, base_lines) if a != b]
    assert len(twin_lines) == len(base_lines)
    assert changed == [(f"# Instance:   {VIA}", f"# Instance:   {FWD}"), (f'NAME = "{VIA}"', f'NAME = "{FWD}"')]


def test_support_is_the_forward_kernels_on_the_twin():
    via = KernelConfig.from_name(VIA)
    assert unsupported_reason(via, bwd_data()) is None
    assert unsupported_reason(via, bwd_data(stride_h=2, stride_w=2)) == (
        "via_fwd runs stride-1 bwd_data as its forward twin: needs stride 1 and padding at most dilation x (filter - "
        "1), got stride 2x2, padding 1x1, dilation 1x1, filter 3x3")
    assert unsupported_reason(via, bwd_data(pad_h=3, Hi=16)) == (
        "via_fwd runs stride-1 bwd_data as its forward twin: needs stride 1 and padding at most dilation x (filter - "
        "1), got stride 1x1, padding 3x1, dilation 1x1, filter 3x3")
    # the twin's input channels are the problem's K: vector width 8 needs K % 8 == 0, C is free
    assert unsupported_reason(via, bwd_data(C=3)) is None
    assert unsupported_reason(via, bwd_data(K=20)) == "its forward twin: vector width 8 needs C % 8 == 0 (C=20)"
    padding = padding_for(via, bwd_data(K=20))
    assert (padding.padded_C, padding.padded_K) == (40, 24)


def test_the_estimate_is_the_forward_kernels_plus_one_pass_over_the_filter():
    via, problem = KernelConfig.from_name(VIA), bwd_data()
    twin = estimate(via.kernel, problem.forward_twin(), SPEC)
    expected_extra = 2 * 4 * 24 * 40 * 9 * 2 / (SPEC.dram_bandwidth_gbs * 1e9) + 4e-6
    assert twin_filter_seconds(problem, SPEC) == pytest.approx(expected_extra, rel=1e-15)
    got = estimate(via, problem, SPEC)
    assert got.seconds == twin.seconds + expected_extra and got.memory_s == twin.memory_s + expected_extra
    assert got.compute_s == twin.compute_s


def test_the_feature_row_is_the_forward_kernels_on_the_twin_with_the_problems_own_features():
    via, problem = KernelConfig.from_name(VIA), bwd_data(K=20)
    padding = padding_for(via, problem)
    runs = padded_problem(problem, padding)
    row = derived_features(via, runs, SPEC, problem)
    forward = derived_features(via.kernel, runs.forward_twin(), SPEC, problem.forward_twin())
    seconds = DERIVED_FEATURES.index("log2_analytic_seconds")
    extra = twin_filter_seconds(runs, SPEC)
    assert row[:seconds] == forward[:seconds]
    assert row[seconds] == pytest.approx(math.log2(2 ** forward[seconds] + extra), rel=1e-14)
    # the channel padding's copies are the twin's: dY's K and dX's C padded (not the swapped ones)
    assert forward[DERIVED_FEATURES.index("channel_padding_growth")] == 24 * 40 / (20 * 40)
    matrix = feature_matrix(problem, [(via, runs)], SPEC)
    assert matrix[0, :len(problem_features(problem))].tolist() == problem_features(problem)
    assert np.allclose(matrix, feature_rows(problem, [(via, runs)], SPEC), rtol=1e-12, atol=0)


def test_mixed_lists_of_native_and_via_candidates_take_the_vectorised_path_and_equal_the_scalar_rows():
    for problem in (bwd_data(), bwd_data(K=20, C=30, dil_h=2, pad_h=2), bwd_data(Y=1, X=1, pad_h=0, pad_w=0)):
        listed = [(c.entry.config, padded_problem(problem, c.padding) if c.padding else problem)
                  for c in candidates(problem, "tests", "sm_90") if c.entry is not None]
        via = sum(config.via_fwd for config, _ in listed)
        assert 0 < via < len(listed)
        matrix = feature_matrix(problem, listed, SPEC)
        assert matrix.shape == (len(listed), len(FEATURE_NAMES))
        assert np.allclose(matrix, feature_rows(problem, listed, SPEC), rtol=1e-12, atol=0)


def test_a_rule_set_that_twins_a_non_igemm_rule_is_refused(tmp_path):
    from gconv.generator.loader import load_rule_set

    path = tmp_path / "full.yaml"
    path.write_text("name: full\ndescription: d\narchs: [sm_90]\nrules:\n  - name: d\n    directions: [bwd_data]\n"
                    "    dtypes: [bf16]\n    algorithm: direct\n    tiles: [{block_m: 64, block_n: 32, num_warps: [4]}]\n"
                    "    via_fwd: [true]\n")
    with pytest.raises(RuleError) as raised:
        load_rule_set(path)
    assert "via_fwd: [true] makes bwd_data twins of igemm forward kernels" in str(raised.value)


def test_the_c_library_holds_the_via_fwd_entries(tmp_path):
    """capi/cmake_tool.py compiles and tabulates every entry of the arch, the via_fwd ones too (libgconv runs them
    after capi/aux_kernels.py twin_filter)."""
    import runpy

    from gconv.paths import GENERATED_DIR, REPO_ROOT

    tool = runpy.run_path(str(REPO_ROOT / "capi" / "cmake_tool.py"))
    found = dict(tool["instances"](GENERATED_DIR, "tests", "sm_90"))
    tests = entries_by_name("tests")
    assert set(found) == {name for name, e in tests.items() if "sm_90" in e.archs}
    via = "bwd_data_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg4_vf"
    assert tests[via].config.via_fwd and found[via] == GENERATED_DIR / "kernels" / "bwd_data" / f"{via}.py"
    assert f'{{"{via}", {{' in tool["tables_source"](GENERATED_DIR, "tests", "sm_90")
