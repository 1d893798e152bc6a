"""Helper kernels of the C library's gconv_run: channel padding copies, the split-K fp32 -> dtype cast, the sum of
a two-stage split-K workspace's slices, and the filter of a stride-1 bwd_data problem's forward twin (via_fwd).

The Python runtime does these with torch (pad_operands, Tensor.copy_, runtime/forward_twin.py twin_filter); the C
library has no torch, so it runs these instead. They are compiled ahead of time like the generated instances
(capi/aot.py --aux NAME).
"""
import triton
import triton.language as tl

BLOCK = tl.constexpr(1024)
NUM_WARPS = 4
NUM_STAGES = 1

_COPY_INTS = {name: "i32" for name in ("total", "J", "Cn", "B", "sa", "sb", "sc", "da", "db", "dc")}
# Auxiliary kernel -> (jit function name, signature in call order).
VARIANTS = {
    "copy16": ("copy_rows", {"src": "*i16", "dst": "*i16", **_COPY_INTS}),
    "copy32": ("copy_rows", {"src": "*i32", "dst": "*i32", **_COPY_INTS}),
    "cast_fp16": ("cast_f32", {"src": "*fp32", "dst": "*fp16", "n": "i32"}),
    "cast_bf16": ("cast_f32", {"src": "*fp32", "dst": "*bf16", "n": "i32"}),
    "sum_fp16": ("sum_slices_f32", {"src": "*fp32", "dst": "*fp16", "n": "i32", "slices": "i32"}),
    "sum_bf16": ("sum_slices_f32", {"src": "*fp32", "dst": "*bf16", "n": "i32", "slices": "i32"}),
    "sum_fp32": ("sum_slices_f32", {"src": "*fp32", "dst": "*fp32", "n": "i32", "slices": "i32"}),
    "twin16": ("twin_filter", {"src": "*i16", "dst": "*i16", "total": "i32", "K": "i32", "C": "i32", "taps": "i32"}),
    "twin32": ("twin_filter", {"src": "*i32", "dst": "*i32", "total": "i32", "K": "i32", "C": "i32", "taps": "i32"}),
}


@triton.jit
def copy_rows(src, dst, total, J, Cn, B, sa, sb, sc, da, db, dc):
    # dst[a, b, c, j] = src[a, b, c, j] for j < J (the element strides of j are 1 on both sides); total = A*B*Cn*J.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    j = offs % J
    row = offs // J
    c = row % Cn
    b = (row // Cn) % B
    a = row // (Cn * B)
    value = tl.load(src + a * sa + b * sb + c * sc + j, mask=mask)
    tl.store(dst + a * da + b * db + c * dc + j, value, mask=mask)


@triton.jit
def cast_f32(src, dst, n):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs, mask=mask).to(dst.dtype.element_ty), mask=mask)


@triton.jit
def sum_slices_f32(src, dst, n, slices):
    # dst[i] = sum over s < slices of src[s * n + i], in fp32, cast to dst's type (slice offsets in 64 bits).
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    total = tl.zeros([BLOCK], dtype=tl.float32)
    for s in range(0, slices):
        total += tl.load(src + s.to(tl.int64) * n + offs, mask=mask, other=0.0)
    tl.store(dst + offs, total.to(dst.dtype.element_ty), mask=mask)


@triton.jit
def twin_filter(src, dst, total, K, C, taps):
    # runtime/forward_twin.py twin_filter on packed channels_last filters: dst[g, c, t, k] = src[g, k, taps-1-t, c]
    # (G x K x taps x C -> G x C x taps x K: each group's taps reversed, its channel axes swapped); total = G*C*taps*K.
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    k = offs % K
    t = (offs // K) % taps
    c = (offs // (K * taps)) % C
    g = offs // (K * taps * C)
    value = tl.load(src + ((g * K + k) * taps + (taps - 1 - t)) * C + c, mask=mask)
    tl.store(dst + offs, value, mask=mask)
