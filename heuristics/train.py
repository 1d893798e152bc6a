"""`gconv train`: per direction x dtype x arch, a LightGBM regressor of log(time) and (train.yaml `ranking`) a
LambdaRank model that orders each problem's kernels, cross-validated by problem.

The regressor predicts each kernel's time (the throughput `gconv.select` reports); the ranker, when there is one,
chooses: it is trained on the order of a problem's kernels only, not on how long the problem takes, and picks better
(5-fold CV, heuristics/train.yaml). A selection takes the least exp(-score) (heuristics/model.py choice_keys); the
C selector holds the ranker with its leaf values negated (gconv.c_source.model_forests), so it minimises alike. Where
train.yaml `vendor_classifier` weighs a direction, a binary model of "the vendor path beats every instance" is trained
too (vendor.txt): its log-odds times the weight raise the vendor path's score (model.py SelectionModel.vendor_key)."""
from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import numpy as np
import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from gconv.runtime.registry import VENDOR_KERNEL, load_arch_spec
from gconv.schemas import ArchSpec, Direction, KernelConfig

from .dataset import ProblemMeasurements, files_sha256, runs_as
from .features import FEATURE_NAMES, FEATURE_VERSION, feature_matrix, vendor_row
from .model import (LIGHTGBM_RUN_PARAMS, METADATA_FILE, MODEL_FILE, RANKER_FILE, VENDOR_FILE, ModelMetadata,
                    RankingConfig, VendorClassifierConfig, as_dtype, not_negative_per_direction)
from .target import Target, scale_ms

DEFAULT_CONFIG = Path(__file__).with_name("train.yaml")


class TrainConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    objective: str = "regression"
    learning_rate: float = Field(0.05, gt=0)
    num_leaves: int = Field(31, ge=2)
    min_data_in_leaf: int = Field(10, ge=1)
    feature_fraction: float = Field(0.9, gt=0, le=1)
    bagging_fraction: float = Field(0.9, gt=0, le=1)
    bagging_freq: int = Field(1, ge=0)
    lambda_l2: float = Field(1.0, ge=0)
    num_boost_round: int = Field(400, ge=1)
    cv_folds: int = Field(5, ge=2)
    seed: int = 0
    target: Target = "log_time"
    # Rows near their problem's fastest kernel weigh more: 1 + near_best_weight * exp(-(log t - log t_best) / scale).
    near_best_weight: float = Field(0.0, ge=0)
    near_best_scale: float = Field(1.0, gt=0)
    ranking: RankingConfig | None = None
    # Per direction: the vendor path is chosen only where its choice key beats the best instance's by more than
    # this (in log-key units: the ranker's score, or log predicted time without a ranker); written into each model's
    # metadata (ModelMetadata.vendor_margin). Directions not named: 0.
    vendor_margin: dict[Direction, float] = {}
    # A classifier of the vendor path beside the ranker (model.py VendorClassifierConfig); None: none.
    vendor_classifier: VendorClassifierConfig | None = None

    @field_validator("vendor_margin")
    @classmethod
    def _margins_not_negative(cls, margins: dict[Direction, float]) -> dict[Direction, float]:
        return not_negative_per_direction(margins, "vendor_margin", "margin")

    def vendor_margin_of(self, direction: str) -> float:
        return self.vendor_margin.get(Direction(direction), 0.0)

    def vendor_weight_of(self, direction: str) -> float:
        return 0.0 if self.vendor_classifier is None else self.vendor_classifier.weight_of(direction)

    def for_direction(self, direction: str) -> "TrainConfig":
        """This config as direction's models are trained: its ranker's per-direction rounds resolved."""
        if self.ranking is None:
            return self
        return self.model_copy(update={"ranking": self.ranking.for_direction(direction)})

    def vendor_classifier_of(self, direction: str) -> VendorClassifierConfig | None:
        """The vendor classifier to train for direction: None where it has no weight."""
        return self.vendor_classifier if self.vendor_weight_of(direction) > 0 else None

    @classmethod
    def load(cls, path: Path = DEFAULT_CONFIG) -> "TrainConfig":
        return cls.model_validate(yaml.safe_load(Path(path).read_text()))

    def lightgbm_params(self) -> dict:
        params = self.model_dump(exclude={"num_boost_round", "cv_folds", "target", "near_best_weight",
                                          "near_best_scale", "ranking", "vendor_margin", "vendor_classifier"})
        return {**params, **LIGHTGBM_RUN_PARAMS}


