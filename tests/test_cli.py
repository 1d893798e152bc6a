"""The `gconv rules` commands, called in-process (the CLI is a thin layer over the library)."""
import json
import subprocess
import sys

import pytest

from gconv.cli import main
from gconv.runtime.registry import load_registry


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_count_with_a_filter_using_ck_tile_names(capsys, expansions):
    expected = sum(1 for i in expansions["full"] if i.config.block_n >= 128 and i.config.num_stages == 4)
    assert expected > 0
    code, out, _ = run(capsys, "rules", "count", "--filter", "tile_n >= 128 and num_stages == 4")
    assert (code, out) == (0, f"{expected}\n")
    code, out, _ = run(capsys, "rules", "count", "--filter", "block_n >= 128 and num_stages == 4", "--json")
    assert json.loads(out) == {"rule_set": "full", "filter": "block_n >= 128 and num_stages == 4", "count": expected}


def test_list_selects_by_filter_and_exports_json(capsys):
    code, out, _ = run(capsys, "rules", "list", "--rule-set", "tiny",
                       "--filter", "direction == 'fwd' and algorithm in ['direct'] and not dtype == 'fp32'")
    assert (code, out.split()) == (0, ["fwd_bf16_direct_p64c32_w4_v8", "fwd_fp16_direct_p64c32_w4_v8"])
    code, out, _ = run(capsys, "rules", "list", "--rule-set", "tiny",
                       "--filter", "pipeline == 'persistent' and not tap_major", "--json")
    exported = json.loads(out)
    assert [e["name"] for e in exported] == ["bwd_data_fp32_igemm_m128n64k32_w4_s3_pers_g1_v4_mg1",
                                             "bwd_weight_fp32_igemm_m128n64k32_w4_s3_pers_g1_v4_mg1_sk4",
                                             "fwd_fp32_igemm_m128n64k32_w4_s3_pers_g1_v4_mg1"]
    assert exported[2] == {
        "name": "fwd_fp32_igemm_m128n64k32_w4_s3_pers_g1_v4_mg1", "rule": "igemm-fwd-persistent",
        "archs": ["sm_80", "sm_90"], "selected_by": ["full-tests:row-major-walk", "tiny:igemm-persistent-fp32"],
        "config": {"direction": "fwd", "dtype": "fp32", "algorithm": "igemm", "block_m": 128, "block_n": 64,
                   "block_k": 32, "num_warps": 4, "num_stages": 3, "pipeline": "persistent", "raster_group": 1,
                   "vector_width": 4, "groups_to_merge": 1, "split_k": 1, "tile_w": 0, "filter_size": 0,
                   "multiplier": 0, "group_channels": 0, "sliding_rows": 0, "tap_major": False,
                   "two_stage": False, "explicit_gemm": False, "last_arrival": False, "aligned_k": False,
                   "via_fwd": False}}


@pytest.mark.parametrize("text, message", [
    ("tile_nn >= 1", "error: unknown field 'tile_nn'; known fields: algorithm, aligned_k, block_k, block_m, block_n, "
                     "direction, "
                     "dtype, explicit_gemm, filter_size, group_channels, groups_to_merge, last_arrival, multiplier, "
                     "name, num_stages, num_warps, "
                     "pipeline, raster_group, rule, sliding_rows, split_k, tap_major, tile_k, tile_m, tile_n, tile_w, "
                     "two_stage, vector_width, via_fwd\n"
                     "    tile_nn >= 1\n"
                     "    ^\n"),
    ("__import__('os')", "error: expected an operator or the end of the expression, found '('\n"
                         "    __import__('os')\n              ^\n"),
])
def test_a_bad_filter_is_refused_with_a_pointer(capsys, text, message):
    code, out, err = run(capsys, "rules", "count", "--filter", text)
    assert (code, out, err) == (2, "", message)


