"""The `gconv` command: a thin layer over library functions; errors are formatted here, once."""
from __future__ import annotations

import argparse
import json
import os
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


def _problem_from_flags(args: argparse.Namespace):
    from gconv.schemas import Problem

    try:
        return Problem(direction=args.direction, dtype=args.dtype, N=args.n, G=args.g, C=args.c, K=args.k,
                       Hi=args.hw[0], Wi=args.hw[1], Y=args.yx[0], X=args.yx[1], stride_h=args.stride[0],
                       stride_w=args.stride[1], pad_h=args.pad[0], pad_w=args.pad[1], dil_h=args.dil[0],
                       dil_w=args.dil[1])
    except ValueError as error:
        raise GconvError(f"bad problem: {_first_error(error)}") from None


def _first_error(error: ValueError) -> str:
    """A pydantic ValidationError's first error as 'field: message' (a plain ValueError's text as it is)."""
    first = error.errors()[0] if hasattr(error, "errors") else {"msg": str(error), "loc": ()}
    where = ".".join(str(p) for p in first["loc"])
    return f"{where + ': ' if where else ''}{first['msg'].removeprefix('Value error, ')}"


def _cmd_profile(args: argparse.Namespace) -> int:
    import torch

    if not torch.cuda.is_available():
        raise GconvError("gconv profile times kernels with CUDA events and needs a CUDA GPU")
    from gconv.bench.problems import read_problems
    from gconv.bench.profile import CUDNN_MODES, profile_batch, profile_problem, summarise
    from gconv.runtime.registry import active_rule_set
    from gconv.tables import table

    rule_set = active_rule_set(args.rule_set)
    if args.problems:
        if not args.out:
            raise GconvError("--problems needs --out (the CSV to append rows to)")
        rows = profile_batch(read_problems(Path(args.problems)), rule_set, Path(args.out), workers=args.workers,
                             repeats=args.repeats)
        print(summarise(rows))
        return 0
    problem = _problem_from_flags(args)
    rows = sorted(profile_problem(problem, rule_set, repeats=args.repeats),
                  key=lambda r: (r.status != "ok", r.time_ms or 0.0))
    cudnn = min((r.time_ms for r in rows if r.kernel in CUDNN_MODES and r.time_ms), default=None)
    print(f"{problem.key} on {torch.cuda.get_device_name()}, rule set {rule_set!r}")
    body = [[r.kernel, r.status, r.time_ms if r.time_ms is not None else "-", r.tflops or "-", r.gbs or "-",
             f"{r.roofline_pct}%" if r.roofline_pct else "-",
             f"{cudnn / r.time_ms:.2f}x" if cudnn and r.time_ms else "-"] for r in rows]
    print(table(["kernel", "status", "ms", "TFLOP/s", "GB/s", "roofline", "vs best cuDNN"], body))
    if args.out:
        import csv

        with open(args.out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0].model_dump()))
            writer.writeheader()
            writer.writerows(r.model_dump() for r in rows)
    return 0


def _cmd_synth(args: argparse.Namespace) -> int:
    from gconv.bench.problems import synthetic_problems, write_problems

    problems = synthetic_problems(args.count, args.seed, directions=args.directions, dtypes=args.dtypes,
                                  batches=args.batches)
    write_problems(Path(args.out), problems)
    print(f"wrote {len(problems)} problems ({args.count} shapes x {len(args.directions)} directions x "
          f"{len(args.dtypes)} dtypes, seed {args.seed}) to {args.out}")
    return 0