class ProblemTable(NamedTuple):
    """One problem's measured kernels: names, feature rows, targets, and log of each row's target scale."""
    names: list[str]
    features: np.ndarray
    targets: np.ndarray
    log_scale: np.ndarray

    @property
    def log_times(self) -> np.ndarray:
        return self.targets + self.log_scale


def problem_table(m: ProblemMeasurements, arch: ArchSpec, target: Target) -> ProblemTable:
    """The problem's measured instances, sorted by name, then the vendor path (features.py vendor_row) when measured."""
    names = sorted(m.kernels)
    candidates = [(c, runs_as(c, m.problem)) for c in map(KernelConfig.from_name, names)]
    features = feature_matrix(m.problem, candidates, arch)
    if m.vendor_ms is not None:
        names, features = [*names, VENDOR_KERNEL], np.vstack([features, vendor_row(m.problem)])
    log_scale = np.log(scale_ms(target, m.problem, features, arch))
    timed = m.candidates_ms
    log_times = np.log([timed[n] for n in names])
    return ProblemTable(names, features, log_times - log_scale, log_scale)


def problem_tables(measurements: list[ProblemMeasurements], arch: ArchSpec, target: Target) -> list[ProblemTable]:
    """problem_table of each problem, in problem-key order (the order folds are drawn in)."""
    return [problem_table(m, arch, target) for m in sorted(measurements, key=lambda m: m.problem.key)]


def group_folds(count: int, folds: int, seed: int) -> list[list[int]]:
    """Problem indices split into folds (a problem's rows never straddle two folds)."""
    order = list(range(count))
    random.Random(seed).shuffle(order)
    return [order[i::folds] for i in range(folds)]


def cv_splits(tables: list[ProblemTable], sibling_tables: list[ProblemTable], folds: int, seed: int
              ) -> Iterator[tuple[list[ProblemTable], list[int]]]:
    """Per fold: the training tables (the other folds' and every sibling-dtype table) and the held-out indices."""
    for held in group_folds(len(tables), folds, seed):
        held_set = set(held)
        yield [t for i, t in enumerate(tables) if i not in held_set] + sibling_tables, held


def row_weights(table: ProblemTable, config: TrainConfig) -> np.ndarray:
    """Training weight of each row: the selection only needs the fast end of a problem's ranking right."""
    slower = table.log_times - table.log_times.min()
    return 1.0 + config.near_best_weight * np.exp(-slower / config.near_best_scale)


def fit(tables: list[ProblemTable], config: TrainConfig):
    import lightgbm

    features = np.vstack([t.features for t in tables])
    target = np.concatenate([t.targets for t in tables])
    weights = np.concatenate([row_weights(t, config) for t in tables])
    data = lightgbm.Dataset(features, target, weight=weights, feature_name=FEATURE_NAMES, free_raw_data=False)
    return lightgbm.train(config.lightgbm_params(), data, num_boost_round=config.num_boost_round)


def relevance_labels(table: ProblemTable, ranking: RankingConfig) -> np.ndarray:
    """Each kernel's LambdaRank label: label_levels for the problem's fastest, one less per label_step of log time."""
    slower = (table.log_times - table.log_times.min()) / ranking.label_step
    return np.clip(ranking.label_levels - np.round(slower), 0, ranking.label_levels).astype(int)


def fit_ranker(tables: list[ProblemTable], config: TrainConfig):
    """The LambdaRank model of config.ranking (one query per problem): the higher its score, the faster the kernel."""
    import lightgbm

    ranking = config.ranking
    features = np.vstack([t.features for t in tables])
    labels = np.concatenate([relevance_labels(t, ranking) for t in tables])
    data = lightgbm.Dataset(features, labels, group=[len(t.names) for t in tables], feature_name=FEATURE_NAMES,
                            free_raw_data=False)
    params = config.lightgbm_params() | {"objective": "lambdarank",
                                         "label_gain": [2.0 ** level - 1 for level in range(ranking.label_levels + 1)]}
    if ranking.num_leaves is not None:
        params["num_leaves"] = ranking.num_leaves
    return lightgbm.train(params, data, num_boost_round=ranking.num_boost_round)


