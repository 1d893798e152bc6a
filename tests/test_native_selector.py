"""The compiled selector (runtime/native_selector.py) against Python's selection path: the same kernel, padding,
candidate count and key (bit for bit where numpy's exp is libm's), with the trained models and with the rule; and its
build: cached, nothing half-written, clear messages when it cannot be built, the Python fallback then."""
import ctypes
import warnings
from pathlib import Path

import pytest

import gconv
from gconv.c_source import booster_forests
from gconv.heuristics.model import SelectionModel, find_model
from gconv.runtime import native_selector as native
from gconv.runtime import selection
from gconv.runtime.registry import entries_by_name, load_arch_spec
from gconv.schemas import Problem
from seeded_problems import numpy_is_libm, seeded_problems

ARCH = "sm_90"


@pytest.fixture(scope="module")
def selector() -> native.NativeSelector:
    built = native.native_selector(ARCH)
    assert built is not None, "the C selector did not build (a C compiler is part of the test setup)"
    return built


def _model(problem: Problem, ranked: bool = True):
    """The checked-in model of the problem's target; ranked False: without its ranker (the regressor chooses)."""
    model = find_model(problem.direction.value, problem.dtype.value, ARCH)
    if not isinstance(model, SelectionModel):
        return None
    assert model.ranker is not None
    if ranked:
        return model
    return SelectionModel(model.booster, model.metadata.model_copy(update={"ranking": None}), model.path,
                          label=model.label)


@pytest.mark.parametrize("rule_set, seed, ranked, vendor", [("default", 11, True, True), ("default", 12, True, False),
                                                            ("tests", 13, True, True), ("default", 14, False, True)])
def test_c_picks_what_python_picks(selector, rule_set, seed, ranked, vendor):
    """vendor: the vendor path competes too (runtime/selection.py model_choice); its pick is C's index len(pool)."""
    exact = numpy_is_libm()
    mismatches, by_model, vendor_picks = [], 0, 0
    for problem in seeded_problems(seed, 150, ("bf16", "bf16", "fp16")):
        model = _model(problem, ranked)
        by_model += model is not None
        python = selection.python_best(problem, rule_set, ARCH, model, vendor)
        c = selection.native_best(selector, problem, rule_set, ARCH, model, vendor)
        if python is None or c is None:
            assert python is c is None, problem.key
            continue
        vendor_picks += python.candidate is selection.VENDOR
        same_key = c.key == python.key if exact or model is None else c.key == pytest.approx(python.key, rel=1e-12)
        if (c.candidate.name, c.candidate.padding, c.count) != (python.candidate.name, python.candidate.padding,
                                                                python.count) or not same_key:
            mismatches.append(f"{problem.key}: C {c} != Python {python}")
    assert not mismatches, "\n".join(mismatches[:10])
    assert by_model > 50, f"only {by_model} problems had a trained model"
    # with the vendor path competing, some picks must be it (so that C and Python agree on it too); without, none
    assert vendor_picks >= 3 if vendor else vendor_picks == 0, vendor_picks


def test_a_vendor_margin_takes_picks_from_the_vendor_path_in_c_as_in_python(selector):
    """metadata.vendor_margin: the vendor path's key is exp(margin) times its score's, in C (the pruned search and the
    plain loop alike) as in Python; a larger margin leaves it fewer picks."""
    problems = [p for p in seeded_problems(61, 240, ("bf16",)) if p.direction.value == "bwd_weight"]
    shipped = _model(problems[0])
    vendor_picks = {}
    for margin in (0.0, 1.0):
        model = SelectionModel(shipped.booster, shipped.metadata.model_copy(update={"vendor_margin": margin}),
                               shipped.path, label=f"{shipped.label} margin {margin}", ranker=shipped.ranker)
        picks = 0
        for problem in problems:
            python = selection.python_best(problem, "default", ARCH, model, vendor=True)
            c = selection.native_best(selector, problem, "default", ARCH, model, vendor=True)
            assert (c.candidate.name, c.count) == (python.candidate.name, python.count), (margin, problem.key)
            picks += python.candidate is selection.VENDOR
        vendor_picks[margin] = picks
    assert vendor_picks[0.0] > vendor_picks[1.0], vendor_picks


