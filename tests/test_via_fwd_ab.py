"""bench/via_fwd_ab.py: the A/B's problems, the registry with the twins, and the report's arithmetic on hand-made
rows with a known answer."""
import json

import pytest

from gconv.bench import via_fwd_ab
from gconv.bench.problems import CSV_FIELDS
from gconv.runtime.registry import entries_by_name
from gconv.schemas import Problem

NATIVE = "bwd_data_bf16_igemm_m64n32k32_w4_s3_ms_g1_v8_mg4"
BOXES = "bwd_data_bf16_igemm_m64n32k32_w4_s3_tma_g8_v1_mg4_px8x8_vf"  # a twin of igemm-fwd-merge-boxes
GENERAL = "bwd_data_bf16_igemm_m128n64k32_w4_s3_ms_g8_v8_mg1_vf"  # a twin of igemm-fwd


def rows_of(problem: Problem, times: dict[str, float]) -> list[dict]:
    fields = {k: str(v) for k, v in problem.model_dump(mode="json").items() if k in CSV_FIELDS}
    return [{**fields, "problem": problem.key, "kernel": kernel, "status": "ok", "time_ms": str(ms)}
            for kernel, ms in times.items()]


def test_the_report_compares_the_best_of_each_kind_per_problem():
    small = Problem(direction="bwd_data", dtype="bf16", N=8, G=16, C=8, K=8, Hi=28, Wi=28, Y=3, X=3, pad_h=1, pad_w=1)
    large = small.model_copy(update={"N": 32, "C": 64, "K": 64, "G": 4, "Hi": 56, "Wi": 56})
    rows = rows_of(small, {NATIVE: 0.4, BOXES: 0.2, GENERAL: 0.8, "cudnn-heuristic": 0.3}) + \
        rows_of(large, {NATIVE: 1.0, BOXES: 4.0, GENERAL: 1.25, "cudnn-exhaustive": 2.0})
    rows.append({**rows[0], "kernel": GENERAL, "status": "error", "time_ms": ""})  # failed rows do not count
    compared = via_fwd_ab.compare(rows)
    assert [(c["native"], c["via"], c["cudnn"]) for c in compared] == [
        ((1.0, NATIVE), (1.25, GENERAL), (2.0, "cudnn-exhaustive")), ((0.4, NATIVE), (0.2, BOXES), (0.3, "cudnn-heuristic"))]
    text = via_fwd_ab.report(compared)
    # via / native: 0.8 and 2.0 -> geomean 1.265; best of both: 1.0 and 2.0 -> 1.414; with cuDNN: 1 and 0.3/0.2
    assert "| every class (all) | 2 | 1.265x | 1.414x | 1 | 1.225x |" in text.splitlines()
    only_general = via_fwd_ab.compare(rows, via_rule="igemm-fwd")
    assert [c["via"] for c in only_general] == [(1.25, GENERAL), (0.8, GENERAL)]
    table = via_fwd_ab.by_rule(rows)
    lines = [line.split() for line in table.splitlines()]
    assert ["igemm-fwd-merge-boxes", "2", "1.414x", "1"] in lines and ["igemm-fwd", "2", "1.000x", "0"] in lines
    # together, in the order of what each adds alone: the general twins add nothing to the boxes' 2x on one problem
    cumulative = lines[lines.index(["twins", "of", "the", "rules", "so", "far", "problems", "best", "of", "both", "/",
                                    "native's", "best", "via", "faster"]) + 2:]
    assert cumulative == [["+", "igemm-fwd-merge-boxes", "2", "1.414x", "1"], ["+", "igemm-fwd", "2", "1.414x", "1"]]


def test_the_problems_are_twinned_training_shapes_drawn_by_seed(tmp_path):
    first = via_fwd_ab.sample_problems(sorted(via_fwd_ab.REPO_ROOT.glob(via_fwd_ab.TRAINING_FILES)), 20, seed=3)
    again = via_fwd_ab.sample_problems(sorted(via_fwd_ab.REPO_ROOT.glob(via_fwd_ab.TRAINING_FILES)), 20, seed=3)
    assert first == again and len({p.key for p in first}) == 20
    assert all(p.direction.value == "bwd_data" and p.forward_twin() is not None and p.C > 1 for p in first)
    with pytest.raises(ValueError, match="twinned bwd_data shapes in 0 files, asked for 1"):
        via_fwd_ab.sample_problems([], 1, seed=3)


def test_the_registry_adds_the_twin_of_every_igemm_forward_instance():
    data = json.loads(via_fwd_ab.with_twins())
    names = [e["name"] for e in data["entries"]]
    default = entries_by_name("default")
    forward = [n for n, e in default.items() if e.config.direction.value == "fwd" and e.config.algorithm.value == "igemm"]
    added = set(names) - set(default)
    assert names == sorted(names) and set(default) <= set(names)
    twins = {n.replace("fwd_", "bwd_data_", 1) + "_vf" for n in forward if "_sk" not in n} | \
        {n.replace("fwd_", "bwd_data_", 1).replace("_sk", "_vf_sk") for n in forward if "_sk" in n}
    assert added == twins - set(default) and len(added) == len(forward) - 18  # default keeps the 18 merge-boxes twins
