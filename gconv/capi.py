"""ctypes bindings of libgconv, the C library CMake builds (capi/include/gconv.h; docs/cmake.md).

The library is found through $GCONV_LIBRARY, else build/libgconv.so, else build/*/libgconv.so (first in sorted order)
under the repository root. Loading it needs no GPU; only `run` opens the CUDA driver.
"""
from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from gconv.errors import GconvError
from gconv.paths import REPO_ROOT
from gconv.schemas import Direction, DType, Problem

LIBRARY_ENV = "GCONV_LIBRARY"
DIRECTIONS = (Direction.fwd, Direction.bwd_data, Direction.bwd_weight)
DTYPES = (DType.fp16, DType.bf16, DType.fp32)
STATUS_NAMES = ("SUCCESS", "INVALID_ARGUMENT", "UNSUPPORTED", "BUFFER_TOO_SMALL", "UNKNOWN_KERNEL", "NO_DEVICE",
                "ARCH_MISMATCH", "CUDA_ERROR")
PROBLEM_FIELDS = ("N", "G", "C", "K", "Hi", "Wi", "Y", "X", "stride_h", "stride_w", "pad_h", "pad_w", "dil_h", "dil_w")


class CProblem(ctypes.Structure):
    """gconv_problem."""

    _fields_ = [("direction", ctypes.c_int32), ("dtype", ctypes.c_int32),
                *[(name, ctypes.c_int64) for name in PROBLEM_FIELDS]]

    @classmethod
    def from_problem(cls, problem: Problem) -> "CProblem":
        return cls(DIRECTIONS.index(problem.direction), DTYPES.index(problem.dtype),
                   *[getattr(problem, name) for name in PROBLEM_FIELDS])


class CSelection(ctypes.Structure):
    """gconv_selection."""

    _fields_ = [("kernel", ctypes.c_char * 128), ("predicted_tflops", ctypes.c_double),
                ("padded_C", ctypes.c_int64), ("padded_K", ctypes.c_int64), ("candidates", ctypes.c_int32),
                ("source", ctypes.c_int32)]


class CapiError(GconvError):
    """A libgconv call returned a status other than success; carries the status name and the library's message."""

    def __init__(self, status: int, message: str):
        self.status = STATUS_NAMES[status] if 0 <= status < len(STATUS_NAMES) else str(status)
        self.message = message
        super().__init__(f"{self.status}: {message}")


SOURCES = ("rule", "model")  # gconv_selection.source: GCONV_SOURCE_RULE, GCONV_SOURCE_MODEL


@dataclass(frozen=True)
class Selection:
    name: str
    predicted_tflops: float
    padded_C: int
    padded_K: int
    candidates: int
    source: str = "rule"  # "model": the trained model of the problem's direction and dtype chose


def find_library() -> Path:
    """$GCONV_LIBRARY, else build/libgconv.so, else the first build/*/libgconv.so."""
    if os.environ.get(LIBRARY_ENV):
        path = Path(os.environ[LIBRARY_ENV])
        if not path.exists():
            raise FileNotFoundError(f"${LIBRARY_ENV} names {path}, which does not exist")
        return path
    for path in [REPO_ROOT / "build" / "libgconv.so", *sorted((REPO_ROOT / "build").glob("*/libgconv.so"))]:
        if path.exists():
            return path
    raise FileNotFoundError(f"libgconv is not built: run 'cmake -S . -B build -DRULE_SET=tiny && cmake --build build' "
                            f"(docs/cmake.md) or set ${LIBRARY_ENV}")


