"""The global loads and integer divisions of a generated kernel compiled as libgconv compiles its two cubins
(generic: the pointer arguments marked 16-byte aligned; aligned: capi/aot.py aligned_ints too; both with the unit
channel strides compiled in) and as Triton's JIT compiles it for a typical aligned problem (sizes and activation
strides divisible by 16 too). A CPU check of whether the ahead-of-time cubins keep the JIT's vector loads and
cp.async pipelining; no GPU needed.

    python bench/aot_loads.py [--rule-set default] NAME [NAME ...]
"""
from __future__ import annotations

import argparse
import os

ALIGNED_INTS = ("G", "C", "K", "Hi", "Wi", "Ho", "Wo", "sxn", "sxh", "sxw", "syn", "syh", "syw")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="+")
    parser.add_argument("--rule-set", default="default")
    args = parser.parse_args()
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    from gconv.ci.compile_check import ptx_counts
    from gconv.paths import REPO_ROOT
    from gconv.runtime.registry import entries_by_name

    import importlib.util

    spec = importlib.util.spec_from_file_location("gconv_capi_aot", REPO_ROOT / "capi" / "aot.py")
    aot = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(aot)
    entries = entries_by_name(args.rule_set)
    for name in args.names:
        entry = entries[name]
        for label, ints in (("libgconv generic", ()), ("libgconv aligned", aot.aligned_ints(entry.config)),
                            ("JIT, aligned problem", ALIGNED_INTS)):
            kinds = ptx_counts(REPO_ROOT / entry.source, "sm_90", ints, aot.UNIT_STRIDES)
            print(f"{name}  {label}: " + ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items())))


if __name__ == "__main__":
    main()
