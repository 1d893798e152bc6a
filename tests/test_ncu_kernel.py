"""bench/ncu_kernel.py's launchers (the device tool runs them under Nsight Compute): a clear exit for a kernel the set
lacks or one that does not run the problem, and the vendor path on any device."""
import pytest
import torch

from bench.ncu_kernel import problem_of, registry_launch, vendor_launch
from gconv.runtime.reference import random_operands, reference, relative_error
from gconv.runtime.vendor import vendor_run

PROBLEM = "bwd_weight_fp32_n2_g4_c1_k1_hi9_wi9_y3_x3_s1x1_p1x1_d1x1"


def test_a_kernel_the_set_lacks_exits_with_its_name():
    with pytest.raises(SystemExit, match="^no kernel 'fwd_bf16_nothing' in rule set 'tests'$"):
        registry_launch("fwd_bf16_nothing", "tests", problem_of(PROBLEM))


def test_a_kernel_that_does_not_run_the_problem_exits_with_the_reason():
    with pytest.raises(SystemExit, match=f"^fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1 does not run {PROBLEM}: "):
        registry_launch("fwd_fp16_igemm_m64n64k32_w4_s3_ms_g8_v8_mg1", "tests", problem_of(PROBLEM))


def test_a_string_that_is_not_a_problem_key_exits():
    with pytest.raises(SystemExit):
        problem_of("bwd_weight_fp32_n2")


def test_the_vendor_launcher_runs_the_vendor_path(monkeypatch):
    problem = problem_of(PROBLEM)
    calls = []
    monkeypatch.setattr("bench.ncu_kernel.vendor_run", lambda p, a, b: calls.append(vendor_run(p, a, b)))
    a, b = random_operands(problem, seed=0)
    vendor_launch(problem)(a, b, None)
    assert len(calls) == 1 and relative_error(calls[0].to(torch.float64), reference(problem, a, b)) < 1e-5
