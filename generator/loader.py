"""Load rule sets and arch specs from YAML into validated models; every failure becomes a located RuleError."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from gconv.errors import RuleError
from gconv.paths import ARCH_DIR, RULES_DIR, display_path
from gconv.schemas import ArchSpec, RuleSet

from .yaml_loader import KeyPath, format_key_path, line_of, load_yaml

RULE_SET_NAMES = ("full", "full-tests", "tiny", "tests", "profiler", "default")
"""The six named sets, in an order where every parent precedes its children."""

ModelT = TypeVar("ModelT", bound=BaseModel)


@dataclass(frozen=True)
class LoadedRuleSet:
    """A validated rule set with the file it came from and the line of every key."""

    rule_set: RuleSet
    path: Path
    positions: dict[KeyPath, int]

    @property
    def name(self) -> str:
        return self.rule_set.name

    @property
    def display_path(self) -> str:
        return display_path(self.path)

    def line(self, path: KeyPath) -> int | None:
        return line_of(self.positions, path)


def validate_file(path: Path, model: type[ModelT]) -> tuple[ModelT, dict[KeyPath, int]]:
    """Read path as YAML and validate it as model; raise RuleError with file, line and key path on failure."""
    shown = display_path(path)
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise RuleError(shown, None, "", f"cannot read file: {error.strerror}") from None
    data, positions = load_yaml(text, shown)
    if not isinstance(data, dict):
        raise RuleError(shown, 1, "", f"expected a mapping of keys at the top level, got {type(data).__name__}")
    try:
        return model.model_validate(data), positions
    except ValidationError as error:
        raise _rule_error(error, model, shown, positions) from None


def _rule_error(error: ValidationError, model: type[BaseModel], shown: str,
                positions: dict[KeyPath, int]) -> RuleError:
    first = error.errors(include_url=False)[0]
    loc = tuple(part for part in first["loc"] if not _is_union_tag(part))
    key_path = format_key_path(loc)
    kind = first["type"]
    if kind == "extra_forbidden":
        known = _known_keys(model, loc[:-1])
        message = f"unknown key {loc[-1]!r}; expected one of: {', '.join(known)}" if known else \
            f"unknown key {loc[-1]!r}"
        return RuleError(shown, line_of(positions, loc), key_path, message)
    if kind == "missing":
        return RuleError(shown, line_of(positions, loc[:-1]), key_path, "required key is missing")
    message = first["msg"]
    if message.startswith("Value error, "):
        message = message[len("Value error, "):]
    message = message[0].lower() + message[1:]
    if kind not in ("value_error", "assertion_error") and "input" in first:
        message += f" (got {first['input']!r})"
    return RuleError(shown, line_of(positions, loc), key_path, message)


def _is_union_tag(part: object) -> bool:
    return isinstance(part, str) and ("[" in part or part in ("function-after", "function-before"))


def _known_keys(model: type[BaseModel], loc: KeyPath) -> list[str]:
    """Field names of the sub-model at loc (walks nested models and list items)."""
    current: object = model
    for part in loc:
        if isinstance(part, int):
            continue
        fields = getattr(current, "model_fields", None)
        if not fields or part not in fields:
            return []
        current = _inner_model(fields[part].annotation)
    fields = getattr(current, "model_fields", None)
    return list(fields) if fields else []


def _inner_model(annotation: object) -> object:
    from typing import get_args

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        inner = _inner_model(arg)
        if inner is not None:
            return inner
    return None


def rule_set_path(name: str, rules_dir: Path = RULES_DIR) -> Path:
    return rules_dir / f"{name}.yaml"


def load_rule_set(path: Path) -> LoadedRuleSet:
    rule_set, positions = validate_file(path, RuleSet)
    expected = Path(path).stem
    if rule_set.name != expected:
        raise RuleError(display_path(path), line_of(positions, ("name",)), "name",
                        f"set name {rule_set.name!r} does not match the file name {expected!r}",
                        hint=f"rename the file or set name: {expected}")
    return LoadedRuleSet(rule_set, Path(path), positions)


def load_rule_sets(rules_dir: Path = RULES_DIR, names: tuple[str, ...] = RULE_SET_NAMES) -> dict[str, LoadedRuleSet]:
    """Load the named sets and check that every `extends` names a loaded set (no cycles)."""
    loaded = {name: load_rule_set(rule_set_path(name, rules_dir)) for name in names}
    for item in loaded.values():
        chain = [item.name]
        parent = item.rule_set.extends
        while parent is not None:
            if parent not in loaded:
                raise RuleError(item.display_path, item.line(("extends",)), "extends",
                                f"unknown parent set {parent!r}; expected one of: {', '.join(sorted(loaded))}")
            if parent in chain:
                raise RuleError(item.display_path, item.line(("extends",)), "extends",
                                f"'extends' forms a cycle: {' -> '.join(chain + [parent])}")
            chain.append(parent)
            parent = loaded[parent].rule_set.extends
    return loaded


@lru_cache(maxsize=None)
def load_arch(name: str, arch_dir: Path = ARCH_DIR) -> ArchSpec:
    path = arch_dir / f"{name}.yaml"
    if not path.exists():
        known = sorted(p.stem for p in arch_dir.glob("*.yaml"))
        raise RuleError(display_path(path), None, "", f"no arch spec {name!r}; known: {', '.join(known)}")
    spec, positions = validate_file(path, ArchSpec)
    if spec.name != name:
        raise RuleError(display_path(path), line_of(positions, ("name",)), "name",
                        f"arch name {spec.name!r} does not match the file name {name!r}")
    return spec
