"""heuristics/lightgbm_text.py: LightGBM text models read without LightGBM -- the same forests LightGBM's own JSON dump
describes (missing-value splits and one-leaf trees included), clear refusals, and the C library's model source built
with LightGBM not importable."""
import builtins
import runpy
import shutil
import sys

import lightgbm
import numpy as np
import pytest

from gconv.c_source import booster_forests, model_forests
from gconv.heuristics.features import FEATURE_NAMES
from gconv.heuristics.lightgbm_text import Forest, TextModel, UnreadableModel, parse_forest
from gconv.heuristics.model import MODELS_DIR, find_model, load_model
from gconv.runtime.registry import load_arch_spec, load_registry
from gconv.runtime.support import unsupported_reason
from seeded_problems import seeded_problems
from gconv.paths import REPO_ROOT

ARCH = "sm_90"
MISSING = ("None", "Zero", "NaN")


def dumped_forest(booster) -> Forest:
    """The forest as Booster.dump_model() (LightGBM's JSON) describes it: the reference the text reader must equal."""
    forest = Forest([], [], [])
    for tree in booster.dump_model()["tree_info"]:
        nodes, leaves = {}, {}

        def visit(node):
            if "leaf_value" in node:
                leaves[node.get("leaf_index", 0)] = node["leaf_value"]
                return ~node.get("leaf_index", 0)
            flags = int(node["default_left"]) | MISSING.index(node["missing_type"]) << 1
            nodes[node["split_index"]] = (node["split_feature"], flags, node["threshold"],
                                          visit(node["left_child"]), visit(node["right_child"]))
            return node["split_index"]

        root = visit(tree["tree_structure"])
        base_node, base_leaf = len(forest.nodes), len(forest.leaves)

        def shift(ref):
            return ref + base_node if ref >= 0 else ~(~ref + base_leaf)

        forest.nodes.extend((f, g, t, shift(a), shift(b)) for f, g, t, a, b in (nodes[i] for i in range(len(nodes))))
        forest.leaves.extend(leaves[i] for i in range(len(leaves)))
        forest.roots.append(shift(root))
    return forest


def trained(params: dict, data: np.ndarray, label: np.ndarray, rounds: int = 8):
    return lightgbm.train({"verbosity": -1, "num_leaves": 7, "min_data_in_leaf": 5, "deterministic": True,
                           "num_threads": 1, **params}, lightgbm.Dataset(data, label), num_boost_round=rounds)


@pytest.fixture(scope="module")
def synthetic():
    rng = np.random.default_rng(5)
    data = rng.normal(size=(400, 4))
    label = data[:, 0] * 2 + (data[:, 1] > 0.3) + rng.normal(scale=0.1, size=400)
    return data, label


@pytest.mark.parametrize("kind", ["plain", "nan", "zero", "one_leaf", "binary"])
def test_the_text_reader_gives_the_forest_lightgbms_dump_describes(synthetic, kind):
    data, label = synthetic[0].copy(), synthetic[1]
    params = {"objective": "regression"}
    if kind == "nan":
        data[::7, 0] = np.nan
    elif kind == "zero":
        data[::5, 1] = 0.0
        params["zero_as_missing"] = True
    elif kind == "one_leaf":
        label = np.full_like(label, 3.0)
    elif kind == "binary":
        params["objective"], label = "binary", (label > 0.5).astype(float)
    booster = trained(params, data, label)
    forest = parse_forest(booster.model_to_string(), "synthetic")
    assert forest == dumped_forest(booster)
    assert len(forest.roots) == booster.num_trees()
    missing = {flags >> 1 for _, flags, _, _, _ in forest.nodes}
    assert missing == {"plain": {0}, "nan": {0, 2}, "zero": {1}, "one_leaf": set(), "binary": {0}}[kind]
    if kind == "one_leaf":
        assert forest.roots == [~i for i in range(booster.num_trees())] and forest.plain == 1
    negated = parse_forest(booster.model_to_string(), "synthetic", negate=True)
    assert negated.leaves == [-v for v in forest.leaves] and negated.nodes == forest.nodes
    rows = np.random.default_rng(2).normal(size=(300, 4))
    rows[::3, 0], rows[1::4, 1], rows[2::5, 2], rows[3::7, 3] = np.nan, 0.0, 1e-36, -0.0  # missing, zero, near zero
    assert np.array_equal(TextModel(booster.model_to_string(), "synthetic").predict(rows),
                          booster.predict(rows, raw_score=True))


