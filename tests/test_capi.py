"""libgconv through ctypes (gconv.capi): C selection == Python's selection (the rule heuristic, and the trained models
converted to C: feature rows, raw scores, choices), the registry export, error statuses.

Needs the library CMake builds (docs/cmake.md); skipped with the reason when it is not built. The GPU test runs only
where a CUDA device of the library's arch is present.
"""
import ctypes
import json
import os
from types import SimpleNamespace

import numpy as np
import pytest

from gconv import Problem
from gconv.capi import CapiError, CProblem, Library, find_library
from gconv.paths import GENERATED_DIR
from gconv.runtime import selection
from gconv.runtime.selection import candidates, predicted_seconds, rule_choice
from seeded_problems import numpy_is_libm, seeded_problems

SEEDED_PROBLEMS = 400


@pytest.fixture(scope="module")
def lib() -> Library:
    try:
        path = find_library()
    except FileNotFoundError as error:
        pytest.skip(str(error))
    return Library(path)


@pytest.fixture(autouse=True)
def python_selection(monkeypatch):
    """Python's selection path (numpy features, LightGBM's predict), not the compiled selector that shares libgconv's
    C code: the comparisons below are then a cross-check of two implementations."""
    monkeypatch.setattr(selection, "native_selector", lambda arch: None)
    selection.clear_cache()
    yield
    selection.clear_cache()


@pytest.mark.parametrize("seed", [0, 1])
def test_c_selection_equals_python_rule_selection(lib, seed):
    """Targets without a model: the rule heuristic, down to the estimated time (the model targets are checked below)."""
    mismatches = []
    for problem in seeded_problems(seed, SEEDED_PROBLEMS):
        if lib.model_name(problem.direction, problem.dtype) is not None:
            continue
        expected = rule_choice(problem, lib.rule_set, lib.arch)
        if expected.name == "cudnn":
            assert not lib.is_supported(problem), problem.key
            with pytest.raises(CapiError) as error:
                lib.select(problem)
            assert error.value.status == "UNSUPPORTED", problem.key
            continue
        assert lib.is_supported(problem), problem.key
        got = lib.select(problem)
        pool = [c for c in candidates(problem, lib.rule_set, lib.arch) if c.entry is not None]
        best = next(c for c in pool if c.name == expected.name)
        tflops = problem.flops / predicted_seconds(best, problem, lib.arch) / 1e12
        padding = (expected.padding.padded_C, expected.padding.padded_K) if expected.padding else (problem.C, problem.K)
        if (got.name, (got.padded_C, got.padded_K), got.candidates, got.predicted_tflops, got.source) != \
                (expected.name, padding, len(pool), tflops, "rule"):
            mismatches.append(f"{problem.key}: C {got} != Python {expected.name} {padding} {len(pool)} {tflops!r}")
        assert lib.select_kernel(problem) == got.name
    assert not mismatches, "\n".join(mismatches[:10])


def test_models_compiled_in_are_the_usable_models(lib):
    from gconv.heuristics.model import SelectionModel, find_model

    for direction in ("fwd", "bwd_data", "bwd_weight"):
        for dtype in ("fp16", "bf16", "fp32"):
            model = find_model(direction, dtype, lib.arch)  # fp16 borrows the bf16 model (SIBLING_DTYPES)
            expected = model.label if isinstance(model, SelectionModel) else None
            assert lib.model_name(direction, dtype) == expected


def _model_targets(lib) -> list[str]:
    return [dtype for dtype in ("fp16", "bf16", "fp32")
            if any(lib.model_name(d, dtype) for d in ("fwd", "bwd_data", "bwd_weight"))]


