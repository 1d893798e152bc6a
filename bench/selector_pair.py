"""Two builds of the C selector timed on the same problems, interleaved in one process: the ratio is what a change
to capi/src/select.c or model.c bought, free of this VM's drift between runs (bench/selection_latency.py times one
build end to end).

    python bench/selector_pair.py --baseline PATH/libgconv_selector_sm_90.so [--samples 400]

The baseline is a library runtime/native_selector.py built from an earlier commit (check it out, select once, and
take the newest folder under $GCONV_CACHE_DIR/selector/). It is called with this commit's pool and model arrays, so
only builds whose gconv_pick starts as this one's does compare (a field added at its end is fine). Both must pick the
same kernels; the script stops if they do not.
"""
from __future__ import annotations

import argparse
import ctypes
import random
import statistics
import time
from pathlib import Path

from gconv.heuristics.model import find_model
from gconv.runtime import native_selector, selection
from selection_latency import random_problem


def baseline_selector(path: Path, current: native_selector.NativeSelector) -> native_selector.NativeSelector:
    """A NativeSelector over another build, without the layout check (the baseline may lack newer pick fields)."""
    baseline = object.__new__(native_selector.NativeSelector)
    baseline.path, baseline._lib = path, ctypes.CDLL(str(path))
    baseline._choose = baseline._lib.gconv_selector_choose
    baseline._choose.restype, baseline._choose.argtypes = None, current._choose.argtypes
    baseline._pools, baseline._models = {}, {}
    return baseline


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--dtype", default="bf16")
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()
    current = native_selector.native_selector(args.arch)
    baseline = baseline_selector(args.baseline, current)
    for direction in ("fwd", "bwd_data", "bwd_weight"):
        rng = random.Random(0)
        model = find_model(direction, args.dtype, args.arch)
        problems = [random_problem(rng, direction, args.dtype) for _ in range(args.samples)]
        pool = selection._pool("default", problems[0].direction, problems[0].dtype, args.arch)
        times = {"baseline": [], "current": []}
        for repeat in range(4):
            order = [("baseline", baseline), ("current", current)]
            for problem in problems:
                for name, selector in order if repeat % 2 == 0 else order[::-1]:
                    started = time.perf_counter()
                    selector.choose(problem, pool, model)
                    times[name].append(time.perf_counter() - started)
        for problem in problems:
            a, b = baseline.choose(problem, pool, model), current.choose(problem, pool, model)
            if (a is None) != (b is None) or (a is not None and a[:7] != b[:7]):
                raise SystemExit(f"the builds disagree on {problem.key}: {a} vs {b}")
        old, new = (statistics.median(times[name]) * 1e6 for name in ("baseline", "current"))
        print(f"{direction}/{args.dtype}: choose median baseline {old:.1f} us, current {new:.1f} us, "
              f"current / baseline {new / old:.2f}")


if __name__ == "__main__":
    main()