def _cmd_sweep(args: argparse.Namespace) -> int:
    from gconv.bench.problems import read_problems
    from gconv.bench.sweep import (COMPILE_ONLY_WARM, DEFAULT_WARM, SweepOptions, require_gpu, resolve_arch,
                                   resolve_gpus, select_problems, sweep, terminate_raises_exit)
    from gconv.runtime.registry import active_rule_set

    try:
        problems = select_problems(read_problems(Path(args.problems)), args.direction, args.dtype)
    except (OSError, ValueError) as error:
        raise GconvError(str(error)) from None
    gpus = resolve_gpus(args.gpus)
    if args.require_gpu:
        require_gpu(gpus, args.require_gpu)
    options = dict(rule_set=active_rule_set(args.rule_set), arch=resolve_arch(args.arch), gpus=gpus,
                   batch_size=args.batch_size, batch_timeout_s=args.batch_timeout, warmup=args.warmup,
                   repeats=args.repeats, kernel_budget_ms=args.kernel_budget_ms or None,
                   retry_failed=args.retry_failed, measure=args.measure,
                   warm=None if args.warm == "none" else args.warm, compile_window=args.compile_window,
                   overlap_compile=args.overlap_compile, note=args.note)
    if args.overlap_compile and args.warm == DEFAULT_WARM:
        options["warm"] = COMPILE_ONLY_WARM
    if args.workers:
        options["workers"] = args.workers
    try:
        options = SweepOptions(**options)
    except ValueError as error:
        raise GconvError(f"bad sweep options: {_first_error(error)}") from None
    with terminate_raises_exit():
        print(sweep(problems, Path(args.out), options).text())
    return 0


def _cmd_train(args: argparse.Namespace) -> int:
    from gconv.heuristics.dataset import (group_by_target, kernels_outside, read_measurements, rule_set_candidates,
                                          without_incomplete)
    from gconv.heuristics.model import SIBLING_DTYPES, model_dir
    from gconv.heuristics.train import TrainConfig, train
    from gconv.runtime.registry import load_registry

    config = TrainConfig.load(Path(args.config)) if args.config else TrainConfig.load()
    files = [Path(f) for f in args.measurements]
    measurements = read_measurements(files)
    listed = {entry.name for rule_set in args.rule_set for entry in load_registry(rule_set).entries}
    outside = kernels_outside(measurements, listed)
    if outside:
        raise GconvError(f"the measurements time {len(outside)} kernel{'s' if len(outside) > 1 else ''} that rule set "
                         f"{', '.join(args.rule_set)} does not list (first: {outside[0]}); drop their rows "
                         f"(python bench/drop_rows.py --where EXPR FILE) or name the rule set they come from")
    measurements, incomplete = without_incomplete(measurements, rule_set_candidates(args.rule_set, args.arch))
    if incomplete:
        print(f"left out {len(incomplete)} problem{'s' if len(incomplete) > 1 else ''} whose candidate kernels are "
              f"not all measured (a sweep cut short; first: {incomplete[0]})", flush=True)
    groups = group_by_target(measurements)
    targets = [(d, t) for d, t in sorted(groups) if (not args.direction or d in args.direction)
               and (not args.dtype or t in args.dtype)]
    if not targets:
        raise GconvError(f"no measurements for the requested direction/dtype in {', '.join(map(str, files))}")
    for direction, dtype in targets:
        out = model_dir(direction, dtype, args.arch, Path(args.out_root)) if args.out_root else \
            model_dir(direction, dtype, args.arch)
        print(f"training {direction}/{dtype}/{args.arch} on {len(groups[(direction, dtype)])} problems ...",
              flush=True)
        sibling = groups.get((direction, SIBLING_DTYPES.get(dtype)), []) if args.with_sibling_dtype else []
        if sibling:
            print(f"  and on {len(sibling)} {SIBLING_DTYPES[dtype]} problems (--with-sibling-dtype)", flush=True)
        metadata = train(groups[(direction, dtype)], direction=direction, dtype=dtype, arch=args.arch, out=out,
                         data_files=files, rule_sets=args.rule_set, config=config, sibling=sibling)
        metrics = ", ".join(f"{k} {v}" for k, v in metadata.cv_metrics.items())
        print(f"  {metadata.rows} rows, {metadata.problems} problems; {config.cv_folds}-fold CV by problem: "
              f"{metrics}; wrote {out}")
    return 0