@pytest.mark.parametrize("seed", [7, 8])
def test_c_selection_equals_gconv_select(lib, seed, monkeypatch):
    """gconv.select -- the trained model where one exists (sm_90 bf16), else the rule -- and the C library pick the
    same kernel and padding among the library's candidates (the model's own kernel pool may be larger), with the same
    predicted throughput and source. The library has no vendor path, so select() runs with GCONV_VENDOR=0."""
    monkeypatch.setattr(selection, "VENDOR_COMPETES", False)
    import gconv
    from gconv.heuristics.model import find_model
    from gconv.runtime.padding import padded_problem
    from gconv.runtime.registry import load_arch_spec

    exact = numpy_is_libm()
    dtypes = tuple(_model_targets(lib)) or ("fp16", "bf16", "fp32")
    mismatches, models = [], 0
    for problem in seeded_problems(seed, 300, dtypes):  # tiny holds few kernels its models know: enough to hit them
        expected = gconv.select(problem, arch=lib.arch, rule_set=lib.rule_set)
        if expected.name == "cudnn":
            assert not lib.is_supported(problem), problem.key
            continue
        got = lib.select(problem)
        padding = (expected.padding.padded_C, expected.padding.padded_K) if expected.padding else (problem.C, problem.K)
        model_name = lib.model_name(problem.direction, problem.dtype)
        source, tflops = expected.source, expected.predicted_tflops
        if model_name and source == "rule":  # the model knew none of the candidates (its kernel pool is default's)
            assert f"model {model_name} was trained on none of the" in expected.reason, expected.reason
        if source == "model":
            models += 1
            assert f"model {model_name} (LightGBM" in expected.reason, expected.reason
            if exact:  # the unrounded prediction, bit for bit
                model = find_model(problem.direction.value, problem.dtype.value, lib.arch)
                best = next(c for c in candidates(problem, lib.rule_set, lib.arch) if c.name == expected.name)
                runs = padded_problem(problem, best.padding) if best.padding else problem
                ms = model.predict_ms(problem, [(best.entry.config, runs)], load_arch_spec(lib.arch))[0]
                tflops = problem.flops / (ms / 1e3) / 1e12
        got_tflops = got.predicted_tflops if exact and source == "model" else round(got.predicted_tflops, 3)
        if (got.name, (got.padded_C, got.padded_K), got.source, got_tflops) != (expected.name, padding, source, tflops):
            mismatches.append(f"{problem.key}: C {got} != Python {expected.name} {padding} {source} {tflops!r} "
                              f"({expected.reason})")
        assert lib.select_kernel(problem) == got.name
    assert not mismatches, "\n".join(mismatches[:10])
    if not _model_targets(lib):
        pytest.skip(f"no trained model for {lib.arch}: the rule heuristic selects (checked above)")
    assert models >= 30, f"only {models} problems were selected by a model"


def test_c_feature_rows_equal_python_feature_matrix(lib):
    """Every candidate of seeded problems of the model targets: the C feature row == heuristics/features.py
    feature_matrix's row (channel-padded candidates: derived features of the padded problem, problem features of the
    original) and the C trees' raw score == LightGBM's Booster.predict."""
    from gconv.heuristics.features import FEATURE_NAMES, feature_matrix
    from gconv.heuristics.model import find_model
    from gconv.runtime.padding import padded_problem
    from gconv.runtime.registry import load_arch_spec

    dtypes = _model_targets(lib)
    if not dtypes:
        pytest.skip(f"no trained model for {lib.arch}")
    assert lib.lib.gconv_feature_count() == len(FEATURE_NAMES)
    spec, exact = load_arch_spec(lib.arch), numpy_is_libm()
    rows = padded = 0
    for problem in seeded_problems(11, SEEDED_PROBLEMS, tuple(dtypes)):
        model = find_model(problem.direction.value, problem.dtype.value, lib.arch)
        if lib.model_name(problem.direction, problem.dtype) is None:
            continue
        pool = [c for c in candidates(problem, lib.rule_set, lib.arch) if c.entry is not None]
        if not pool:
            continue
        runs = [padded_problem(problem, c.padding) if c.padding else problem for c in pool]
        expected = feature_matrix(problem, [(c.entry.config, r) for c, r in zip(pool, runs)], spec)
        raw = model.booster.predict(expected, num_threads=1)
        for i, candidate in enumerate(pool):
            got, got_raw = lib.debug_features(problem, candidate.name)
            where = f"{problem.key} {candidate.name}"
            if exact:
                differ = [FEATURE_NAMES[j] for j in np.nonzero(np.array(got) != expected[i])[0]]
                assert not differ, f"{where}: {differ}"
                assert got_raw == raw[i], where
            else:
                np.testing.assert_array_max_ulp(np.array(got), expected[i], maxulp=4)
                assert got_raw == pytest.approx(raw[i], rel=1e-12, abs=1e-12), where
            rows += 1
            padded += candidate.padding is not None
    assert rows > 200 and padded > 20, (rows, padded)


