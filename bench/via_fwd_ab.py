"""A/B of bwd_data through the forward kernels (via_fwd) before `default` takes them: `default`'s own bwd_data kernels
against the via_fwd twins of its igemm forward kernels, timed in one sweep on stride-1 training problems.

    python -m bench.via_fwd_ab problems --count 100 --seed 1 --out bench/problems/via-fwd-ab-train-bf16.csv
    python -m bench.via_fwd_ab registry          # before stashing the tree for the device: default + the twins
    (on the device: gconv bench sweep --rule-set default --problems bench/problems/via-fwd-ab-train-bf16.csv
     --direction bwd_data --out $OUT/via-fwd-ab.csv; then here: bench.device_tree restore, gconv generate --all)
    python -m bench.via_fwd_ab report bench/results/bwd-data-via-fwd/via-fwd-ab-train-bf16.csv [--markdown FILE]

`problems` samples bwd_data shapes that have a forward twin (stride 1, padding at most dilation x (filter - 1)) and
more than one channel per group (the committed sweeps put depthwise at 1.01x: bench/results/bwd-data-via-fwd/) from
the training problem files (bench/problems/train-*-bf16.csv: never held-out or model-zoo shapes). `registry` writes
generated/default/registry.json with the via_fwd twins of its igemm forward instances added (full's entries, sources
already generated), the device tree then keeping their sources; `gconv generate --all` writes the committed one back.
`report` compares, per problem, the fastest native kernel with the fastest via_fwd one and with cuDNN (its faster
mode), per shape class and for the problems of at least 20 us of roofline; then the problems at both ends, what the
twins of each forward rule alone would add, and what the rules add together, one at a time (the basis of a keep
clause).
"""
from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from gconv.bench.problems import CSV_FIELDS, read_problems, shape_class, write_problems
from gconv.bench.rows import CUDNN_MODES, read_rows
from gconv.bench.summary import geomean
from gconv.heuristics.analytic import roofline_seconds
from gconv.paths import GENERATED_DIR, REPO_ROOT
from gconv.runtime.registry import load_arch_spec, load_registry
from gconv.schemas import Direction, Problem
from gconv.tables import table

TRAINING_FILES = "bench/problems/train-*-bf16.csv"
ROOFLINE_FLOOR_S = 20e-6


def twinned(problem: Problem) -> bool:
    return problem.forward_twin() is not None and problem.C > 1


def sample_problems(files: list[Path], count: int, seed: int) -> list[Problem]:
    """count bwd_data problems with a forward twin and C/G > 1 from files (their shapes in any direction), drawn
    without repeats in a seeded order."""
    shapes = {}
    for path in files:
        for problem in read_problems(path):
            problem = problem.with_direction(Direction.bwd_data)
            if twinned(problem):
                shapes.setdefault(problem.key, problem)
    keys = sorted(shapes)
    if len(keys) < count:
        raise ValueError(f"only {len(keys)} twinned bwd_data shapes in {len(files)} files, asked for {count}")
    return [shapes[key] for key in sorted(random.Random(seed).sample(keys, count))]


def with_twins(rule_set: str = "default") -> str:
    """rule_set's registry JSON with the via_fwd twins (full's entries) of its igemm forward instances added."""
    from gconv.generator.tree import registry_json

    registry, full = load_registry(rule_set), load_registry("full")
    by_name = {e.name: e for e in full.entries}
    twins = []
    for entry in registry.entries:
        config = entry.config
        if config.direction is Direction.fwd and config.algorithm.value == "igemm":
            twin = config.model_copy(update={"direction": Direction.bwd_data, "via_fwd": True})
            twins.append(by_name[twin.name])  # KeyError: full lacks it (regenerate)
    entries = sorted([*registry.entries, *twins], key=lambda e: e.name)
    return registry_json(registry.model_copy(update={"entries": entries}))


