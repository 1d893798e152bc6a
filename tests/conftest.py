"""Shared fixtures. Kernels run under the Triton interpreter on the CPU (set before any kernel is imported)."""
import os

os.environ.setdefault("TRITON_INTERPRET", "1")
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import pytest  # noqa: E402

from gconv.generator.pipeline import load_rules  # noqa: E402


@pytest.fixture(scope="session")
def rules():
    return load_rules()


@pytest.fixture(scope="session")
def expansions(rules):
    return rules.expand()
