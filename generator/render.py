"""Render one kernel instance to Triton source with jinja2 (pure: config in, text out)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import jinja2

from gconv.schemas import Algorithm, Direction, DType, KernelConfig, Pipeline

GENERATOR_VERSION = "1"
TEMPLATE_DIR = Path(__file__).parent / "templates"

# Pointer arguments per direction, in the uniform order (x-like, w-like, y-like): the launcher relies on it.
_POINTERS = {
    Direction.fwd: ("x_ptr", "w_ptr", "y_ptr"),
    Direction.bwd_data: ("dx_ptr", "w_ptr", "dy_ptr"),
    Direction.bwd_weight: ("x_ptr", "dw_ptr", "dy_ptr"),
}
_OUTPUT_POINTER = {Direction.fwd: "y_ptr", Direction.bwd_data: "dx_ptr", Direction.bwd_weight: "dw_ptr"}
PROBLEM_ARGS = ("N", "G", "C", "K", "Hi", "Wi", "Ho", "Wo", "Y", "X",
                "stride_h", "stride_w", "pad_h", "pad_w", "dil_h", "dil_w")
STRIDE_ARGS = ("sxn", "sxc", "sxh", "sxw", "swk", "swc", "swy", "swx", "syn", "syk", "syh", "syw")


@dataclass(frozen=True)
class Provenance:
    """Where an instance came from, for the file header."""

    rule_files: tuple[str, ...]
    rule: str
    selected_by: tuple[str, ...]
    regenerate: str


def signature(config: KernelConfig) -> list[tuple[str, str]]:
    """Kernel arguments and their Triton types, in call order."""
    element = f"*{config.dtype.triton}"
    args = []
    for pointer in _POINTERS[config.direction]:
        partials = pointer == _OUTPUT_POINTER[config.direction] and config.writes_fp32_partials
        args.append((pointer, "*fp32" if partials else element))
    args += [(name, "i32") for name in PROBLEM_ARGS + STRIDE_ARGS]
    if config.pipeline in (Pipeline.persistent, Pipeline.streamk):
        args.append(("num_programs", "i32"))
    return args


def _argument_rows(config: KernelConfig) -> list[list[tuple[str, str]]]:
    """The signature split into readable rows: pointers, sizes, conv parameters, strides, extras."""
    args = signature(config)
    rows = [args[:3], args[3:13], args[13:19], args[19:23], args[23:27], args[27:31], args[31:]]
    return [row for row in rows if row]


def _signature_lines(config: KernelConfig) -> list[str]:
    return [", ".join(name for name, _ in row) + "," for row in _argument_rows(config)]


def _signature_dict_lines(config: KernelConfig) -> list[str]:
    return [" ".join(f'"{name}": "{kind}",' for name, kind in row) for row in _argument_rows(config)]


def template_name(config: KernelConfig) -> str:
    family = "depthwise_sliding" if config.sliding_rows else config.algorithm.value
    return f"{family}_{config.direction.value}.py.j2"


def sliding_source_rows(config: KernelConfig) -> list[tuple[int, list[tuple[int, int]]]]:
    """Sliding-rows depthwise: each source row j of a program's tile with the (output row i, filter row fy) pairs it
    feeds. fwd reads input row h0 + j, where j = i * S + fy (S the row stride); bwd_data reads output-gradient row
    oh0 + j, where j = i - fy + filter_size - 1 (stride 1: the filter runs backwards)."""
    rows: dict[int, list[tuple[int, int]]] = {}
    for i in range(config.tile_h):
        for fy in range(config.filter_size):
            if config.direction is Direction.fwd:
                j = i * config.sliding_rows + fy
            else:
                j = i - fy + config.filter_size - 1
            rows.setdefault(j, []).append((i, fy))
    return sorted(rows.items())


def render_context(config: KernelConfig, provenance: Provenance) -> dict:
    """Every decision the template needs, made here in Python; the template only substitutes."""
    pointers = _POINTERS[config.direction]
    tma_descriptor = {Direction.fwd: "w_desc", Direction.bwd_data: "w_desc", Direction.bwd_weight: "dy_desc"}
    operands = list(pointers)
    if config.pipeline is Pipeline.tma:
        operands.append(tma_descriptor[config.direction])
        if config.explicit_gemm:
            operands.append("x_desc")
    return {
        "name": config.name,
        "generator_version": GENERATOR_VERSION,
        "rule_files": list(provenance.rule_files),
        "rule": provenance.rule,
        "selected_by": list(provenance.selected_by),
        "regenerate": provenance.regenerate,
        "signature": signature(config),
        "signature_lines": _signature_lines(config),
        "signature_dict_lines": _signature_dict_lines(config),
        "tile_operands": ", ".join(operands),
        "block_m": config.block_m,
        "block_n": config.block_n,
        "block_k": config.block_k,
        "num_warps": config.num_warps,
        "num_stages": config.num_stages,
        "raster_group": config.raster_group,
        "vector_width": config.vector_width,
        "groups_to_merge": config.groups_to_merge,
        "merge": config.groups_to_merge > 1,
        "split_k": config.split_k,
        "split": config.split_k > 1,
        "has_split_axis": config.direction is Direction.bwd_weight,
        "tma": config.pipeline is Pipeline.tma,
        "persistent": config.pipeline is Pipeline.persistent,
        "tap_major": config.tap_major,
        "two_stage": config.two_stage,
        "explicit_gemm": config.explicit_gemm,
        "streamk": config.pipeline is Pipeline.streamk,
        # fp32 operands go through tensor cores as TF32, as cuDNN does by default for convolutions.
        "dot_precision": ', input_precision="tf32"' if config.dtype is DType.fp32 else "",
        "direct": config.algorithm is Algorithm.direct,
        "tile_h": config.tile_h,
        "tile_w": config.tile_w,
        "filter_size": config.filter_size,
        "multiplier": config.multiplier,
        "group_channels": config.group_channels,
        "sliding_rows": config.sliding_rows,
        "source_rows": sliding_source_rows(config) if config.sliding_rows else [],
        "output_rows": list(range(config.tile_h)),
        "taps": list(range(config.filter_size)),  # depthwise bwd_weight: one accumulator per tap of a filter row
        "accumulator_shape": "(BLOCK_H * BLOCK_W, BLOCK_G, M, CPG)" if config.group_channels > 1 else
                             "(BLOCK_H * BLOCK_W, BLOCK_G)" if config.multiplier == 1 else
                             "(BLOCK_H * BLOCK_W, BLOCK_G, M)",
    }


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def render(config: KernelConfig, provenance: Provenance) -> str:
    """The complete Triton source of one instance."""
    template = _environment().get_template(template_name(config))
    text = template.render(ctx=render_context(config, provenance))
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"
