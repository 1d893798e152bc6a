"""The names a constraint or `--filter` expression may read: config axes, derived quantities, arch limits."""
from __future__ import annotations

CONFIG_FIELDS: dict[str, str] = {
    "direction": "fwd | bwd_data | bwd_weight",
    "dtype": "fp16 | bf16 | fp32",
    "algorithm": "igemm | direct | depthwise",
    "block_m": "tile rows (igemm: GEMM-M; direct, depthwise: pixels per program)",
    "block_n": "tile columns (igemm: GEMM-N; direct, depthwise: channels per program)",
    "block_k": "reduction step of the main loop (igemm only; 1 otherwise)",
    "num_warps": "warps per program",
    "num_stages": "software-pipelining depth",
    "pipeline": "multistage | tma | persistent | streamk",
    "raster_group": "L2 rasterisation group (tile rows walked together)",
    "vector_width": "elements per contiguous vector load along the channel dimension",
    "groups_to_merge": "groups sharing one tile (block-diagonal)",
    "split_k": "bwd_weight: programs splitting the N*Ho*Wo reduction; igemm fwd (flat walk of one group, "
               "last_arrival): programs splitting the Y*X*C reduction",
    "tile_w": "depthwise: pixels per row of the 2-D pixel tile (block_m / tile_w rows); igemm fwd / bwd_data tma: "
              "pixels per row of the tile's output / input box (block_m / tile_w rows, x / dy by tensor descriptor, "
              "stride 1); igemm "
              "bwd_weight tma: pixels per row of the reduction's pixel boxes (block_k / tile_w rows, both operands by "
              "tensor descriptor); 0 otherwise",
    "filter_size": "depthwise: the square filter's side, fixed at compile time; 0 otherwise",
    "multiplier": "depthwise: output channels per input channel (K), fixed at compile time; 0 otherwise",
    "group_channels": "depthwise: input channels per group (C; 1 for depthwise proper, more for tiny groups), fixed "
                      "at compile time; 0 otherwise",
    "sliding_rows": "depthwise fwd (1 or 2) and bwd_data (1, or 2: stride 2 x 2 by stride-residue classes), tiny "
                    "groups too, and bwd_weight (1 or 2, multiplier 1, one channel per group): each input row is "
                    "loaded once per filter column and added into every output row it reaches, for that row stride "
                    "and row dilation 1; 0 otherwise (each tap loads)",
    "tap_major": "igemm fwd/bwd_data: the reduction walks one filter tap per step, channels innermost, padding "
                 "each tap to block_k (else one flat walk over taps x channels)",
    "two_stage": "igemm and depthwise bwd_weight with split_k > 1: splits store partial sums in fp32 workspace "
                 "slices that one pass sums (else fp32 atomics into one zeroed workspace)",
    "last_arrival": "split_k > 1 (bwd_weight, igemm fwd), neither two-stage nor persistent: splits add into a "
                    "zeroed fp32 workspace the runtime keeps and count their arrivals; the last split of each output "
                    "block casts the sums into the result and zeroes the workspace again (else the runtime zeroes a "
                    "workspace and casts it, two more kernels)",
    "aligned_k": "igemm fwd of vector width > 1: reads K per group as a multiple of the vector width, so the output is "
                 "stored whole vectors at a time; runs only problems whose K is a multiple of it but not of 16 (with "
                 "K % 16 == 0 the compiler sees the alignment and the plain kernel stores whole vectors already)",
    "explicit_gemm": "igemm fwd for 1x1, stride-1, unpadded convolutions: the pixels are the GEMM rows as they lie in "
                     "memory (with tma, the input is read through a 2-D tensor descriptor too)",
    "via_fwd": "igemm bwd_data: runs a stride-1 problem as its forward twin (dY convolved with the flipped, "
               "channel-swapped filter) on the forward kernel of the same axes, which the fwd descriptions of the "
               "other axes then describe",
}

TILE_ALIASES: dict[str, str] = {"tile_m": "block_m", "tile_n": "block_n", "tile_k": "block_k"}
"""CK's instance-builder names for the tile axes, accepted wherever the block_* names are."""

CONFIG_FIELDS.update({alias: f"same as {field}" for alias, field in TILE_ALIASES.items()})

DERIVED_FIELDS: dict[str, str] = {
    "elt_bytes": "bytes per element of dtype",
    "threads": "num_warps * arch.warp_size",
    "vector_bytes": "vector_width * elt_bytes",
    "smem_bytes": "shared memory of the pipelined operand tiles: num_stages * (block_m + block_n) * block_k * elt_bytes",
    "acc_registers_per_thread": "fp32 accumulator registers per thread: block_m * block_n / threads "
                                "(depthwise: times the multiplier, group_channels for bwd_data and bwd_weight, "
                                "and the filter_size taps for bwd_weight)",
    "min_dot_m": "arch minimum tl.dot M for dtype",
    "min_dot_n": "arch minimum tl.dot N for dtype",
    "min_dot_k": "arch minimum tl.dot K for dtype",
}

ARCH_FIELDS: dict[str, str] = {
    "arch.name": "e.g. sm_90",
    "arch.compute_capability": "e.g. 90",
    "arch.sm_count": "SMs",
    "arch.max_smem_per_block_bytes": "shared memory per block",
    "arch.registers_per_sm": "32-bit registers per SM",
    "arch.max_registers_per_thread": "register limit per thread",
    "arch.max_threads_per_block": "threads per block",
    "arch.warp_size": "threads per warp",
    "arch.max_vector_bytes": "widest load per thread",
    "arch.l2_cache_bytes": "L2 size",
    "arch.has_tma": "tensor descriptors / TMA available",
}

CONSTRAINT_FIELDS: dict[str, str] = {**CONFIG_FIELDS, **DERIVED_FIELDS, **ARCH_FIELDS}
"""What rule constraints may read (evaluated once per arch)."""

FILTER_FIELDS: dict[str, str] = {**CONFIG_FIELDS, "name": "canonical kernel name", "rule": "rule that admitted it"}
"""What `gconv rules list --filter` and derived sets' `keep` clauses may read (arch-independent)."""
