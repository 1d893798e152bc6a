"""KernelConfig: the full description of one kernel instance, with a canonical name that round-trips."""
from __future__ import annotations

import re
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .enums import PIPELINE_TOKENS, Algorithm, Direction, DType, Pipeline

_TOKEN_PIPELINES = {token: pipeline for pipeline, token in PIPELINE_TOKENS.items()}

# Canonical names: fixed axis order, short tokens.
#   igemm:  {dir}_{dtype}_igemm_m{BM}n{BN}k{BK}_w{warps}_s{stages}_{ms|tma|pers|strk}_g{raster}_v{vec}_mg{merge}
#           [_tm|_xg][_sk{split}[ts]]
#   direct: {dir}_{dtype}_direct_p{pixels}c{channels}_w{warps}_v{vec}[_sk{split}]
#   depthwise: {dir}_{dtype}_depthwise_t{tile_h}x{tile_w}c{channels}_f{filter}_m{multiplier}[_cpg{C}][_sr{S}]_w{warps}
#              _v{vec}[_sk{split}]
# The split-K token is present for every bwd_weight kernel (_sk1 unsplit) and for the split forward implicit GEMMs
# (split_k > 1, reduced by last arrival: absent at 1, so that names measured before fwd splits existed still parse);
# bwd_data never splits. _tm marks a
# tap-major reduction (absent for the flat one, so that names measured before the axis existed still parse), _xg an
# explicit GEMM (1x1, stride 1, no padding: pixels are GEMM rows as they lie); _cpg a depthwise-family kernel for more
# than one input channel per group (absent for C/G = 1, the names measured before the axis existed); _sr{S} a
# depthwise kernel with sliding rows built for row stride S (absent for the per-tap kernels); a `ts`
# after the split count marks a two-stage split reduction (fp32 workspace slices, then one summing pass), an `la` a
# last-arrival one (atomics into a zeroed fp32 workspace the runtime keeps; the last split to finish a block casts it).
# _vf (last of the igemm tokens, before the split) marks a bwd_data instance that runs a forward kernel on the problem's
# forward twin (stride 1): the other tokens are that forward kernel's.
_NAME_RE = re.compile(
    r"^(?P<direction>fwd|bwd_data|bwd_weight)_(?P<dtype>fp16|bf16|fp32)_(?:"
    r"igemm_m(?P<bm>\d+)n(?P<bn>\d+)k(?P<bk>\d+)_w(?P<iw>\d+)_s(?P<stages>\d+)_(?P<pipe>ms|tma|pers|strk)"
    r"_g(?P<raster>\d+)_v(?P<iv>\d+)_mg(?P<merge>\d+)(?P<tm>_tm)?(?P<xg>_xg)?(?:_px(?P<ph>\d+)x(?P<pw>\d+))?"
    r"(?P<ak>_ak)?(?P<vf>_vf)?"
    r"|direct_p(?P<bp>\d+)c(?P<bc>\d+)_w(?P<dw>\d+)_v(?P<dv>\d+)"
    r"|depthwise_t(?P<th>\d+)x(?P<tw>\d+)c(?P<gc>\d+)_f(?P<fs>\d+)_m(?P<mult>\d+)"
    r"(?:_cpg(?P<cpg>\d+))?(?:_sr(?P<sr>\d+))?"
    r"_w(?P<ww>\d+)_v(?P<wv>\d+))"
    r"(?:_sk(?P<split>\d+)(?P<reduce>ts|la)?)?$"
)