def test_the_vendor_classifier_moves_picks_in_c_as_in_python(selector):
    """metadata.vendor_weight: the vendor path's key is also exp(-weight x the classifier's log-odds) times, in C (its
    leaves negated, in the pruned search and the plain loop) as in Python; the classifier changes picks, so the
    agreement is not vacuous (it fails if C ignores the classifier)."""
    problems = [p for p in seeded_problems(62, 240, ("bf16",)) if p.direction.value == "bwd_weight"]
    shipped = _model(problems[0])
    assert shipped.vendor is not None and shipped.metadata.vendor_weight > 0
    chosen = {}
    for weight in (0.0, 2.0):
        model = SelectionModel(shipped.booster, shipped.metadata.model_copy(update={"vendor_weight": weight}),
                               shipped.path, label=f"{shipped.label} weight {weight}", ranker=shipped.ranker,
                               vendor=shipped.vendor if weight else None)
        names = []
        for problem in problems:
            python = selection.python_best(problem, "default", ARCH, model, vendor=True)
            c = selection.native_best(selector, problem, "default", ARCH, model, vendor=True)
            assert (c.candidate.name, c.count) == (python.candidate.name, python.count), (weight, problem.key)
            assert c.key == pytest.approx(python.key, rel=1e-12), (weight, problem.key)
            names.append(python.candidate.name)
        chosen[weight] = names
    assert sum(a != b for a, b in zip(chosen[0.0], chosen[2.0])) >= 3


def test_select_reports_the_same_choice_either_way(selector, monkeypatch):
    problems = seeded_problems(21, 60, ("bf16", "fp16"))
    selection.clear_cache()
    compiled = [gconv.select(p, arch=ARCH, rule_set="default") for p in problems]
    monkeypatch.setattr(selection, "native_selector", lambda arch: None)
    selection.clear_cache()
    python = [gconv.select(p, arch=ARCH, rule_set="default") for p in problems]
    selection.clear_cache()
    for p, c, py in zip(problems, compiled, python):
        assert (c.name, c.padding, c.reason, c.source) == (py.name, py.padding, py.reason, py.source), p.key
        assert c.predicted_tflops == pytest.approx(py.predicted_tflops, rel=1e-3, abs=1e-3), p.key


def test_problems_beyond_32_bit_indexing_take_the_python_path():
    huge = Problem(direction="fwd", dtype="bf16", N=4096, G=4, C=64, K=64, Hi=256, Wi=256, Y=3, X=3, pad_h=1, pad_w=1)
    assert not native.indexable(huge)
    assert native.indexable(huge.model_copy(update={"N": 1}))


def test_the_library_is_built_once_per_inputs(tmp_path):
    spec = load_arch_spec(ARCH)
    first = native.build_library(spec, tmp_path)
    stamp = first.stat().st_mtime_ns
    assert native.build_library(spec, tmp_path) == first and first.stat().st_mtime_ns == stamp
    assert [p.name for p in first.parent.iterdir()] == [first.name]  # no scratch left beside it


def test_a_failed_build_leaves_nothing_and_says_why(tmp_path, monkeypatch):
    failing = tmp_path / "failing-cc"
    failing.write_text("#!/bin/sh\necho 'select.c:1: error: the compiler refuses' >&2\nexit 3\n")
    failing.chmod(0o755)
    monkeypatch.setenv("CC", str(failing))
    with pytest.raises(native.NativeSelectorError) as error:
        native.build_library(load_arch_spec(ARCH), tmp_path / "cache")
    assert str(error.value) == (f"{failing} failed to compile the selector (exit 3):\n"
                                "select.c:1: error: the compiler refuses")
    assert not [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]


def test_a_missing_compiler_is_named(monkeypatch):
    monkeypatch.setenv("CC", "no-such-cc-xyz")
    with pytest.raises(native.NativeSelectorError, match=r"^\$CC is 'no-such-cc-xyz', which is not an executable$"):
        native.build_library(load_arch_spec(ARCH))


def test_without_the_c_selector_gconv_warns_once_and_selects_in_python(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "no-such-cc-xyz")
    monkeypatch.setenv("GCONV_CACHE_DIR", str(tmp_path))
    native.native_selector.cache_clear()
    selection.clear_cache()
    problem = Problem(direction="fwd", dtype="bf16", N=8, G=32, C=8, K=8, Hi=28, Wi=28, Y=3, X=3, pad_h=1, pad_w=1)
    try:
        with pytest.warns(RuntimeWarning) as caught:
            choice = gconv.select(problem, arch=ARCH, rule_set="default")
            gconv.select(problem.model_copy(update={"N": 4}), arch=ARCH, rule_set="default")
        assert [str(w.message) for w in caught] == [
            "gconv selects in Python (slower, same choices): the C selector is unavailable: $CC is 'no-such-cc-xyz', "
            "which is not an executable. Set GCONV_NATIVE_SELECTOR=0 to silence this."]
        best = selection.python_best(problem, "default", ARCH, _model(problem), vendor=selection.VENDOR_COMPETES)
        assert choice.source == "model" and choice.name == best.candidate.name
    finally:
        native.native_selector.cache_clear()
        selection.clear_cache()


