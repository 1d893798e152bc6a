"""Shared fixtures. Kernels run under the Triton interpreter on the CPU (set before any kernel is imported)."""
import os
import shutil
import tempfile

os.environ.setdefault("TRITON_INTERPRET", "1")
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
# The compiled selector (runtime/native_selector.py) builds into a cache of this test session, not the user's
# (subprocesses the tests start inherit it, so one build serves them all).
SESSION_CACHE = None if "GCONV_CACHE_DIR" in os.environ else tempfile.mkdtemp(prefix="gconv-test-cache-")
if SESSION_CACHE:
    os.environ["GCONV_CACHE_DIR"] = SESSION_CACHE

import pytest  # noqa: E402

from gconv.generator.pipeline import load_rules  # noqa: E402


@pytest.fixture(scope="session")
def rules():
    return load_rules()


@pytest.fixture(scope="session")
def expansions(rules):
    return rules.expand()


def pytest_sessionfinish(session, exitstatus):
    if SESSION_CACHE:
        shutil.rmtree(SESSION_CACHE, ignore_errors=True)