@pytest.mark.parametrize("direction", ["fwd", "bwd_data", "bwd_weight"])
def test_the_checked_in_files_sum_to_lightgbms_raw_scores(direction):
    model = find_model(direction, "bf16", ARCH)
    path = MODELS_DIR / ARCH / f"{direction}_bf16"
    rows = np.random.default_rng(1).uniform(-2, 40, size=(60, len(FEATURE_NAMES)))
    for booster, name, negate in ((model.booster, "model.txt", False), (model.ranker, "ranker.txt", True)):
        forest = parse_forest((path / name).read_text(), model.label, feature_count=len(FEATURE_NAMES))
        assert forest.plain == 1 and len(forest.roots) == booster.num_trees()
        assert parse_forest((path / name).read_text(), model.label, negate=negate) == \
            booster_forests(model)[int(negate)]
        expected = booster.predict(rows, raw_score=True, num_threads=1)
        assert np.array_equal(TextModel((path / name).read_text(), model.label).predict(rows), expected)


def _text(booster) -> str:
    return booster.model_to_string()


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace("tree\n", "booster\n", 1),
     r"^model m: not a LightGBM text model \(its first line is not 'tree'\)$"),
    (lambda t: t.split("Tree=3")[0], r"^model m: the text ends before 'end of trees' \(truncated\?\)$"),
    (lambda t: t.replace("Tree=2\n", "Tree=5\n"), r"^model m: 'Tree=5' where Tree=2 was due$"),
    (lambda t: t.replace("max_feature_idx=3", "max_feature_idx=9"), r"^model m: it reads 9 \+ 1 features, not 4$"),
    (lambda t: t.replace("left_child=", "left_child=1 ", 1), r"^model m: tree 0 has 7 left_child values, not 6$"),
    (lambda t: t.replace("threshold=", "threshold=x", 1),
     r"^model m: tree 0 has a threshold that is not float numbers$"),
])
def test_malformed_text_is_refused_by_what_is_wrong(synthetic, edit, message):
    booster = trained({"objective": "regression"}, *synthetic)
    with pytest.raises(UnreadableModel, match=message):
        parse_forest(edit(_text(booster)), "m", feature_count=4)


def test_what_the_c_evaluator_cannot_sum_is_refused_by_name(synthetic):
    data, label = synthetic
    categorical = np.column_stack([data[:, :3], np.arange(400) % 4])
    booster_text = lightgbm.train({"verbosity": -1, "num_leaves": 7, "min_data_in_leaf": 5, "num_threads": 1,
                                   "min_data_per_group": 5, "cat_smooth": 1},
                                  lightgbm.Dataset(categorical, data[:, 0] * 3 + (np.arange(400) % 4 == 2) * 5,
                                                   categorical_feature=[3]), num_boost_round=3).model_to_string()
    with pytest.raises(ValueError, match=r"^model m: split \d+ of tree \d+ is categorical; the C evaluator handles "
                                         r"numerical splits only$"):
        parse_forest(booster_text, "m")
    multiclass = trained({"objective": "multiclass", "num_class": 3}, data, np.arange(400) % 3, rounds=2)
    with pytest.raises(ValueError, match=r"^model m: objective 'multiclass num_class:3' with 3 classes; the C "
                                         r"evaluator sums plain regression, lambdarank or binary trees$"):
        parse_forest(_text(multiclass), "m")
    linear = trained({"objective": "regression", "linear_tree": True}, data, label, rounds=2)
    with pytest.raises(ValueError, match=r"^model m: tree 0 is a linear tree; the C evaluator sums constant leaves "
                                         r"only$"):
        parse_forest(_text(linear), "m")


