"""capi/aot.py: the generic and the aligned cubin of a kernel, on a machine without a GPU."""
import importlib.util
import multiprocessing
import os
import re
import subprocess
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import pytest

from gconv.ci.compile_check import ptx_counts
from gconv.paths import REPO_ROOT
from gconv.schemas import KernelConfig

_spec = importlib.util.spec_from_file_location("gconv_capi_aot", REPO_ROOT / "capi" / "aot.py")
aot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(aot)
aligned_ints, argument_mask = aot.aligned_ints, aot.argument_mask

IGEMM = "fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1"
DEPTHWISE = "fwd_bf16_depthwise_t4x16c32_f3_m1_w4_v8"


def source_of(name: str):
    return REPO_ROOT / "generated" / "kernels" / name.split("_fp")[0].split("_bf")[0] / f"{name}.py"


def test_aligned_ints_follow_the_channel_dimension():
    activation = ("sxn", "sxh", "sxw", "syn", "syh", "syw")
    assert aligned_ints(KernelConfig.from_name(DEPTHWISE)) == ("G",) + activation
    assert aligned_ints(KernelConfig.from_name(IGEMM)) == ("C", "K", "swk", "swy", "swx") + activation
    assert aligned_ints(KernelConfig.from_name("fwd_bf16_direct_p64c32_w4_v8")) == ("G",) + activation
    assert aligned_ints(KernelConfig.from_name("fwd_fp32_direct_p64c32_w4_v1")) == ()


def test_argument_mask_names_argument_positions():
    signature = {"x_ptr": "*fp16", "N": "i32", "G": "i32", "sxw": "i32"}
    assert argument_mask(signature, ("G", "sxw")) == 0b1100
    with pytest.raises(ValueError, match=r"^arguments C, K are not in the kernel's signature$"):
        argument_mask(signature, ("K", "G", "C"))


def loads_in_fresh_process(name: str, aligned: bool, ones: tuple[str, ...] = aot.UNIT_STRIDES) -> Counter:
    """Compile as the build does: in a spawned interpreter (this session may have imported Triton to interpret)."""
    ints = aligned_ints(KernelConfig.from_name(name)) if aligned else ()
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(ptx_counts, source_of(name), "sm_90", ints, ones).result()


def test_the_aligned_depthwise_cubin_loads_16_bytes_at_a_time():
    generic, aligned = loads_in_fresh_process(DEPTHWISE, False), loads_in_fresh_process(DEPTHWISE, True)
    assert "ld.global.v4.b32" not in generic and generic["ld.global.b16"] > 100
    assert aligned["ld.global.v4.b32"] > 0 and aligned["ld.global.b16"] < generic["ld.global.b16"] / 2


def test_both_igemm_cubins_copy_with_cp_async():
    # The template states C % VEC == 0 (KernelConfig.vector_aligned_sizes), which the runtime checks: the generic
    # binary copies 16 bytes at a time as well (it loaded 2 bytes at a time before); the aligned one divides less.
    generic, aligned = loads_in_fresh_process(IGEMM, False), loads_in_fresh_process(IGEMM, True)
    for counts in (generic, aligned):
        assert counts["cp.async.cg.shared.global"] > 0 and "ld.global.b16" not in counts


def test_unit_channel_strides_compiled_in_cut_the_index_divisions():
    passed = loads_in_fresh_process(IGEMM, True, ones=())
    constant = loads_in_fresh_process(IGEMM, True)
    assert constant["div.s32"] + constant["rem.s32"] < (passed["div.s32"] + passed["rem.s32"]) / 3


def test_aot_writes_both_binaries_and_the_twin_link(tmp_path):
    out = tmp_path / f"{DEPTHWISE}.c"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    subprocess.run([sys.executable, str(REPO_ROOT / "capi" / "aot.py"), "--arch", "90", "--source",
                    str(source_of(DEPTHWISE)), "--out", str(out)], check=True, env=env)
    lines = [line for line in out.read_text().splitlines() if not re.fullmatch(r"[0-9,]+", line)]
    text = "\n".join(lines)
    # divisible by 16: bits 4 (G), 19, 21, 22 (sxn, sxh, sxw) and 27, 29, 30 (syn, syh, syw) of the 31 arguments;
    # compiled in as 1: bits 20, 24, 28 (sxc, swc, syk)
    assert re.search(r"static const gconv_binary aligned = \{\n    cubin_aligned, sizeof cubin_aligned, \"kernel\", "
                     r"\d+u, \d+u, \d+u, 4u, 31u, 0x11100000ull,\n    0, 0x68680010ull,\n\};", text), text
    assert re.search(rf"const gconv_binary gconv_bin_{DEPTHWISE} = {{\n    cubin, sizeof cubin, \"kernel\", "
                     r"\d+u, \d+u, \d+u, 4u, 31u, 0x11100000ull,\n    &aligned, 0x0ull,\n\};", text), text