def test_debug_features_errors(lib):
    features = (ctypes.c_double * 4)()
    problem = raw_problem()
    name = lib.select_kernel(problem)
    status = lib.lib.gconv_debug_features(ctypes.byref(problem), name.encode(), features, 4, None)
    assert status == 3
    count = lib.lib.gconv_feature_count()
    assert lib.lib.gconv_last_error().decode() == f"features needs {count} entries; got 4"
    with pytest.raises(CapiError) as error:
        lib.debug_features(problem, "fwd_bf16_no_such_kernel")
    assert error.value.status == "UNKNOWN_KERNEL"


def test_selection_of_fixed_problems_is_deterministic(lib):
    problem = Problem(direction="fwd", dtype="bf16", N=32, G=32, C=4, K=4, Hi=56, Wi=56, Y=3, X=3, stride_h=1,
                      stride_w=1, pad_h=1, pad_w=1, dil_h=1, dil_w=1)
    assert len({lib.select_kernel(problem) for _ in range(5)}) == 1
    assert Library(lib.path).select_kernel(problem) == lib.select_kernel(problem)


def test_registry_export_is_the_generated_registry(lib):
    text = lib.registry_json()
    assert text == (GENERATED_DIR / lib.rule_set / "registry.json").read_text()
    entries = json.loads(text)["entries"]
    assert lib.kernel_names() == [e["name"] for e in entries if lib.arch in e["archs"]]
    assert lib.kernel_count() == len(lib.kernel_names())


def test_registry_export_into_a_small_buffer(lib):
    needed = lib.lib.gconv_registry_json_size() + 1
    written = ctypes.c_size_t()
    status = lib.lib.gconv_export_registry_json(ctypes.create_string_buffer(10), 10, ctypes.byref(written))
    assert status == 3 and written.value == needed
    assert lib.lib.gconv_last_error().decode() == \
        f"the registry JSON needs a buffer of {needed} bytes ({needed - 1} and the NUL); got 10"


def raw_problem(**overrides) -> CProblem:
    fields = dict(direction=0, dtype=1, N=2, G=4, C=8, K=8, Hi=8, Wi=8, Y=3, X=3, stride_h=1, stride_w=1, pad_h=1,
                  pad_w=1, dil_h=1, dil_w=1)
    fields.update(overrides)
    return CProblem(**fields)


@pytest.mark.parametrize("overrides, message", [
    ({"N": 0}, "problem.N must be positive; got 0"),
    ({"C": -3}, "problem.C must be positive; got -3"),
    ({"pad_w": -1}, "problem.pad_w must be >= 0; got -1"),
    ({"dil_h": 0}, "problem.dil_h must be positive; got 0"),
    ({"direction": 7}, "problem.direction must be 0 (fwd), 1 (bwd_data) or 2 (bwd_weight); got 7"),
    ({"dtype": -1}, "problem.dtype must be 0 (fp16), 1 (bf16) or 2 (fp32); got -1"),
    ({"Hi": 2, "Wi": 2, "Y": 7, "X": 7, "pad_h": 0, "pad_w": 0},
     "output size would be -4x-4: the dilated filter (7x7) is larger than the padded input (2x2)"),
    ({"N": 4096, "G": 64, "C": 64, "Hi": 32, "Wi": 32},
     "tensor x would have 17179869184 elements; gconv's kernels index with 32-bit integers (at most 2147483647 "
     "elements per tensor)"),
    ({"K": 2**31}, "problem.K must be at most 2147483647; got 2147483648"),
])
def test_invalid_problems_are_rejected_with_the_reason(lib, overrides, message):
    for call in (lib.select_kernel, lib.is_supported, lib.workspace_size):
        with pytest.raises(CapiError) as error:
            call(raw_problem(**overrides))
        assert (error.value.status, error.value.message) == ("INVALID_ARGUMENT", message)


