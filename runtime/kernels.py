"""Import generated kernel modules from their source files (lazily, once per path)."""
from __future__ import annotations

import hashlib
import importlib.util
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType


def import_kernel_module(source: str | Path) -> ModuleType:
    """Import a generated kernel file as a fresh module (Triton needs real files: it reads the source back)."""
    path = Path(source).resolve()
    if not path.exists():
        raise FileNotFoundError(f"kernel source {path} does not exist; run 'gconv generate --all'")
    module_name = "gconv_kernel_" + hashlib.sha1(str(path).encode()).hexdigest()[:16]
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


@lru_cache(maxsize=None)
def load_kernel_module(source: str | Path) -> ModuleType:
    """Import a generated kernel file once per path (the runtime's lazy, cached load)."""
    return import_kernel_module(source)
