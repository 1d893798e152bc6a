"""A LightGBM text model (model.txt, Booster.model_to_string()) read without LightGBM: its trees as a Forest, the
arrays the C evaluator sums (capi/src/model.c). Pure functions of the text.

The text holds each tree's split arrays as LightGBM numbers them -- node i's split_feature, threshold (printed with 17
significant digits: the double itself), decision_type (bit 0 categorical, bit 1 default left, bits 2-3 the missing
type), left_child / right_child (a node >= 0, ~leaf < 0) -- and its leaf_value array; the root is node 0, or leaf 0 in a
tree of one leaf."""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

MISSING_TYPES = ("None", "Zero", "NaN")  # LightGBM's MissingType, in its bit encoding (decision_type bits 2-3)
OBJECTIVES = ("regression", "lambdarank", "binary")  # whose raw score is the plain sum of the trees' leaves


class Forest(NamedTuple):
    """A model's trees as gconv_model holds them: nodes (feature, flags, threshold, left, right) with flags =
    default_left | missing_type << 1 (LightGBM's numerical split), leaf values, and one root per tree; a root or
    child >= 0 is a node, < 0 is ~leaf. Nodes and leaves are numbered as LightGBM numbers them, tree after tree."""

    nodes: list[tuple[int, int, float, int, int]]
    leaves: list[float]
    roots: list[int]

    @property
    def plain(self) -> int:
        """1 when every split's missing type is None (gconv_model.plain: the C walk then only compares)."""
        return int(all(flags >> 1 == 0 for _, flags, _, _, _ in self.nodes))


class UnreadableModel(ValueError):
    """Text that is not a LightGBM text model (truncated, edited, another format)."""


def _sections(text: str, label: str) -> tuple[dict[str, str], list[dict[str, str]]]:
    """The header's key=value lines and each tree's, in order; the header's flag lines (average_output) as keys."""
    lines = text.split("\n")
    if lines[0].strip() != "tree":
        raise UnreadableModel(f"model {label}: not a LightGBM text model (its first line is not 'tree')")
    header: dict[str, str] = {}
    trees: list[dict[str, str]] = []
    section = header
    for line in lines[1:]:
        line = line.strip()
        if line == "end of trees":
            return header, trees
        if line.startswith("Tree="):
            if line != f"Tree={len(trees)}":
                raise UnreadableModel(f"model {label}: {line!r} where Tree={len(trees)} was due")
            section = {}
            trees.append(section)
        elif line:
            key, _, value = line.partition("=")
            section[key] = value
    raise UnreadableModel(f"model {label}: the text ends before 'end of trees' (truncated?)")


def _numbers(tree: dict[str, str], key: str, kind, count: int, label: str, index: int) -> list:
    try:
        values = [kind(v) for v in tree[key].split()] if count else []
    except KeyError:
        raise UnreadableModel(f"model {label}: tree {index} has no {key}") from None
    except ValueError:
        raise UnreadableModel(f"model {label}: tree {index} has a {key} that is not {kind.__name__} numbers") from None
    if len(values) != count:
        raise UnreadableModel(f"model {label}: tree {index} has {len(values)} {key} values, not {count}")
    return values


def _tree(tree: dict[str, str], label: str, index: int, feature_count: int | None
          ) -> tuple[list[tuple[int, int, float, int, int]], list[float], int]:
    """One tree as (nodes, leaf values, root), numbered within the tree."""
    try:
        leaf_count = int(tree["num_leaves"])
    except (KeyError, ValueError):
        raise UnreadableModel(f"model {label}: tree {index} has no num_leaves") from None
    if leaf_count < 1:
        raise UnreadableModel(f"model {label}: tree {index} has {leaf_count} leaves")
    if tree.get("is_linear", "0") != "0":
        raise ValueError(f"model {label}: tree {index} is a linear tree; the C evaluator sums constant leaves only")
    leaves = _numbers(tree, "leaf_value", float, leaf_count, label, index)
    split_count = leaf_count - 1
    features = _numbers(tree, "split_feature", int, split_count, label, index)
    thresholds = _numbers(tree, "threshold", float, split_count, label, index)
    decisions = _numbers(tree, "decision_type", int, split_count, label, index)
    lefts = _numbers(tree, "left_child", int, split_count, label, index)
    rights = _numbers(tree, "right_child", int, split_count, label, index)
    nodes = []
    for split, (feature, threshold, decision, left, right) in enumerate(
            zip(features, thresholds, decisions, lefts, rights)):
        if decision & 1:
            raise ValueError(f"model {label}: split {split} of tree {index} is categorical; the C evaluator handles "
                             "numerical splits only")
        if not 0 <= decision >> 2 < len(MISSING_TYPES):
            raise UnreadableModel(f"model {label}: split {split} of tree {index} has decision_type {decision}")
        if feature < 0 or feature_count is not None and feature >= feature_count:
            raise UnreadableModel(f"model {label}: split {split} of tree {index} reads feature {feature} of "
                                  f"{feature_count}")
        for child in (left, right):
            if not (0 < child < split_count if child >= 0 else ~child < leaf_count):
                raise UnreadableModel(f"model {label}: split {split} of tree {index} has child {child}, outside "
                                      f"its {split_count} splits and {leaf_count} leaves")
        nodes.append((feature, decision >> 1, threshold, left, right))
    return nodes, leaves, 0 if split_count else ~0