def _cmd_validate(args: argparse.Namespace) -> int:
    from gconv.bench.problems import read_problems
    from gconv.heuristics.dataset import group_by_target, read_measurements
    from gconv.heuristics.model import ModelError, load_model
    from gconv.heuristics.validation import (evaluate, intervals_table, measured_ranker, model_ranker, plot_cdf,
                                             report_table, rule_ranker, worst_picks_table)

    if args.worst < 0:
        raise GconvError(f"--worst takes a count of picks, at least 0, got {args.worst}")
    if args.bootstrap < 0:
        raise GconvError(f"--bootstrap takes a count of resamples, at least 0, got {args.bootstrap}")
    if ("measured" in args.selector) != bool(args.ranked_by):
        raise GconvError("--selector measured and --ranked-by FILE... go together")
    measurements = read_measurements([Path(f) for f in args.measurements])
    if args.problems:
        keep = {p.key for p in read_problems(Path(args.problems))}
        measurements = {k: m for k, m in measurements.items() if k in keep}
    if args.ranked_by:
        ranked_by = read_measurements([Path(f) for f in args.ranked_by])
        unranked = len([k for k in measurements if k not in ranked_by])
        measurements = {k: m for k, m in measurements.items() if k in ranked_by}
        if unranked:
            print(f"left out {unranked} problems that --ranked-by does not measure")
    reports = []
    for (direction, dtype), group in sorted(group_by_target(measurements).items()):
        for selector in args.selector:
            if selector == "rule":
                ranker = rule_ranker(args.arch)
            elif selector == "measured":
                ranker = measured_ranker(ranked_by)
            else:
                try:
                    model = load_model(direction, dtype, args.arch, Path(args.models) if args.models else None)
                except ModelError as error:
                    print(f"skipping model selection for {direction}/{dtype}: {error}")
                    continue
                if model is None:
                    print(f"skipping model selection for {direction}/{dtype}: no model for it (nor for a sibling "
                          f"dtype) under {args.models or 'heuristics/models'}")
                    continue
                ranker = model_ranker(model, args.arch)
            reports.append(evaluate(group, ranker, direction=f"{direction}/{dtype}", selector=selector))
    if not reports:
        raise GconvError("nothing to validate: no measured problems (or no usable model)")
    print(report_table(reports))
    if args.bootstrap:
        print(f"\n90% bootstrap intervals ({args.bootstrap} resamples of the problems, seed 0):")
        print(intervals_table(reports, args.bootstrap))
    if args.worst:
        print(f"\nthe {args.worst} least efficient picks of each selector (oracle time / chosen time):")
        print(worst_picks_table(reports, args.worst))
    if args.plot:
        plot_cdf(reports, Path(args.plot))
        print(f"wrote {args.plot}")
    if args.json:
        Path(args.json).write_text(json.dumps([r.model_dump() for r in reports], indent=1) + "\n")
    return 0


