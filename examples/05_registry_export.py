"""05 registry export: write a rule set's kernel instances (name + axes) to JSON; print counts per direction x dtype.

    python examples/05_registry_export.py [--rule-set NAME] [--out FILE]

The rule set defaults to the one dispatch uses ($GCONV_RULE_SET, else 'default'); without --out the JSON goes
to a temporary file. Checks: each name is canonical and round-trips through KernelConfig.from_name, each
source file exists, the file reads back whole, and the table's counts add up to the registry's size. Needs
no GPU and runs no kernel.
"""
import argparse
import collections
import json
import sys
import tempfile
from pathlib import Path

from gconv import Direction, DType, KernelConfig
from gconv.generator.loader import RULE_SET_NAMES
from gconv.paths import REPO_ROOT
from gconv.runtime.registry import active_rule_set, load_registry
from gconv.tables import table

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--rule-set", choices=RULE_SET_NAMES, default=None,
                    help="rule set to export (default: $GCONV_RULE_SET, else 'default')")
parser.add_argument("--out", type=Path, default=None, help="JSON file to write (default: a temporary file)")
cli = parser.parse_args()

failed = 0


def check(label: str, ok: bool, detail: str = "") -> None:
    global failed
    failed += not ok
    print(f"  [{'PASS' if ok else 'FAIL'}] {label}" + (f": {detail}" if detail else ""))


rule_set = active_rule_set(cli.rule_set)
registry = load_registry(rule_set)
kernels = [{"name": e.name, "axes": e.config.axes(), "archs": e.archs} for e in registry.entries]
document = {"rule_set": registry.rule_set, "generator_version": registry.generator_version,
            "rule_files": registry.rule_files, "count": len(kernels), "kernels": kernels}
if cli.out is None:
    handle = tempfile.NamedTemporaryFile("w", prefix=f"gconv-{rule_set}-", suffix=".json", delete=False)
    out = Path(handle.name)
    handle.close()
else:
    out = cli.out
    out.parent.mkdir(parents=True, exist_ok=True)
out.write_text(json.dumps(document, indent=1) + "\n")
print(f"rule set {rule_set!r} ({', '.join(registry.rule_files)}): {len(kernels)} kernel instances -> {out}")
print(f"first entry: {json.dumps(kernels[0]) if kernels else '-'}\n")

counts = collections.Counter((e.config.direction, e.config.dtype) for e in registry.entries)
rows = [[d.value] + [counts[d, t] for t in DType] + [sum(counts[d, t] for t in DType)] for d in Direction]
rows.append(["total"] + [sum(counts[d, t] for d in Direction) for t in DType] + [len(kernels)])
print(table(["direction"] + [t.value for t in DType] + ["total"], rows))
print()



def count(bad: list, what: str) -> str:
    return f"{len(bad)} {what}" + (f", e.g. {bad[:3]}" if bad else "")


bad = [e.name for e in registry.entries if e.config.name != e.name]
check("every entry's name is its config's canonical name", not bad, count(bad, "mismatches"))
bad = [k["name"] for k in kernels if KernelConfig.from_name(k["name"]).axes() != k["axes"]]
check("every name round-trips to its axes (KernelConfig.from_name)", not bad, count(bad, "mismatches"))
missing = [e.source for e in registry.entries if not (REPO_ROOT / e.source).is_file()]
check("every instance's kernel source exists", not missing, count(missing, "missing"))
names = [k["name"] for k in kernels]
check("names are unique", len(set(names)) == len(names), f"{len(names)} names")
read_back = json.loads(out.read_text())
check("the JSON file reads back with every instance", read_back["count"] == len(read_back["kernels"]) == len(kernels)
      and [k["name"] for k in read_back["kernels"]] == names, f"{len(read_back['kernels'])} kernels in {out.name}")
check("counts per direction x dtype add up to the registry size", sum(counts.values()) == len(kernels) > 0,
      f"{sum(counts.values())} == {len(kernels)}")
print(f"\n{'FAILED' if failed else 'ALL PASS'}")
sys.exit(1 if failed else 0)