def fastest_by_kind(rows: list[dict], kind_of: Callable[[str], str | None]
                    ) -> tuple[dict[str, Problem], dict[str, dict[str, tuple[float, str]]]]:
    """One pass over the ok bwd_data rows: problem key -> its Problem, and problem key -> kind_of(kernel) -> the
    fastest (milliseconds, kernel) of that kind (kernels whose kind is None are left out)."""
    problems: dict[str, Problem] = {}
    best: dict[str, dict[str, tuple[float, str]]] = defaultdict(dict)
    for row in rows:
        if row["status"] != "ok" or row["direction"] != "bwd_data":
            continue
        name, ms = row["kernel"], float(row["time_ms"])
        kind = kind_of(name)
        if kind is None:
            continue
        key = row["problem"]
        if key not in problems:
            problems[key] = Problem(**{k: row[k] for k in CSV_FIELDS})
        if ms < best[key].get(kind, (float("inf"),))[0]:
            best[key][kind] = (ms, name)
    return problems, best


def kind(name: str) -> str:
    return "cudnn" if name in CUDNN_MODES else "via" if "_vf" in name else "native"


def compare(rows: list[dict], arch: str = "sm_90", via_rule: str | None = None) -> list[dict]:
    """Per problem with both kinds timed: fastest native, fastest via_fwd (only the twins of via_rule's forward
    kernels when given) and cuDNN milliseconds."""
    rule_of = {e.name: e.rule for e in load_registry("full").entries} if via_rule else {}

    def kind_of(name: str) -> str | None:
        found = kind(name)
        return None if found == "via" and via_rule and rule_of.get(name) != via_rule else found

    problems, best = fastest_by_kind(rows, kind_of)
    spec = load_arch_spec(arch)
    out = []
    for key, kinds in sorted(best.items()):
        if "native" in kinds and ("via" in kinds or via_rule):
            problem = problems[key]
            out.append(dict(problem=problem, native=kinds["native"], via=kinds.get("via", (float("inf"), "")),
                            cudnn=kinds.get("cudnn"), roofline_s=roofline_seconds(problem, spec)))
    return out


def fastest_by_twin_rule(rows: list[dict]) -> dict[str, dict[str, tuple[float, str]]]:
    """fastest_by_kind with each twin's kind its forward rule (and 'native' for the native kernels; cuDNN left out)."""
    rule_of = {e.name: e.rule for e in load_registry("full").entries if e.config.via_fwd}
    return fastest_by_kind(rows, lambda name: {"via": rule_of.get(name), "native": "native"}.get(kind(name)))[1]


def gain(best: dict[str, dict[str, tuple[float, str]]], rules: set[str]) -> tuple[int, float, int]:
    """(problems, geomean of best of both / native's best, problems a twin makes faster) with only the twins of rules
    added to the native kernels (best: fastest_by_twin_rule's)."""
    timed = [(kinds["native"][0], min((kinds[rule][0] for rule in rules if rule in kinds), default=float("inf")))
             for kinds in best.values() if "native" in kinds]
    if not timed:
        return 0, 1.0, 0
    return len(timed), geomean([native / min(native, via) for native, via in timed]), \
        sum(via < native for native, via in timed)


def by_rule(rows: list[dict]) -> str:
    """Per forward rule: the best-of-both speed-up over the native kernels with only that rule's twins added; then the
    rules added one at a time, in the order of what each adds alone (what a keep clause of several rules would give:
    their gains overlap where they win the same problems)."""
    best = fastest_by_twin_rule(rows)
    rules = sorted({rule for kinds in best.values() for rule in kinds} - {"native"})
    alone = {rule: gain(best, {rule}) for rule in rules}
    headers = ["problems", "best of both / native's best", "via faster"]
    lines = [[rule, count, f"{speed:.3f}x", wins] for rule, (count, speed, wins) in alone.items() if count]
    added, cumulative = set(), []
    for rule in sorted(rules, key=lambda rule: (-alone[rule][1], rule)):
        added.add(rule)
        count, speed, wins = gain(best, added)
        cumulative.append([f"+ {rule}", count, f"{speed:.3f}x", wins])
    return table(["twins of rule", *headers], lines) + "\n\n" + table(["twins of the rules so far", *headers],
                                                                        cumulative)