def _is_power_of_two(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


class KernelConfig(BaseModel):
    """One kernel instance. For `direct` and `depthwise`, block_m counts pixels and block_n channels per program.

    `depthwise` programs own a 2-D pixel tile (block_m // tile_w rows of tile_w pixels) for a filter_size x
    filter_size filter, a channel multiplier (K per group) and group_channels input channels per group (C: 1 for
    depthwise proper, 2 or 4 for tiny groups) fixed at compile time; those four axes are 0 (not an axis) for the
    other algorithms. A depthwise config given without group_channels has one input channel per group.

    `sliding_rows` S > 0 (depthwise fwd and bwd_data with S = 1 or 2, tiny groups too; bwd_weight with S = 1 or 2,
    multiplier 1 and one channel per group) loads each input row a pixel tile reaches once per filter column and adds
    it into every output row it reaches, one accumulator per output row (bwd_weight: per filter row of its column),
    for row stride S and row dilation 1 (bwd_data at S = 2: stride 2 x 2 and dilation 1, in the rows and columns of
    one stride-residue class of input pixels); 0 is the per-tap kernel (each tap loads).

    `tile_w` W > 0 on an igemm fwd (bwd_data) tma kernel: pixel boxes of stride-1 convolutions, a tile's rows a box
    of block_m / W output (input) rows x W columns of one image, the operand it reduces over read per tap as a box of
    a tensor descriptor of x (dy): the tap's shift of the tile's box, out-of-bounds elements reading as zero.
    `tile_w` W > 0 on an igemm bwd_weight tma kernel (atomic or no split): pixel boxes. Its reduction walks boxes
    of block_k / W output rows x W output columns of one image, and a program's columns are one filter tap's
    channels (of its groups_to_merge groups: a merged tile keeps only the block diagonal when it stores), so both
    operands load as boxes of tensor descriptors (dy's, and a strided view of x from the tap's first input pixel)
    whose out-of-bounds elements read as zero: no per-element address arithmetic. 0 is the flat walk (block_k
    consecutive output pixels, the input patch gathered).

    `via_fwd` on an igemm bwd_data config: the instance runs a stride-1 problem (padding at most dilation x (filter -
    1)) as its forward twin, dY convolved with the flipped, channel-swapped filter (Problem.forward_twin), on the
    forward kernel of the same axes (`kernel`); the other axes mean what they mean for that forward kernel.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    direction: Direction
    dtype: DType
    algorithm: Algorithm
    block_m: int = Field(gt=0)
    block_n: int = Field(gt=0)
    block_k: int = Field(1, gt=0)
    num_warps: int = Field(gt=0, le=32)
    num_stages: int = Field(1, gt=0, le=8)
    pipeline: Pipeline = Pipeline.multistage
    raster_group: int = Field(1, gt=0)
    vector_width: int = Field(1, gt=0, le=16)
    groups_to_merge: int = Field(1, gt=0, le=64)
    split_k: int = Field(1, gt=0, le=256)
    tile_w: int = Field(0, ge=0, le=1024)
    filter_size: int = Field(0, ge=0, le=15)
    multiplier: int = Field(0, ge=0, le=64)
    group_channels: int = Field(0, ge=0, le=64)
    sliding_rows: int = Field(0, ge=0, le=2)
    tap_major: bool = False
    two_stage: bool = False
    explicit_gemm: bool = False
    last_arrival: bool = False
    aligned_k: bool = False
    via_fwd: bool = False

    @model_validator(mode="before")
    @classmethod
    def _depthwise_has_one_channel_by_default(cls, data: object) -> object:
        if isinstance(data, dict) and "group_channels" not in data and \
                data.get("algorithm") in (Algorithm.depthwise, Algorithm.depthwise.value):
            return {**data, "group_channels": 1}
        return data

    @model_validator(mode="after")
    def _axes_are_consistent(self) -> "KernelConfig":
        if self.via_fwd:
            self._check_via_forward()
            return self
        for field in ("block_m", "block_n", "block_k", "num_warps", "vector_width", "groups_to_merge"):
            if not _is_power_of_two(getattr(self, field)):
                raise ValueError(f"{field} must be a power of two, got {getattr(self, field)}")
        if self.split_k > 1 and self.direction is not Direction.bwd_weight:
            self._check_forward_split()
        fixed = {} if self.algorithm is Algorithm.igemm else {
            "block_k": 1, "num_stages": 1, "pipeline": Pipeline.multistage, "raster_group": 1, "groups_to_merge": 1}
        if self.tap_major and (self.algorithm is not Algorithm.igemm or self.direction is Direction.bwd_weight):
            raise ValueError("tap_major is an axis of the igemm fwd and bwd_data kernels only (the reduction of "
                             "bwd_weight runs over pixels, not taps)")
        if self.pipeline is Pipeline.streamk and (self.direction is not Direction.bwd_weight or self.split_k != 1):
            raise ValueError("the streamk pipeline is a bwd_weight reduction strategy of its own: split_k must be 1 "
                             f"and the direction bwd_weight, got split_k={self.split_k} for {self.direction.value}")
        if self.explicit_gemm and (self.algorithm is not Algorithm.igemm or self.direction is not Direction.fwd
                                   or self.tap_major or self.groups_to_merge > 1
                                   or self.pipeline not in (Pipeline.multistage, Pipeline.tma)):
            raise ValueError("explicit_gemm is an axis of the igemm fwd kernels of one group per tile, multistage or "
                             "tma, without tap_major (a 1x1 filter has one tap)")
        if self.two_stage and (self.split_k == 1 or self.algorithm is Algorithm.direct
                               or (self.algorithm is Algorithm.depthwise and self.direction is not Direction.bwd_weight)):
            raise ValueError("two_stage is an axis of the igemm and depthwise bwd_weight kernels with split_k > 1 (each "
                             "split stores its partial sums in an fp32 workspace slice, one pass sums the slices)")
        if self.last_arrival and (self.split_k == 1 or self.two_stage
                                  or self.pipeline not in (Pipeline.multistage, Pipeline.tma)):
            raise ValueError("last_arrival is an axis of the split kernels (split_k > 1: bwd_weight, and igemm fwd), "
                             "neither two-stage nor persistent (splits add into a zeroed fp32 workspace the runtime "
                             "keeps; the last split of each output block to finish casts the sums into the result and "
                             "zeroes the workspace again)")
        if self.aligned_k and (self.algorithm is not Algorithm.igemm or self.direction is not Direction.fwd
                               or self.vector_width == 1):
            raise ValueError("aligned_k is an axis of the igemm fwd kernels of vector width > 1 (they read K as a "
                             "multiple of it and store whole vectors)")
        if self.algorithm is not Algorithm.depthwise:
            fixed.update(filter_size=0, multiplier=0, group_channels=0, sliding_rows=0)
            if self.tile_w:
                self._check_pixel_boxes()
        for field, value in fixed.items():
            if getattr(self, field) != value:
                shown = value.value if isinstance(value, Pipeline) else value
                raise ValueError(f"the {self.algorithm.value} algorithm has no {field} axis: it must be {shown}")
        if self.algorithm is Algorithm.depthwise:
            self._check_depthwise_axes()
        return self

    def _check_via_forward(self) -> None:
        """A via_fwd instance is a bwd_data name for a valid igemm forward kernel (`kernel`): its axes are checked
        as that kernel's."""
        if self.direction is not Direction.bwd_data or self.algorithm is not Algorithm.igemm:
            raise ValueError("via_fwd is an axis of the igemm bwd_data kernels (a stride-1 bwd_data problem runs as "
                             f"its forward twin on a forward kernel), got {self.direction.value} "
                             f"{self.algorithm.value}")
        try:
            forward_kernel(self)
        except ValidationError as error:
            message = error.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
            raise ValueError(f"via_fwd runs the forward kernel of the same axes, which is invalid: {message}") from None

    @property
    def kernel(self) -> "KernelConfig":
        """The kernel that runs: the forward one of a via_fwd instance (one object per config), else self."""
        return forward_kernel(self) if self.via_fwd else self

    def _check_forward_split(self) -> None:
        """A forward split shares the flat reduction (taps x channels) of one group's output tile among split_k
        programs that reduce by last arrival: for few output tiles over a deep reduction."""
        if (self.direction is not Direction.fwd or self.algorithm is not Algorithm.igemm or not self.last_arrival
                or self.tap_major or self.tile_w or self.explicit_gemm or self.groups_to_merge > 1):
            raise ValueError(
                "split_k > 1 is an axis of bwd_weight and of the igemm fwd kernels with last_arrival over the flat "
                "reduction of one group (not tap_major, explicit_gemm, pixel boxes nor merged groups), got "
                f"split_k={self.split_k} for {self.direction.value} {self.algorithm.value}"
                f"{'' if self.last_arrival else ' without last_arrival'}")

    def _check_pixel_boxes(self) -> None:
        if (self.algorithm is not Algorithm.igemm or self.pipeline is not Pipeline.tma or self.two_stage
                or self.tap_major or self.explicit_gemm):
            raise ValueError("tile_w is an axis of the depthwise kernels and, as pixel boxes, of the igemm tma kernels "
                             "without two_stage, tap_major or explicit_gemm")
        box, field = (self.block_k, "block_k") if self.direction is Direction.bwd_weight else (self.block_m, "block_m")
        if not _is_power_of_two(self.tile_w) or self.tile_w > box:
            raise ValueError(f"igemm pixel boxes need a power-of-two tile_w of at most {field} ({box}), "
                             f"got {self.tile_w}")

    def _check_depthwise_axes(self) -> None:
        for field in ("tile_w", "multiplier", "group_channels"):
            if not _is_power_of_two(getattr(self, field)):
                raise ValueError(f"depthwise {field} must be a power of two, got {getattr(self, field)}")
        if self.tile_w > self.block_m:
            raise ValueError(f"depthwise tile_w ({self.tile_w}) must be at most block_m ({self.block_m}), "
                             "the pixels of the tile")
        if self.filter_size % 2 == 0:
            raise ValueError(f"depthwise filter_size must be odd (the square filter it unrolls), "
                             f"got {self.filter_size}")
        if (self.sliding_rows and self.direction is Direction.bwd_weight
                and (self.multiplier != 1 or self.group_channels != 1)):
            raise ValueError("sliding_rows is an axis of the depthwise kernels: fwd with row stride 1 or 2, bwd_data "
                             "with stride 1 or 2 x 2 (all tiny groups too) and bwd_weight with row stride 1 or 2, "
                             f"multiplier 1 and one channel per group; got sliding_rows={self.sliding_rows} for "
                             f"{self.direction.value} with group_channels={self.group_channels}, "
                             f"multiplier={self.multiplier}")

    @property
    def accumulator_elements(self) -> int:
        """fp32 accumulators a program holds: its output tile; depthwise times the multiplier, times group_channels
        for the backward directions (one accumulator per input channel of a group), and for bwd_weight, which keeps
        one pixel-tile accumulator per tap of its filter row, times filter_size; sliding-rows bwd_weight keeps one
        accumulator row (tile_w x block_n) per filter row of its filter column, sliding-rows bwd_data of tiny groups
        one per input channel of a group (its filters are summed as they come, not kept)."""
        tile = self.block_m * self.block_n
        if self.sliding_rows and self.direction is Direction.bwd_weight:
            return self.tile_w * self.block_n * self.filter_size
        if self.sliding_rows and self.direction is Direction.bwd_data and self.group_channels > 1:
            return tile * self.group_channels
        if self.algorithm is Algorithm.depthwise:
            tile *= self.multiplier * (self.filter_size if self.direction is Direction.bwd_weight else 1)
            tile *= self.group_channels if self.direction is not Direction.fwd else 1
        return tile

    @property
    def vector_aligned_sizes(self) -> tuple[str, ...]:
        """The problem sizes a vector width > 1 needs to be multiples of it (runtime/support.py checks them; the
        templates state them to the compiler, which otherwise knows a size divisible only by what Triton's JIT
        specialises on, 16, and loads a channel run it must mask element by element): the groups of depthwise and
        direct kernels (whose channels are the groups), the input channels of implicit GEMM forward (and its output
        channels with aligned_k), the input and output channels of its backward directions. () for vector width 1."""
        if self.vector_width == 1:
            return ()
        if self.via_fwd:  # the twin's C and K are the problem's K and C
            return tuple({"C": "K", "K": "C"}[size] for size in self.kernel.vector_aligned_sizes)
        if self.algorithm in (Algorithm.depthwise, Algorithm.direct):
            return ("G",)
        return ("C",) if self.direction is Direction.fwd and not self.aligned_k else ("C", "K")

    @property
    def accumulates_fp32(self) -> bool:
        """bwd_weight kernels whose programs add partial sums into one zeroed fp32 workspace with atomics (split-K,
        StreamK); the runtime casts the workspace into the result. (Last-arrival kernels, every split fwd one among
        them, cast it themselves.)"""
        return (self.split_k > 1 and not self.two_stage and not self.last_arrival) or self.pipeline is Pipeline.streamk

    @property
    def writes_fp32_partials(self) -> bool:
        """Kernels whose output pointer is fp32 partial sums rather than the result: the accumulating ones above and
        the two-stage splits' workspace slices (the runtime reduces and casts them)."""
        return self.accumulates_fp32 or self.two_stage

    @property
    def tile_h(self) -> int:
        """Rows of the 2-D pixel tile: depthwise and igemm fwd / bwd_data pixel boxes, of the tile a program owns
        (block_m pixels); igemm bwd_weight pixel boxes, of each box its reduction walks (block_k pixels); 0 without
        tile_w."""
        if not self.tile_w:
            return 0
        owned = self.algorithm is Algorithm.depthwise or self.direction is not Direction.bwd_weight
        return (self.block_m if owned else self.block_k) // self.tile_w

    @property
    def name(self) -> str:
        head = f"{self.direction.value}_{self.dtype.value}"
        if self.algorithm is Algorithm.igemm:
            body = (
                f"igemm_m{self.block_m}n{self.block_n}k{self.block_k}_w{self.num_warps}_s{self.num_stages}"
                f"_{self.pipeline.token}_g{self.raster_group}_v{self.vector_width}_mg{self.groups_to_merge}"
                f"{'_tm' if self.tap_major else ''}{'_xg' if self.explicit_gemm else ''}"
                f"{f'_px{self.tile_h}x{self.tile_w}' if self.tile_w else ''}{'_ak' if self.aligned_k else ''}"
                f"{'_vf' if self.via_fwd else ''}"
            )
        elif self.algorithm is Algorithm.direct:
            body = f"direct_p{self.block_m}c{self.block_n}_w{self.num_warps}_v{self.vector_width}"
        else:
            body = (f"depthwise_t{self.tile_h}x{self.tile_w}c{self.block_n}_f{self.filter_size}_m{self.multiplier}"
                    f"{f'_cpg{self.group_channels}' if self.group_channels > 1 else ''}"
                    f"{f'_sr{self.sliding_rows}' if self.sliding_rows else ''}"
                    f"_w{self.num_warps}_v{self.vector_width}")
        reduction = "ts" if self.two_stage else "la" if self.last_arrival else ""
        tail = f"_sk{self.split_k}{reduction}" if self.direction is Direction.bwd_weight or self.split_k > 1 else ""
        return f"{head}_{body}{tail}"

    @classmethod
    def from_name(cls, name: str) -> "KernelConfig":
        """Parse a canonical name; `KernelConfig.from_name(c.name) == c` for every valid config."""
        match = _NAME_RE.match(name)
        if match is None:
            raise ValueError(
                f"{name!r} is not a kernel name; expected e.g. 'fwd_bf16_igemm_m128n64k32_w4_s3_ms_g8_v8_mg1', "
                "'bwd_weight_fp16_direct_p64c32_w4_v8_sk4' or 'fwd_bf16_depthwise_t4x16c32_f3_m1_w4_v8'"
            )
        parts = match.groupdict()
        direction = Direction(parts["direction"])
        has_split = parts["split"] is not None
        via_fwd = parts["vf"] is not None
        forward_split = (direction is Direction.fwd or via_fwd) and has_split and int(parts["split"]) > 1
        if has_split != (direction is Direction.bwd_weight) and not forward_split:
            raise ValueError(f"{name!r}: the _sk<split> token is present exactly for bwd_weight kernels and, with a "
                             "split above 1, for split fwd kernels (and their via_fwd bwd_data twins)")
        common = {"direction": direction, "dtype": DType(parts["dtype"]),
                  "split_k": int(parts["split"] or 1), "two_stage": parts["reduce"] == "ts",
                  "last_arrival": parts["reduce"] == "la"}
        if parts["bm"] is not None:
            return cls(
                **common, algorithm=Algorithm.igemm, block_m=int(parts["bm"]), block_n=int(parts["bn"]),
                block_k=int(parts["bk"]), num_warps=int(parts["iw"]), num_stages=int(parts["stages"]),
                pipeline=_TOKEN_PIPELINES[parts["pipe"]], raster_group=int(parts["raster"]),
                vector_width=int(parts["iv"]), groups_to_merge=int(parts["merge"]), tap_major=parts["tm"] is not None,
                explicit_gemm=parts["xg"] is not None, tile_w=int(parts["pw"] or 0),
                aligned_k=parts["ak"] is not None, via_fwd=via_fwd,
            )
        if parts["bp"] is not None:
            return cls(
                **common, algorithm=Algorithm.direct, block_m=int(parts["bp"]), block_n=int(parts["bc"]),
                num_warps=int(parts["dw"]), vector_width=int(parts["dv"]),
            )
        return cls(
            **common, algorithm=Algorithm.depthwise, block_m=int(parts["th"]) * int(parts["tw"]),
            tile_w=int(parts["tw"]), block_n=int(parts["gc"]), filter_size=int(parts["fs"]),
            multiplier=int(parts["mult"]), group_channels=int(parts["cpg"] or 1), sliding_rows=int(parts["sr"] or 0),
            num_warps=int(parts["ww"]),
            vector_width=int(parts["wv"]),
        )

    def axes(self) -> dict[str, object]:
        """Every axis as plain JSON values (enum values as strings), in field order."""
        return self.model_dump(mode="json")


@lru_cache(maxsize=8192)
def forward_kernel(config: KernelConfig) -> KernelConfig:
    """The forward kernel a via_fwd bwd_data config runs (cached, so that equal configs share one object: the feature
    caches key on identity)."""
    return KernelConfig(**{**config.model_dump(), "direction": Direction.fwd, "via_fwd": False})
