"""Bad rule files fail with file, line, key path and what was expected, and leave generated/ untouched."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gconv.errors import RuleError
from gconv.generator.pipeline import generate
from gconv.paths import ARCH_DIR

FULL = """\
name: full
description: a small base set for error tests
archs: [sm_90]
constraints:
  - expr: "smem_bytes <= arch.max_smem_per_block_bytes"
    why: shared memory
rules:
  - name: igemm-fwd
    directions: [fwd]
    dtypes: [fp16]
    algorithm: igemm
    tiles:
      - {block_m: 64, block_n: 64, block_k: [32], num_warps: [4]}
    num_stages: [2, 3]
"""
DERIVED = """\
name: {name}
description: keeps everything of its parent
archs: [sm_90]
extends: {parent}
keep:
  - name: everything
    where: "num_stages >= 2"
"""
PARENTS = {"full-tests": "full", "tiny": "full-tests", "tests": "full", "profiler": "full", "default": "full"}


@pytest.fixture
def workspace(tmp_path):
    """A rules/ dir with six small valid sets, and a generated/ dir holding one sentinel file."""
    rules = tmp_path / "rules"
    shutil.copytree(ARCH_DIR, rules / "arch")
    (rules / "full.yaml").write_text(FULL)
    for name, parent in PARENTS.items():
        (rules / f"{name}.yaml").write_text(DERIVED.format(name=name, parent=parent))
    generated = tmp_path / "generated"
    generated.mkdir()
    (generated / "sentinel.txt").write_text("untouched\n")
    return rules, generated


def break_file(rules: Path, name: str, old: str, new: str) -> Path:
    path = rules / f"{name}.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return path


def run_generate(rules: Path, generated: Path) -> None:
    generate(rules_dir=rules, out_dir=generated, schema_root=generated.parent / "schema-root")


def test_valid_workspace_generates(workspace):
    rules, generated = workspace
    run_generate(rules, generated)
    assert sorted(p.name for p in generated.iterdir()) == \
        ["README.md", "default", "full", "full-tests", "kernels", "profiler", "tests", "tiny"]


CASES = {
    "yaml-syntax": ("full", "block_k: [32], num_warps: [4]}", "block_k: [32], num_warps: [4]",
                    "{path}:14: YAML syntax error: expected ',' or '}}', but got '<scalar>' "
                    "(while parsing a flow mapping)\n"
                    "  hint: check indentation, colons and brackets on this line and the one before"),
    "unknown-key": ("full", "    num_stages: [2, 3]", "    num_stage: [2, 3]",
                    "{path}:14: rules[0].num_stage: unknown key 'num_stage'; expected one of: name, description, "
                    "directions, dtypes, algorithm, tiles, num_stages, pipelines, raster_groups, vectors, "
                    "groups_to_merge, split_k, filter_sizes, multipliers, group_channels, tap_major, two_stage, "
                    "explicit_gemm, sliding_rows, last_arrival, aligned_k, via_fwd, constraints"),
    "wrong-type": ("full", "{block_m: 64,", "{block_m: '64',",
                   "{path}:13: rules[0].tiles[0].block_m: input should be a valid integer (got '64')"),
    "out-of-range": ("full", "{block_m: 64,", "{block_m: -64,",
                     "{path}:13: rules[0].tiles[0].block_m: input should be greater than 0 (got -64)"),
    "not-a-power-of-two": ("full", "{block_m: 64,", "{block_m: 96,",
                           "{path}:13: rules[0].tiles[0].block_m: tile sizes must be powers of two, got 96"),
    "unknown-enum": ("full", "dtypes: [fp16]", "dtypes: [fp8]",
                     "{path}:10: rules[0].dtypes[0]: input should be 'fp16', 'bf16' or 'fp32' (got 'fp8')"),
    "unknown-field-in-constraint": (
        "full", "smem_bytes <= arch", "smem_byte <= arch",
        "{path}:5: constraints[0].expr: unknown field 'smem_byte'; known fields: acc_registers_per_thread, "
        "algorithm, aligned_k, arch.compute_capability, arch.has_tma, arch.l2_cache_bytes, "
        "arch.max_registers_per_thread, arch.max_smem_per_block_bytes, arch.max_threads_per_block, arch.max_vector_bytes, arch.name, "
        "arch.registers_per_sm, arch.sm_count, arch.warp_size, block_k, block_m, block_n, direction, dtype, "
        "elt_bytes, explicit_gemm, filter_size, group_channels, groups_to_merge, last_arrival, min_dot_k, min_dot_m, "
        "min_dot_n, "
        "multiplier, "
        "num_stages, num_warps, pipeline, raster_group, sliding_rows, smem_bytes, split_k, tap_major, threads, "
        "tile_k, tile_m, "
        "tile_n, tile_w, two_stage, vector_bytes, vector_width, via_fwd\n"
        "    smem_byte <= arch.max_smem_per_block_bytes\n    ^"),
    "empty-expansion": ("full", "smem_bytes <= arch.max_smem_per_block_bytes", "smem_bytes <= 1",
                        "{path}:8: rules[0]: rule 'igemm-fwd' admits no instance on any arch (sm_90)\n"
                        "  hint: its constraints exclude every axis combination; run "
                        "'gconv rules explain <name> --rule-set full' on one to see which"),
    "missing-key": ("full", "    algorithm: igemm\n", "",
                    "{path}:8: rules[0].algorithm: required key is missing"),
    "empty-keep-clause": ("tests", "num_stages >= 2", "num_stages >= 5",
                          "{path}:6: keep[0]: keep clause 'everything' selects no instance of 'full'\n"
                          "  hint: an empty clause is dead weight: loosen 'where' or remove the clause"),
    "unknown-parent": ("tests", "extends: full", "extends: fulll",
                       "{path}:4: extends: unknown parent set 'fulll'; expected one of: default, full, "
                       "full-tests, profiler, tests, tiny"),
    "duplicate-key": ("full", "    num_stages: [2, 3]", "    num_stages: [2, 3]\n    num_stages: [4]",
                      "{path}:15: rules[0].num_stages: duplicate key 'num_stages'\n"
                      "  hint: each key may appear once in a mapping"),
    "axis-of-another-algorithm": ("full", "    num_stages: [2, 3]", "    num_stages: [2, 3]\n    sliding_rows: [1]",
                                  "{path}:8: rules[0]: filter_sizes, multipliers, group_channels and sliding_rows are "
                                  "axes of the depthwise algorithm only"),
    "unknown-arch": ("full", "archs: [sm_90]", "archs: [sm_91]",
                     "{path}:3: archs[0]: unknown arch 'sm_91'; expected one of: sm_80, sm_90\n"
                     "  hint: add sm_91.yaml under arch/ or remove it"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_bad_rule_file_fails_with_location_and_leaves_generated_untouched(workspace, case):
    rules, generated = workspace
    file_name, old, new, expected = CASES[case]
    path = break_file(rules, file_name, old, new)
    before = sorted(p.relative_to(generated) for p in generated.rglob("*"))
    with pytest.raises(RuleError) as error:
        run_generate(rules, generated)
    assert str(error.value) == expected.format(path=path)
    assert sorted(p.relative_to(generated) for p in generated.rglob("*")) == before
    assert (generated / "sentinel.txt").read_text() == "untouched\n"


def test_cli_reports_a_bad_rule_file_and_exits_non_zero(tmp_path):
    """Through the real command on a copy of the repository's rules: exit 2, message on stderr."""
    root = tmp_path / "repo"
    shutil.copytree(ARCH_DIR.parent, root / "rules")
    (root / "generated").mkdir()
    (root / "generated" / "sentinel.txt").write_text("untouched\n")
    full = root / "rules" / "full.yaml"
    full.write_text(full.read_text().replace("num_stages: [2, 3, 4]", "num_stages: [2, 3, four]", 1))
    result = subprocess.run([sys.executable, "-m", "gconv.cli", "generate", "--all"], capture_output=True, text=True,
                            env={"GCONV_ROOT": str(root), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 2
    assert result.stderr.startswith("error: rules/full.yaml:")
    assert "num_stages[2]: input should be a valid integer (got 'four')" in result.stderr
    assert [p.name for p in (root / "generated").iterdir()] == ["sentinel.txt"]
