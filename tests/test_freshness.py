"""The freshness gate: generated/ must be exactly what rules/ generate; drift names the instances and the fix."""
import shutil
import subprocess
import sys

import pytest

from gconv.paths import GENERATED_DIR, RULES_DIR


def gconv(root, *args):
    return subprocess.run([sys.executable, "-m", "gconv.cli", *args], capture_output=True, text=True,
                          env={"GCONV_ROOT": str(root), "PATH": "/usr/bin:/bin", "TRITON_INTERPRET": "1"})


@pytest.fixture(scope="module")
def repo_copy(tmp_path_factory):
    """A copy of the repository's rules/ and generated/, so the tests can make them drift."""
    root = tmp_path_factory.mktemp("repo")
    shutil.copytree(RULES_DIR, root / "rules")
    shutil.copytree(GENERATED_DIR, root / "generated")
    return root


def test_checked_in_tree_is_fresh(repo_copy):
    result = gconv(repo_copy, "check", "--no-compile")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == "generated/ is fresh: regenerating from rules/ gives identical bytes\n"


def test_changing_one_value_in_full_names_the_changed_instances(repo_copy, tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(repo_copy, root)
    full = root / "rules" / "full.yaml"
    old = "      - {block_m: 256, block_n: 128, block_k: [32], num_warps: [8]}\n"
    text = full.read_text()
    assert text.count(old) == 2 and text.index(old) < text.index("name: igemm-fwd-explicit-gemm")
    full.write_text(text.replace(old, old.replace("block_k: [32]", "block_k: [64]"), 1))  # rule igemm-fwd only

    result = gconv(root, "check", "--no-compile")

    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == "generated/ is stale: the rules generate something else than what is checked in"
    removed = "generated/kernels/fwd/fwd_fp16_igemm_m256n128k32_w8_s3_ms_g8_v8_mg1.py  " \
              "(instance fwd_fp16_igemm_m256n128k32_w8_s3_ms_g8_v8_mg1)"
    assert f"    {removed}" in lines
    # 3 dtypes x 3 stage counts x 2 pipelines x 2 reduction walks (flat, tap-major) lose block_k 32, and so do their
    # bwd_data twins (via_fwd); fp32 with block_k 64 fits shared memory only at s2
    assert "  removed (72):" in lines and "  added (56):" in lines
    assert "--- generated/full/registry.json: instances 56 added, 72 removed, 0 changed" in lines
    assert "  + bwd_data_bf16_igemm_m256n128k64_w8_s2_tma_g8_v8_mg1_tm_vf" in lines
    assert "  ... and 88 more" in lines  # 20 names shown of the 56 added and 20 of the 72 removed
    # default's deep-k rule takes the new block_k 64 twins of bf16 and fp16 (fp32's only fits at s2)
    assert "--- generated/default/registry.json: instances 2 added, 3 removed, 0 changed" in lines
    assert "  + fwd_bf16_igemm_m256n128k64_w8_s3_ms_g8_v8_mg1" in lines
    assert "  - fwd_fp32_igemm_m256n128k32_w8_s3_ms_g8_v4_mg1" in lines
    assert lines[-1] == "fix: run 'gconv generate --all' and commit the result"
    # the drift leaves the checked-in tree alone
    assert (root / "generated" / "kernels" / "fwd" / "fwd_fp16_igemm_m256n128k32_w8_s3_ms_g8_v8_mg1.py").exists()


def test_a_hand_edited_kernel_source_is_reported_with_a_diff(repo_copy, tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(repo_copy, root)
    source = root / "generated" / "kernels" / "fwd" / "fwd_fp16_direct_p64c32_w4_v8.py"
    source.write_text(source.read_text() + "# hand edit\n")
    (root / "generated" / "kernels" / "fwd" / "stray.py").write_text("")

    result = gconv(root, "check", "--no-compile")

    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[1:5] == [
        "  removed (1):",
        "    generated/kernels/fwd/stray.py  (instance stray)",
        "  changed (1):",
        "    generated/kernels/fwd/fwd_fp16_direct_p64c32_w4_v8.py  (instance fwd_fp16_direct_p64c32_w4_v8)",
    ]
    assert "-# hand edit" in lines
