"""A trained selection model on disk: LightGBM text model + metadata; loading refuses what it cannot trust."""
from __future__ import annotations

import datetime
import math
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from gconv.errors import GconvError
from gconv.paths import REPO_ROOT
from gconv.runtime.registry import VENDOR_KERNEL
from gconv.schemas import ArchSpec, Direction, DType, KernelConfig, Problem

from .features import FEATURE_NAMES, FEATURE_VERSION, feature_matrix, vendor_row
from .lightgbm_text import TextModel, UnreadableModel
from .target import Target, scale_ms

MODELS_DIR = REPO_ROOT / "heuristics" / "models"
MODEL_FILE = "model.txt"
RANKER_FILE = "ranker.txt"
VENDOR_FILE = "vendor.txt"
METADATA_FILE = "metadata.json"


class ModelError(GconvError):
    """A model directory that is missing, corrupt, or made for something else."""


class RankingConfig(BaseModel):
    """The ranker: LambdaRank over each problem's kernels, with the regressor's tree parameters but its own rounds
    (and its own leaves where num_leaves is set). A kernel's relevance
    label is label_levels - round(log(time / problem's best time) / label_step), at least 0: label_step = 0.1 puts
    kernels within ~10% of the best one level below it, and 20 levels reach kernels ~7x slower."""
    model_config = ConfigDict(extra="forbid", frozen=True)

    label_step: float = Field(0.1, gt=0)
    label_levels: int = Field(20, ge=1, le=30)
    num_boost_round: int = Field(60, ge=1)
    num_leaves: int | None = Field(None, ge=2)  # the ranker's own tree size (None: the regressor's num_leaves)
    # Per direction: the ranker's rounds where named (num_boost_round elsewhere); TrainConfig.for_direction resolves
    # them, so a model's metadata holds its own rounds as num_boost_round (never written: exclude).
    rounds: dict[Direction, int] = Field(default_factory=dict, exclude=True)

    @field_validator("rounds")
    @classmethod
    def _rounds_positive(cls, rounds: dict[Direction, int]) -> dict[Direction, int]:
        for direction, count in rounds.items():
            if count < 1:
                raise ValueError(f"rounds of {direction.value} is {count}: a ranker has at least 1 round")
        return rounds

    def for_direction(self, direction: str) -> "RankingConfig":
        """This config with direction's rounds as num_boost_round and no per-direction rounds left."""
        return self.model_copy(update={"num_boost_round": self.rounds.get(Direction(direction), self.num_boost_round),
                                       "rounds": {}})


# How every LightGBM model of a model directory is trained, beside its hyper-parameters: quiet, on all cores,
# reproducibly (heuristics/train.py TrainConfig, VendorClassifierConfig).
LIGHTGBM_RUN_PARAMS = {"verbosity": -1, "num_threads": 0, "deterministic": True, "force_row_wise": True}


def not_negative_per_direction(values: dict[Direction, float], what: str, unit: str) -> dict[Direction, float]:
    """A pydantic validator's check of per-direction values (vendor margins, classifier weights): each at least 0."""
    for direction, value in values.items():
        if value < 0:
            raise ValueError(f"{what} of {direction.value} is {value}: a {unit} is at least 0")
    return values


class VendorClassifierConfig(BaseModel):
    """A binary LightGBM model of "the vendor path beats every instance" from the vendor row's features (the
    problem's), each training problem weighted by |log time gap| + gap_floor; its log-odds, times the direction's
    weight, raise the vendor path's score beside the ranker's (heuristics/train.py, VENDOR_FILE)."""
    model_config = ConfigDict(extra="forbid", frozen=True)

    weight: dict[Direction, float] = {}  # directions not named: 0, no classifier
    num_boost_round: int = Field(80, ge=1)
    num_leaves: int = Field(15, ge=2)
    learning_rate: float = Field(0.1, gt=0)
    min_data_in_leaf: int = Field(10, ge=1)
    gap_floor: float = Field(0.05, gt=0)

    @field_validator("weight")
    @classmethod
    def _weights_not_negative(cls, weights: dict[Direction, float]) -> dict[Direction, float]:
        return not_negative_per_direction(weights, "vendor_classifier weight", "weight")

    def weight_of(self, direction: str) -> float:
        return self.weight.get(Direction(direction), 0.0)

    def lightgbm_params(self) -> dict:
        return {"objective": "binary", "num_leaves": self.num_leaves, "learning_rate": self.learning_rate,
                "min_data_in_leaf": self.min_data_in_leaf, **LIGHTGBM_RUN_PARAMS, "seed": 1}