def test_output_size_message_matches_python(lib):
    with pytest.raises(ValueError) as python_error:
        Problem(direction="fwd", dtype="bf16", N=2, G=4, C=8, K=8, Hi=2, Wi=2, Y=7, X=7)
    with pytest.raises(CapiError) as c_error:
        lib.select(raw_problem(Hi=2, Wi=2, Y=7, X=7, pad_h=0, pad_w=0))
    assert c_error.value.message in str(python_error.value)


def test_name_buffer_too_small(lib):
    problem = raw_problem()
    name = lib.select_kernel(problem)
    with pytest.raises(CapiError) as error:
        lib.select_kernel(problem, buffer_size=4)
    assert (error.value.status, error.value.message) == \
        ("BUFFER_TOO_SMALL", f"kernel name needs a buffer of {len(name) + 1} bytes ({len(name)} and the NUL); got 4")


def test_kernel_index_out_of_range(lib):
    count = lib.kernel_count()
    status = lib.lib.gconv_kernel_name(count, ctypes.create_string_buffer(128), 128)
    assert status == 1
    assert lib.lib.gconv_last_error().decode() == f"kernel index {count} is out of range: the library holds {count}"


def test_unknown_and_unfit_forced_kernels(lib):
    with pytest.raises(CapiError) as error:
        lib.workspace_size(raw_problem(), kernel="fwd_bf16_no_such_kernel")
    assert (error.value.status, error.value.message) == (
        "UNKNOWN_KERNEL", f"kernel 'fwd_bf16_no_such_kernel' is not in this library (rule set '{lib.rule_set}', "
                          f"{lib.arch}); gconv_kernel_name lists them")
    from gconv.runtime.selection import forced_choice

    problem = Problem(direction="fwd", dtype="bf16", N=2, G=4, C=8, K=8, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1)
    other = next(name for name in lib.kernel_names() if not name.startswith("fwd_bf16"))
    with pytest.raises(ValueError) as python_error:
        forced_choice(other, problem, lib.rule_set, lib.arch)
    with pytest.raises(CapiError) as c_error:
        lib.workspace_size(problem, kernel=other)
    assert (c_error.value.status, c_error.value.message) == ("UNSUPPORTED", str(python_error.value))


def test_run_checks_pointers_before_the_device(lib):
    problem = raw_problem()
    with pytest.raises(CapiError) as error:
        lib.run(problem, 0, 256, 512)
    assert (error.value.status, error.value.message) == ("INVALID_ARGUMENT", "a is NULL")
    with pytest.raises(CapiError) as error:
        lib.run(problem, 256, 0x101, 512)
    assert (error.value.status, error.value.message) == (
        "INVALID_ARGUMENT", "b (0x101) is not 16-byte aligned; the ahead-of-time kernels assume aligned tensors (as "
                            "cudaMalloc returns them)")


def _has_driver() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


@pytest.mark.skipif(_has_driver(), reason="an NVIDIA driver is present: gconv_run would use it")
def test_run_without_a_driver_reports_no_device(lib):
    with pytest.raises(CapiError) as error:
        lib.run(raw_problem(), 256, 512, 768)
    assert error.value.status == "NO_DEVICE"
    assert error.value.message.startswith("no NVIDIA driver: cannot load libcuda.so.1 (")
    assert lib.select_kernel(raw_problem())  # the CPU half keeps working


def _gpu_reason(lib) -> str | None:
    import torch

    if not torch.cuda.is_available():
        return "no CUDA device"
    if os.environ.get("TRITON_INTERPRET") == "1":
        return "TRITON_INTERPRET=1: the Triton JIT path cannot run CUDA tensors (ctest's python_capi sets it to 0)"
    from gconv.runtime.device import arch_of

    arch = arch_of(torch.device("cuda"))
    return None if arch == lib.arch else f"the device is {arch}, the library holds {lib.arch} cubins"


