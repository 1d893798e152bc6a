"""The compile half of `gconv check`: real cubins from generated sources on a machine without a GPU."""
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest

from gconv.ci.compile_check import compile_one, describe_failure

BROKEN = '''\
import triton
import triton.language as tl

SIGNATURE = {"x_ptr": "*fp16", "N": "i32"}


@triton.jit
def kernel(x_ptr, N):
    offsets = tl.arange(0, 16)
    tl.store(x_ptr + offsets, undefined_value, mask=offsets < N)
'''


def compile_in_fresh_process(*args):
    """Compile as `gconv check` does: in a spawned interpreter (this session imported Triton in interpreter mode)."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return pool.submit(compile_one, *args).result()


@pytest.mark.parametrize("arch", ["sm_90", "sm_80"])
def test_a_tiny_instance_compiles_to_a_cubin(arch):
    source = "generated/kernels/fwd/fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1.py"
    result = compile_in_fresh_process(source, arch, 4, 3)
    assert result.ok, result.detail
    assert (result.name, result.arch) == ("fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1", arch)
    assert result.detail.endswith("bytes smem") and "bytes cubin" in result.detail


def test_bad_kernel_code_fails_with_the_compiler_message(tmp_path):
    source = tmp_path / "broken_kernel.py"
    source.write_text(BROKEN)
    result = compile_in_fresh_process(str(source), "sm_90", 4, 2)
    assert not result.ok
    assert result.name == "broken_kernel"
    assert result.detail.startswith("CompilationError: ")
    assert "undefined_value is not defined" in result.detail


def test_a_failure_without_a_message_says_where_it_was_raised():
    try:
        raise AssertionError()  # as Triton's internal asserts do: no message
    except AssertionError as error:
        detail = describe_failure(error)
    assert detail.startswith("AssertionError: raised at test_compile_check.py:")
    assert detail.endswith(" (raise AssertionError()  # as Triton's internal asserts do: no message)")