class ModelMetadata(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    direction: str
    dtype: str
    arch: str
    feature_version: int
    feature_names: list[str]
    target: Target
    kernel_pool: list[str]
    rule_sets: list[str]
    data_files: list[str]
    data_sha256: str
    rows: int
    problems: int
    # Problems of the sibling dtype (SIBLING_DTYPES: same element size, same kernels) trained on besides `problems`;
    # they are in every cross-validation training fold and never in a test fold.
    sibling_problems: int = 0
    cv_folds: int
    cv_metrics: dict[str, float]
    params: dict[str, float | int | str]
    num_boost_round: int
    lightgbm_version: str
    created: str
    # The ranker trained besides the regressor (RANKER_FILE, heuristics/train.py); None: the regressor chooses.
    ranking: RankingConfig | None = None
    # The vendor path's choice key is exp(vendor_margin) times its model's (train.yaml vendor_margin): it is chosen
    # only where it beats the best instance by more than the margin, in the choosing forest's log units.
    vendor_margin: float = Field(0.0, ge=0)
    # The vendor classifier (VENDOR_FILE, VendorClassifierConfig): the vendor path's choice key is also
    # exp(-vendor_weight * its log-odds) times its model's; 0: no classifier.
    vendor_weight: float = Field(0.0, ge=0)

    @staticmethod
    def today() -> str:
        return datetime.date.today().isoformat()


def model_dir(direction: str, dtype: str, arch: str, root: Path | None = None) -> Path:
    return (root or MODELS_DIR) / arch / f"{direction}_{dtype}"


def shipped_data_files(direction: str, dtype: str, arch: str = "sm_90") -> list[Path]:
    """The measurement files the shipped model of direction x dtype x arch was trained on (its metadata's data_files,
    paths in this repository): the training problems, never a held-out one."""
    metadata = ModelMetadata.model_validate_json((model_dir(direction, dtype, arch) / METADATA_FILE).read_text())
    return [REPO_ROOT / name for name in metadata.data_files]


SIBLING_DTYPES = {"fp16": "bf16", "bf16": "fp16"}
"""The half-precision type whose model stands in for a target that has none: on sm_80 and sm_90 fp16 and bf16 have
the same tensor-core rate, element size and vector widths, hence the same kernels (names equal up to the dtype token)
and the same features (none names the dtype). Measured on the fp16 held-out problems, the bf16 models select at mean
85.9 / 86.4 / 88.5% (bwd_data / bwd_weight / fwd) against the rule's 70.2 / 68.2 / 71.4% (bench/results/fp16/)."""


def as_dtype(kernel: str, dtype: str) -> str:
    """A kernel's name in another dtype of SIBLING_DTYPES: the same kernel, its dtype token swapped (the vendor path
    is one name for every dtype)."""
    if kernel == VENDOR_KERNEL:
        return kernel
    return KernelConfig.from_name(kernel).model_copy(update={"dtype": DType(dtype)}).name


class StoredModel(NamedTuple):
    """A model directory whose metadata passed every check, read without LightGBM: what the C library's build
    (capi/cmake_tool.py) needs, and what SelectionModel.from_stored loads the trees of. label: e.g. sm_90/fwd_bf16, as
    select() reasons name it ("sm_90/fwd_bf16 used for fp16" for a stand-in)."""

    path: Path
    metadata: ModelMetadata
    label: str

    @classmethod
    def read(cls, path: Path, *, direction: str, dtype: str, arch: str) -> "StoredModel":
        meta_path, model_path = path / METADATA_FILE, path / MODEL_FILE
        for needed in (meta_path, model_path):
            if not needed.exists():
                raise ModelError(f"model {path}: {needed.name} is missing")
        try:
            metadata = ModelMetadata.model_validate_json(meta_path.read_text())
        except ValidationError as error:
            raise ModelError(f"model {path}: {METADATA_FILE} is invalid: {error.errors()[0]['msg']}") from None
        if metadata.ranking is not None and not (path / RANKER_FILE).exists():
            raise ModelError(f"model {path}: {RANKER_FILE} is missing ({METADATA_FILE} says it was trained)")
        if metadata.vendor_weight > 0 and not (path / VENDOR_FILE).exists():
            raise ModelError(f"model {path}: {VENDOR_FILE} is missing ({METADATA_FILE} gives it a weight)")
        expected = {"direction": direction, "dtype": dtype, "arch": arch}
        for key, value in expected.items():
            if getattr(metadata, key) != value:
                raise ModelError(f"model {path} is for {key} {getattr(metadata, key)!r}, not {value!r}")
        if metadata.feature_version != FEATURE_VERSION or metadata.feature_names != FEATURE_NAMES:
            raise ModelError(f"model {path} uses feature version {metadata.feature_version}; this gconv computes "
                             f"version {FEATURE_VERSION}: retrain it with 'gconv train'")
        return cls(path, metadata, f"{path.parent.name}/{path.name}")

    def standing_in_for(self, dtype: str) -> "StoredModel":
        """This model scoring the same kernels of another dtype (SIBLING_DTYPES): its pool renamed to that dtype."""
        pool = sorted(as_dtype(name, dtype) for name in self.metadata.kernel_pool)
        metadata = self.metadata.model_copy(update={"dtype": dtype, "kernel_pool": pool})
        return StoredModel(self.path, metadata, f"{self.label} used for {dtype}")

    def forest_files(self) -> tuple[str, str | None, str | None]:
        """The text models of the regressor, the ranker (None: not trained) and the vendor classifier (None: weight 0)."""
        return (MODEL_FILE, RANKER_FILE if self.metadata.ranking is not None else None,
                VENDOR_FILE if self.metadata.vendor_weight > 0 else None)

    def forest_texts(self) -> tuple[str, str | None, str | None]:
        """forest_files' contents (ModelError when one cannot be read)."""
        try:
            return tuple(None if name is None else (self.path / name).read_text() for name in self.forest_files())
        except (OSError, UnicodeDecodeError) as error:
            raise ModelError(f"model {self.path}: {error}") from None


class SelectionModel:
    """Scores candidate kernels of a problem: choice keys (lower is better) and predicted milliseconds.

    booster: the regressor (predicted time); ranker: the LambdaRank model that chooses (higher score, faster kernel),
    when trained (metadata.ranking), else None and the regressor chooses."""

    def __init__(self, booster, metadata: ModelMetadata, path: Path, label: str | None = None, ranker=None,
                 vendor=None):
        self.booster, self.metadata, self.path, self.ranker, self.vendor = booster, metadata, path, ranker, vendor
        # e.g. sm_90/fwd_bf16, as select() reasons name it ("sm_90/fwd_bf16 used for fp16" for a stand-in)
        self.label = label or f"{path.parent.name}/{path.name}"
        self._pool = frozenset(metadata.kernel_pool)

    def knows(self, kernel: str) -> bool:
        """Whether the model was trained on the kernel (metadata.kernel_pool: measured in its own dtype's rows or its
        sibling dtype's): it scores only those; a selection skips the others rather than extrapolate to kernels it
        never saw."""
        return kernel in self._pool

    @property
    def choosing_forest(self):
        """The forest a selection walks: the ranker when there is one, else the regressor (choice_keys)."""
        return self.booster if self.ranker is None else self.ranker

    @classmethod
    def load(cls, path: Path, *, direction: str, dtype: str, arch: str) -> "SelectionModel":
        return cls.from_stored(StoredModel.read(path, direction=direction, dtype=dtype, arch=arch))

    @classmethod
    def from_stored(cls, stored: StoredModel) -> "SelectionModel":
        """The stored model with its text models read by LightGBM (or, where it is not installed, by TextModel)."""
        boosters = [None if name is None else _read_booster(stored.path, name) for name in stored.forest_files()]
        return cls(boosters[0], stored.metadata, stored.path, label=stored.label, ranker=boosters[1],
                   vendor=boosters[2])

    def predict_ms(self, problem: Problem, candidates: list[tuple[KernelConfig, Problem]], arch: ArchSpec
                   ) -> np.ndarray:
        """The regressor's predicted time of each candidate."""
        return self._rows_ms(problem, feature_matrix(problem, candidates, arch), arch)

    def choice_keys(self, problem: Problem, candidates: list[tuple[KernelConfig, Problem]], arch: ArchSpec
                    ) -> np.ndarray:
        """What a selection takes the least of: exp(-the ranker's score), or (no ranker) predict_ms. The C selector
        (capi/src/model.c, the ranker's leaves negated) computes the same numbers bit for bit."""
        return self._rows_keys(problem, feature_matrix(problem, candidates, arch), arch)

    def vendor_ms(self, problem: Problem, arch: ArchSpec) -> float:
        """predict_ms of the vendor path (features.py vendor_row)."""
        return float(self._rows_ms(problem, vendor_row(problem)[None, :], arch)[0])

    def vendor_key(self, problem: Problem, arch: ArchSpec) -> float:
        """choice_keys of the vendor path, times exp(metadata.vendor_margin), times exp(-vendor_weight * the vendor
        classifier's log-odds) when there is one (capi/src/model.c the same, bit for bit)."""
        row = vendor_row(problem)[None, :]
        key = float(self._rows_keys(problem, row, arch)[0]) * math.exp(self.metadata.vendor_margin)
        if self.vendor is None:
            return key
        return key * math.exp(-(self.metadata.vendor_weight * float(self.vendor.predict(row, raw_score=True,
                                                                                        num_threads=1)[0])))

    def _rows_ms(self, problem: Problem, features: np.ndarray, arch: ArchSpec) -> np.ndarray:
        scale = scale_ms(self.metadata.target, problem, features, arch)
        return np.exp(self.booster.predict(features, num_threads=1)) * scale

    def _rows_keys(self, problem: Problem, features: np.ndarray, arch: ArchSpec) -> np.ndarray:
        if self.ranker is None:
            return self._rows_ms(problem, features, arch)
        return np.exp(-self.ranker.predict(features, num_threads=1))


def _read_booster(path: Path, name: str):
    """One LightGBM text model of a model directory, with the feature count checked: a LightGBM Booster, or where
    LightGBM is not installed a lightgbm_text.TextModel (the same raw scores, bit for bit)."""
    try:
        import lightgbm
    except ImportError:
        try:
            return TextModel((path / name).read_text(), f"{path}: {name}", feature_count=len(FEATURE_NAMES))
        except (OSError, UnicodeDecodeError, UnreadableModel) as error:
            raise ModelError(f"model {path}: {name} is not a readable LightGBM model ({error})") from None
        except ValueError as error:  # trees it cannot sum (another objective, categorical splits)
            raise ModelError(f"model {path}: {name} needs LightGBM, which is not installed ({error})") from None
    try:
        booster = lightgbm.Booster(model_file=str(path / name))
    except Exception as error:  # LightGBM raises its own error types for unreadable files
        raise ModelError(f"model {path}: {name} is not a readable LightGBM model ({error})") from None
    if booster.num_feature() != len(FEATURE_NAMES):
        raise ModelError(f"model {path}: {name} expects {booster.num_feature()} features, "
                         f"metadata names {len(FEATURE_NAMES)}")
    return booster


def locate_model(direction: str, dtype: str, arch: str, root: Path | None = None) -> StoredModel | None:
    """The model of a target under root (default MODELS_DIR), read without LightGBM: its own when its directory exists
    (a ModelError when that one is unusable), else its SIBLING_DTYPES model standing in for it, else None."""
    path = model_dir(direction, dtype, arch, root)
    if path.exists():
        return StoredModel.read(path, direction=direction, dtype=dtype, arch=arch)
    sibling = SIBLING_DTYPES.get(dtype)
    if sibling is None or not model_dir(direction, sibling, arch, root).exists():
        return None
    stored = StoredModel.read(model_dir(direction, sibling, arch, root), direction=direction, dtype=sibling, arch=arch)
    return stored.standing_in_for(dtype)


def load_model(direction: str, dtype: str, arch: str, root: Path | None = None) -> SelectionModel | None:
    """locate_model's model with its trees loaded by LightGBM."""
    stored = locate_model(direction, dtype, arch, root)
    return None if stored is None else SelectionModel.from_stored(stored)


@lru_cache(maxsize=None)
def find_model(direction: str, dtype: str, arch: str) -> SelectionModel | ModelError | None:
    """The model under MODELS_DIR for a target (load_model): None when there is none, a ModelError when it is
    unusable."""
    try:
        return load_model(direction, dtype, arch)
    except ModelError as error:
        return error