@pytest.mark.parametrize("direction", ["fwd", "bwd_data", "bwd_weight"])
@pytest.mark.parametrize("shape", [dict(C=8, K=16, G=4), dict(C=3, K=5, G=3), dict(C=1, K=1, G=32)])
def test_c_run_equals_the_triton_jit_path(lib, direction, shape, monkeypatch):
    reason = _gpu_reason(lib)
    if reason:
        pytest.skip(reason)
    monkeypatch.setattr(selection, "VENDOR_COMPETES", False)  # the library has no vendor path
    import torch

    import gconv
    from gconv.runtime.api import execute
    from gconv.runtime.reference import random_operands, relative_error, result_shape

    problem = Problem(direction=direction, dtype="fp16", N=2, Hi=10, Wi=9, Y=3, X=3, stride_h=2, stride_w=1, pad_h=1,
                      pad_w=1, **shape)
    name = lib.select_kernel(problem)
    assert name == gconv.select(problem, arch=lib.arch, rule_set=lib.rule_set).name
    a, b = random_operands(problem, "cuda")
    out = torch.full(result_shape(problem), float("nan"), dtype=a.dtype, device="cuda") \
        .contiguous(memory_format=torch.channels_last)
    lib.run_tensors(problem, a, b, out, kernel=name)
    expected = execute(problem, a, b, kernel=name, rule_set=lib.rule_set)
    torch.cuda.synchronize()
    assert relative_error(out, expected.double().cpu()) < 1e-3, name


