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
    if config.last_arrival:
        args += [("ws_ptr", "*fp32"), ("arrivals_ptr", "*i32")]
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
    feeds. fwd and bwd_weight read input row h0 + j, where j = i * S + fy (S the row stride); bwd_data reads
    output-gradient row oh0 + j, where j = i - t + T - 1 for row t of the T filter rows that reach a stride-residue
    class of rows (the filter runs backwards; at stride 1 T is the filter size and t the filter row)."""
    if config.direction is Direction.bwd_data:
        taps = class_taps(config)
        return _pairs_by_source(config.tile_h, taps, lambda i, t: i - t + taps - 1)
    return _pairs_by_source(config.tile_h, config.filter_size, lambda i, fy: i * config.sliding_rows + fy)


def _pairs_by_source(outputs: int, taps: int, source) -> list[tuple[int, list[tuple[int, int]]]]:
    """Each source index source(output, tap) of outputs x taps pairs with the pairs that read it, sources ascending."""
    pairs: dict[int, list[tuple[int, int]]] = {}
    for output in range(outputs):
        for tap in range(taps):
            pairs.setdefault(source(output, tap), []).append((output, tap))
    return sorted(pairs.items())


def class_taps(config: KernelConfig) -> int:
    """Sliding-rows bwd_data: the filter rows (and columns) that reach one stride-residue class of input rows at most,
    ceil(filter_size / S) for the stride S = sliding_rows (filter rows f0 + S * t, f0 the class's first)."""
    return -(-config.filter_size // config.sliding_rows)


# How a depthwise kernel walks its filter's taps: the loop headers of the filter rows and of the taps in a row.
# Unrolled loops let the compiler hoist every tap's loads; a rolled loop keeps one tap's (or one row's) in registers.
TAP_LOOPS = {
    "unrolled": ("tl.static_range(FILTER)", "tl.static_range(FILTER)"),
    "rolled-columns": ("tl.static_range(FILTER)", "tl.range(FILTER, loop_unroll_factor=1)"),
    "rolled": ("tl.range(FILTER, loop_unroll_factor=1)", "tl.range(FILTER, loop_unroll_factor=1)"),
}
# How a flat implicit-GEMM reduction walks its index -- the forward's (tap, channel), the backward-data's (reaching tap,
# filter), the backward-weight's pixel (n, ho, wo): divided out of the reduction index every step, or advanced step by
# step by compare-and-subtract (no integer division in the loop; backward-data also finds each element's dY pixel
# as its row's class pixel plus its lane's tap offset instead of dividing every element by the stride). The
# tap-major backward-data walk has no flat index; "incremental" there finds each row's dY pixel as its class pixel
# plus the tap's offset, "divide" divides every row by the stride every step.
K_WALKS = ("divide", "incremental")
# How deep Triton software-pipelines the innermost loop of a kernel without tensor cores (Triton pipelines the loads
# of a loop only when they feed tl.dot or the loop asks for stages): "1" is a plain loop, each step's loads waiting
# for memory; N > 1 walks it with tl.range(..., num_stages=N), so the loads of the next N - 1 steps are in flight
# (cp.async copies into shared memory on sm_80+) while one step computes. The loops: the pixel loop of depthwise and
# direct bwd_weight, the channel (filter) loop of direct fwd (bwd_data), the rolled tap-column loop of depthwise fwd
# and bwd_data; unrolled taps have no loop.
LOOP_STAGES = ("1", "2", "3", "4")
# How a depthwise fwd / bwd_data kernel for tiny groups (CPG channels or M filters a group) reduces over the group's
# channels at each tap: "broadcast" multiplies a [pixels, groups, M, CPG] product out of the loaded tile and sums an
# axis (Triton converts the weights' or the product's layout through shared memory, with a barrier, every tap);
# "split" takes the tile apart into one [pixels, groups] tensor a channel (tl.split: free where a thread holds a
# group's channels) and accumulates one [pixels, groups] tensor an output channel with plain multiply-adds, joined
# (tl.join) for the one contiguous store.
CHANNEL_REDUCES = ("broadcast", "split")
# Which programs of a depthwise bwd_weight kernel launch side by side. Its grid is (splits, group blocks, filter rows
# -- columns with sliding rows), and the GPU launches axis 0 fastest: "apart" takes the program's split, group block
# and filter row from those axes, so the FILTER programs that walk the same tiles for one filter row each launch
# splits x group blocks apart and each reads the tiles from DRAM again; "adjacent" renumbers the launch index with the
# filter row fastest, so they run together and the second to seventh read of a tile comes from L2; "single" has one
# program of each (split, group block) walk its tiles for every filter row (column): it reads each dY tile once and
# each X row for all filter columns back to back (from L1), and keeps FILTER x FILTER accumulators. The grid keeps its
# FILTER programs along axis 2, of which all but the first return at once (an A/B twin: same launcher). "unrolled"
# (sliding-rows kernels of one channel and one filter a group only) is "single" with the tile unrolled into pixels:
# each thread holds its groups' value of one pixel a register, so every input pixel the tile reaches is loaded once
# and multiplied into every dY pixel and tap it meets from registers (FILTER x FILTER reuse along rows and columns;
# its own template, depthwise_unrolled_bwd_weight.py.j2: stride_w must equal the row stride and dilation be 1).
FILTER_PROGRAMS = ("apart", "adjacent", "single", "unrolled")
# The memory order of the atomic adds with which a split kernel (bwd_weight with split_k > 1 or StreamK, not two-stage;
# a split igemm fwd) adds its partial sums up: "acq_rel" is tl.atomic_add's default, and each one compiles to a
# GPU-wide fence, the atomic with its result awaited and an L1 invalidation (MEMBAR.ALL.GPU, ATOMG, CCTL.IVALL in the
# SASS), one after another;
# "relaxed" adds without fences (REDG: the program does not wait), the best split kernel 1.33x faster
# (bench/results/relaxed-atomics/). Last arrival stays correct: its counter keeps acq_rel after a barrier of the
# program's threads, and a release is cumulative over the barrier (the pattern of CUTLASS's split-K semaphore).
ATOMICS = ("acq_rel", "relaxed")
# How a tap-major implicit-GEMM forward or backward-data loop, and one of pixel boxes, finds each step's tap and first
# channel (filter): "divide" divides them out of the step index (tap = step // steps a tap, then the tap's row and
# column: two or three integer divisions a step, done by every thread); "carry" carries them from step to step by
# compare-and-subtract (the 128 x 128 x 64 bwd_data loop on sm_90: 259 instructions a step divided, 199 carried).
# "carry" is the rule: the carried twins ran 1.17x (bwd_data tap-major, 238 pairs) and 1.14x (fwd pixel boxes, 47)
# per kernel, best twin over best base 1.13x in both directions (bench/results/tap-walk/; measured on an H200, whose
# SMs are the H100's: the gain is in issue slots, not in memory).
TAP_WALKS = ("divide", "carry")
# How a merged (block-diagonal) tap-major or pixel-box forward / backward-data loop finds the group of each of its
# step's BLOCK_K channels (filters), for the tile's mask and the forward's weight offset: "divide" divides each by C
# (K) every step; "compare" finds group and channel within it by log2(GROUPS_TO_MERGE) halving compares, unrolled at
# render time (no division, no remainder). The merged loops issue the most instructions a step of the winning
# 128 x 64 tiles (bench/results/issue-audit/: bwd_data mg2 394 a step divided, 341 compared; fwd mg8 pixel boxes
# 305, 230). "compare" is the rule: as twins of `default`'s on 24 bf16 training problems (one H200,
# bench/results/issue-audit/ "Third A/B and adoption"), best twin over best base 1.10x bwd_data (12 problems, worst
# 1.02x), 1.02x fwd (12, worst 0.97x); no kernel slower on average.
GROUP_ROWS = ("divide", "compare")
# How an implicit-GEMM loop tests that a gathered pixel coordinate v lies in [0, size), for its padding mask:
# "signed" compares twice, (v >= 0) & (v < size); "unsigned" compares once, v's bits read as uint32 against size (a
# negative v reads as 2^31 or more, above any size). Per element of a gathered tile, two compares and an AND become
# one: sm_90 loop 207 -> 195 instructions a step for the most-won forward tile (128 x 128 x 64), 270 -> 243 for the
# one-warpgroup 128 x 64 x 64, 355 -> 307 for the narrow merged v1 bwd_data tile (bench/results/issue-audit/).
# "unsigned" is the rule: as twins of `default`'s 128 x 32 / 64 / 128 and 64 x 128 tiles on 23 bf16 training problems
# (one H200, bench/results/issue-audit/ "Third A/B and adoption"), best twin over best base 1.04x fwd (worst 0.97x, a
# 1x1 problem with nothing to mask), 1.04x bwd_data (worst 1.01x), 1.03x bwd_weight (worst 1.00x).
BOUNDS = ("signed", "unsigned")
# How an implicit-GEMM backward-weight tma kernel's descriptor views dY, its A operand (filters x pixels, the
# transpose of dY's pixels x filters): "groups" as [pixels, G, K], a box of one group's filters, reshaped to 2-D and
# transposed; "flat" as [pixels, G * K], the box transposed as it is (a box past the group's K reads the next group's
# filters into tile rows that are never stored, and zeros past the tensor). Triton keeps the flat box's transpose in
# shared memory for the HGMMA; the reshaped one it moves to registers first (sm_90 loop of `default`'s 128 x 64 x 64
# tile on a dense layer: 8 LDSM and 4 warpgroup waits a step, 247 instructions, 141 registers; flat: no LDSM, 2 waits,
# 221, 112). "flat" is the rule since session 61's A/B on the H200 (bench/results/dy-view/README.md): 1.08x over the
# best base on 79 bf16 training problems. "groups" stays a choice for twins only: on triton 3.6 its 8-warp tiles without
# a split raced (wrong sums, different in each run, on 10 of 711 pairs).
DY_VIEWS = ("groups", "flat")
# Whether an implicit-GEMM backward-weight pixel-box tile's box loop asks Triton to warp-specialise it
# (`tl.range(..., warp_specialize=True)`): on sm_90 Triton's Hopper pass then gives the TMA loads a producer warpgroup
# and the HGMMAs two consumer ones (12 warps). The pass acts only on a 4-warp kernel whose dot operands all load through
# descriptors and that holds no if / else; with a split's atomics it fails to compile (triton 3.9), so only the
# unsplit 4-warp pixel boxes take it (sm_90 loop of `default`'s px4x16 tile: 107 -> 46 instructions a step, the loads
# gone to the producer, 74 -> 168 registers). "off" is the rule: on the H200 (triton 3.6) the specialised twins ran
# 0.69x as fast (bench/results/warp-specialize/README.md).
WARP_SPECIALIZE = ("off", "on")
CHOICES = {"tap_loop": tuple(TAP_LOOPS), "k_walk": K_WALKS, "loop_stages": LOOP_STAGES,
           "channel_reduce": CHANNEL_REDUCES, "filter_programs": FILTER_PROGRAMS, "atomics": ATOMICS,
           "tap_walk": TAP_WALKS, "group_rows": GROUP_ROWS, "bounds": BOUNDS, "dy_view": DY_VIEWS,
           "warp_specialize": WARP_SPECIALIZE}
# The channels (and filters) a group the split reduction takes apart and joins: tl.split and tl.join halve and double.
SPLIT_COUNTS = (1, 2, 4, 8)
TAP_LOOP_TEMPLATES = ("depthwise_fwd.py.j2", "depthwise_bwd_data.py.j2")
PLAIN_LOOP_TEMPLATES = ("depthwise_bwd_weight.py.j2", "direct_bwd_weight.py.j2", "direct_fwd.py.j2",
                        "direct_bwd_data.py.j2")


def has_tap_loop(config: KernelConfig) -> bool:
    """Whether config's template walks the taps in a loop (depthwise fwd / bwd_data); the others spell them out."""
    return template_name(config) in TAP_LOOP_TEMPLATES


def tap_values_per_thread(config: KernelConfig) -> int:
    """Output-gradient values one thread of a depthwise bwd_data kernel loads per filter tap: a [pixels, channels x
    multiplier] tile over the program's threads."""
    return config.block_m * config.block_n * config.multiplier // (config.num_warps * 32)


def tap_loop(config: KernelConfig) -> str:
    """Where unrolled taps' loads and products would not fit in registers, a depthwise kernel rolls its tap loops:
    with C/G = 2 or 4 (fwd and bwd_data) for a 5x5 or 7x7 filter; with C/G = 1 (bwd_data) when a thread loads 64+
    values per tap, or 32+ with a 5x5 or 7x7 filter. Compiled for sm_90, those kernels spilled (up to 6 KB per thread).
    On the H100, rolled over unrolled (geomean of pairs, bench/results/tap-loop/): C/G = 1 bwd_data 1.73x (38 pairs,
    0.92-38x; the other C/G = 1 bwd_data pairs 0.87x, forward 0.88x), C/G = 2-4 5x5 / 7x7 fwd 1.32x (32 pairs) and
    bwd_data 1.13x (38 pairs; their 3x3 twins 0.92x and 0.97x)."""
    if not has_tap_loop(config):
        return "unrolled"
    if config.group_channels > 1:
        return "rolled" if config.filter_size >= 5 else "unrolled"
    if config.direction is not Direction.bwd_data:
        return "unrolled"
    values = tap_values_per_thread(config)
    return "rolled" if values >= 64 or (values >= 32 and config.filter_size >= 5) else "unrolled"


def has_tap_walk(config: KernelConfig) -> bool:
    """Whether config's loop walks taps step by step (TAP_WALKS): the tap-major or pixel-box implicit-GEMM forward and
    backward-data (not the explicit GEMM, which walks channels only)."""
    return (template_name(config) in ("igemm_fwd.py.j2", "igemm_bwd_data.py.j2") and not config.explicit_gemm
            and (config.tap_major or bool(config.tile_w)))


def has_group_rows(config: KernelConfig) -> bool:
    """Whether config's loop finds its step's channel (filter) groups (GROUP_ROWS): a merged tap-major or pixel-box
    implicit-GEMM forward or backward-data."""
    return has_tap_walk(config) and config.groups_to_merge > 1


def has_bounds(config: KernelConfig, walk: str) -> bool:
    """Whether config's loop masks gathered pixel coordinates against both ends of the image (BOUNDS), its k_walk
    being walk: the implicit-GEMM forward (tap-major rows, flat tiles) and backward-weight, and the backward-data that
    finds its dY pixels incrementally (the divided walk tests the numerator's sign and the quotient's size apart); not
    the explicit GEMM nor pixel boxes, whose loads read through descriptors or a box's own masks."""
    template = template_name(config)
    if template not in ("igemm_fwd.py.j2", "igemm_bwd_data.py.j2", "igemm_bwd_weight.py.j2"):
        return False
    if config.explicit_gemm or config.tile_w:
        return False
    return template != "igemm_bwd_data.py.j2" or walk == "incremental"


def has_dy_view(config: KernelConfig) -> bool:
    """Whether config's kernel reads dY through one descriptor that DY_VIEWS can shape: the implicit-GEMM
    backward-weight tma kernels but pixel boxes (which make a descriptor per tap)."""
    return (template_name(config) == "igemm_bwd_weight.py.j2" and config.pipeline is Pipeline.tma
            and not config.tile_w)


def has_warp_specialize(config: KernelConfig) -> bool:
    """Whether config's loop can be warp-specialised by Triton's Hopper pass (WARP_SPECIALIZE): the implicit-GEMM
    backward-weight pixel-box tiles of 4 warps, pipelined, without a split."""
    return (template_name(config) == "igemm_bwd_weight.py.j2" and bool(config.tile_w) and config.num_warps == 4
            and config.num_stages > 1 and config.split_k == 1)


def has_k_walk(config: KernelConfig) -> bool:
    """Whether config's template divides inside its reduction loop what K_WALKS can walk instead: a flat reduction
    index in the implicit-GEMM forward that is neither tap-major, an explicit GEMM nor pixel boxes (tap, channel), the
    implicit-GEMM backward-data that is not tap-major (filter, reaching tap; and each element's dY pixel) and the
    implicit-GEMM backward-weight (pixel n, ho, wo); each row's dY pixel in the tap-major backward-data (not pixel
    boxes)."""
    template = template_name(config)
    if template == "igemm_bwd_data.py.j2" and config.tap_major:
        return not config.tile_w
    if template in ("igemm_fwd.py.j2", "igemm_bwd_data.py.j2"):
        return not config.tap_major and not config.explicit_gemm and not config.tile_w
    return template == "igemm_bwd_weight.py.j2"


def has_channel_reduce(config: KernelConfig) -> bool:
    """Whether config's template reduces over a group's channels at each tap (CHANNEL_REDUCES): the depthwise fwd
    kernels for tiny groups (sliding rows or not), and the depthwise bwd_data kernels for tiny groups or a channel
    multiplier."""
    template = template_name(config)
    if template in ("depthwise_fwd.py.j2", "depthwise_sliding_fwd.py.j2"):
        return config.group_channels > 1
    return template == "depthwise_bwd_data.py.j2" and (config.group_channels > 1 or config.multiplier > 1)


def channel_reduce(config: KernelConfig) -> str:
    """The split reduction in the depthwise bwd_data kernels of tiny groups with several filters a group, the
    broadcast one elsewhere. As twins of `default` on 75 bf16 training problems (H100, bench/results/channel-reduce/),
    the best kernel ran 1.72x faster in geomean on the C/G 2-4 bwd_data problems with this rule (up to 4.1x; their
    broadcast [pixels, groups, M, CPG] product went through shared memory every tap), split everywhere 1.67x (the
    kernels of one filter a group lost: 0.54-1.2x, as did C/G = 1: 0.98x); forward kernels split ran 0.91x (their
    broadcast converts only the weights), 1.02x split where M = 1.

    The sliding-rows fwd kernels of tiny groups split too, except at M = C/G = 4: as twins of `default`'s on 107
    tiny-group training problems (H100, bench/results/tiny-sliding/), the best kernel 1.056x faster in geomean under
    this rule (worst problem 0.87x), split everywhere 1.055x (worst 0.68x: the M = C/G = 4 kernels ran 0.63-0.95x split,
    though they need 128 registers instead of 222)."""
    template, m, cpg = template_name(config), config.multiplier, config.group_channels
    splits = ((template == "depthwise_bwd_data.py.j2" and m > 1)
              or (template == "depthwise_sliding_fwd.py.j2" and m * cpg < 16))
    return "split" if cpg > 1 and splits else "broadcast"


def splits_sliding_rows(config: KernelConfig) -> bool:
    """Whether config's kernel is the sliding-rows bwd_data kernel of tiny groups, which has only the split reduction
    over a group's filters (its rows taken apart into [pixels, groups] tensors a filter, as the channel_reduce "split"
    choice of the per-tap kernel does): render_context decides "split" for it, whatever the choices say."""
    return bool(config.sliding_rows) and config.direction is Direction.bwd_data and config.group_channels > 1


def split_weight_terms(config: KernelConfig) -> list[dict]:
    """The split reduction's weights: one [groups] vector a (filter m, channel c) pair of a group, w[g * M + m, c] at
    m * swk + c * swc past the group's first filter (its offset text: empty for the first)."""
    if config.multiplier not in SPLIT_COUNTS or config.group_channels not in SPLIT_COUNTS:
        raise ValueError(f"{config.name}: the split channel reduction takes 1, 2, 4 or 8 channels and filters a group")
    def steps(count: int, stride: str) -> str:
        return "" if count == 0 else f" + {stride}" if count == 1 else f" + {count} * {stride}"

    return [{"m": m, "c": c, "offset": steps(m, "swk") + steps(c, "swc")}
            for m in range(config.multiplier) for c in range(config.group_channels)]


def k_walk(config: KernelConfig) -> str:
    """The incremental walk, except in the forward tiles of one unmerged group that read one element at a time, which
    keep dividing. On 44 bf16 problems per direction (H100, bench/results/k-walk/) the best instance ran 1.05x (fwd),
    1.13x (bwd_data) and 1.25x (bwd_weight) faster in geomean with the incremental walk; walking incrementally in those
    forward tiles made the best instance of some problems 0.75x as fast (small even C/G, 1x1 filters: the divided
    channel index keeps the contiguity the compiler vectorises, a loop-carried one does not).

    The backward-data tiles of one unmerged group that read one element at a time walk incrementally too (session 53,
    one H200, bench/results/k-walk/ "The one-element bwd_data tiles"): at stride 2 their divided walk issued 1,928
    instructions a step against 826 (sm_90). As twins on 39 bf16 training problems where those tiles run near the best,
    their best twin ran 1.20x faster than their best base (stride 2: 1.33-1.83x; worst 0.76x, a 1x1 C/G = 4 problem of
    8 us); over every kernel of each problem, 1.09x (worst 0.97x). The forward ones on 24 such problems: 1.00x
    over every kernel (worst 0.95x), so they keep dividing.

    The tap-major backward-data tiles walk incrementally at every depth and stride: a row's dY pixel is its residue
    class pixel plus the tap's exact offset, so no row divides by the stride. As twins of `default`'s tap-major bf16
    bwd_data kernels (H100, bench/results/exact-offsets/), one exact-offset loop ran the best instance 1.163x faster in
    geomean than the kernels it replaced (strided C/G > 16, worst problem 1.06x; C/G <= 16 1.256x, stride 1 0.98-1.00x,
    the 64-deep tiles 1.13-1.37x), and those had run 1.149x faster than dividing everywhere."""
    if config.direction is Direction.fwd and config.vector_width == 1 and config.groups_to_merge == 1:
        return "divide"
    return "incremental"


def has_filter_programs(config: KernelConfig) -> bool:
    """Whether config's kernel has one program per filter row (column) of a tile walk (FILTER_PROGRAMS): the depthwise
    bwd_weight kernels, sliding rows or not."""
    return config.algorithm is Algorithm.depthwise and config.direction is Direction.bwd_weight


def unrolls_taps(config: KernelConfig) -> bool:
    """Whether config's kernel has the filter_programs choice "unrolled": the sliding-rows depthwise bwd_weight kernels
    of one channel and one filter a group."""
    return (has_filter_programs(config) and config.sliding_rows > 0 and config.group_channels == 1
            and config.multiplier == 1)


def sliding_source_columns(config: KernelConfig) -> list[tuple[int, list[tuple[int, int]]]]:
    """The "unrolled" bwd_weight tile: each input pixel column c its tile reaches with the (output pixel j, filter
    column fx) pairs it feeds, c = j * S + fx for the stride S = sliding_rows (the rows' sliding_source_rows, along W)."""
    return _pairs_by_source(config.tile_w, config.filter_size, lambda j, fx: j * config.sliding_rows + fx)


def has_pipelinable_loop(config: KernelConfig, tap_loop_choice: str) -> bool:
    """Whether config's template, with its taps walked as tap_loop_choice, has a loop of plain loads the loop_stages
    choice pipelines (LOOP_STAGES' comment names them)."""
    template = template_name(config)
    return template in PLAIN_LOOP_TEMPLATES or (template in TAP_LOOP_TEMPLATES and tap_loop_choice != "unrolled")


def loop_stages(config: KernelConfig) -> str:
    """Three stages in the depthwise bwd_weight pixel loop, plain loops elsewhere. On bf16 training problems (H100,
    bench/results/loop-stages/) the best depthwise bwd_weight kernel ran 1.10x faster in geomean with every such
    kernel pipelined (64 problems; depthwise 1.17x, C/G 2-4 1.05x, worst 0.87x on 7x7 C/G = 2); pipelining the rolled
    depthwise tap columns made fwd / bwd_data 0.86x / 0.90x, and the direct kernels' loops 1.00x."""
    return "3" if template_name(config) == "depthwise_bwd_weight.py.j2" else "1"


def plain_loop(bounds: str, stages: int) -> str:
    """A loop header's iterable: range(bounds) for one stage, tl.range(bounds, num_stages=N) for N."""
    return f"range({bounds})" if stages == 1 else f"tl.range({bounds}, num_stages={stages})"


def pipelined_tap_loop(header: str, stages: int) -> str:
    """A rolled tap loop's header (TAP_LOOPS) with num_stages=N added for N > 1; unrolled headers stay as they are."""
    if stages == 1 or not header.startswith("tl.range("):
        return header
    return f"{header[:-1]}, num_stages={stages})"


def adds_atomically(config: KernelConfig) -> bool:
    """Whether config's kernel adds partial sums with atomics: a split (or StreamK) bwd_weight kernel, not two-stage,
    and a split fwd one (last arrival)."""
    return not config.two_stage and (config.split_k > 1 or config.pipeline is Pipeline.streamk)


def template_choices(config: KernelConfig) -> dict[str, str]:
    """The template's decisions that are not kernel axes (they do not change an instance's name), made from the
    config. bench/ab_variant.py renders twins with another choice to measure one before it becomes the rule here."""
    config = config.kernel  # a via_fwd instance's choices are its forward kernel's
    return {"tap_loop": tap_loop(config), "k_walk": k_walk(config), "loop_stages": loop_stages(config),
            "channel_reduce": channel_reduce(config), "filter_programs": "apart", "atomics": "relaxed",
            "tap_walk": "carry", "group_rows": "compare", "bounds": "unsigned", "dy_view": "flat",
            "warp_specialize": "off"}


def checked_choices(config: KernelConfig, overrides: dict[str, str] | None) -> dict[str, str]:
    """template_choices(config) with overrides applied; a clear error for an unknown choice or value."""
    choices = template_choices(config)
    for key, value in (overrides or {}).items():
        if key not in CHOICES:
            raise ValueError(f"unknown template choice {key!r}; known: {', '.join(CHOICES)}")
        if value not in CHOICES[key]:
            raise ValueError(f"template choice {key} takes one of {', '.join(CHOICES[key])}, not {value!r}")
        choices[key] = value
    return choices


def render_context(config: KernelConfig, provenance: Provenance, choices: dict[str, str] | None = None) -> dict:
    """Every decision the template needs, made here in Python; the template only substitutes. choices overrides
    template_choices(config). A via_fwd instance is its forward kernel's source under its own name."""
    name, via_fwd, config = config.name, config.via_fwd, config.kernel
    decided = checked_choices(config, choices)
    if not has_tap_loop(config):  # an override changes nothing there
        decided["tap_loop"] = "unrolled"
    if not has_k_walk(config):
        decided["k_walk"] = "divide"
    if not has_pipelinable_loop(config, decided["tap_loop"]):
        decided["loop_stages"] = "1"
    if not has_channel_reduce(config):  # the one reduction its template has
        decided["channel_reduce"] = "split" if splits_sliding_rows(config) else "broadcast"
    if not has_filter_programs(config) or (decided["filter_programs"] == "unrolled" and not unrolls_taps(config)):
        decided["filter_programs"] = "apart"
    if not adds_atomically(config):
        decided["atomics"] = "acq_rel"
    if not has_tap_walk(config):
        decided["tap_walk"] = "divide"
    if not has_group_rows(config):
        decided["group_rows"] = "divide"
    if not has_bounds(config, decided["k_walk"]):
        decided["bounds"] = "signed"
    if not has_dy_view(config):
        decided["dy_view"] = "groups"
    if not has_warp_specialize(config):
        decided["warp_specialize"] = "off"
    split_reduce = decided["channel_reduce"] == "split"
    adjacent = decided["filter_programs"] == "adjacent"
    single = decided["filter_programs"] == "single"
    stages = int(decided["loop_stages"])
    tap_rows, tap_columns = TAP_LOOPS[decided["tap_loop"]]
    tap_columns = pipelined_tap_loop(tap_columns, stages)
    pointers = _POINTERS[config.direction]
    tma_descriptor = {Direction.fwd: "w_desc", Direction.bwd_data: "w_desc", Direction.bwd_weight: "dy_desc"}
    operands = list(pointers)
    if config.pipeline is Pipeline.tma and not config.tile_w:  # pixel boxes make their descriptors per tap
        operands.append(tma_descriptor[config.direction])
        if config.explicit_gemm:
            operands.append("x_desc")
    if config.last_arrival and config.algorithm is Algorithm.igemm:  # the epilogue is _conv_tile's
        operands += ["ws_ptr", "arrivals_ptr"]
    return {
        "name": name,
        "via_fwd": via_fwd,
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
        # bwd_weight kernels always take their split from the grid (SPLIT_K may be 1), fwd ones only when split
        "has_split_axis": config.direction is Direction.bwd_weight or config.split_k > 1,
        "tma": config.pipeline is Pipeline.tma,
        "persistent": config.pipeline is Pipeline.persistent,
        "tap_major": config.tap_major,
        "two_stage": config.two_stage,
        "last_arrival": config.last_arrival,
        "aligned_k": config.aligned_k,
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
        # sliding-rows bwd_data at stride > 1: the sub-filter rows reaching a class (empty for every other kernel)
        "class_taps": (list(range(class_taps(config)))
                       if config.sliding_rows > 1 and config.direction is Direction.bwd_data else []),
        "output_rows": list(range(config.tile_h)),
        "output_columns": list(range(config.tile_w)),
        "source_columns": sliding_source_columns(config) if unrolls_taps(config) else [],
        "taps": list(range(config.filter_size)),  # depthwise bwd_weight: one accumulator per tap of a filter row
        "tap_loop": decided["tap_loop"],
        "k_walk": decided["k_walk"],
        "group_rows": decided["group_rows"],
        # group_rows "compare": the halving compares' group counts, GROUPS_TO_MERGE / 2 down to 1
        "group_halves": [config.groups_to_merge >> shift for shift in range(1, config.groups_to_merge.bit_length())],
        "loop_stages": stages,
        "tile_loop": plain_loop("first, last", stages),
        "box_loop": ("tl.range(first, last, warp_specialize=True)" if decided["warp_specialize"] == "on"
                     else "range(first, last)"),
        "pixel_loop": plain_loop("p_start, p_end, BLOCK_P", stages),
        "channel_loop": plain_loop("C", stages),
        "filter_loop": plain_loop("K", stages),
        "tap_rows": tap_rows,
        "tap_columns": tap_columns,
        "aligned_sizes": list(config.vector_aligned_sizes),
        "channel_reduce": decided["channel_reduce"],
        "filter_programs": decided["filter_programs"],
        "split_program": "split_index" if adjacent else "tl.program_id(0)",
        "group_program": "group_block" if adjacent else "tl.program_id(1)",
        "filter_program": "launched % FILTER" if adjacent else "tl.program_id(2)",
        "single_program": single,
        "atomic_order": ', sem="relaxed"' if decided["atomics"] == "relaxed" else "",
        "tap_walk": decided["tap_walk"],
        "bounds": decided["bounds"],
        "dy_view": decided["dy_view"],
        "split_weights": split_weight_terms(config) if split_reduce else [],
        "filters_of_group": list(range(config.multiplier)),
        "channels_of_group": list(range(config.group_channels)),
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


def render(config: KernelConfig, provenance: Provenance, choices: dict[str, str] | None = None) -> str:
    """The complete Triton source of one instance (choices: template_choices overrides, for A/B twins)."""
    context = render_context(config, provenance, choices)
    name = "depthwise_unrolled_bwd_weight.py.j2" if context["filter_programs"] == "unrolled" else \
        template_name(config.kernel)
    text = _environment().get_template(name).render(ctx=context)
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"
