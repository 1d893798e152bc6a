"""Problem: one grouped 2D convolution (direction, dtype, sizes); output size and GEMM view are derived."""
from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .enums import Direction, DType

PositiveInt = Field(gt=0)
MAX_INDEX = 2**31 - 1  # the kernels index with 32-bit integers: the most elements of one tensor


@dataclass(frozen=True)
class GemmView:
    """The implicit-GEMM shape of one group: C[M, N] = A[M, K] @ B[K, N]."""

    M: int
    N: int
    K: int


def _is_tensor(value) -> bool:
    return hasattr(value, "dtype") and hasattr(value, "shape")


# Problem.key's form, read back by Problem.from_key.
_KEY = re.compile(r"(?P<direction>fwd|bwd_data|bwd_weight)_(?P<dtype>fp16|bf16|fp32)"
                  r"_n(?P<N>\d+)_g(?P<G>\d+)_c(?P<C>\d+)_k(?P<K>\d+)_hi(?P<Hi>\d+)_wi(?P<Wi>\d+)_y(?P<Y>\d+)_x(?P<X>\d+)"
                  r"_s(?P<stride_h>\d+)x(?P<stride_w>\d+)_p(?P<pad_h>\d+)x(?P<pad_w>\d+)_d(?P<dil_h>\d+)x(?P<dil_w>\d+)")


