"""bench/device_tree.py: the sources a rule set does not use, and the registries naming them, leave the tree and come
back, byte for byte; `gconv generate` refuses a stashed tree."""
import json
import re

import pytest

from bench import device_tree
from bench.device_tree import restore, stash, unlisted_sources
from gconv.errors import GenerationError
from gconv.generator.pipeline import generate


def fake_tree(root):
    kernels = root / "generated" / "kernels"
    for path, text in {"fwd/a.py": "a\n", "fwd/b.py": "b\n", "bwd_weight/c.py": "c\n"}.items():
        (kernels / path).parent.mkdir(parents=True, exist_ok=True)
        (kernels / path).write_text(text)
    for rule_set, sources in (("default", ["fwd/a.py"]), ("tests", ["bwd_weight/c.py"]), ("tiny", ["fwd/a.py"])):
        (root / "generated" / rule_set).mkdir(parents=True)
        (root / "generated" / rule_set / "registry.json").write_text(
            json.dumps({"entries": [{"source": f"generated/kernels/{source}"} for source in sources]}))


def tree_files(root):
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_stash_moves_the_unlisted_sources_and_restore_brings_them_back(tmp_path):
    root, stash_dir = tmp_path / "repo", tmp_path / "stash"
    fake_tree(root)
    assert unlisted_sources(root, ("default",)) == ["generated/kernels/bwd_weight/c.py", "generated/kernels/fwd/b.py"]
    assert unlisted_sources(root, ("default", "tests")) == ["generated/kernels/fwd/b.py"]
    before = {path: (root / path).read_bytes() for path in tree_files(root)}
    assert stash(root, stash_dir) == 3
    assert tree_files(root) == ["generated/STASHED", "generated/default/registry.json", "generated/kernels/fwd/a.py",
                                "generated/tiny/registry.json"]
    with pytest.raises(ValueError, match="is not empty: restore it first"):
        stash(root, stash_dir)
    for emptied in ("generated/tests", "generated/kernels/bwd_weight"):  # as `git stash` leaves them (session 50)
        (root / emptied).rmdir()
    assert restore(root, stash_dir) == 3
    assert {path: (root / path).read_bytes() for path in tree_files(root)} == before
    assert not stash_dir.exists()


def test_stash_keeps_the_registries_of_every_kept_set(tmp_path):
    root, stash_dir = tmp_path / "repo", tmp_path / "stash"
    fake_tree(root)
    assert stash(root, stash_dir, ("default", "tests")) == 1
    assert tree_files(root) == ["generated/STASHED", "generated/default/registry.json",
                                "generated/kernels/bwd_weight/c.py", "generated/kernels/fwd/a.py",
                                "generated/tests/registry.json", "generated/tiny/registry.json"]


def test_results_but_moves_every_result_file_but_the_resumed_focus_sweeps_and_brings_them_back(tmp_path):
    root, stash_dir = tmp_path / "repo", tmp_path / "stash"
    fake_tree(root)
    results = root / "bench" / "results"
    for path in ("train.csv", "fp16/heldout.csv", "bounds.csv", "bounds.kept", "kwgr.csv", "other.csv"):
        (results / path).parent.mkdir(parents=True, exist_ok=True)
        (results / path).write_text(f"{path}\n")
    before = {path: (root / path).read_bytes() for path in tree_files(root)}
    assert stash(root, stash_dir, results_but=("bounds", "kwgr")) == 3 + 4
    assert [p for p in tree_files(root) if p.startswith("bench/")] == ["bench/results/bounds.csv",
                                                                      "bench/results/kwgr.csv"]
    assert restore(root, stash_dir) == 7
    assert {path: (root / path).read_bytes() for path in tree_files(root)} == before


def test_results_but_nothing_moves_every_result_file_for_a_call_that_reads_none(tmp_path, monkeypatch, capsys):
    root, stash_dir = tmp_path / "repo", tmp_path / "stash"
    fake_tree(root)
    results = root / "bench" / "results"
    for path in ("train.csv", "fp16/heldout.csv"):
        (results / path).parent.mkdir(parents=True, exist_ok=True)
        (results / path).write_text(f"{path}\n")
    monkeypatch.setattr(device_tree, "REPO_ROOT", root)
    before = {path: (root / path).read_bytes() for path in tree_files(root)}
    assert device_tree.main(["stash", str(stash_dir), "--results-but"]) == 0
    moved = int(re.fullmatch(r"moved (\d+) files \(kernel sources, the registries naming them and result files\) to "
                             + re.escape(str(stash_dir)) + "\n", capsys.readouterr().out).group(1))
    assert not [p for p in tree_files(root) if p.startswith("bench/")]
    assert restore(root, stash_dir) == moved
    assert {path: (root / path).read_bytes() for path in tree_files(root)} == before


def test_results_but_a_sweep_that_is_not_there_is_refused_before_anything_moves(tmp_path):
    root, stash_dir = tmp_path / "repo", tmp_path / "stash"
    fake_tree(root)
    (root / "bench" / "results").mkdir(parents=True)
    (root / "bench" / "results" / "train.csv").write_text("rows\n")
    before = tree_files(root)
    with pytest.raises(ValueError) as error:
        stash(root, stash_dir, results_but=("bonds",))
    assert str(error.value) == ("bench/results/bonds.csv does not exist: --results-but names the focus sweeps a call "
                                "resumes (python -m bench.focus_sweep gather first)")
    assert tree_files(root) == before and not stash_dir.exists()


def test_restore_without_a_manifest_is_refused(tmp_path):
    with pytest.raises(ValueError) as error:
        restore(tmp_path, tmp_path / "nothing")
    assert str(error.value) == (f"{tmp_path / 'nothing' / 'manifest.json'} does not exist: nothing was stashed there "
                                "(or the stash was cut off before its manifest: move its files back by hand)")


def test_generate_refuses_a_stashed_tree_and_leaves_it_as_it_is(tmp_path):
    root, stash_dir = tmp_path / "repo", tmp_path / "stash"
    fake_tree(root)
    stash(root, stash_dir)
    before = {path: (root / path).read_bytes() for path in tree_files(root)}
    with pytest.raises(GenerationError) as error:
        generate(out_dir=root / "generated", schema_root=root)
    assert str(error.value) == (f"generated/STASHED says: 3 files stashed in {stash_dir} (python -m bench.device_tree "
                                f"restore {stash_dir}) -- restore the stash before regenerating")
    assert {path: (root / path).read_bytes() for path in tree_files(root)} == before
