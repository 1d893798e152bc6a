"""A trained selection model on disk: LightGBM text model + metadata; loading refuses what it cannot trust."""
from __future__ import annotations

import datetime
from functools import lru_cache
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from gconv.errors import GconvError
from gconv.paths import REPO_ROOT
from gconv.schemas import ArchSpec, KernelConfig, Problem

from .features import FEATURE_NAMES, FEATURE_VERSION, feature_matrix
from .target import Target, scale_ms

MODELS_DIR = REPO_ROOT / "heuristics" / "models"
MODEL_FILE = "model.txt"
METADATA_FILE = "metadata.json"


class ModelError(GconvError):
    """A model directory that is missing, corrupt, or made for something else."""


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
    cv_folds: int
    cv_metrics: dict[str, float]
    params: dict[str, float | int | str]
    num_boost_round: int
    lightgbm_version: str
    created: str

    @staticmethod
    def today() -> str:
        return datetime.date.today().isoformat()


def model_dir(direction: str, dtype: str, arch: str, root: Path | None = None) -> Path:
    return (root or MODELS_DIR) / arch / f"{direction}_{dtype}"


class SelectionModel:
    """Scores candidate kernels of a problem: predicted milliseconds, lower is better."""

    def __init__(self, booster, metadata: ModelMetadata, path: Path):
        self.booster, self.metadata, self.path = booster, metadata, path
        self.label = f"{path.parent.name}/{path.name}"  # e.g. sm_90/fwd_bf16, as select() reasons name it
        self._pool = frozenset(metadata.kernel_pool)

    def knows(self, kernel: str) -> bool:
        """Whether the model was trained on the kernel (metadata.kernel_pool): it scores only those; a selection
        skips the others rather than extrapolate to kernels it never saw."""
        return kernel in self._pool

    @classmethod
    def load(cls, path: Path, *, direction: str, dtype: str, arch: str) -> "SelectionModel":
        import lightgbm

        meta_path, model_path = path / METADATA_FILE, path / MODEL_FILE
        for needed in (meta_path, model_path):
            if not needed.exists():
                raise ModelError(f"model {path}: {needed.name} is missing")
        try:
            metadata = ModelMetadata.model_validate_json(meta_path.read_text())
        except ValidationError as error:
            raise ModelError(f"model {path}: {METADATA_FILE} is invalid: {error.errors()[0]['msg']}") from None
        expected = {"direction": direction, "dtype": dtype, "arch": arch}
        for key, value in expected.items():
            if getattr(metadata, key) != value:
                raise ModelError(f"model {path} is for {key} {getattr(metadata, key)!r}, not {value!r}")
        if metadata.feature_version != FEATURE_VERSION or metadata.feature_names != FEATURE_NAMES:
            raise ModelError(f"model {path} uses feature version {metadata.feature_version}; this gconv computes "
                             f"version {FEATURE_VERSION}: retrain it with 'gconv train'")
        try:
            booster = lightgbm.Booster(model_file=str(model_path))
        except Exception as error:  # LightGBM raises its own error types for unreadable files
            raise ModelError(f"model {path}: {MODEL_FILE} is not a readable LightGBM model ({error})") from None
        if booster.num_feature() != len(FEATURE_NAMES):
            raise ModelError(f"model {path}: {MODEL_FILE} expects {booster.num_feature()} features, "
                             f"metadata names {len(FEATURE_NAMES)}")
        return cls(booster, metadata, path)

    def predict_ms(self, problem: Problem, candidates: list[tuple[KernelConfig, Problem]], arch: ArchSpec
                   ) -> np.ndarray:
        features = feature_matrix(problem, candidates, arch)
        scale = scale_ms(self.metadata.target, problem, features, arch)
        return np.exp(self.booster.predict(features, num_threads=1)) * scale


@lru_cache(maxsize=None)
def find_model(direction: str, dtype: str, arch: str) -> SelectionModel | ModelError | None:
    """The model under MODELS_DIR for a target: None when there is none, a ModelError when it is unusable."""
    path = model_dir(direction, dtype, arch)
    if not path.exists():
        return None
    try:
        return SelectionModel.load(path, direction=direction, dtype=dtype, arch=arch)
    except ModelError as error:
        return error