def test_model_forests_negate_the_ranker_and_the_vendor_classifier(synthetic):
    text = _text(trained({"objective": "regression"}, *synthetic))
    regressor, ranker, vendor = model_forests("m", text, text, None)
    assert ranker.leaves == [-v for v in regressor.leaves] and vendor is None


def _without_lightgbm(monkeypatch):
    real_import = builtins.__import__

    def no_lightgbm(name, *args, **kwargs):
        if name.split(".")[0] == "lightgbm":
            raise ImportError("lightgbm is not installed")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_lightgbm)


def _models_source_without_lightgbm(models, monkeypatch, out):
    _without_lightgbm(monkeypatch)
    monkeypatch.setattr(sys, "argv", ["cmake_tool.py", "models", "--arch", "90", "--out", str(out),
                                      "--models", str(models)])
    with pytest.raises(SystemExit) as done:
        runpy.run_path(str(REPO_ROOT / "capi" / "cmake_tool.py"), run_name="__main__")
    assert done.value.code == 0
    return out.read_text()


def test_the_c_librarys_models_build_without_lightgbm(tmp_path, monkeypatch, capsys):
    models = tmp_path / "models"
    shutil.copytree(MODELS_DIR, models)
    (models / ARCH / "bwd_data_bf16" / "ranker.txt").write_text("tree\nversion=v4\n")  # truncated
    source = _models_source_without_lightgbm(models, monkeypatch, tmp_path / "gconv_models.c")
    assert "selection models for sm_90: 5" in capsys.readouterr().out
    assert (f"/* sm_90/bwd_data_bf16 is not usable (model sm_90/bwd_data_bf16 ranker: the text ends before 'end of "
            "trees' (truncated?)); C falls back to the rule heuristic. */") in source
    assert '"sm_90/fwd_bf16", ' in source and '"sm_90/bwd_data_fp16", ' in source


def test_a_text_model_scores_raw_scores_only(synthetic):
    with pytest.raises(ValueError, match=r"^TextModel scores raw_score=True only \(no objective transform\)$"):
        TextModel(_text(trained({"objective": "binary"}, synthetic[0], synthetic[1] > 0)), "m").predict(
            synthetic[0], raw_score=False)


@pytest.mark.parametrize("direction", ["fwd", "bwd_weight"])
def test_without_lightgbm_the_runtime_scores_the_same_keys(direction, monkeypatch):
    """Where LightGBM is not installed, load_model reads the text models itself: the choice keys, predicted times and
    the vendor key are LightGBM's, bit for bit."""
    shipped = load_model(direction, "bf16", ARCH)
    _without_lightgbm(monkeypatch)
    text_model = load_model(direction, "bf16", ARCH)
    assert isinstance(text_model.booster, TextModel) and isinstance(text_model.ranker, TextModel)
    arch = load_arch_spec(ARCH)
    registry = load_registry("default")
    for problem in seeded_problems(41, 30, ("bf16",)):
        if problem.direction.value != direction:
            continue
        candidates = [(e.config, problem) for e in registry.entries
                      if e.config.direction is problem.direction and e.config.dtype is problem.dtype
                      and unsupported_reason(e.config, problem) is None]
        assert candidates
        assert np.array_equal(text_model.choice_keys(problem, candidates, arch),
                              shipped.choice_keys(problem, candidates, arch))
        assert np.array_equal(text_model.predict_ms(problem, candidates, arch),
                              shipped.predict_ms(problem, candidates, arch))
        assert text_model.vendor_key(problem, arch) == shipped.vendor_key(problem, arch)