def test_turned_off_it_is_not_built_and_nothing_warns(monkeypatch):
    monkeypatch.setenv(native.ENABLE_ENV, "0")
    native.native_selector.cache_clear()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert native.native_selector(ARCH) is None
    finally:
        native.native_selector.cache_clear()


def test_the_checked_in_models_are_plain_numerical_forests_with_a_ranker():
    for direction in ("fwd", "bwd_data", "bwd_weight"):
        model = find_model(direction, "bf16", ARCH)
        forests = booster_forests(model)
        for booster, forest in zip((model.booster, model.ranker), forests):
            assert forest.plain == 1 and len(forest.roots) == booster.num_trees()


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv(native.CACHE_ENV, str(tmp_path))
    assert native.cache_dir() == tmp_path
    monkeypatch.delenv(native.CACHE_ENV)
    assert native.cache_dir() == Path.home() / ".cache" / "gconv"


def _restricted(model: SelectionModel, keep) -> SelectionModel:
    """The model with a smaller kernel pool: as if trained on fewer kernels."""
    pool = [name for name in model.metadata.kernel_pool if keep(name)]
    return SelectionModel(model.booster, model.metadata.model_copy(update={"kernel_pool": pool}), model.path,
                          ranker=model.ranker)


@pytest.mark.parametrize("keep, knows_some", [(lambda name: "_m64n" in name, True), (lambda name: False, False)],
                         ids=["some", "none"])
def test_the_model_scores_only_the_kernels_it_was_trained_on(selector, keep, knows_some):
    """Python and C skip the candidates outside the model's kernel pool alike; a model that knows none of them leaves
    the pick to the rule."""
    model = _restricted(find_model("fwd", "bf16", ARCH), keep)
    by_model = by_rule = 0
    for problem in seeded_problems(31, 120, ("bf16",)):
        if problem.direction.value != "fwd":
            continue
        python = selection.python_best(problem, "default", ARCH, model)
        c = selection.native_best(selector, problem, "default", ARCH, model)
        if python is None:
            assert c is None
            continue
        assert (c.candidate.name, c.count, c.skipped, c.by_model) == \
            (python.candidate.name, python.count, python.skipped, python.by_model), problem.key
        assert c.key == pytest.approx(python.key, rel=1e-12)
        assert model.knows(c.candidate.name) == c.by_model
        by_model += c.by_model
        by_rule += not c.by_model
        if not c.by_model:
            assert c == selection.python_best(problem, "default", ARCH)._replace(skipped=c.count)
    assert (by_model > 20, by_rule > 20) == (knows_some, not knows_some)


def test_select_says_what_the_model_did_not_know(monkeypatch):
    import gconv.heuristics.model as models

    problem = Problem(direction="fwd", dtype="bf16", N=8, G=32, C=16, K=16, Hi=28, Wi=28, Y=3, X=3, pad_h=1, pad_w=1)
    full = find_model("fwd", "bf16", ARCH)
    count = len([c for c in selection.candidates(problem, "default", ARCH) if c.entry is not None])
    for keep, reason in [
        (lambda name: "_m64n" in name or "_m128n" in name,
         "model sm_90/fwd_bf16 (LightGBM, feature version 12): ranked first of {known} candidates; {skipped} "
         "candidates outside its training pool skipped"),
        (lambda name: False, "fallback rule (model sm_90/fwd_bf16 was trained on none of the {count} candidates): "
                             "least estimated time of {count} candidates")]:
        model = _restricted(full, keep)
        monkeypatch.setattr(models, "find_model", lambda *target, model=model: model)
        selection.clear_cache()
        known = len([c for c in selection.candidates(problem, "default", ARCH) if c.entry and model.knows(c.name)])
        choice = gconv.select(problem, arch=ARCH, rule_set="default")
        assert choice.reason == reason.format(known=known, skipped=count - known, count=count)
    selection.clear_cache()


