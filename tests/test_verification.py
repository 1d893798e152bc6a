"""The device verification sweep's building blocks, on the CPU interpreter and on hand-made rows."""
import importlib.util
import re

import pytest

from gconv.paths import REPO_ROOT
from gconv.runtime.reference import INTERPRETER_ERROR_BOUND
from gconv.runtime.registry import entries_by_name
from gconv.runtime.support import unsupported_reason
from gconv.schemas import Problem
from gconv.runtime.verification import DEVICE_SHAPES, OperandCache, alignment_unseen_by_jit, verify_instance

SMALL = {
    "odd-s2-d2": DEVICE_SHAPES["odd-s2-d2"],
    "depthwise": dict(N=1, G=8, C=1, K=1, Hi=6, Wi=7, Y=3, X=3, pad_h=1, pad_w=1),
}


def load_script():
    spec = importlib.util.spec_from_file_location("verify_device", REPO_ROOT / "bench" / "verify_device.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_device_shapes_cover_every_axis_the_issue_names():
    shapes = DEVICE_SHAPES.values()
    assert any(s["G"] == 1 for s in shapes) and any(s["G"] > 1 and s["C"] > 1 for s in shapes)
    assert any(s["C"] == 1 and s["K"] == 1 for s in shapes) and any(s["C"] == 1 and s["K"] > 1 for s in shapes)
    assert any(s["C"] % 2 and s["K"] % 2 for s in shapes)
    assert any(s.get("stride_h", 1) == 2 for s in shapes) and any(s.get("dil_h", 1) == 2 for s in shapes)
    assert any(s.get("pad_h", 0) > 0 for s in shapes)


@pytest.mark.parametrize("rule_set", ["default", "full-tests"])
def test_every_depthwise_instance_has_a_device_shape(rule_set):
    """The device sweep runs each instance on the shapes it supports: a depthwise kernel (fixed filter, multiplier,
    channels per group and, with sliding rows, row stride) must support at least one."""
    def supported_somewhere(config):
        problems = (Problem(direction=config.direction, dtype=config.dtype, **fields)
                    for fields in DEVICE_SHAPES.values())
        return any(unsupported_reason(config, problem) is None for problem in problems)

    entries = entries_by_name(rule_set).values()
    uncovered = [e.config.name for e in entries
                 if e.config.algorithm.value == "depthwise" and not supported_somewhere(e.config)]
    assert uncovered == []


@pytest.mark.parametrize("rule_set", ["default", "full-tests"])
def test_every_vector_instance_has_a_device_shape_whose_alignment_the_jit_cannot_see(rule_set):
    """A vector kernel states its sizes' alignment to the compiler (KernelConfig.vector_aligned_sizes), which changes
    its code where a vectorised size is a multiple of its width but not of 16 (what Triton's JIT specialises on): each
    must run such a device shape (bench/device_aligned_sizes.sh verifies them there)."""
    def misaligned_somewhere(config):
        for fields in DEVICE_SHAPES.values():
            problem = Problem(direction=config.direction, dtype=config.dtype, **fields)
            if unsupported_reason(config, problem) is None and alignment_unseen_by_jit(config, problem):
                return True
        return False

    uncovered = [e.config.name for e in entries_by_name(rule_set).values()
                 if e.config.vector_width > 1 and not misaligned_somewhere(e.config)]
    assert uncovered == []


def test_an_instance_passes_on_every_shape_it_supports():
    entry = entries_by_name("tiny")["fwd_fp32_direct_p64c32_w4_v1"]
    rows = verify_instance(entry, SMALL, OperandCache("cpu"), INTERPRETER_ERROR_BOUND)
    assert [(r.shape, r.status) for r in rows] == [("odd-s2-d2", "pass"), ("depthwise", "pass")]
    assert all(r.relative_error < 1e-5 for r in rows)


def test_an_instance_runs_on_its_first_supported_shapes_only_when_capped():
    shapes = {"depthwise-7x7": dict(N=1, G=8, C=1, K=1, Hi=8, Wi=8, Y=7, X=7, pad_h=3, pad_w=3), **SMALL}
    direct = entries_by_name("tiny")["fwd_fp32_direct_p64c32_w4_v1"]  # supports all three
    rows = verify_instance(direct, shapes, OperandCache("cpu"), INTERPRETER_ERROR_BOUND, shapes_per_instance=2)
    assert [(r.shape, r.status) for r in rows] == [("depthwise-7x7", "pass"), ("odd-s2-d2", "pass")]
    depthwise = entries_by_name("tiny")["fwd_fp16_depthwise_t4x8c32_f3_m1_w2_v8"]  # a 3x3 filter of 8k channels
    rows = verify_instance(depthwise, shapes, OperandCache("cpu"), INTERPRETER_ERROR_BOUND, shapes_per_instance=1)
    assert [(r.shape, r.status) for r in rows] == [("depthwise", "pass")]  # the first shape it supports


def test_misaligned_only_runs_an_instance_where_its_stated_alignment_is_unseen_by_the_jit():
    vector = entries_by_name("tiny")["fwd_fp16_depthwise_t4x8c32_f3_m1_w2_v8"]  # states G % 8 == 0 (16-byte loads)
    aligned = {"g16": dict(SMALL["depthwise"], G=16), "depthwise": SMALL["depthwise"]}  # G = 16, then G = 8
    assert vector.config.vector_aligned_sizes == ("G",)
    rows = verify_instance(vector, aligned, OperandCache("cpu"), INTERPRETER_ERROR_BOUND, misaligned_only=True)
    assert [(r.shape, r.status) for r in rows] == [("depthwise", "pass")]
    rows = verify_instance(vector, aligned, OperandCache("cpu"), INTERPRETER_ERROR_BOUND)
    assert [(r.shape, r.status) for r in rows] == [("g16", "pass"), ("depthwise", "pass")]
    rows = verify_instance(vector, {"g16": aligned["g16"]}, OperandCache("cpu"), INTERPRETER_ERROR_BOUND,
                           misaligned_only=True)
    assert [(r.status, r.detail) for r in rows] == [("error", "no verification shape is supported by this instance "
                                                     "and leaves its alignment unseen by the JIT")]


def test_the_shape_cap_must_be_positive(monkeypatch, capsys):
    script = load_script()
    monkeypatch.setattr("sys.argv", ["verify_device.py", "--out", "unused", "--shapes-per-instance", "0"])
    with pytest.raises(SystemExit):
        script.main()
    assert capsys.readouterr().err.splitlines()[-1] == (
        "verify_device.py: error: --shapes-per-instance takes a positive count, not 0")


def test_a_crashing_instance_is_recorded_not_fatal():
    entry = entries_by_name("tiny")["fwd_fp32_direct_p64c32_w4_v1"]
    broken = entry.model_copy(update={"source": "generated/kernels/fwd/missing.py"})
    rows = verify_instance(broken, SMALL, OperandCache("cpu"), INTERPRETER_ERROR_BOUND)
    assert [r.status for r in rows] == ["error", "error"]
    assert rows[0].detail.startswith("FileNotFoundError: kernel source ")


def test_summary_counts_instances_that_pass_on_all_their_problems():
    script = load_script()
    row = dict(direction="fwd", dtype="fp16", bound=4e-3, detail="", problem="p")
    rows = [dict(row, kernel="a", shape="s1", status="pass", relative_error=1e-4),
            dict(row, kernel="a", shape="s2", status="pass", relative_error=2e-4),
            dict(row, kernel="b", shape="s1", status="fail", relative_error=0.5)]
    summary = script.summarise(rows, "tiny", {("fwd", "fp16"): 3}, "env")
    assert "| fwd | fp16 | 3 | 2 | 1 | 3 |" in summary.splitlines()
    assert "**1 of 2 tried instances pass (3 in the set).**" in summary.splitlines()
    assert "| b | s1 | fail | 0.5 | 0.004 |  |" in summary.splitlines()


def test_an_out_dir_is_resumed_only_by_the_run_that_wrote_it(tmp_path):
    script = load_script()
    run = {"rule_set": "full-tests", "dtypes": ["bf16"], "filter": "tap_major", "shapes": None}
    script.claim_out_dir(tmp_path, run)
    (tmp_path / "rows-00.jsonl").write_text('{"kernel": "a"}\n')
    script.claim_out_dir(tmp_path, dict(run))  # the same options: a resume
    other = dict(run, filter="pipeline == 'streamk'")
    with pytest.raises(SystemExit, match=re.escape(f"{tmp_path} holds the rows of another run ({{\"dtypes\": "
                                                   "[\"bf16\"], \"filter\": \"tap_major\", \"rule_set\": "
                                                   "\"full-tests\", \"shapes\": null}); resume it with the same "
                                                   "options or give a fresh --out")):
        script.claim_out_dir(tmp_path, other)
    (tmp_path / "run.json").unlink()
    with pytest.raises(SystemExit, match="holds rows of a run that did not record its options; give a fresh --out"):
        script.claim_out_dir(tmp_path, run)

