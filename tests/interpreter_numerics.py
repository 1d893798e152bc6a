"""One interpreter run of a registry instance (or a rendered source) into a NaN-poisoned output, checked against the float64 reference (the
numerics tests of the kernel families share it)."""
from pathlib import Path

from gconv.generator.render import Provenance, render
from gconv.paths import REPO_ROOT
from gconv.runtime.kernels import load_kernel_module
from gconv.runtime.launch import run
from gconv.runtime.reference import (INTERPRETER_ERROR_BOUND, poisoned_output, random_operands, reference,
                                     relative_error)
from gconv.runtime.registry import entries_by_name
from gconv.runtime.support import unsupported_reason
from gconv.schemas import KernelConfig, Problem


def assert_matches_reference(kernel: str, problem: Problem, *, seed: int, num_programs: int | None = None,
                             rule_set: str = "tests") -> None:
    """kernel (of rule_set) supports problem and computes it within the interpreter's error bound."""
    entry = entries_by_name(rule_set)[kernel]
    assert_source_matches_reference(REPO_ROOT / entry.source, entry.config, problem, seed=seed,
                                    num_programs=num_programs)


def assert_source_matches_reference(source: Path, config: KernelConfig, problem: Problem, *, seed: int,
                                    num_programs: int | None = None) -> None:
    """The kernel source (a registry file or a rendered twin) of config supports problem and computes it within the
    interpreter's error bound."""
    assert unsupported_reason(config, problem) is None
    a, b = random_operands(problem, seed=seed)
    out = poisoned_output(problem)
    run(load_kernel_module(source), config, problem, a, b, out, num_programs=num_programs)
    error = relative_error(out, reference(problem, a, b))
    assert error <= INTERPRETER_ERROR_BOUND[problem.dtype], f"{config.name}: relative error {error:.3g}"


def assert_rendered_matches_reference(config: KernelConfig, problem: Problem, folder: Path, *, seed: int,
                                      choices: dict[str, str] | None = None) -> str:
    """config rendered from the templates (with template choices: a twin) into folder (an instance no rule set holds)
    computes problem within the interpreter's error bound; the rendered source."""
    path = folder / f"{config.name}.py"
    source = render(config, Provenance(("rules/x.yaml",), "test", (), "test"), choices)
    path.write_text(source)
    assert_source_matches_reference(path, config, problem, seed=seed)
    return source