def test_the_search_walks_fewer_trees_than_candidates_times_trees(selector):
    """gconv_model_least drops a candidate once its trees so far plus the least the rest can add exceed the best key:
    the picks stay Python's (test_c_picks_what_python_picks), the winner walks every tree, the others far fewer."""
    walked = every = 0
    for problem in seeded_problems(41, 150, ("bf16",)):
        model = _model(problem)
        pick = selector.choose(problem, selection._pool("default", problem.direction, problem.dtype, ARCH), model)
        if pick is None or not pick.by_model:
            continue
        trees = model.choosing_forest.num_trees()
        assert trees <= pick.tree_walks <= pick.candidates * trees, problem.key
        walked += pick.tree_walks
        every += pick.candidates * trees
    assert every > 100_000 and walked < 0.75 * every, (walked, every)


def test_the_kernels_own_least_leaves_drop_candidates_sooner(selector):
    """gconv_model_least bounds each remaining tree by the candidate kernel's least leaf (gconv_model.kernel_least),
    without that table by the problem's: the same picks and keys either way, over about as many trees or fewer with
    the table (and no search of the trees per selection). The saving is the models': 0.93x on these problems when the
    table came, 0.98x with session 43's bf16 bwd_weight model (fwd 0.96x, bwd_data 0.995x, bwd_weight 1.01x:
    neither bound is the tighter for every tree), 1.0001x with session 47's fwd and bwd_data models; a table of loose
    bounds would walk far more."""
    with_table = without = 0
    for problem in seeded_problems(43, 60, ("bf16",)):
        model = _model(problem)
        pool = selection._pool("default", problem.direction, problem.dtype, ARCH)
        struct = selector.model_struct(model)
        table = ctypes.cast(struct.kernel_least, ctypes.POINTER(ctypes.c_double))  # a copy: the field itself aliases
        assert table, "every shipped forest is plain: each model has its table"
        pick = selector.choose(problem, pool, model)
        struct.kernel_least = ctypes.POINTER(ctypes.c_double)()
        try:
            plain = selector.choose(problem, pool, model)
        finally:
            struct.kernel_least = table
        if pick is None or not pick.by_model:
            continue
        assert (pick.index, pick.key, pick.candidates) == (plain.index, plain.key, plain.candidates), problem.key
        with_table += pick.tree_walks
        without += plain.tree_walks
    assert with_table < 1.01 * without, (with_table, without)


