"""The `gconv` command: a thin layer over library functions; errors are formatted here, once."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gconv.errors import GconvError

RULE_SETS = ("full", "full-tests", "tiny", "tests", "profiler", "default")


def _cmd_generate(args: argparse.Namespace) -> int:
    from gconv.generator.pipeline import generate

    files = generate(None if args.all or not args.rule_set else args.rule_set)
    kernels = sum(1 for path in files if path.startswith("kernels/"))
    what = "all rule sets" if args.all or not args.rule_set else f"rule set {args.rule_set!r}"
    print(f"generated {what}: {kernels} kernel sources, {len(files) - kernels} other files under generated/")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from gconv.ci.freshness import check_freshness

    drift = check_freshness()
    print(drift.report())
    if not drift.clean:
        return 1
    if args.no_compile:
        return 0
    from gconv.ci.compile_check import compile_set

    archs = tuple(args.archs)
    print(f"compiling rule set {args.compile_set!r} for {', '.join(archs)} on the CPU ...", flush=True)
    results = compile_set(args.compile_set, archs)
    failures = [r for r in results if not r.ok]
    for result in failures:
        print(f"  FAILED {result.name} [{result.arch}]: {result.detail}")
    print(f"compiled {len(results) - len(failures)}/{len(results)} (instance, arch) pairs")
    return 1 if failures else 0


def _selected(args: argparse.Namespace):
    from gconv.generator.derived import filter_environment
    from gconv.generator.pipeline import load_rules
    from gconv.schemas.expressions import parse
    from gconv.schemas.fields import FILTER_FIELDS

    expression = None
    if args.filter:
        expression = parse(args.filter)
        expression.check_names(FILTER_FIELDS)
    rules = load_rules()
    instances = rules.expand()[args.rule_set]
    if expression is None:
        return instances
    return [i for i in instances if expression.matches(filter_environment(i.config, i.rule))]


def _instance_json(instance) -> dict:
    return {"name": instance.name, "rule": instance.rule, "archs": list(instance.archs),
            "selected_by": list(instance.selected_by), "config": instance.config.axes()}


def _cmd_list(args: argparse.Namespace) -> int:
    instances = _selected(args)
    if args.json:
        print(json.dumps([_instance_json(i) for i in instances], indent=1, sort_keys=True))
    else:
        for instance in instances:
            print(instance.name)
    return 0


def _cmd_count(args: argparse.Namespace) -> int:
    instances = _selected(args)
    if args.json:
        print(json.dumps({"rule_set": args.rule_set, "filter": args.filter, "count": len(instances)}))
    else:
        print(len(instances))
    return 0


def _cmd_stats(args: argparse.Namespace) -> int:
    from gconv.generator.pipeline import load_rules
    from gconv.generator.stats import stats

    expansions = load_rules().expand()
    if args.rule_set:
        expansions = {name: expansions[name] for name in args.rule_set}
    print(stats(expansions))
    return 0


def _cmd_explain(args: argparse.Namespace) -> int:
    from gconv.generator.explain import explain
    from gconv.generator.pipeline import load_rules

    try:
        print(explain(args.name, load_rules(), [args.rule_set] if args.rule_set else None))
    except ValueError as error:
        raise GconvError(str(error)) from None
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    from gconv.generator.tree import schema_files
    from gconv.generator.writer import update_files
    from gconv.paths import REPO_ROOT

    files = schema_files()
    if args.out:
        files = {Path(path).name: text for path, text in files.items()}
    root = Path(args.out) if args.out else REPO_ROOT
    update_files(root, files)
    for path in files:
        print(f"wrote {root / path}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    import os

    import torch

    if not torch.cuda.is_available():
        os.environ.setdefault("TRITON_INTERPRET", "1")  # before Triton is imported: it fixes the mode at import
    from gconv.runtime.demo import demo

    return demo()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gconv", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    generate = commands.add_parser("generate", help="expand rules/ into generated/ (kernels + registries)")
    which = generate.add_mutually_exclusive_group()
    which.add_argument("--rule-set", choices=RULE_SETS, help="only this set's registry and kernels")
    which.add_argument("--all", action="store_true", help="every set (the default)")
    generate.set_defaults(run=_cmd_generate)

    demo = commands.add_parser("demo", help="select and run a few convolutions per direction, checked vs PyTorch")
    demo.set_defaults(run=_cmd_demo)

    check = commands.add_parser("check", help="freshness gate: generated/ matches rules/, and kernels compile")
    check.add_argument("--compile-set", default="tiny", choices=RULE_SETS, help="set to compile (default tiny)")
    check.add_argument("--archs", nargs="+", default=["sm_90", "sm_80"], help="compile targets")
    check.add_argument("--no-compile", action="store_true", help="only compare bytes")
    check.set_defaults(run=_cmd_check)

    rules = commands.add_parser("rules", help="inspect rule sets").add_subparsers(dest="rules_command", required=True)
    for name, runner, text in (("list", _cmd_list, "list instance names"), ("count", _cmd_count, "count instances")):
        sub = rules.add_parser(name, help=text)
        sub.add_argument("--rule-set", default="full", choices=RULE_SETS)
        sub.add_argument("--filter", help="e.g. \"tile_n >= 128 and num_stages == 4\" (fields: see 'rules schema')")
        sub.add_argument("--json", action="store_true", help="machine-readable output")
        sub.set_defaults(run=runner)
    stats = rules.add_parser("stats", help="instances per set x direction x dtype x axis value")
    stats.add_argument("--rule-set", nargs="+", choices=RULE_SETS)
    stats.set_defaults(run=_cmd_stats)
    explain = rules.add_parser("explain", help="which rule admits or excludes a kernel name")
    explain.add_argument("name")
    explain.add_argument("--rule-set", choices=RULE_SETS)
    explain.set_defaults(run=_cmd_explain)
    schema = rules.add_parser("schema", help="write JSON Schema of rule and arch files (editor support)")
    schema.add_argument("--out", help="directory (default: rules/schema/)")
    schema.set_defaults(run=_cmd_schema)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.run(args)
    except GconvError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
