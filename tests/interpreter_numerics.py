"""One interpreter run of a registry instance into a NaN-poisoned output, checked against the float64 reference (the
numerics tests of the kernel families share it)."""
from gconv.paths import REPO_ROOT
from gconv.runtime.kernels import load_kernel_module
from gconv.runtime.launch import run
from gconv.runtime.reference import (INTERPRETER_ERROR_BOUND, poisoned_output, random_operands, reference,
                                     relative_error)
from gconv.runtime.registry import entries_by_name
from gconv.runtime.support import unsupported_reason
from gconv.schemas import Problem


def assert_matches_reference(kernel: str, problem: Problem, *, seed: int, num_programs: int | None = None,
                             rule_set: str = "tests") -> None:
    """kernel (of rule_set) supports problem and computes it within the interpreter's error bound."""
    entry = entries_by_name(rule_set)[kernel]
    assert unsupported_reason(entry.config, problem) is None
    a, b = random_operands(problem, seed=seed)
    out = poisoned_output(problem)
    run(load_kernel_module(REPO_ROOT / entry.source), entry.config, problem, a, b, out, num_programs=num_programs)
    assert relative_error(out, reference(problem, a, b)) < INTERPRETER_ERROR_BOUND[problem.dtype]