def _cmd_learning_curve(args: argparse.Namespace) -> int:
    from gconv.heuristics.dataset import group_by_target, read_measurements
    from gconv.heuristics.learning_curve import curve_table, learning_curve, plot_curve
    from gconv.heuristics.train import TrainConfig

    config = TrainConfig.load(Path(args.config)) if args.config else TrainConfig.load()
    training = group_by_target(read_measurements([Path(f) for f in args.train]))
    held_out = group_by_target(read_measurements([Path(f) for f in args.held_out]))
    targets = sorted(t for t in training if t in held_out and (not args.direction or t[0] in args.direction))
    if not targets:
        raise GconvError("no direction/dtype has both training and held-out measurements")
    points = []
    for direction, dtype in targets:
        print(f"learning curve {direction}/{dtype}: {len(training[(direction, dtype)])} training problems, "
              f"{len(held_out[(direction, dtype)])} held out ...", flush=True)
        points += learning_curve(training[(direction, dtype)], held_out[(direction, dtype)], direction=direction,
                                 dtype=dtype, arch=args.arch, config=config)
    print(curve_table(points))
    if args.plot:
        plot_curve(points, Path(args.plot))
        print(f"wrote {args.plot}")
    return 0


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

    profile = commands.add_parser("profile", help="time every instance of a set on a problem (or CSV of problems) "
                                                  "against cuDNN and the roofline (GPU)")
    profile.add_argument("--rule-set", help="default: $GCONV_RULE_SET or 'default'")
    profile.add_argument("--problems", help="CSV of problems (CK column names); batch mode")
    profile.add_argument("--out", help="CSV to write (batch mode appends and resumes)")
    profile.add_argument("--workers", type=int, help="compile processes (default: all cores)")
    profile.add_argument("--repeats", type=int, default=10)
    profile.add_argument("--direction", default="fwd", choices=["fwd", "bwd_data", "bwd_weight"])
    profile.add_argument("--dtype", default="bf16", choices=["fp16", "bf16", "fp32"])
    for flag, default in (("--n", 32), ("--g", 32), ("--c", 4), ("--k", 4)):
        profile.add_argument(flag, type=int, default=default, help=f"default {default} (C and K per group)")
    for flag, default in (("--hw", [56, 56]), ("--yx", [3, 3]), ("--stride", [1, 1]), ("--pad", [1, 1]),
                          ("--dil", [1, 1])):
        profile.add_argument(flag, type=int, nargs=2, default=default, metavar=("H", "W"))
    profile.set_defaults(run=_cmd_profile)

    bench = commands.add_parser("bench", help="benchmark problem sets").add_subparsers(dest="bench_command",
                                                                                      required=True)
    synth = bench.add_parser("synth", help="write a seeded synthetic problem CSV (never model-zoo shapes)")
    synth.add_argument("--count", type=int, required=True, help="shapes (each for every direction and dtype)")
    synth.add_argument("--seed", type=int, default=0)
    synth.add_argument("--directions", nargs="+", default=["fwd", "bwd_data", "bwd_weight"])
    synth.add_argument("--dtypes", nargs="+", default=["bf16"])
    synth.add_argument("--batches", type=int, nargs="+", default=[1, 8, 32, 128])
    synth.add_argument("--out", required=True)
    synth.set_defaults(run=_cmd_synth)

    sweep = bench.add_parser("sweep", help="time every (problem, kernel) of a rule set on all GPUs, in resumable, "
                                           "crash-isolated batches (docs/sweep.md)")
    sweep.add_argument("--rule-set", help="default: $GCONV_RULE_SET or 'default'")
    sweep.add_argument("--problems", required=True, help="CSV of problems (CK column names)")
    sweep.add_argument("--out", required=True, help="CSV to append rows to (resumes: rows already there are skipped)")
    sweep.add_argument("--direction", nargs="+", choices=["fwd", "bwd_data", "bwd_weight"], help="only these")
    sweep.add_argument("--dtype", nargs="+", choices=["fp16", "bf16", "fp32"], help="only these")
    sweep.add_argument("--batch-size", type=int, default=8, help="problems per worker process (default 8)")
    sweep.add_argument("--batch-timeout", type=float, default=1800.0,
                       help="seconds before a batch's worker is killed and its unfinished problems marked timeout")
    sweep.add_argument("--gpus", default="auto", help="'auto' (every CUDA device) or indices, e.g. 0,1")
    sweep.add_argument("--require-gpu", metavar="NAME",
                       help="refuse unless every GPU's name holds NAME, e.g. H100 (a file holds one GPU model's rows)")
    sweep.add_argument("--workers", type=int, help="compile processes (default: all cores)")
    sweep.add_argument("--compile-window", type=int, default=0, metavar="BATCHES",
                       help="compile then measure this many batches at a time, so that a sweep stopped early keeps "
                            "what it measured (default 0: compile every batch first)")
    sweep.add_argument("--overlap-compile", action="store_true",
                       help="with --compile-window: compile the next window while one is measured, on all cores but "
                            "one and without running kernels (the default --warm becomes "
                            "gconv.bench.profile:compile_problem)")
    sweep.add_argument("--warmup", type=int, default=3)
    sweep.add_argument("--repeats", type=int, default=10)
    sweep.add_argument("--kernel-budget-ms", type=float, default=500.0, metavar="MS",
                       help="timed milliseconds per kernel: a slower kernel gets fewer repeats, at least 3 "
                            "(default 500; 0: every kernel gets --repeats)")
    sweep.add_argument("--retry-failed", action="store_true", help="measure rows with status crash/timeout again")
    sweep.add_argument("--note", default="", metavar="TEXT",
                       help="put TEXT in the detail column of every row this run writes ('DETAIL; TEXT' where the "
                            "row has one), e.g. 'measured on NVIDIA H200 (x/README.md)'")
    sweep.add_argument("--arch", help="registry arch, e.g. sm_90 (default: GPU 0's)")
    sweep.add_argument("--measure", default="gconv.bench.profile:profile_problem", metavar="MODULE:FUNCTION",
                       help="what a worker calls per problem, giving each timed row to its on_row (tests pass a fake "
                            "that needs no GPU)")
    sweep.add_argument("--warm", default="gconv.bench.profile:warm_problem", metavar="MODULE:FUNCTION",
                       help="what compiles a problem's kernels before timing; 'none' skips the warm-up")
    sweep.set_defaults(run=_cmd_sweep)

    train = commands.add_parser("train", help="train the LightGBM selection models from measurements")
    train.add_argument("--measurements", nargs="+", required=True, help="CSV files written by gconv profile")
    train.add_argument("--direction", nargs="+", choices=["fwd", "bwd_data", "bwd_weight"])
    train.add_argument("--dtype", nargs="+", choices=["fp16", "bf16", "fp32"])
    train.add_argument("--arch", default="sm_90")
    train.add_argument("--rule-set", nargs="+", default=["default"], choices=RULE_SETS,
                       help="rule sets the kernel pool came from (every measured kernel must be in one)")
    train.add_argument("--with-sibling-dtype", action="store_true",
                       help="train each fp16 / bf16 model on the other one's measured problems too (same element "
                            "size and kernels); cross-validation still tests on the model's own dtype only")
    train.add_argument("--config", help="hyper-parameters (default heuristics/train.yaml)")
    train.add_argument("--out-root", help="models directory (default heuristics/models)")
    train.set_defaults(run=_cmd_train)

    validate = commands.add_parser("validate", help="selection efficiency against the oracle of measured kernels")
    validate.add_argument("--measurements", nargs="+", required=True)
    validate.add_argument("--problems", help="only these problems (CSV), e.g. a held-out split")
    validate.add_argument("--selector", nargs="+", default=["model", "rule"], choices=["model", "rule", "measured"],
                          help="measured: each problem's kernels in the order --ranked-by timed them")
    validate.add_argument("--ranked-by", nargs="+", metavar="FILE",
                          help="measurements of the same problems elsewhere, e.g. on another GPU (--selector measured "
                               "then shows how well that GPU's oracle does here)")
    validate.add_argument("--arch", default="sm_90")
    validate.add_argument("--models", help="models directory (default heuristics/models)")
    validate.add_argument("--plot", help="write the efficiency CDF to this PNG")
    validate.add_argument("--json", help="write the reports (with every problem's pick and oracle) to this JSON file")
    validate.add_argument("--worst", type=int, default=0, metavar="N",
                          help="also list each selector's N least efficient picks (problem, chosen, oracle)")
    validate.add_argument("--bootstrap", type=int, default=0, metavar="N",
                          help="also print the mean's and P10's 90%% intervals over N resamples of the problems "
                               "(e.g. 2000): how far another draw of as many problems could move them")
    validate.set_defaults(run=_cmd_validate)

    curve = commands.add_parser("learning-curve", help="held-out efficiency vs number of training problems")
    curve.add_argument("--train", nargs="+", required=True, help="training measurements (CSV from gconv profile)")
    curve.add_argument("--held-out", nargs="+", required=True, help="held-out measurements, never trained on")
    curve.add_argument("--direction", nargs="+", choices=["fwd", "bwd_data", "bwd_weight"])
    curve.add_argument("--arch", default="sm_90")
    curve.add_argument("--config", help="hyper-parameters (default heuristics/train.yaml)")
    curve.add_argument("--plot", help="write the curve to this PNG")
    curve.set_defaults(run=_cmd_learning_curve)

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
    except BrokenPipeError:
        # The reader went away (`gconv rules list | head`): stop quietly as Unix filters do, and keep Python's exit
        # flush from raising again on the closed pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


if __name__ == "__main__":
    sys.exit(main())