def selection_efficiency(booster, tables: list[ProblemTable], *, ranker: bool = False, vendor_margin: float = 0.0,
                         vendor=None, vendor_weight: float = 0.0) -> list[float]:
    """Per problem: oracle time / time of the kernel the model picks (a ranker's highest score, a regressor's least
    predicted log time; the vendor path's raised by vendor_margin, and lowered by vendor_weight times the vendor
    classifier's log-odds when there is one)."""
    efficiencies = []
    for table in tables:
        predicted = booster.predict(table.features, num_threads=1)
        shift = vendor_shift(vendor, table, vendor_weight)
        chosen = chosen_index(-predicted if ranker else predicted + table.log_scale, table.names, vendor_margin, shift)
        efficiencies.append(float(np.exp(table.log_times.min() - table.log_times[chosen])))
    return efficiencies


def chosen_index(log_keys: np.ndarray, names: list[str], vendor_margin: float, vendor_shift: float = 0.0) -> int:
    """The candidate a selection takes: the least log choice key, the vendor path's raised by vendor_margin and
    lowered by vendor_shift (the runtime's SelectionModel.vendor_key: exp(margin) x exp(-shift) times the key)."""
    vendor = np.array([name == VENDOR_KERNEL for name in names])
    return int(np.argmin(np.where(vendor, log_keys + vendor_margin - vendor_shift, log_keys)))


