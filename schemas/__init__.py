"""gconv.schemas: pydantic models, the single source of truth for every structured thing."""
from .arch import ArchSpec, DotShape
from .enums import Algorithm, Direction, DType, Pipeline, VectorStrategy
from .kernel_config import KernelConfig
from .problem import GemmView, Problem
from .registry import Registry, RegistryEntry
from .rules import Constraint, Rule, RuleSet, Selection, TileSpec

__all__ = [
    "Algorithm", "ArchSpec", "Constraint", "Direction", "DotShape", "DType", "GemmView", "KernelConfig", "Pipeline",
    "Problem", "Registry", "RegistryEntry", "Rule", "RuleSet", "Selection", "TileSpec", "VectorStrategy",
]
