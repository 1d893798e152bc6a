"""Choose a kernel for a problem: the candidates of a registry, the rule heuristic, a per-problem cache."""
from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from gconv.heuristics.analytic import padding_copy_seconds
from gconv.heuristics.rule import rule_seconds
from gconv.schemas import Algorithm, Direction, DType, KernelConfig, Problem, RegistryEntry

from .native_selector import NativeSelector, indexable, native_selector
from .padding import ChannelPadding, padded_problem, padding_for
from .registry import VENDOR_KERNEL, active_rule_set, entries_by_name, load_arch_spec, load_registry
from .support import support_key, unsupported_reason

DEFAULT_ARCH = "sm_90"


@lru_cache(maxsize=1)
def default_arch() -> str:
    """The CUDA device's arch, or sm_90 (what the interpreter runs) without a GPU; looked up once per process."""
    import torch

    from .device import arch_of

    return arch_of(torch.device("cuda")) if torch.cuda.is_available() else DEFAULT_ARCH


class KernelChoice(BaseModel):
    """What `gconv.select` returns: the kernel, its predicted throughput and why it was chosen."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    predicted_tflops: float | None
    reason: str
    source: Literal["model", "rule", "cache", "forced"]
    padding: ChannelPadding | None = None
    rule_set: str
    arch: str


@dataclass(frozen=True)
class Candidate:
    """A registry instance able to run a problem, directly or after channel padding; entry None is the vendor."""

    entry: RegistryEntry | None
    padding: ChannelPadding | None = None

    @property
    def name(self) -> str:
        return self.entry.name if self.entry else VENDOR_KERNEL


@lru_cache(maxsize=None)
def _pool(rule_set: str, direction: Direction, dtype: DType, arch: str) -> tuple[RegistryEntry, ...]:
    return tuple(e for e in load_registry(rule_set).entries
                 if e.config.direction is direction and e.config.dtype is dtype and arch in e.archs)


def candidate_for(entry: RegistryEntry, problem: Problem) -> Candidate | None:
    if unsupported_reason(entry.config, problem) is None:
        return Candidate(entry)
    padding = padding_for(entry.config, problem)
    return Candidate(entry, padding) if padding else None


def narrower_than_needed(config: KernelConfig, problem: Problem, max_vector_bytes: int) -> bool:
    """Whether a depthwise-algorithm kernel loads narrower vectors than problem allows: its twin at the arch's widest
    load (max_vector_bytes) runs problem too (G % widest == 0) and is the same kernel with fewer, wider loads. Such a
    kernel is left out of the candidates (rules/full.yaml's narrower depthwise loads serve the channel counts the
    widest cannot take), though a forced kernel= still runs it."""
    if config.algorithm is not Algorithm.depthwise:
        return False
    widest = max(1, max_vector_bytes // problem.dtype.bytes)
    return config.vector_width < widest and problem.G % widest == 0


_supported: dict[tuple, tuple[Candidate, ...]] = {}


def candidates(problem: Problem, rule_set: str | None = None, arch: str | None = None) -> list[Candidate]:
    """Every instance of the registry that runs problem on arch (some after padding; none narrower_than_needed),
    then the vendor path.

    Memoised per support key (the fields support and padding read): layers that differ only in batch, spatial
    size or column dilation share the enumeration.
    """
    rule_set, arch = active_rule_set(rule_set), arch or default_arch()
    key = (rule_set, arch, support_key(problem))
    found = _supported.get(key)
    if found is None:
        widest = load_arch_spec(arch).max_vector_bytes
        found = _supported[key] = tuple(c for e in _pool(rule_set, problem.direction, problem.dtype, arch)
                                        if not narrower_than_needed(e.config, problem, widest)
                                        and (c := candidate_for(e, problem)) is not None)
    return [*found, Candidate(None)]


def kernels_for(problem: Problem, rule_set: str | None = None, arch: str | None = None) -> list[str]:
    """Names of every candidate kernel of problem on arch (default: this machine's GPU, else sm_90): registry
    instances (sorted; some run after channel padding; no depthwise one narrower_than_needed, which kernel= still
    runs), then 'cudnn' (the vendor path)."""
    return [c.name for c in candidates(problem, rule_set, arch)]


def predicted_seconds(candidate: Candidate, problem: Problem, arch: str) -> float:
    """The fallback rule's time of a candidate (heuristics/rule.py), channel padding's copies included."""
    spec = load_arch_spec(arch)
    if candidate.padding is None:
        return rule_seconds(candidate.entry.config, problem, spec)
    padding = candidate.padding
    copies = padding_copy_seconds(problem, padding.padded_C, padding.padded_K, spec)
    return rule_seconds(candidate.entry.config, padded_problem(problem, padding), spec, copies)


class Best(NamedTuple):
    """The candidate a selector picked, its time (the model's predicted milliseconds, or the rule's estimated seconds),
    how many candidates it chose among, how many the model's kernel pool lacks (skipped, not scored), and whether the
    model picked (False with a model that knew none of the candidates: the rule picked among them all)."""

    candidate: Candidate
    key: float
    count: int
    skipped: int = 0
    by_model: bool = False


VENDOR = Candidate(None)
# GCONV_VENDOR=0 in the environment when gconv is imported: a model chooses among gconv's instances only, never the
# vendor path (e.g. to run or time gconv's own kernels); by default the vendor path competes whenever the model was
# trained on it. Read once (a cached selection's key holds it; an environment lookup per call would double the cached
# path's time); setting VENDOR_COMPETES changes it for the selections that follow.
VENDOR_ENV = "GCONV_VENDOR"
VENDOR_COMPETES = os.environ.get(VENDOR_ENV, "1") != "0"


def _least(problem: Problem, pool: list[Candidate], arch: str, model, vendor: bool = False
           ) -> tuple[Candidate, float]:
    """The candidate of least key (the rule's estimated seconds, or the model's choice key), ties by name, with its
    predicted time (seconds for the rule, the model's milliseconds); vendor (with a model): the vendor path competes
    too, after pool."""
    if model is None:
        keys = [predicted_seconds(c, problem, arch) for c in pool]
    else:
        spec = load_arch_spec(arch)
        rows = [(c.entry.config, padded_problem(problem, c.padding) if c.padding else problem) for c in pool]
        keys = list(model.choice_keys(problem, rows, spec)) if rows else []
        if vendor:
            pool, keys = [*pool, VENDOR], [*keys, model.vendor_key(problem, spec)]
    best = min(range(len(pool)), key=lambda i: (keys[i], pool[i].name))
    if model is not None and model.ranker is not None:
        if pool[best] is VENDOR:
            return VENDOR, model.vendor_ms(problem, spec)
        return pool[best], float(model.predict_ms(problem, [rows[best]], spec)[0])
    return pool[best], float(keys[best])


def python_best(problem: Problem, rule_set: str, arch: str, model=None, vendor: bool = False) -> Best | None:
    """The model's pick -- least choice key (SelectionModel.choice_keys) -- among the candidates of its training pool,
    and (vendor) the vendor path when the model was trained on it; the rule's -- least estimated time
    (heuristics/rule.py) -- among all instances when there is no model or it knows none of them; ties by name. None
    when no instance runs the problem. The reference the C selector (native_selector.py) computes too."""
    pool = [c for c in candidates(problem, rule_set, arch) if c.entry is not None]
    if not pool:
        return None
    if model is not None:
        known = [c for c in pool if model.knows(c.name)]
        with_vendor = vendor and model.knows(VENDOR_KERNEL)
        if known or with_vendor:
            return Best(*_least(problem, known, arch, model, with_vendor), len(known) + with_vendor,
                        len(pool) - len(known), True)
    return Best(*_least(problem, pool, arch, None), len(pool), len(pool) if model is not None else 0, False)


def native_best(native: NativeSelector, problem: Problem, rule_set: str, arch: str, model=None, vendor: bool = False
                ) -> Best | None:
    """python_best computed by the compiled selector in one C call."""
    pool = _pool(rule_set, problem.direction, problem.dtype, arch)
    pick = native.choose(problem, pool, model, vendor)
    if pick is None:
        return None
    if pick.index == len(pool):
        return Best(VENDOR, pick.key, pick.candidates, pick.skipped, pick.by_model)
    padding = None if (pick.padded_C, pick.padded_K) == (problem.C, problem.K) else \
        ChannelPadding(C=problem.C, K=problem.K, padded_C=pick.padded_C, padded_K=pick.padded_K)
    return Best(Candidate(pool[pick.index], padding), pick.key, pick.candidates, pick.skipped, pick.by_model)


def best_candidate(problem: Problem, rule_set: str, arch: str, model=None, vendor: bool = False) -> Best | None:
    """python_best, in C when the compiled selector is available and can evaluate the model."""
    native = native_selector(arch)
    if native is not None and (model is None or native.model_struct(model) is not None) and indexable(problem):
        return native_best(native, problem, rule_set, arch, model, vendor)
    return python_best(problem, rule_set, arch, model, vendor)


def _vendor_choice(rule_set: str, arch: str) -> KernelChoice:
    return KernelChoice(name=VENDOR_KERNEL, predicted_tflops=None, rule_set=rule_set, arch=arch, source="rule",
                        reason=f"fallback rule: no instance of rule set {rule_set!r} runs this problem on {arch}; "
                               f"using the vendor path")


def _rule_pick(problem: Problem, best: Best, rule_set: str, arch: str, why: str) -> KernelChoice:
    """The rule's KernelChoice; why says why no model chose."""
    padding = best.candidate.padding
    return KernelChoice(
        name=best.candidate.name, predicted_tflops=round(problem.flops / best.key / 1e12, 3), padding=padding,
        rule_set=rule_set, arch=arch, source="rule",
        reason=f"fallback rule ({why}): least estimated time of {best.count} candidates"
               + (f", {padding}" if padding else ""))


def rule_choice(problem: Problem, rule_set: str, arch: str) -> KernelChoice:
    """The documented fallback: the candidate with the least rule time (heuristics/rule.py)."""
    best = best_candidate(problem, rule_set, arch)
    if best is None:
        return _vendor_choice(rule_set, arch)
    return _rule_pick(problem, best, rule_set, arch,
                      f"no trained model for {problem.direction.value}/{problem.dtype.value}/{arch}")


def model_choice(problem: Problem, rule_set: str, arch: str) -> KernelChoice:
    """The trained model's pick among the candidates; the rule fallback (saying why) when there is no usable model."""
    from gconv.heuristics.model import ModelError, find_model

    target = f"{problem.direction.value}/{problem.dtype.value}/{arch}"
    model = find_model(problem.direction.value, problem.dtype.value, arch)
    if model is None or isinstance(model, ModelError):
        choice = rule_choice(problem, rule_set, arch)
        if isinstance(model, ModelError):
            reason = choice.reason.replace(f"no trained model for {target}", f"model unusable: {model}")
            choice = choice.model_copy(update={"reason": reason})
        return choice
    best = best_candidate(problem, rule_set, arch, model, vendor=VENDOR_COMPETES)
    if best is None:
        return _vendor_choice(rule_set, arch)
    if not best.by_model:
        return _rule_pick(problem, best, rule_set, arch,
                          f"model {model.label} was trained on none of the {best.count} candidates")
    padding = f", {best.candidate.padding}" if best.candidate.padding else ""
    if best.candidate is VENDOR:
        padding = ", the vendor path (cuDNN through PyTorch)"
    skipped = f"; {best.skipped} candidates outside its training pool skipped" if best.skipped else ""
    how = "least predicted time" if model.ranker is None else "ranked first"  # the ranker chooses when there is one
    return KernelChoice(
        name=best.candidate.name, predicted_tflops=round(problem.flops / (best.key / 1e3) / 1e12, 3),
        padding=best.candidate.padding, rule_set=rule_set, arch=arch, source="model",
        reason=f"model {model.label} (LightGBM, feature version {model.metadata.feature_version}): {how} of "
               f"{best.count} candidates{padding}{skipped}")


_cache: dict[tuple[str, str, tuple, bool], KernelChoice] = {}


def select(problem: Problem, arch: str | None = None, rule_set: str | None = None) -> KernelChoice:
    """The kernel gconv runs for problem (cached per problem key, rule set and arch)."""
    rule_set = active_rule_set(rule_set)
    arch = arch or default_arch()
    key = (rule_set, arch, problem.fields, VENDOR_COMPETES)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    choice = model_choice(problem, rule_set, arch)
    _cache[key] = choice.model_copy(update={"source": "cache", "reason": f"cache ({choice.reason})"})
    return choice


def clear_cache() -> None:
    """Forget every cached choice and candidate enumeration."""
    _cache.clear()
    _supported.clear()


def forced_choice(name: str, problem: Problem, rule_set: str | None = None, arch: str | None = None) -> KernelChoice:
    """Validate a `kernel=` argument: it must be in the registry and run the problem (padding allowed)."""
    rule_set = active_rule_set(rule_set)
    arch = arch or default_arch()
    if name == VENDOR_KERNEL:
        return KernelChoice(name=name, predicted_tflops=None, reason="forced by kernel=", source="forced",
                            rule_set=rule_set, arch=arch)
    if not isinstance(name, str):
        raise TypeError(f"kernel must be a kernel name (str), got {type(name).__name__}")
    entry = entries_by_name(rule_set).get(name)
    if entry is None:
        raise ValueError(f"kernel {name!r} is not in rule set {rule_set!r}; gconv.kernels_for(problem) lists the "
                         f"kernels that run this problem")
    if arch not in entry.archs:
        raise ValueError(f"kernel {name!r} is not valid on {arch} (it is built for {', '.join(entry.archs)})")
    candidate = candidate_for(entry, problem)
    if candidate is None:
        raise ValueError(f"kernel {name!r} cannot run this problem: {unsupported_reason(entry.config, problem)}")
    reason = "forced by kernel=" + (f", {candidate.padding}" if candidate.padding else "")
    return KernelChoice(name=name, predicted_tflops=None, reason=reason, source="forced", padding=candidate.padding,
                        rule_set=rule_set, arch=arch)