def vendor_examples(tables: list[ProblemTable], floor: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The vendor classifier's training set: each problem with a vendor row gives its features, the label "the
    vendor path beats every instance" and the weight |log time gap| + floor."""
    rows, labels, weights = [], [], []
    for table in tables:
        if VENDOR_KERNEL not in table.names:
            continue
        vendor = table.names.index(VENDOR_KERNEL)
        instances = np.delete(table.log_times, vendor)
        if instances.size == 0:
            continue
        gap = float(instances.min() - table.log_times[vendor])
        rows.append(table.features[vendor])
        labels.append(int(gap > 0))
        weights.append(abs(gap) + floor)
    return np.array(rows).reshape(-1, len(FEATURE_NAMES)), np.array(labels), np.array(weights)


def fit_vendor_classifier(tables: list[ProblemTable], config: VendorClassifierConfig | None):
    """The vendor classifier on tables (vendor_examples), or None without a config (TrainConfig.vendor_classifier_of)
    or where the tables hold one class only (or none)."""
    import lightgbm

    if config is None:
        return None
    rows, labels, weights = vendor_examples(tables, config.gap_floor)
    if len(set(labels.tolist())) < 2:
        return None
    data = lightgbm.Dataset(rows, labels, weight=weights, feature_name=FEATURE_NAMES, free_raw_data=False)
    return lightgbm.train(config.lightgbm_params(), data, num_boost_round=config.num_boost_round)


def vendor_shift(vendor, table: ProblemTable, weight: float) -> float:
    """weight x the vendor classifier's log-odds for the table's problem (0 without a classifier or a vendor row)."""
    if vendor is None or weight == 0 or VENDOR_KERNEL not in table.names:
        return 0.0
    row = table.features[table.names.index(VENDOR_KERNEL)][None, :]
    return weight * float(vendor.predict(row, raw_score=True, num_threads=1)[0])


def kernel_pool(tables: list[ProblemTable], sibling_tables: list[ProblemTable], dtype: str) -> list[str]:
    """The kernels a model may choose: every kernel of its rows, the sibling dtype's named as this dtype's twins (the
    features do not name the dtype, so a sibling row teaches the twin as well as its own row would)."""
    sibling = {name for t in sibling_tables for name in t.names}
    return sorted({name for t in tables for name in t.names} | {as_dtype(name, dtype) for name in sibling})


def _summary(efficiency: list[float], prefix: str = "") -> dict[str, float]:
    values = np.asarray(efficiency)
    return {f"{prefix}efficiency_mean": round(float(values.mean()), 4),
            f"{prefix}efficiency_p10": round(float(np.percentile(values, 10)), 4),
            f"{prefix}efficiency_min": round(float(values.min()), 4)}


def train(measurements: list[ProblemMeasurements], *, direction: str, dtype: str, arch: str, out: Path,
          data_files: list[Path], rule_sets: list[str], config: TrainConfig,
          sibling: list[ProblemMeasurements] = ()) -> ModelMetadata:
    """Cross-validate by problem, train on everything, write out/model.txt and out/metadata.json.

    sibling: measurements of the sibling dtype (heuristics/model.py SIBLING_DTYPES), trained on too: in every fold's
    training part, never in its test part, so the CV metrics stay those of this dtype's problems."""
    import lightgbm

    if len(measurements) < config.cv_folds:
        raise ValueError(f"{len(measurements)} problems for {direction}/{dtype}: need at least {config.cv_folds} "
                         f"(cv_folds) to cross-validate")
    spec = load_arch_spec(arch)
    config = config.for_direction(direction)
    tables = problem_tables(measurements, spec, config.target)
    sibling_tables = problem_tables(sibling, spec, config.target)
    margin, weight = config.vendor_margin_of(direction), config.vendor_weight_of(direction)
    classifier = config.vendor_classifier_of(direction)
    fold_efficiency, regressor_efficiency, fold_rmse = [], [], []
    for training, held in cv_splits(tables, sibling_tables, config.cv_folds, config.seed):
        booster = fit(training, config)
        test = [tables[i] for i in held]
        vendor = dict(vendor_margin=margin, vendor=fit_vendor_classifier(training, classifier), vendor_weight=weight)
        regressor_efficiency += selection_efficiency(booster, test, **vendor)
        fold_efficiency += selection_efficiency(fit_ranker(training, config), test, ranker=True, **vendor) \
            if config.ranking else regressor_efficiency[-len(test):]
        errors = np.concatenate([booster.predict(t.features, num_threads=1) - t.targets for t in test])
        fold_rmse.append(float(np.sqrt(np.mean(errors ** 2))))
    booster = fit(tables + sibling_tables, config)
    out.mkdir(parents=True, exist_ok=True)
    booster.save_model(str(out / MODEL_FILE))
    ranker_path = out / RANKER_FILE
    if config.ranking:
        fit_ranker(tables + sibling_tables, config).save_model(str(ranker_path))
    elif ranker_path.exists():
        ranker_path.unlink()  # a ranker of an earlier training would otherwise outlive its metadata
    vendor_classifier = fit_vendor_classifier(tables + sibling_tables, classifier)
    vendor_path = out / VENDOR_FILE
    if vendor_classifier is not None:
        vendor_classifier.save_model(str(vendor_path))
    elif vendor_path.exists():
        vendor_path.unlink()
    metadata = ModelMetadata(
        direction=direction, dtype=dtype, arch=arch, feature_version=FEATURE_VERSION, feature_names=FEATURE_NAMES, target=config.target,
        kernel_pool=kernel_pool(tables, sibling_tables, dtype), rule_sets=rule_sets,
        data_files=[Path(p).as_posix() for p in data_files], data_sha256=files_sha256(data_files),
        rows=int(sum(len(t.names) for t in tables + sibling_tables)), problems=len(tables),
        sibling_problems=len(sibling_tables), cv_folds=config.cv_folds,
        cv_metrics={"rmse_log_time": round(float(np.mean(fold_rmse)), 4), **_summary(fold_efficiency),
                    **(_summary(regressor_efficiency, "regressor_") if config.ranking else {})},
        ranking=config.ranking, vendor_margin=margin, vendor_weight=weight if vendor_classifier is not None else 0.0,
        params=config.lightgbm_params() | config.model_dump(include={"seed", "near_best_weight", "near_best_scale"}),
        num_boost_round=config.num_boost_round,
        lightgbm_version=lightgbm.__version__, created=ModelMetadata.today())
    (out / METADATA_FILE).write_text(json.dumps(metadata.model_dump(), indent=1) + "\n")
    return metadata
