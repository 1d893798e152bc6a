"""bench/pruning_bound.py: the C search's pruning simulated under four bounds, on hand-made forests with known walks."""
from bench.pruning_bound import (KERNEL_START, ORDERING_TREES, bound_walks, least_leaf, main, pruned_search,
                                 suffix_sums)
from gconv.heuristics.lightgbm_text import Forest

P, K = 0, KERNEL_START  # a problem feature, a kernel-only feature


def forest(last_trees):
    """ORDERING_TREES one-leaf trees of 0, then last_trees: (nodes, leaves) each, child indices local to the tree."""
    nodes, leaves, roots = [], [], []
    for _ in range(ORDERING_TREES):
        roots.append(~len(leaves))
        leaves.append(0.0)
    for tree_nodes, tree_leaves in last_trees:
        base_node, base_leaf = len(nodes), len(leaves)

        def shift(ref):
            return ref + base_node if ref >= 0 else ~(~ref + base_leaf)
        nodes += [(feature, 0, threshold, shift(left), shift(right)) for feature, threshold, left, right in tree_nodes]
        leaves += tree_leaves
        roots.append(base_node)
    return Forest(nodes, leaves, roots)


# P <= 0.5 -> (K <= 0.5 -> 5, else -2); P > 0.5 -> -20: the problem fixed leaves {5, -2}, the kernel {5, -20}
PROBLEM_THEN_KERNEL = ([(P, 0.5, 1, ~2), (K, 0.5, ~0, ~1)], [5.0, -2.0, -20.0])
KERNEL_ONLY = ([(K, 0.5, ~0, ~1)], [4.0, -1.0])  # K <= 0.5 -> 4, else -1
CONSTANT = ([(P, 0.5, ~0, ~0)], [0.0])


def row(k_value):
    values = [0.0] * (KERNEL_START + 22)
    values[K] = k_value
    return values


def test_least_leaf_follows_the_fixed_features_and_both_ways_elsewhere():
    trees = forest([PROBLEM_THEN_KERNEL])
    root = trees.roots[ORDERING_TREES]
    assert least_leaf(trees, root, row(0.0), lambda f: f == P) == -2.0
    assert least_leaf(trees, root, row(0.0), lambda f: f == K) == -20.0
    assert least_leaf(trees, root, row(0.0), lambda f: f in (P, K)) == 5.0
    assert least_leaf(trees, root, row(0.0), lambda f: False) == -20.0
    assert suffix_sums([1.0, 2.0, 3.0]) == [6.0, 5.0, 3.0, 0.0]


def test_each_tighter_bound_drops_the_losing_candidate_sooner():
    """Candidate 0 (K = 1) wins and is searched first (ties keep the row order); candidate 1 (K = 0) walks the ordering
    trees, then on while its bound can reach the winner's sum."""
    rows = [row(1.0), row(0.0)]
    base = 2 * ORDERING_TREES + 2  # every ordering tree, then the winner's two last trees
    # the second tree adds nothing: only fixing the problem and the kernel together rules out -2 in the first
    assert bound_walks(forest([PROBLEM_THEN_KERNEL, CONSTANT]), rows) == {
        "problem": (0, base + 1), "kernel alone": (0, base + 1), "kernel": (0, base + 1), "problem+kernel": (0, base)}
    # a kernel-only split in the second tree: the kernel's bound (4) beside the problem's first-tree -2 tells the loser
    # apart at once; alone (-20 + 4) it does after the first tree
    assert bound_walks(forest([PROBLEM_THEN_KERNEL, KERNEL_ONLY]), rows) == {
        "problem": (0, base + 1), "kernel alone": (0, base + 1), "kernel": (0, base), "problem+kernel": (0, base)}


def test_the_search_without_pruning_walks_every_tree_and_picks_the_least_sum():
    trees = forest([PROBLEM_THEN_KERNEL, KERNEL_ONLY])
    rows = [row(0.0), row(1.0)]  # the winner second: the first walks everything
    loose = [[-float("inf")] * (len(trees.roots) + 1)] * 2
    assert pruned_search(trees, rows, loose) == (1, 2 * len(trees.roots))


def test_bad_input_is_named(capsys, tmp_path):
    assert main(["--direction", "fwd", "--dtype", "fp32", "--problems", str(tmp_path / "none.csv")]) == 2
    assert capsys.readouterr().err == "pruning_bound: no fwd fp32 model for sm_90\n"
    assert main(["--direction", "fwd", "--dtype", "bf16", "--problems", str(tmp_path / "none.csv")]) == 2
    assert capsys.readouterr().err == f"pruning_bound: problem file {tmp_path / 'none.csv'} does not exist\n"