def test_kernel_least_leaves_bound_each_tree_with_the_kernels_features_fixed():
    """c_source.kernel_least_leaves (vectorised over the pool) equals bench/pruning_bound.py's one-kernel search, the
    vendor path's row with zero kernel features; and no row of a kernel reaches a leaf below its bound."""
    from bench.pruning_bound import KERNEL_END, KERNEL_START, least_leaf, tree_value
    from gconv.c_source import kernel_least_leaves, pool_names
    from gconv.heuristics.features import feature_matrix, kernel_features
    from gconv.schemas import KernelConfig

    problem = Problem(direction="bwd_weight", dtype="bf16", N=8, G=16, C=8, K=8, Hi=28, Wi=28, Y=3, X=3, pad_h=1,
                      pad_w=1)
    model = _model(problem)
    ranker = booster_forests(model)[1]
    names = pool_names(model)
    least = kernel_least_leaves(ranker, names)
    trees = len(ranker.roots)
    assert len(least) == len(names) * trees
    for i in (0, names.index("cudnn"), len(names) // 2, len(names) - 1):
        row = [0.0] * (KERNEL_END + 13)
        if names[i] != "cudnn":
            row[KERNEL_START:KERNEL_END] = kernel_features(KernelConfig.from_name(names[i]))
        expected = [least_leaf(ranker, ranker.roots[t], row, lambda f: KERNEL_START <= f < KERNEL_END)
                    for t in range(trees)]
        assert least[i * trees:(i + 1) * trees] == expected, names[i]
    runnable = [c for c in selection.candidates(problem, "default", ARCH) if c.entry is not None][:20]
    rows = feature_matrix(problem, [(c.entry.config, problem) for c in runnable if not c.padding],
                          load_arch_spec(ARCH)).tolist()
    for candidate, row in zip([c for c in runnable if not c.padding], rows):
        i = names.index(candidate.name)
        assert all(tree_value(ranker, t, row) >= least[i * trees + t] for t in range(trees)), candidate.name
    assert kernel_least_leaves(None, names) is None


@pytest.mark.parametrize("target", ["log_time_over_roofline", "log_time_over_analytic"])
def test_c_picks_what_python_picks_for_every_training_target(selector, target, tmp_path):
    """Models whose time is scaled by the roofline or by each candidate's analytic estimate (read from its feature row
    by column index): C and Python agree, so the index C reads is the one Python reads."""
    from gconv.heuristics.dataset import read_measurements
    from gconv.heuristics.train import TrainConfig, train

    sample = Path(__file__).parent / "data" / "train-sample-fwd-bf16.csv"
    measured = [m for m in read_measurements([sample]).values() if m.problem.direction.value == "fwd"]
    config = TrainConfig(num_boost_round=30, cv_folds=2, min_data_in_leaf=5, num_leaves=15, target=target)
    train(measured, direction="fwd", dtype="bf16", arch=ARCH, out=tmp_path, data_files=[sample],
          rule_sets=["default"], config=config)
    model = SelectionModel.load(tmp_path, direction="fwd", dtype="bf16", arch=ARCH)
    compared = 0
    for problem in seeded_problems(51, 200, ("bf16",)):
        if problem.direction.value != "fwd":
            continue
        python = selection.python_best(problem, "default", ARCH, model, vendor=True)
        c = selection.native_best(selector, problem, "default", ARCH, model, vendor=True)
        assert (c is None) == (python is None), problem.key
        if c is not None:
            assert (c.candidate.name, c.count, c.by_model) == (python.candidate.name, python.count, python.by_model)
            assert c.key == pytest.approx(python.key, rel=1e-12), problem.key
            compared += c.by_model
    assert compared > 30


def _random_forest(rng, rows, trees: int, max_depth: int):
    """A plain forest of random trees over rows' features (some single leaves): each split on a feature whose values
    differ between the rows, at a midpoint between two of them, or on one that does not (a problem feature), either
    side of its value. Nodes numbered parents first, tree after tree."""
    from gconv.heuristics.lightgbm_text import Forest

    columns = list(zip(*rows))
    nodes, leaves, roots = [], [], []

    def grow(depth: int) -> int:
        if depth == 0 or rng.random() < 0.15:
            leaves.append(rng.uniform(-1.0, 1.0))
            return ~(len(leaves) - 1)
        feature = rng.randrange(len(columns))
        values = sorted(set(columns[feature]))
        at = rng.randrange(len(values) - 1) if len(values) > 1 else None
        threshold = (values[at] + values[at + 1]) / 2 if at is not None else values[0] + rng.choice([-0.5, 0.5])
        index = len(nodes)
        nodes.append(None)
        left, right = grow(depth - 1), grow(depth - 1)
        nodes[index] = (feature, 0, threshold, left, right)
        return index

    for t in range(trees):
        roots.append(grow(0 if t % 5 == 2 else rng.randint(1, max_depth)))
    return Forest(nodes, leaves, roots)


def test_the_lane_walks_and_bounds_sum_a_random_forest_as_python_does(selector, monkeypatch):
    """gconv_model_least walks up to 8 trees of a row at once, without branches, and bounds what is left by subtracting
    each walked tree's least from their sum: on random forests as the regressor (13 trees, every fifth a single leaf,
    up to 9 levels, splits on problem and kernel features), its pick and key are the least key's, exp(the leaves added
    in tree order) x the target's scale."""
    import math
    import random

    from bench.pruning_bound import tree_value
    from gconv.heuristics.features import feature_matrix
    from gconv.heuristics.target import scale_ms
    from gconv.runtime.padding import padded_problem

    spec, exact, rng = load_arch_spec(ARCH), numpy_is_libm(), random.Random(5)
    compared = 0
    for problem in seeded_problems(61, 40, ("bf16",)):
        shipped = _model(problem, ranked=False)  # a new SelectionModel: a struct of its own
        pool = selection._pool("default", problem.direction, problem.dtype, ARCH)
        known = [c for c in selection.candidates(problem, "default", ARCH)
                 if c.entry is not None and shipped.knows(c.name)]
        if len(known) < 2:
            continue
        features = feature_matrix(problem, [(c.entry.config, padded_problem(problem, c.padding) if c.padding else
                                             problem) for c in known], spec)
        forest = _random_forest(rng, features.tolist(), trees=13, max_depth=9)
        monkeypatch.setattr(native, "booster_forests", lambda model: (forest, None, None))
        pick = selector.choose(problem, pool, shipped)
        scales = scale_ms(shipped.metadata.target, problem, features, spec)
        keys = []
        for row, scale in zip(features.tolist(), scales):
            total = 0.0
            for t in range(len(forest.roots)):
                total += tree_value(forest, t, row)
            keys.append(math.exp(total) * float(scale))
        best = min(range(len(known)), key=lambda i: (keys[i], known[i].name))
        assert (pool[pick.index].name, pick.candidates) == (known[best].name, len(known)), problem.key
        assert pick.key == (keys[best] if exact else pytest.approx(keys[best], rel=1e-12)), problem.key
        compared += 1
    assert compared > 25, compared


def test_model_c_ab_times_versions_and_catches_a_changed_pick(tmp_path, capsys):
    """bench/model_c_ab.py: the shipped model.c against itself picks the same everywhere (exit 0); against a version
    whose plain walk goes right where it should go left, it says the picks differ (exit 1)."""
    from bench.model_c_ab import main

    shipped = native.SOURCE_DIR / "model.c"
    assert main([str(shipped), str(shipped), "--samples", "6", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count(" yes") == 6 and "NO" not in out, out
    source = shipped.read_text()
    walk = "(split->left ^ split->right) & right);"
    assert source.count(walk) == 1
    wrong = tmp_path / "model.c"
    wrong.write_text(source.replace(walk, "(split->left ^ split->right) & ~right);"))
    assert main([str(shipped), str(wrong), "--samples", "6", "--rounds", "1"]) == 1
    assert "NO" in capsys.readouterr().out
    assert main([str(shipped), str(tmp_path / "absent.c")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_c_scores_via_fwd_candidates_as_python_does(selector):
    """The checked-in bwd_data model told that it knows `tests`' via_fwd kernels (their features are their forward
    kernels' on the forward twin): C and Python pick alike, with the model and with the rule, and some picks are via
    ones."""
    stored = find_model("bwd_data", "bf16", ARCH)
    tests = [name for name, e in entries_by_name("tests").items()
             if e.config.via_fwd and e.config.dtype.value == "bf16"]
    model = SelectionModel(stored.booster, stored.metadata.model_copy(
        update={"kernel_pool": sorted(set(stored.metadata.kernel_pool) | set(tests))}), stored.path,
        label=stored.label, ranker=stored.ranker)
    via_picks = compared = 0
    for problem in seeded_problems(17, 600, ("bf16",)):
        if problem.forward_twin() is None:
            continue
        for chooser in (model, None):
            python = selection.python_best(problem, "tests", ARCH, chooser)
            c = selection.native_best(selector, problem, "tests", ARCH, chooser)
            if python is None:
                assert c is None, problem.key
                continue
            assert (c.candidate.name, c.candidate.padding, c.count) == \
                (python.candidate.name, python.candidate.padding, python.count), problem.key
            assert c.key == pytest.approx(python.key, rel=1e-12), problem.key
            via_picks += python.candidate.entry.config.via_fwd
            compared += 1
    assert compared > 60 and via_picks > 5, (compared, via_picks)


def test_c_pads_three_channels_for_the_depthwise_family_as_python_does(selector):
    """Three channels per group run the four-channel depthwise-family kernels padded (runtime/padding.py's next power
    of two): C's candidates, paddings and picks are Python's, with the rule and with the models, and the rule picks
    such a padded kernel somewhere (so the comparison covers one)."""
    padded_picks = 0
    for direction in ("fwd", "bwd_data", "bwd_weight"):
        for C, K, f, stride, n in ((3, 3, 3, 1, 8), (3, 1, 5, 1, 32), (3, 3, 7, 2, 1), (3, 1, 3, 1, 8)):
            problem = Problem(direction=direction, dtype="bf16", N=n, G=64, C=C, K=K, Hi=56, Wi=56, Y=f, X=f,
                              stride_h=stride, stride_w=stride, pad_h=f // 2, pad_w=f // 2)
            for chooser in (_model(problem), None):
                python = selection.python_best(problem, "default", ARCH, chooser)
                c = selection.native_best(selector, problem, "default", ARCH, chooser)
                assert (c.candidate.name, c.candidate.padding, c.count) == \
                    (python.candidate.name, python.candidate.padding, python.count), problem.key
                padded_picks += "_cpg4" in python.candidate.name
    assert padded_picks >= 3, padded_picks
