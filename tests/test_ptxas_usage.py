"""bench/ptxas_usage.py: the JIT's specialisation of a problem, and a rolled depthwise bwd_data kernel compiled for
sm_90 on the CPU without spilling."""
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from gconv.bench.ptxas_usage import integer_arguments, jit_specialisation, measure_one
from gconv.paths import REPO_ROOT
from gconv.runtime.registry import entries_by_name
from gconv.schemas import Problem

PROBLEM = Problem(direction="bwd_data", dtype="bf16", N=32, G=64, C=1, K=4, Hi=64, Wi=64, Y=5, X=5, stride_h=1,
                  stride_w=1, pad_h=4, pad_w=4, dil_h=2, dil_w=2)


def test_integer_arguments_are_launchs_channels_last_strides():
    values = integer_arguments(PROBLEM)
    assert (values["Ho"], values["Wo"]) == (64, 64)
    assert [values[k] for k in ("sxn", "sxc", "sxh", "sxw")] == [64 * 64 * 64, 1, 64 * 64, 64]
    assert [values[k] for k in ("swk", "swc", "swy", "swx")] == [25, 1, 5, 1]
    assert [values[k] for k in ("syn", "syk", "syh", "syw")] == [64 * 64 * 256, 1, 64 * 256, 256]


def test_jit_specialisation_marks_multiples_of_16_and_ones():
    ints, ones = jit_specialisation(PROBLEM)
    assert ints == ("N", "G", "Hi", "Wi", "Ho", "Wo", "sxn", "sxh", "sxw", "syn", "syh", "syw")
    assert ones == ("C", "stride_h", "stride_w", "sxc", "swc", "swx", "syk")


def test_the_rolled_multiplier_4_kernel_does_not_spill():
    entry = entries_by_name("default")["bwd_data_bf16_depthwise_t4x16c32_f5_m4_w4_v8"]
    # In a spawned interpreter, as `gconv check` compiles: this session may have imported Triton to interpret.
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        usage = pool.submit(measure_one, str(REPO_ROOT / entry.source), entry.name, PROBLEM, "sm_90").result()
    assert usage.stack_bytes == 0, usage  # unrolled, it spilled ~1-5 KB per thread (bench/results/tap-loop/)
    assert 0 < usage.registers <= 255