def parse_forest(text: str, label: str, *, negate: bool = False, feature_count: int | None = None) -> Forest:
    """A LightGBM text model's trees, flattened tree after tree (label names the model in messages). ValueError for
    what the C evaluator cannot sum (another objective, several classes, categorical splits, linear trees);
    UnreadableModel, a ValueError, for text that is not a well-formed model (feature_count: the features a split may
    read). negate: every leaf value negated (a ranker's, so that its sum is exactly minus its score: a cost the C search
    minimises, as it does predicted times). A binary classifier's sum is its raw score, the log-odds."""
    header, trees = _sections(text, label)
    objective = header.get("objective", "")
    classes = (header.get("num_class"), header.get("num_tree_per_iteration"))
    if classes != ("1", "1") or "average_output" in header or (objective.split() or [""])[0] not in OBJECTIVES \
            or "sqrt" in objective:
        raise ValueError(f"model {label}: objective {objective!r} with {classes[0]} classes; "
                         "the C evaluator sums plain regression, lambdarank or binary trees")
    if feature_count is not None and header.get("max_feature_idx") != str(feature_count - 1):
        raise UnreadableModel(f"model {label}: it reads {header.get('max_feature_idx', '?')} + 1 features, "
                              f"not {feature_count}")
    if header.get("tree_sizes") is not None and len(header["tree_sizes"].split()) != len(trees):
        raise UnreadableModel(f"model {label}: its header lists {len(header['tree_sizes'].split())} trees, "
                              f"the text holds {len(trees)}")
    forest = Forest([], [], [])
    for index, tree in enumerate(trees):
        nodes, leaves, root = _tree(tree, label, index, feature_count)
        base_node, base_leaf = len(forest.nodes), len(forest.leaves)

        def shift(ref: int) -> int:
            return ref + base_node if ref >= 0 else ~(~ref + base_leaf)

        forest.nodes.extend((f, flags, t, shift(left), shift(right)) for f, flags, t, left, right in nodes)
        forest.leaves.extend(-value if negate else value for value in leaves)
        forest.roots.append(shift(root))
    return forest


ZERO_THRESHOLD = float(np.float32(1e-35))  # LightGBM's kZeroThreshold: a dense row's |values| at most this read as 0


class TextModel:
    """A LightGBM text model scored without LightGBM: what heuristics/model.py loads where LightGBM is not installed.
    predict gives raw scores (a regressor's or ranker's prediction, a binary classifier's log-odds) bit for bit as
    Booster.predict(raw_score=True) does, and as capi/src/model.c does: each row's values of magnitude at most
    ZERO_THRESHOLD read as 0, each tree walked with LightGBM's numerical decision, the leaf values summed in tree order
    from 0."""

    def __init__(self, text: str, label: str, *, feature_count: int | None = None):
        self._text = text
        forest = parse_forest(text, label, feature_count=feature_count)
        nodes = forest.nodes
        self._feature = np.array([n[0] for n in nodes], dtype=np.intp)
        self._flags = np.array([n[1] for n in nodes], dtype=np.int64)
        self._threshold = np.array([n[2] for n in nodes], dtype=np.float64)
        self._left = np.array([n[3] for n in nodes], dtype=np.int64)
        self._right = np.array([n[4] for n in nodes], dtype=np.int64)
        self._leaves = np.array(forest.leaves, dtype=np.float64)
        self._roots = np.array(forest.roots, dtype=np.int64)

    def num_trees(self) -> int:
        return len(self._roots)

    def model_to_string(self) -> str:
        return self._text

    def predict(self, rows: np.ndarray, raw_score: bool = True, num_threads: int = 1) -> np.ndarray:
        """Raw scores of rows (n x features); raw_score False is refused (no objective transform is applied)."""
        if not raw_score:
            raise ValueError("TextModel scores raw_score=True only (no objective transform)")
        rows = np.asarray(rows, dtype=np.float64)
        rows = np.where(np.abs(rows) > ZERO_THRESHOLD, rows, np.where(np.isnan(rows), rows, 0.0))
        at = np.repeat(self._roots[:, None], len(rows), axis=1)  # each tree's node (>= 0) or ~leaf, per row
        row_index = np.arange(len(rows))[None, :]
        walking = at >= 0
        while walking.any():
            node = np.where(walking, at, 0)
            value = rows[row_index, self._feature[node]]
            missing = self._flags[node] >> 1
            nan = np.isnan(value)
            value = np.where(nan & (missing != 2), 0.0, value)
            absent = ((missing == 1) & (np.abs(value) <= ZERO_THRESHOLD)) | ((missing == 2) & nan)
            left = np.where(absent, (self._flags[node] & 1) == 1, value <= self._threshold[node])
            at = np.where(walking, np.where(left, self._left[node], self._right[node]), at)
            walking = at >= 0
        values = self._leaves[~at]
        total = np.zeros(len(rows))
        for tree_values in values:  # in tree order, as LightGBM sums
            total = total + tree_values
        return total
