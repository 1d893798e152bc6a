"""Selection in C for the Python runtime: the selector libgconv runs (capi/src/select.c and model.c), compiled on first
use with the system C compiler and called through ctypes with the runtime's own pool and model.

Why: the Python path (runtime/selection.py: support checks, numpy features, LightGBM's predict) costs a few hundred
microseconds per new problem, most of it per-call overhead of numpy and LightGBM; the same choice in C costs tens
(bench/selection_latency.py). Both compute the same numbers: the C port is operation for operation, and
tests/test_native_selector.py holds the two paths to the same choices as tests/test_capi.py holds libgconv.

- Built once per (C sources, rules header, arch data, compiler, flags) into $GCONV_CACHE_DIR (default ~/.cache/gconv)
  under selector/<hash>/, written under a temporary name and renamed: a failed or concurrent build leaves nothing
  half-written. The compiler is $CC, else cc, gcc or clang (Triton needs one at run time too).
- $GCONV_NATIVE_SELECTOR=0 turns it off. Without a compiler, or when the build fails, gconv warns once and selects in
  Python (same choices, slower).
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import warnings
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from gconv.c_source import (CONFIG_FIELDS, TARGETS, booster_forests, choosing_forest, config_values,
                            kernel_least_leaves, pool_names, rules_header, selector_source)
from gconv.errors import GconvError
from gconv.paths import REPO_ROOT
from gconv.schemas import Direction, DType, Problem, RegistryEntry
from gconv.schemas.problem import MAX_INDEX

ENABLE_ENV = "GCONV_NATIVE_SELECTOR"
CACHE_ENV = "GCONV_CACHE_DIR"
SOURCE_DIR = REPO_ROOT / "capi" / "src"
INCLUDE_DIR = REPO_ROOT / "capi" / "include"
SOURCES = ("select.c", "model.c", "error.c", "selector.c")
HEADERS = (SOURCE_DIR / "gconv_internal.h", SOURCE_DIR / "gconv_binary.h", INCLUDE_DIR / "gconv.h")
# CMakeLists.txt's flags for bit-exact agreement with Python's float arithmetic (no FMA contraction, no fast-math).
FLAGS = ("-O2", "-std=gnu11", "-shared", "-fPIC", "-fvisibility=hidden", "-ffp-contract=off", "-fno-fast-math")
DIRECTIONS = (Direction.fwd, Direction.bwd_data, Direction.bwd_weight)
DTYPES = (DType.fp16, DType.bf16, DType.fp32)


class NativeSelectorError(GconvError):
    """The C selector could not be built or loaded (the runtime then selects in Python)."""


class CProb(ctypes.Structure):
    """gconv_prob: a validated problem with its output size."""

    _fields_ = [("direction", ctypes.c_int), ("dtype", ctypes.c_int),
                *[(name, ctypes.c_int64) for name in ("N", "G", "C", "K", "Hi", "Wi", "Ho", "Wo", "Y", "X", "stride_h",
                                                      "stride_w", "pad_h", "pad_w", "dil_h", "dil_w")]]


class CConfig(ctypes.Structure):
    """gconv_config (gconv.c_source.CONFIG_FIELDS)."""

    _fields_ = [(f"field{i}", ctypes.c_int) for i in range(len(CONFIG_FIELDS))]


class CTreeNode(ctypes.Structure):
    _fields_ = [("feature", ctypes.c_int32), ("flags", ctypes.c_int32), ("threshold", ctypes.c_double),
                ("left", ctypes.c_int32), ("right", ctypes.c_int32)]


class CForest(ctypes.Structure):
    _fields_ = [("trees", ctypes.c_int32), ("plain", ctypes.c_int32), ("roots", ctypes.POINTER(ctypes.c_int32)),
                ("nodes", ctypes.POINTER(CTreeNode)), ("leaves", ctypes.POINTER(ctypes.c_double)),
                ("node_count", ctypes.c_int32)]


class CModel(ctypes.Structure):
    _fields_ = [("direction", ctypes.c_int), ("dtype", ctypes.c_int), ("name", ctypes.c_char_p),
                ("feature_version", ctypes.c_int), ("target", ctypes.c_int), ("target_name", ctypes.c_char_p),
                ("regressor", CForest), ("ranker", CForest),
                ("pool_size", ctypes.c_int32), ("pool", ctypes.POINTER(ctypes.c_char_p)),
                ("vendor_margin", ctypes.c_double), ("vendor", CForest), ("vendor_weight", ctypes.c_double),
                ("kernel_least", ctypes.POINTER(ctypes.c_double))]


def _forest_struct(forest) -> tuple:
    """A gconv.c_source.Forest (or None: no trees) as gconv_forest, with the arrays it points into (kept alive)."""
    if forest is None:
        return (CForest(0, 1, None, None, None, 0),)
    nodes = (CTreeNode * max(1, len(forest.nodes)))(*[CTreeNode(*n) for n in forest.nodes])
    leaves = (ctypes.c_double * len(forest.leaves))(*forest.leaves)
    roots = (ctypes.c_int32 * len(forest.roots))(*forest.roots)
    return CForest(len(forest.roots), forest.plain, roots, nodes, leaves, len(forest.nodes)), nodes, leaves, roots


class CPick(ctypes.Structure):
    _fields_ = [("index", ctypes.c_int64), ("candidates", ctypes.c_int64), ("padded_C", ctypes.c_int64),
                ("padded_K", ctypes.c_int64), ("key", ctypes.c_double), ("skipped", ctypes.c_int64),
                ("by_model", ctypes.c_int64), ("tree_walks", ctypes.c_int64)]


class Pick(NamedTuple):
    """What the C selector chose (gconv_pick): a pool index, how many candidates it chose among, the channels per group
    the pick runs at, its key (the model's predicted milliseconds, or the rule's estimated seconds), the candidates
    the model's kernel pool lacks (not scored), whether the model picked (not the rule, when it knew none), and how many
    of its trees the search walked (fewer than candidates x trees: candidates that could not win were dropped early)."""

    index: int
    candidates: int
    padded_C: int
    padded_K: int
    key: float
    skipped: int
    by_model: bool
    tree_walks: int


def _compiler() -> str:
    """$CC (a name on PATH or a path), else cc, gcc or clang; NativeSelectorError when there is none."""
    chosen = os.environ.get("CC")
    if chosen:
        found = shutil.which(chosen)
        if found is None:
            raise NativeSelectorError(f"$CC is {chosen!r}, which is not an executable")
        return found
    found = next((path for name in ("cc", "gcc", "clang") if (path := shutil.which(name))), None)
    if found is None:
        raise NativeSelectorError("no C compiler found (set $CC, or install cc, gcc or clang)")
    return found


def cache_dir() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "gconv")


def build_library(arch_spec, cache: Path | None = None, model_source: Path | None = None) -> Path:
    """The selector library for an arch: from the cache when built before, else compiled now (NativeSelectorError with
    the compiler's message when it cannot be). model_source: another version of capi/src/model.c to compile instead
    (bench/model_c_ab.py times versions against each other)."""
    compiler = _compiler()
    generated = {"gconv_rules.h": rules_header(), "gconv_selector_data.c": selector_source(arch_spec)}
    sources = [model_source if name == "model.c" and model_source else SOURCE_DIR / name for name in SOURCES]
    digest = hashlib.sha256()
    for part in (compiler, *FLAGS, *[source.read_text() for source in sources],
                 *[header.read_text() for header in HEADERS], *generated.values()):
        digest.update(part.encode() + b"\0")
    target = (cache or cache_dir()) / "selector" / digest.hexdigest()[:20] / f"libgconv_selector_{arch_spec.name}.so"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as scratch:
        for name, text in generated.items():
            (Path(scratch) / name).write_text(text)
        if model_source:  # under its own name, whatever the file is called (the compiler goes by the suffix)
            sources = [Path(scratch) / "model.c" if source == model_source else source for source in sources]
            shutil.copyfile(model_source, Path(scratch) / "model.c")
        built = Path(scratch) / target.name
        command = [compiler, *FLAGS, f"-I{INCLUDE_DIR}", f"-I{SOURCE_DIR}", f"-I{scratch}", "-o", str(built),
                   *[str(source) for source in sources], str(Path(scratch) / "gconv_selector_data.c"), "-lm"]
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise NativeSelectorError(f"{compiler} could not compile the selector: {error}") from None
        if result.returncode != 0:
            message = (result.stderr or result.stdout).strip().splitlines()[-8:]
            raise NativeSelectorError(f"{compiler} failed to compile the selector (exit {result.returncode}):\n"
                                      + "\n".join(message))
        os.replace(built, target)
    return target


def indexable(problem: Problem) -> bool:
    """Whether the C selector takes problem: every size and tensor within 32-bit indexing, as libgconv's
    gconv_check_problem demands (its 128-bit integer sizes are exact only there). No kernel indexes beyond it."""
    p = problem
    return max(p.N, p.G, p.C, p.K, p.Hi, p.Wi, p.Y, p.X, p.stride_h, p.stride_w, p.pad_h, p.pad_w, p.dil_h,
               p.dil_w) <= MAX_INDEX and max(p.N * p.G * p.C * p.Hi * p.Wi, p.G * p.K * p.C * p.Y * p.X,
                                             p.N * p.G * p.K * p.Ho * p.Wo) <= MAX_INDEX


class NativeSelector:
    """The compiled selector of one arch: choose(problem, pool, model) in one C call."""

    def __init__(self, path: Path):
        from gconv.heuristics.features import FEATURE_VERSION

        self.path = path
        self._lib = ctypes.CDLL(str(path))
        layout = (ctypes.c_int64 * 6)()
        self._lib.gconv_selector_layout(layout)
        expected = [ctypes.sizeof(s) for s in (CProb, CConfig, CTreeNode, CModel, CPick)] + [FEATURE_VERSION]
        if list(layout) != expected:
            raise NativeSelectorError(f"{path}: struct sizes and feature version {list(layout)} differ from the "
                                      f"Python mirrors' {expected}")
        self._choose = self._lib.gconv_selector_choose
        self._choose.restype = None
        self._choose.argtypes = [ctypes.POINTER(CProb), ctypes.POINTER(CConfig), ctypes.POINTER(ctypes.c_char_p),
                                 ctypes.c_size_t, ctypes.POINTER(CModel), ctypes.c_int32, ctypes.POINTER(CPick)]
        self._pools: dict[int, tuple] = {}
        self._models: dict[int, tuple] = {}

    def _pool_arrays(self, pool: tuple[RegistryEntry, ...]) -> tuple:
        """The pool's configs and names as C arrays, cached by the pool's identity (selection's pools live as long as
        their registry; the cached value holds the pool, so its id stays its own)."""
        cached = self._pools.get(id(pool))
        if cached is None:
            configs = (CConfig * max(1, len(pool)))(*[CConfig(*config_values(e.config)) for e in pool])
            names = (ctypes.c_char_p * max(1, len(pool)))(*[e.name.encode() for e in pool])
            cached = self._pools[id(pool)] = (pool, configs, names)
        return cached

    def model_struct(self, model) -> CModel | None:
        """A SelectionModel as gconv_model (cached by identity), or None when C cannot evaluate it (ValueError from
        gconv.c_source.booster_forests: the Python path then scores it)."""
        cached = self._models.get(id(model))
        if cached is None:
            try:
                forests = booster_forests(model)
                names = pool_names(model)
                least = kernel_least_leaves(choosing_forest(forests), names)
            except ValueError:
                cached = self._models[id(model)] = (model, None)
            else:
                regressor, ranker, vendor = (_forest_struct(forest) for forest in forests)
                meta = model.metadata
                pool = (ctypes.c_char_p * max(1, len(names)))(*[name.encode() for name in names])
                table = None if least is None else (ctypes.c_double * max(1, len(least)))(*least)
                struct = CModel(DIRECTIONS.index(Direction(meta.direction)), DTYPES.index(DType(meta.dtype)),
                                model.label.encode(), meta.feature_version, TARGETS.index(meta.target),
                                meta.target.encode(), regressor[0], ranker[0], len(names), pool,
                                meta.vendor_margin, vendor[0], meta.vendor_weight, table)
                cached = self._models[id(model)] = (model, struct, regressor, ranker, vendor, pool, table)
        return cached[1]

    def choose(self, problem: Problem, pool: tuple[RegistryEntry, ...], model=None, vendor: bool = False
               ) -> Pick | None:
        """The pool entry the rule (model None) or the model picks for problem; None when no entry can run it. With
        vendor, the vendor path is a candidate too when the model was trained on it: its pick index is len(pool)."""
        _, configs, names = self._pool_arrays(pool)
        p = problem
        prob = CProb(DIRECTIONS.index(p.direction), DTYPES.index(p.dtype), p.N, p.G, p.C, p.K, p.Hi, p.Wi, p.Ho, p.Wo,
                     p.Y, p.X, p.stride_h, p.stride_w, p.pad_h, p.pad_w, p.dil_h, p.dil_w)
        struct = None if model is None else self.model_struct(model)
        if model is not None and struct is None:
            raise NativeSelectorError(f"model {model.label} has trees the C evaluator cannot sum")
        pick = CPick()
        self._choose(ctypes.byref(prob), configs, names, len(pool), struct and ctypes.byref(struct), int(vendor),
                     ctypes.byref(pick))
        if pick.index < 0:
            return None
        return Pick(pick.index, pick.candidates, pick.padded_C, pick.padded_K, pick.key, pick.skipped,
                    bool(pick.by_model), pick.tree_walks)


def enabled() -> bool:
    return os.environ.get(ENABLE_ENV, "1") != "0"


@lru_cache(maxsize=None)
def native_selector(arch: str) -> NativeSelector | None:
    """The compiled selector for arch (built on first use), or None when it is turned off or cannot be built (then
    with one warning saying why)."""
    from .registry import load_arch_spec

    if not enabled():
        return None
    try:
        return NativeSelector(build_library(load_arch_spec(arch)))
    except (NativeSelectorError, OSError) as error:
        warnings.warn(f"gconv selects in Python (slower, same choices): the C selector is unavailable: {error}. "
                      f"Set {ENABLE_ENV}=0 to silence this.", RuntimeWarning, stacklevel=3)
        return None