def test_stats_shows_all_six_sets(capsys):
    code, out, _ = run(capsys, "rules", "stats")
    assert code == 0
    table = out.split("\n\n")[0].splitlines()
    assert table[0] == "Instances per set x direction x dtype"
    assert [row.split()[0] for row in table[3:]] == ["full", "full-tests", "tiny", "tests", "profiler", "default"]
    totals = {row.split()[0]: int(row.split()[-1]) for row in table[3:]}
    # each set's total is its registry's size (the sizes' bounds: tests/test_expansion.py test_sizes_match_their_purpose)
    assert totals == {name: len(load_registry(name).entries) for name in totals}
    assert "vector_width (bwd_weight)" in out and "split_k (bwd_weight)" in out


def test_explain_says_which_rule_admits_and_which_constraint_excludes(capsys):
    code, out, _ = run(capsys, "rules", "explain", "fwd_fp32_igemm_m128n128k64_w8_s4_ms_g8_v4_mg1", "--rule-set", "full")
    assert code == 0
    assert out.splitlines()[:3] == [
        "fwd_fp32_igemm_m128n128k64_w8_s4_ms_g8_v4_mg1",
        "  full [rules/full.yaml]: NOT IN",
        "    rule 'igemm-fwd' on sm_90: excluded by set constraint 'algorithm != 'igemm' or smem_bytes <= "
        "arch.max_smem_per_block_bytes' (shared-memory budget of the pipelined operand tiles)",
    ]
    code, out, _ = run(capsys, "rules", "explain", "fwd_fp16_direct_p64c32_w4_v8", "--rule-set", "tiny")
    assert out.splitlines()[1:] == [
        "  tiny [rules/tiny.yaml]: IN (sm_80, sm_90)",
        "    kept by clause 'direct-vectorised-fp16': algorithm == 'direct' and dtype == 'fp16' and vector_width == 8 "
        "and block_m == 64 and block_n == 32 and split_k == 1",
    ]
    code, out, _ = run(capsys, "rules", "explain", "fwd_fp16_igemm_m64n64k32_w4_s2_ms_g8_v8_mg1")
    assert "    rule 'igemm-fwd' on sm_90: ADMITS" in out.splitlines()


def test_explain_names_the_depthwise_axis_a_rule_lacks(capsys):
    code, out, _ = run(capsys, "rules", "explain", "fwd_bf16_depthwise_t4x8c16_f3_m2_cpg8_w2_v8", "--rule-set", "full")
    assert code == 0
    assert "    rule 'tiny-groups-fwd' on sm_90: not in its axes: group_channels=8 not in [2, 4]" in out.splitlines()
    code, out, _ = run(capsys, "rules", "explain", "fwd_bf16_depthwise_t4x8c32_f9_m1_w2_v8", "--rule-set", "full")
    assert "    rule 'depthwise-fwd' on sm_90: not in its axes: filter_size=9 not in [1, 3, 5, 7]" in out.splitlines()


def test_explain_refuses_a_name_that_is_not_a_kernel_name(capsys):
    code, out, err = run(capsys, "rules", "explain", "bogus")
    assert (code, out) == (2, "")
    assert err == ("error: 'bogus' is not a kernel name; expected e.g. 'fwd_bf16_igemm_m128n64k32_w4_s3_ms_g8_v8_mg1', "
                   "'bwd_weight_fp16_direct_p64c32_w4_v8_sk4' or 'fwd_bf16_depthwise_t4x16c32_f3_m1_w4_v8'\n")


def test_schema_writes_json_schema_files(capsys, tmp_path):
    code, out, _ = run(capsys, "rules", "schema", "--out", str(tmp_path))
    assert code == 0
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["arch.schema.json", "ruleset.schema.json"]
    schema = json.loads((tmp_path / "ruleset.schema.json").read_text())
    assert schema["additionalProperties"] is False


def test_a_reader_that_stops_early_gets_no_traceback():
    # `gconv rules list | head`: the pipe closes while 5,000 names (over a pipe buffer) are still being written.
    code = "import sys; from gconv.cli import main; sys.exit(main(['rules', 'list', '--rule-set', 'full']))"
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = process.stdout.readline()
    process.stdout.close()
    stderr = process.stderr.read()
    assert process.wait(timeout=60) == 141
    assert first.startswith(b"bwd_data_") and stderr == b""
