"""RuleSet: the typed form of a rules/*.yaml file (base sets expand axes, derived sets filter a parent)."""
from __future__ import annotations

from typing import Annotated, Optional

from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationInfo, field_validator, model_validator

from gconv.errors import ExpressionError

from .enums import Algorithm, Direction, DType, Pipeline, VectorStrategy
from .expressions import Expression, parse
from .fields import CONSTRAINT_FIELDS, FILTER_FIELDS

PositiveInt = Annotated[int, Strict(), Field(gt=0)]
PowerOfTwo = Annotated[int, Strict(), Field(gt=0, le=1024)]
Identifier = Annotated[str, Strict(), Field(pattern=r"^[a-z0-9][a-z0-9-]*$")]


def _powers_of_two(values: list[int], what: str) -> list[int]:
    for value in values:
        if value & (value - 1):
            raise ValueError(f"{what} must be powers of two, got {value}")
    return values


def _unique(values: list, what: str) -> list:
    seen = set()
    for value in values:
        if value in seen:
            raise ValueError(f"{what} lists {getattr(value, 'value', value)!r} twice")
        seen.add(value)
    return values


def _check_expression(text: str, known: dict[str, str]) -> str:
    try:
        parse(text).check_names(known)
    except ExpressionError as error:
        raise ValueError(error.format()) from None
    return text


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Constraint(_Strict):
    """A condition every instance of a rule must satisfy on an arch; `why` is shown when it excludes one."""

    expr: Annotated[str, Strict()]
    why: Annotated[str, Strict(), Field(min_length=1)]

    @field_validator("expr")
    @classmethod
    def _parses(cls, text: str) -> str:
        return _check_expression(text, CONSTRAINT_FIELDS)

    @property
    def expression(self) -> Expression:
        return parse(self.expr)


class TileSpec(_Strict):
    """A curated tile: block_m x block_n with its reduction steps and the warp counts that suit it."""

    block_m: PowerOfTwo
    block_n: PowerOfTwo
    block_k: list[PowerOfTwo] = Field(default=[1], min_length=1)
    num_warps: list[PowerOfTwo] = Field(min_length=1)
    tile_w: Optional[list[PowerOfTwo]] = Field(default=None, min_length=1)

    @field_validator("block_m", "block_n")
    @classmethod
    def _pow2(cls, value: int) -> int:
        return _powers_of_two([value], "tile sizes")[0]

    @field_validator("block_k", "num_warps", "tile_w")
    @classmethod
    def _pow2_list(cls, values: list[int] | None) -> list[int] | None:
        return None if values is None else _unique(_powers_of_two(values, "block_k, num_warps and tile_w"),
                                                   "the list")