def _device_problem(entry, aligned: bool = True):
    """A small problem the instance runs (directly or after padding), shaped by its axes. aligned: its channel counts
    and strides are multiples of 16, so gconv_run launches the aligned cubin of a vector-load kernel (capi/aot.py);
    otherwise multiples of 8 only, and it launches the generic one."""
    c = entry.config
    if c.via_fwd:  # stride-1 bwd_data whose forward twin is the forward kernel's problem at stride 1
        forward = _device_problem(SimpleNamespace(config=c.kernel), aligned).model_copy(
            update=dict(stride_h=1, stride_w=1))
        problem = Problem(direction="bwd_data", dtype=c.dtype, N=forward.N, G=forward.G, C=forward.K, K=forward.C,
                          Hi=forward.Ho, Wi=forward.Wo, Y=forward.Y, X=forward.X,
                          pad_h=forward.dil_h * (forward.Y - 1) - forward.pad_h,
                          pad_w=forward.dil_w * (forward.X - 1) - forward.pad_w)
        assert problem.forward_twin() == forward
        return problem
    shape = dict(Y=3, X=3, stride_h=1, stride_w=2, pad_h=1, pad_w=1)
    if c.algorithm.value == "depthwise":  # C/G and K/G fixed by the kernel; 16 (24) groups fill any vector width
        groups, channels, filters = (16 if aligned else 24), c.group_channels, c.multiplier
        shape.update(Y=c.filter_size, X=c.filter_size)
        if c.sliding_rows:  # built for one row stride; bwd_data for the same stride along W
            shape.update(stride_h=c.sliding_rows, stride_w=c.sliding_rows if c.direction.value == "bwd_data" else 2)
    elif c.algorithm.value == "direct":
        channels, groups = (1, max(16, c.vector_width) + (0 if aligned else 8)) if c.vector_width > 1 else (5, 3)
        filters = channels
    else:
        channels, groups = max(32, c.block_k) + (0 if aligned else 8), max(2, c.groups_to_merge)
        filters = channels + (8 if c.aligned_k and aligned else 0)  # aligned-K twins run only where K % 16 != 0
        if c.tile_w and c.groups_to_merge > 1:  # merged pixel boxes: the groups fill the tile; a short last block
            groups = c.groups_to_merge * (2 if aligned else 1) + (0 if aligned else c.groups_to_merge // 2)
            channels = (c.block_k if c.direction.value == "fwd" else c.block_n) // c.groups_to_merge
            filters = (c.block_n if c.direction.value == "fwd" else c.block_m) // c.groups_to_merge
        elif c.tile_w:  # pixel boxes take whole column tiles of channels per tap: unaligned, padded up to one
            channels = filters = c.block_n if aligned else c.block_n - 8
        if c.tile_w and c.direction.value == "fwd":  # one descriptor of x for every tap: stride 1
            shape.update(stride_w=1)
    if c.explicit_gemm:  # 1x1, stride 1, unpadded only
        shape = dict(Y=1, X=1, stride_h=1, stride_w=1, pad_h=0, pad_w=0)
    return Problem(direction=c.direction, dtype=c.dtype, N=2, G=groups, C=channels, K=filters, Hi=9, Wi=10, **shape)


@pytest.mark.parametrize("aligned", [True, False])
@pytest.mark.parametrize("rule_set", ["tiny", "tests", "default"])
def test_every_kernel_has_a_device_problem(rule_set, aligned):
    """The GPU test below forces each library kernel onto _device_problem: it must be one the kernel runs (on the
    CPU too, so that a new axis cannot break the GPU test unnoticed)."""
    from gconv.runtime.registry import entries_by_name
    from gconv.runtime.selection import candidate_for

    entries = entries_by_name(rule_set)
    assert [name for name, entry in entries.items() if candidate_for(entry, _device_problem(entry, aligned)) is None] \
        == []


@pytest.mark.parametrize("aligned", [True, False])
def test_every_library_kernel_on_the_device(lib, aligned):
    """gconv_run with each instance forced (split-K workspaces, TMA scratch, persistent grids, padding copies)
    against the float64 reference, outputs poisoned with NaN first; on problems where the vector-load kernels run
    their aligned cubins, then on problems where they run the generic ones."""
    reason = _gpu_reason(lib)
    if reason:
        pytest.skip(reason)
    import torch

    from gconv.runtime.reference import RELATIVE_ERROR_BOUND, poisoned_output, random_operands, reference, \
        relative_error
    from gconv.runtime.registry import entries_by_name
    from gconv.runtime.selection import candidate_for

    entries = entries_by_name(lib.rule_set)
    failures, padded = [], 0
    for name in lib.kernel_names():
        problem = _device_problem(entries[name], aligned)
        candidate = candidate_for(entries[name], problem)
        assert candidate is not None, f"{name}: no test problem for it"
        padded += candidate.padding is not None
        a, b = random_operands(problem, "cuda")
        out = poisoned_output(problem, "cuda")
        lib.run_tensors(problem, a, b, out, kernel=name)
        torch.cuda.synchronize()
        error = relative_error(out, reference(problem, a, b))
        if not error <= RELATIVE_ERROR_BOUND[problem.dtype]:
            failures.append(f"{name} on {problem.key}: relative error {error:.3g}")
    assert not failures, "\n".join(failures)


PADDED_CHANNELS = [dict(G=4, C=6, K=12), dict(G=8, C=3, K=2)]


def padded_problem(direction: str, channels: dict) -> Problem:
    return Problem(direction=direction, dtype="fp16", N=2, Hi=8, Wi=8, Y=3, X=3, pad_h=1, pad_w=1, **channels)


def padding_instances(rule_set: str, problem: Problem) -> list[str]:
    """The instances of rule_set that run problem on padded channels (for C=3, the four-channel depthwise-family
    ones)."""
    from gconv.runtime.registry import entries_by_name
    from gconv.runtime.selection import candidate_for

    entries = entries_by_name(rule_set)
    return [name for name, entry in entries.items() if (c := candidate_for(entry, problem)) and c.padding is not None
            and (problem.C != 3 or "_cpg4" in name)]


@pytest.mark.parametrize("channels", PADDED_CHANNELS, ids=["vector", "depthwise-family"])
@pytest.mark.parametrize("direction", ["fwd", "bwd_data", "bwd_weight"])
def test_the_tests_set_pads_both_channel_cases_in_every_direction(direction, channels):
    """What test_padded_run_on_the_device runs where the device check builds the `tests` set: never a skip there."""
    assert padding_instances("tests", padded_problem(direction, channels))


@pytest.mark.parametrize("channels", PADDED_CHANNELS, ids=["vector", "depthwise-family"])
@pytest.mark.parametrize("direction", ["fwd", "bwd_data", "bwd_weight"])
def test_padded_run_on_the_device(lib, direction, channels):
    """An instance forced onto channels per group it lacks: gconv_run pads them, then unpads. C=6, K=12 pads for
    vector width 8; C=3, K=2 pads to a four-channel depthwise-family kernel (runtime/padding.py's next power of
    two)."""
    reason = _gpu_reason(lib)
    if reason:
        pytest.skip(reason)
    import torch

    from gconv.runtime.reference import RELATIVE_ERROR_BOUND, poisoned_output, random_operands, reference, \
        relative_error

    problem = padded_problem(direction, channels)
    library = set(lib.kernel_names())
    names = [name for name in padding_instances(lib.rule_set, problem) if name in library]
    if not names:
        pytest.skip(f"no instance of {lib.rule_set} pads this problem")
    a, b = random_operands(problem, "cuda")
    out = poisoned_output(problem, "cuda")
    lib.run_tensors(problem, a, b, out, kernel=names[0])
    torch.cuda.synchronize()
    assert relative_error(out, reference(problem, a, b)) <= RELATIVE_ERROR_BOUND[problem.dtype], names[0]


def test_a_split_forward_kernel_takes_the_outputs_fp32_sums_and_a_counter_per_output_tile(lib):
    from gconv.runtime.grid import arrival_blocks
    from gconv.schemas import KernelConfig

    kernel = "fwd_fp16_igemm_m64n64k64_w4_s3_ms_g8_v8_mg1_sk4la"  # launch.c run(): a zeroed temporary of both
    unsplit = "fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1"
    if not {kernel, unsplit} <= set(lib.kernel_names()):
        pytest.skip(f"{lib.rule_set} lacks {kernel} or {unsplit} (tiny holds both)")
    problem = Problem(direction="fwd", dtype="fp16", N=2, G=2, C=24, K=40, Hi=9, Wi=13, Y=3, X=3, pad_h=1, pad_w=1)
    counters = arrival_blocks(KernelConfig.from_name(kernel), problem)
    assert counters == 4 * 2  # 64-row tiles of 2 x 9 x 13 pixels, one 64-wide column tile, two groups
    assert lib.workspace_size(problem, kernel=kernel) == (2 * 9 * 13 * 2 * 40 + counters) * 4
    assert lib.workspace_size(problem, kernel=unsplit) == 0


def test_a_via_fwd_kernel_takes_the_twin_filter_and_the_padding_copies(lib):
    """launch.c run(): the forward twin's filter (G x C x taps x K) is a temporary of its own, after the padded
    operands where the channels need padding."""
    from gconv.runtime.registry import entries_by_name
    from gconv.runtime.selection import candidate_for, forced_choice

    entries = entries_by_name(lib.rule_set)
    via = [n for n in lib.kernel_names() if entries[n].config.via_fwd and entries[n].config.pipeline.value ==
           "multistage" and not entries[n].config.kernel.last_arrival and entries[n].config.dtype.value == "fp16"]
    if not via:
        pytest.skip(f"{lib.rule_set} has no multistage fp16 via_fwd instance")
    kernel = via[0]
    problem = Problem(direction="bwd_data", dtype="fp16", N=2, G=3, C=16, K=32, Hi=9, Wi=13, Y=3, X=3, pad_h=1,
                      pad_w=1)
    assert candidate_for(entries[kernel], problem).padding is None
    assert lib.workspace_size(problem, kernel=kernel) == 3 * 32 * 16 * 9 * 2
    odd = problem.model_copy(update=dict(C=12, K=20))
    padding = candidate_for(entries[kernel], odd).padding
    assert (padding.padded_C, padding.padded_K) == (12, 24)  # the twin's C (the problem's K) to the vector width
    x, y, w = 2 * 9 * 13 * 3 * 12, 2 * 9 * 13 * 3 * 24, 3 * 24 * 12 * 9
    assert lib.workspace_size(odd, kernel=kernel) == (x + y + w + w) * 2
    strided = problem.model_copy(update=dict(stride_h=2))
    with pytest.raises(ValueError) as python_error:
        forced_choice(kernel, strided, lib.rule_set, lib.arch)
    with pytest.raises(CapiError) as c_error:
        lib.workspace_size(strided, kernel=kernel)
    assert "via_fwd runs stride-1 bwd_data as its forward twin" in str(python_error.value)
    assert (c_error.value.status, c_error.value.message) == ("UNSUPPORTED", str(python_error.value))