class Problem(BaseModel):
    """A grouped convolution. C and K are channels *per group*; field names follow CK's benchmark CSV."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_enum_values=False)

    direction: Direction
    dtype: DType
    N: int = Field(gt=0, description="batch size")
    G: int = Field(gt=0, description="number of groups")
    C: int = Field(gt=0, description="input channels per group")
    K: int = Field(gt=0, description="output channels per group")
    Hi: int = Field(gt=0)
    Wi: int = Field(gt=0)
    Y: int = Field(gt=0, description="filter height")
    X: int = Field(gt=0, description="filter width")
    stride_h: int = Field(1, gt=0)
    stride_w: int = Field(1, gt=0)
    pad_h: int = Field(0, ge=0)
    pad_w: int = Field(0, ge=0)
    dil_h: int = Field(1, gt=0)
    dil_w: int = Field(1, gt=0)

    @model_validator(mode="after")
    def _output_is_positive(self) -> "Problem":
        if self.Ho <= 0 or self.Wo <= 0:
            raise ValueError(
                f"output size would be {self.Ho}x{self.Wo}: the dilated filter "
                f"({(self.Y - 1) * self.dil_h + 1}x{(self.X - 1) * self.dil_w + 1}) is larger than the padded "
                f"input ({self.Hi + 2 * self.pad_h}x{self.Wi + 2 * self.pad_w})"
            )
        return self

    @property
    def Ho(self) -> int:
        return (self.Hi + 2 * self.pad_h - self.dil_h * (self.Y - 1) - 1) // self.stride_h + 1

    @property
    def Wo(self) -> int:
        return (self.Wi + 2 * self.pad_w - self.dil_w * (self.X - 1) - 1) // self.stride_w + 1

    @property
    def key(self) -> str:
        """Stable string key (cache key, CSV key)."""
        return (
            f"{self.direction.value}_{self.dtype.value}_n{self.N}_g{self.G}_c{self.C}_k{self.K}"
            f"_hi{self.Hi}_wi{self.Wi}_y{self.Y}_x{self.X}_s{self.stride_h}x{self.stride_w}"
            f"_p{self.pad_h}x{self.pad_w}_d{self.dil_h}x{self.dil_w}"
        )

    @classmethod
    def from_key(cls, key: str) -> "Problem":
        """The problem whose `key` this is; ValueError naming the expected form for a string that is not one."""
        found = _KEY.fullmatch(key)
        if found is None:
            raise ValueError(f"not a problem key: {key!r} "
                             "(e.g. fwd_bf16_n32_g16_c24_k24_hi128_wi128_y3_x3_s1x1_p1x1_d1x1)")
        fields = found.groupdict()
        sizes = {name: int(value) for name, value in fields.items() if name not in ("direction", "dtype")}
        return cls(direction=fields["direction"], dtype=fields["dtype"], **sizes)

    @property
    def fields(self) -> tuple:
        """Every field, in order: a key as unique as `key` at a fifth of its cost (select's cache)."""
        return (self.direction, self.dtype, self.N, self.G, self.C, self.K, self.Hi, self.Wi, self.Y, self.X,
                self.stride_h, self.stride_w, self.pad_h, self.pad_w, self.dil_h, self.dil_w)

    @property
    def gemm(self) -> GemmView:
        """Per-group GEMM view (DESIGN.md §1)."""
        if self.direction is Direction.fwd:
            return GemmView(self.N * self.Ho * self.Wo, self.K, self.C * self.Y * self.X)
        if self.direction is Direction.bwd_data:
            return GemmView(self.N * self.Hi * self.Wi, self.C, self.K * self.Y * self.X)
        return GemmView(self.K, self.C * self.Y * self.X, self.N * self.Ho * self.Wo)

    @property
    def flops(self) -> int:
        """Multiply-adds x 2 of the convolution itself (the same for all three directions)."""
        return 2 * self.N * self.G * self.K * self.C * self.Ho * self.Wo * self.Y * self.X

    @property
    def input_shape(self) -> tuple[int, int, int, int]:
        """x as torch sees it: N x (G*C) x Hi x Wi."""
        return (self.N, self.G * self.C, self.Hi, self.Wi)

    @property
    def weight_shape(self) -> tuple[int, int, int, int]:
        """w as torch sees it: (G*K) x C x Y x X."""
        return (self.G * self.K, self.C, self.Y, self.X)

    @property
    def output_shape(self) -> tuple[int, int, int, int]:
        """y as torch sees it: N x (G*K) x Ho x Wo."""
        return (self.N, self.G * self.K, self.Ho, self.Wo)

    @classmethod
    def from_tensors(cls, x, w, stride=1, padding=0, dilation=1, groups=1, direction: Direction | str = "fwd"
                     ) -> "Problem":
        """The problem of conv2d(x, w, ...) as torch sees it (x N x (G*C) x H x W, w (G*K) x C x Y x X).

        Either of x and w may be a shape instead of a tensor (bwd_data knows only the input's shape, bwd_weight only
        the weight's); the dtype comes from whichever is a tensor. Arguments are checked as the tensor API checks them.
        """
        from gconv.runtime.validation import check_groups, dtype_of, make_problem, shape_of

        groups = check_groups(groups)
        name, tensor = ("w", w) if _is_tensor(w) or not _is_tensor(x) else ("x", x)
        return make_problem(Direction(direction), dtype_of(name, tensor), shape_of("x", x), shape_of("w", w), groups,
                            stride, padding, dilation)

    def forward_twin(self) -> "Problem | None":
        """The forward problem a stride-1 bwd_data problem is: dY (Ho x Wo, K channels a group) convolved with the
        filter flipped and its channel axes swapped (runtime/forward_twin.py twin_filter), padded by dil x (F - 1) -
        pad, gives dX (Hi x Wi). None for another direction, a stride > 1, or a padding beyond dil x (F - 1) (the
        twin's would be negative)."""
        if self.direction is not Direction.bwd_data or (self.stride_h, self.stride_w) != (1, 1):
            return None
        pad_h, pad_w = self.dil_h * (self.Y - 1) - self.pad_h, self.dil_w * (self.X - 1) - self.pad_w
        if min(pad_h, pad_w) < 0:
            return None
        return self.model_copy(update={"direction": Direction.fwd, "C": self.K, "K": self.C, "Hi": self.Ho,
                                       "Wi": self.Wo, "pad_h": pad_h, "pad_w": pad_w})

    def with_direction(self, direction: Direction | str) -> "Problem":
        return self.model_copy(update={"direction": Direction(direction)})

    def with_dtype(self, dtype: DType | str) -> "Problem":
        return self.model_copy(update={"dtype": DType(dtype)})