def report(compared: list[dict]) -> str:
    """Markdown: per shape class, all problems and those of >= 20 us of roofline."""
    lines = ["| shape class | problems | via's best / native's best | best of both / native's best | via faster | "
             "with cuDNN: best of all / best of native and cuDNN |", "|---|---|---|---|---|---|"]
    classes = sorted({shape_class(c["problem"]) for c in compared})
    for label, keep in [("all", lambda c: True), (">= 20 us", lambda c: c["roofline_s"] >= ROOFLINE_FLOOR_S)]:
        for name in [*classes, "every class"]:
            chosen = [c for c in compared if keep(c) and (name == "every class" or shape_class(c["problem"]) == name)]
            if not chosen:
                continue
            native = [c["native"][0] for c in chosen]
            via = [c["via"][0] for c in chosen]
            cudnn = [c["cudnn"][0] if c["cudnn"] else float("inf") for c in chosen]
            speed = geomean([n / v for n, v in zip(native, via)])
            both = geomean([n / min(n, v) for n, v in zip(native, via)])
            everything = geomean([min(n, d) / min(n, v, d) for n, v, d in zip(native, via, cudnn)])
            faster = sum(v < n for n, v in zip(native, via))
            lines.append(f"| {name} ({label}) | {len(chosen)} | {speed:.3f}x | {both:.3f}x | {faster} | "
                         f"{everything:.3f}x |")
    return "\n".join(lines)


def worst_and_best(compared: list[dict], count: int) -> str:
    ordered = sorted(compared, key=lambda c: c["native"][0] / c["via"][0])
    rows = [[c["problem"].key, f"{c['native'][0]:.4f}", c["native"][1], f"{c['via'][0]:.4f}", c["via"][1],
             f"{c['native'][0] / c['via'][0]:.2f}x"] for c in ordered[:count] + ordered[-count:]]
    return table(["problem", "native ms", "native kernel", "via ms", "via kernel", "native / via"], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    problems = commands.add_parser("problems", help="sample the A/B's problems from the training files")
    problems.add_argument("--count", type=int, required=True)
    problems.add_argument("--seed", type=int, required=True)
    problems.add_argument("--out", type=Path, required=True)
    commands.add_parser("registry", help="write generated/default/registry.json with the twins added")
    reported = commands.add_parser("report", help="compare native and via_fwd kernels in sweep CSVs")
    reported.add_argument("measured", type=Path, nargs="+")
    reported.add_argument("--markdown", type=Path, help="also write the table here")
    reported.add_argument("--extremes", type=int, default=8, help="problems shown at each end (default 8)")
    args = parser.parse_args(argv)
    try:
        if args.command == "problems":
            files = sorted(REPO_ROOT.glob(TRAINING_FILES))
            chosen = sample_problems(files, args.count, args.seed)
            write_problems(args.out, chosen, f"bwd_data training shapes with a forward twin and C/G > 1 for the via_fwd "
                           f"A/B: python -m bench.via_fwd_ab problems --count {args.count} --seed {args.seed} (from "
                           f"{TRAINING_FILES}; not held-out or model-zoo shapes)")
            print(f"wrote {len(chosen)} problems to {args.out}")
        elif args.command == "registry":
            path = GENERATED_DIR / "default" / "registry.json"
            path.write_text(with_twins())
            print(f"wrote {path} with the via_fwd twins of default's forward kernels; `gconv generate --all` undoes it")
        else:
            rows = [row for path in args.measured for row in read_rows(path)]
            compared = compare(rows)
            if not compared:
                raise ValueError("no problem has both a native and a via_fwd bwd_data row")
            text = report(compared)
            print(text)
            print()
            print(worst_and_best(compared, args.extremes))
            print()
            print(by_rule(rows))
            if args.markdown:
                args.markdown.write_text(text + "\n")
    except (ValueError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