class Rule(_Strict):
    """A family of instances: the cartesian product of its axes, pruned by constraints."""

    name: Identifier
    description: str = ""
    directions: list[Direction] = Field(min_length=1)
    dtypes: list[DType] = Field(min_length=1)
    algorithm: Algorithm
    tiles: list[TileSpec] = Field(min_length=1)
    num_stages: list[PositiveInt] = Field(default=[1], min_length=1)
    pipelines: list[Pipeline] = Field(default=[Pipeline.multistage], min_length=1)
    raster_groups: list[PositiveInt] = Field(default=[1], min_length=1)
    vectors: list[VectorStrategy] = Field(default=[VectorStrategy.max], min_length=1)
    groups_to_merge: list[PowerOfTwo] = Field(default=[1], min_length=1)
    split_k: list[PositiveInt] = Field(default=[1], min_length=1)
    filter_sizes: Optional[list[PositiveInt]] = Field(default=None, min_length=1)
    multipliers: Optional[list[PowerOfTwo]] = Field(default=None, min_length=1)
    group_channels: Optional[list[PowerOfTwo]] = Field(default=None, min_length=1)
    tap_major: list[Annotated[bool, Strict()]] = Field(default=[False], min_length=1)
    two_stage: list[Annotated[bool, Strict()]] = Field(default=[False], min_length=1)
    explicit_gemm: list[Annotated[bool, Strict()]] = Field(default=[False], min_length=1)
    sliding_rows: list[Annotated[int, Field(ge=0, le=2)]] = Field(default=[0], min_length=1)
    last_arrival: list[Annotated[bool, Strict()]] = Field(default=[False], min_length=1)
    aligned_k: list[Annotated[bool, Strict()]] = Field(default=[False], min_length=1)
    via_fwd: list[Annotated[bool, Strict()]] = Field(default=[False], min_length=1)
    constraints: list[Constraint] = []

    @field_validator("directions", "dtypes", "num_stages", "pipelines", "raster_groups", "vectors", "split_k",
                     "filter_sizes", "tap_major", "two_stage", "explicit_gemm", "sliding_rows", "last_arrival",
                     "aligned_k", "via_fwd")
    @classmethod
    def _no_repeats(cls, values: list) -> list:
        return _unique(values, "the list")

    @field_validator("groups_to_merge")
    @classmethod
    def _merge_pow2(cls, values: list[int]) -> list[int]:
        return _unique(_powers_of_two(values, "groups_to_merge"), "the list")

    @field_validator("multipliers", "group_channels")
    @classmethod
    def _depthwise_counts_pow2(cls, values: list[int] | None, info: ValidationInfo) -> list[int] | None:
        return None if values is None else _unique(_powers_of_two(values, info.field_name), "the list")

    @model_validator(mode="after")
    def _depthwise_axes(self) -> "Rule":
        depthwise = self.algorithm is Algorithm.depthwise
        given = {"filter_sizes": self.filter_sizes is not None, "multipliers": self.multipliers is not None,
                 "tiles[].tile_w": all(tile.tile_w is not None for tile in self.tiles)}
        for field, present in given.items():
            if depthwise and not present:
                raise ValueError(f"a depthwise rule needs {field}")
        if not depthwise and (self.filter_sizes is not None or self.multipliers is not None
                              or self.group_channels is not None or self.sliding_rows != [0]):
            raise ValueError("filter_sizes, multipliers, group_channels and sliding_rows are axes of the depthwise "
                             "algorithm only")
        if self.algorithm is Algorithm.direct and any(tile.tile_w is not None for tile in self.tiles):
            raise ValueError("tiles[].tile_w is an axis of the depthwise algorithm and of the igemm pixel boxes only")
        if True in self.via_fwd and (self.algorithm is not Algorithm.igemm or Direction.bwd_data not in self.directions):
            raise ValueError("via_fwd: [true] makes bwd_data twins of igemm forward kernels: it needs the igemm "
                             "algorithm and bwd_data among the directions")
        return self


class Selection(_Strict):
    """A `keep` clause of a derived set: parent instances matching `where` are kept."""

    name: Identifier
    where: Annotated[str, Strict()]
    description: str = ""

    @field_validator("where")
    @classmethod
    def _parses(cls, text: str) -> str:
        return _check_expression(text, FILTER_FIELDS)

    @property
    def expression(self) -> Expression:
        return parse(self.where)


class RuleSet(_Strict):
    """One rules/<name>.yaml. A base set has `rules`; a derived set has `extends` and `keep`."""

    name: Identifier
    description: Annotated[str, Strict(), Field(min_length=1)]
    archs: list[Annotated[str, Strict(), Field(pattern=r"^sm_\d+$")]] = Field(min_length=1)
    extends: Optional[Identifier] = None
    constraints: list[Constraint] = []
    rules: list[Rule] = []
    keep: list[Selection] = []

    @model_validator(mode="after")
    def _base_or_derived(self) -> "RuleSet":
        if self.extends is None:
            if not self.rules:
                raise ValueError("a base rule set needs a non-empty 'rules' list (or 'extends' to filter another set)")
            if self.keep:
                raise ValueError("'keep' filters a parent set: it needs 'extends'")
        else:
            if self.rules or self.constraints:
                raise ValueError("a derived set ('extends') only filters its parent: use 'keep', not 'rules'")
            if not self.keep:
                raise ValueError("a derived set needs a non-empty 'keep' list")
        _unique([rule.name for rule in self.rules], "rules")
        _unique([clause.name for clause in self.keep], "keep")
        return self
