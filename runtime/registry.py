"""The registries the runtime dispatches over: generated/<set>/registry.json, loaded lazily, plus the vendor path."""
from __future__ import annotations

import os
from functools import lru_cache

from gconv.generator.loader import RULE_SET_NAMES
from gconv.paths import ARCH_DIR, GENERATED_DIR
from gconv.schemas import ArchSpec, Registry, RegistryEntry

DEFAULT_RULE_SET = "default"
RULE_SET_ENV = "GCONV_RULE_SET"
VENDOR_KERNEL = "cudnn"
"""The vendor path (cuDNN through PyTorch; PyTorch's own conv on the CPU): a candidate like any instance."""


def active_rule_set(rule_set: str | None = None) -> str:
    """The argument, else $GCONV_RULE_SET, else 'default'; validated against the six set names."""
    name = rule_set or os.environ.get(RULE_SET_ENV) or DEFAULT_RULE_SET
    if name not in RULE_SET_NAMES:
        source = "rule_set" if rule_set else RULE_SET_ENV
        raise ValueError(f"{source} must be one of {', '.join(RULE_SET_NAMES)}; got {name!r}")
    return name


@lru_cache(maxsize=None)
def load_registry(rule_set: str) -> Registry:
    path = GENERATED_DIR / rule_set / "registry.json"
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist; run 'gconv generate --all'")
    return Registry.from_json(path.read_text())


@lru_cache(maxsize=None)
def entries_by_name(rule_set: str) -> dict[str, RegistryEntry]:
    return load_registry(rule_set).by_name()


@lru_cache(maxsize=None)
def load_arch_spec(arch: str) -> ArchSpec:
    from gconv.generator.loader import load_arch

    if not (ARCH_DIR / f"{arch}.yaml").exists():
        known = ", ".join(sorted(p.stem for p in ARCH_DIR.glob("*.yaml")))
        raise ValueError(f"arch must be one of {known}; got {arch!r}")
    return load_arch(arch, ARCH_DIR)