class Library:
    """One loaded libgconv: its rule set and arch, selection, registry export and runs."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else find_library()
        lib = ctypes.CDLL(str(self.path))
        signatures = {
            "gconv_init": (ctypes.c_int, []), "gconv_cleanup": (None, []),
            "gconv_rule_set": (ctypes.c_char_p, []), "gconv_arch": (ctypes.c_char_p, []),
            "gconv_kernel_count": (ctypes.c_size_t, []),
            "gconv_kernel_name": (ctypes.c_int, [ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]),
            "gconv_is_supported": (ctypes.c_int, [ctypes.POINTER(CProblem), ctypes.POINTER(ctypes.c_int)]),
            "gconv_select_kernel": (ctypes.c_int, [ctypes.POINTER(CProblem), ctypes.c_char_p, ctypes.c_size_t]),
            "gconv_select": (ctypes.c_int, [ctypes.POINTER(CProblem), ctypes.POINTER(CSelection)]),
            "gconv_workspace_size": (ctypes.c_int, [ctypes.POINTER(CProblem), ctypes.c_char_p,
                                                    ctypes.POINTER(ctypes.c_size_t)]),
            "gconv_run_kernel": (ctypes.c_int, [ctypes.POINTER(CProblem), ctypes.c_char_p, ctypes.c_void_p,
                                                ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]),
            "gconv_registry_json_size": (ctypes.c_size_t, []),
            "gconv_export_registry_json": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_size_t,
                                                          ctypes.POINTER(ctypes.c_size_t)]),
            "gconv_model_name": (ctypes.c_char_p, [ctypes.c_int32, ctypes.c_int32]),
            "gconv_feature_count": (ctypes.c_size_t, []),
            "gconv_debug_features": (ctypes.c_int, [ctypes.POINTER(CProblem), ctypes.c_char_p,
                                                    ctypes.POINTER(ctypes.c_double), ctypes.c_size_t,
                                                    ctypes.POINTER(ctypes.c_double)]),
            "gconv_last_error": (ctypes.c_char_p, []),
            "gconv_status_name": (ctypes.c_char_p, [ctypes.c_int]),
        }
        for name, (restype, argtypes) in signatures.items():
            function = getattr(lib, name)
            function.restype, function.argtypes = restype, argtypes
        self.lib = lib
        self._check(lib.gconv_init())

    def _check(self, status: int) -> None:
        if status != 0:
            raise CapiError(status, self.lib.gconv_last_error().decode())

    @property
    def rule_set(self) -> str:
        return self.lib.gconv_rule_set().decode()

    @property
    def arch(self) -> str:
        return self.lib.gconv_arch().decode()

    def kernel_count(self) -> int:
        return self.lib.gconv_kernel_count()

    def kernel_names(self) -> list[str]:
        names = []
        for index in range(self.kernel_count()):
            buffer = ctypes.create_string_buffer(128)
            self._check(self.lib.gconv_kernel_name(index, buffer, len(buffer)))
            names.append(buffer.value.decode())
        return names

    @staticmethod
    def _problem(problem: Problem | CProblem) -> CProblem:
        return problem if isinstance(problem, CProblem) else CProblem.from_problem(problem)

    def is_supported(self, problem: Problem | CProblem) -> bool:
        supported = ctypes.c_int()
        self._check(self.lib.gconv_is_supported(ctypes.byref(self._problem(problem)), ctypes.byref(supported)))
        return bool(supported.value)

    def select_kernel(self, problem: Problem | CProblem, buffer_size: int = 128) -> str:
        buffer = ctypes.create_string_buffer(buffer_size)
        self._check(self.lib.gconv_select_kernel(ctypes.byref(self._problem(problem)), buffer, buffer_size))
        return buffer.value.decode()

    def select(self, problem: Problem | CProblem) -> Selection:
        out = CSelection()
        self._check(self.lib.gconv_select(ctypes.byref(self._problem(problem)), ctypes.byref(out)))
        return Selection(out.kernel.decode(), out.predicted_tflops, out.padded_C, out.padded_K, out.candidates,
                         SOURCES[out.source])

    def model_name(self, direction: Direction | str, dtype: DType | str) -> str | None:
        """The selection model compiled in for a target ("sm_90/fwd_bf16"), None where the rule heuristic selects."""
        name = self.lib.gconv_model_name(DIRECTIONS.index(Direction(direction)), DTYPES.index(DType(dtype)))
        return name.decode() if name else None

    def debug_features(self, problem: Problem | CProblem, kernel: str) -> tuple[list[float], float]:
        """Testing: the kernel's feature row on the problem (padded as selection pads it) and the model's raw score
        (NaN without a model)."""
        count = self.lib.gconv_feature_count()
        features, raw = (ctypes.c_double * count)(), ctypes.c_double()
        self._check(self.lib.gconv_debug_features(ctypes.byref(self._problem(problem)), kernel.encode(), features,
                                                  count, ctypes.byref(raw)))
        return list(features), raw.value

    def workspace_size(self, problem: Problem | CProblem, kernel: str | None = None) -> int:
        size = ctypes.c_size_t()
        self._check(self.lib.gconv_workspace_size(ctypes.byref(self._problem(problem)),
                                                  kernel.encode() if kernel else None, ctypes.byref(size)))
        return size.value

    def registry_json(self) -> str:
        size = self.lib.gconv_registry_json_size() + 1
        buffer = ctypes.create_string_buffer(size)
        written = ctypes.c_size_t()
        self._check(self.lib.gconv_export_registry_json(buffer, size, ctypes.byref(written)))
        return buffer.raw[:written.value].decode()

    def run(self, problem: Problem | CProblem, a: int, b: int, out: int, stream: int | None = None,
            kernel: str | None = None) -> None:
        """Run on device pointers (ints, e.g. tensor.data_ptr()) in the runner order; packed channels_last."""
        self._check(self.lib.gconv_run_kernel(ctypes.byref(self._problem(problem)), kernel.encode() if kernel else None,
                                              a, b, out, stream))

    def run_tensors(self, problem: Problem, a, b, out, kernel: str | None = None) -> None:
        """Run on CUDA tensors (channels_last, as the Python runtime's) on torch's current stream."""
        import torch

        for name, tensor in (("a", a), ("b", b), ("out", out)):
            if not tensor.is_cuda or not tensor.is_contiguous(memory_format=torch.channels_last):
                raise ValueError(f"{name} must be a channels_last CUDA tensor")
        stream = torch.cuda.current_stream(a.device).cuda_stream
        self.run(problem, a.data_ptr(), b.data_ptr(), out.data_ptr(), stream, kernel)


@lru_cache(maxsize=None)
def load(path: str | None = None) -> Library:
    """The library at path (default: find_library()), loaded once per path."""
    return Library(path)
