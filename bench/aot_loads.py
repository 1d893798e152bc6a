"""The global-load instructions of a generated kernel compiled as libgconv compiles it (only the pointer arguments
marked 16-byte aligned) and as Triton's JIT compiles it for a typical aligned problem (sizes and activation strides
divisible by 16 too). A CPU check of whether the ahead-of-time cubins keep the JIT's vector loads and cp.async
pipelining; no GPU needed.

    python bench/aot_loads.py [--rule-set default] NAME [NAME ...]
"""
from __future__ import annotations

import argparse
import os
import re
from collections import Counter

ALIGNED_INTS = ("G", "C", "K", "Hi", "Wi", "Ho", "Wo", "sxn", "sxh", "sxw", "syn", "syh", "syw")


def load_kinds(source, config, int_names: tuple[str, ...]) -> Counter:
    from gconv.ci.compile_check import compile_kernel
    from gconv.generator.render import signature

    attrs = {(i,): [["tt.divisibility", 16]] for i, (name, kind) in enumerate(signature(config))
             if kind.startswith("*") or name in int_names}
    ptx = compile_kernel(source, "sm_90", config.num_warps, config.num_stages, attrs=attrs).asm["ptx"]
    return Counter(re.findall(r"(?:ld\.global|cp\.async\.cg\.shared\.global)[\w.]*", ptx))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="+")
    parser.add_argument("--rule-set", default="default")
    args = parser.parse_args()
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    from gconv.paths import REPO_ROOT
    from gconv.runtime.registry import entries_by_name

    entries = entries_by_name(args.rule_set)
    for name in args.names:
        entry = entries[name]
        for label, ints in (("libgconv (pointers aligned)", ()), ("JIT, aligned problem", ALIGNED_INTS)):
            kinds = load_kinds(REPO_ROOT / entry.source, entry.config, ints)
            print(f"{name}  {label}: " + ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items())))


if __name__ == "__main__":
    main()
