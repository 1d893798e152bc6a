"""Run every instance of a rule set on the GPU against a float64 reference and write a summary.

    python bench/verify_device.py --rule-set full-tests --out bench/results/verify [--workers 16] [--deadline-s 540]
        [--filter "algorithm == 'depthwise'"] [--shapes NAME ...] [--shapes-per-instance N] [--misaligned-only]

Instances are spread over worker processes (each compiles its share, so Triton's JIT runs on all cores); each
worker appends JSON lines as it goes, so a re-run with the same --out and options skips finished instances
(resumable); an --out holding another run's rows (other set, dtypes, filter or shapes) is refused, not mixed in.
Every kernel compiles once per shape it runs: --shapes-per-instance N caps each instance at the first N shapes it
supports (DEVICE_SHAPES order), so a family with fixed filters, multipliers and channels per group is covered in one
pass without hand-picking the shapes. --misaligned-only keeps, per instance, the shapes where a vector kernel's
stated alignment is the compiler's only knowledge of it (bench/device_aligned_sizes.sh).
The summary (summary.md) counts instances tried / passed per direction x dtype and lists every failure.
"""
from __future__ import annotations

import argparse
import datetime
import json
import multiprocessing
import os
import sys
import time
from collections import defaultdict
from pathlib import Path


def worker(index: int, names: list[str], rule_set: str, out_dir: str, deadline: float,
           shape_names: list[str] | None = None, shapes_per_instance: int | None = None,
           misaligned_only: bool = False) -> None:
    import torch

    from gconv.runtime.registry import entries_by_name
    from gconv.runtime.verification import DEVICE_SHAPES, OperandCache, verify_instance

    entries = entries_by_name(rule_set)
    operands = OperandCache("cuda" if torch.cuda.is_available() else "cpu")
    with open(Path(out_dir) / f"rows-{index:02d}.jsonl", "a") as sink:
        for name in names:
            if time.time() > deadline:
                return
            shapes = {k: v for k, v in DEVICE_SHAPES.items() if shape_names is None or k in shape_names}
            for row in verify_instance(entries[name], shapes, operands, shapes_per_instance=shapes_per_instance,
                                       misaligned_only=misaligned_only):
                sink.write(row.model_dump_json() + "\n")
            sink.flush()


RUN_FILE = "run.json"


def claim_out_dir(out_dir: Path, run: dict) -> None:
    """Record the options of the run writing out_dir, or refuse an out_dir another run's rows are in."""
    path = out_dir / RUN_FILE
    if path.exists():
        before = json.loads(path.read_text())
        if before != run:
            raise SystemExit(f"{out_dir} holds the rows of another run ({json.dumps(before, sort_keys=True)}); "
                             "resume it with the same options or give a fresh --out")
    elif read_rows(out_dir):
        raise SystemExit(f"{out_dir} holds rows of a run that did not record its options; give a fresh --out")
    else:
        path.write_text(json.dumps(run, sort_keys=True) + "\n")


def read_rows(out_dir: Path) -> list[dict]:
    rows = []
    for path in sorted(out_dir.glob("rows*.jsonl")):
        rows += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return rows


def summarise(rows: list[dict], rule_set: str, expected: dict[tuple[str, str], int], environment: str) -> str:
    per_instance: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        per_instance[row["kernel"]].append(row)
    counts = defaultdict(lambda: [0, 0, 0])  # tried, passed, runs
    for name, runs in per_instance.items():
        key = (runs[0]["direction"], runs[0]["dtype"])
        counts[key][0] += 1
        counts[key][1] += all(r["status"] == "pass" for r in runs)
        counts[key][2] += len(runs)
    lines = [f"# Device verification of rule set `{rule_set}`", "", environment, "",
             "| direction | dtype | instances in set | tried | passed | runs (instance x problem) |",
             "|---|---|---|---|---|---|"]
    for key in sorted(expected):
        tried, passed, runs = counts[key]
        lines.append(f"| {key[0]} | {key[1]} | {expected[key]} | {tried} | {passed} | {runs} |")
    total = sum(expected.values())
    tried = sum(c[0] for c in counts.values())
    passed = sum(c[1] for c in counts.values())
    lines += ["", f"**{passed} of {tried} tried instances pass ({total} in the set).**", ""]
    failures = [r for r in rows if r["status"] != "pass"]
    if failures:
        lines += ["## Failures", "", "| kernel | shape | status | relative error | bound | detail |",
                  "|---|---|---|---|---|---|"]
        for r in sorted(failures, key=lambda r: (r["kernel"], r["shape"])):
            lines.append(f"| {r['kernel']} | {r['shape']} | {r['status']} | {r['relative_error']} | {r['bound']} | "
                         f"{r['detail'].replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rule-set", default="full-tests")
    parser.add_argument("--dtypes", nargs="+", default=["fp16", "bf16", "fp32"])
    parser.add_argument("--out", required=True, help="directory for rows-*.jsonl and summary.md")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--deadline-s", type=float, default=None, help="stop starting instances after this long")
    parser.add_argument("--filter", help="only the instances this expression selects (as `gconv rules list --filter`)")
    parser.add_argument("--shapes", nargs="+",
                        help="only these problem shapes of runtime/verification.py DEVICE_SHAPES")
    parser.add_argument("--shapes-per-instance", type=int, metavar="N",
                        help="run each instance on the first N shapes it supports only")
    parser.add_argument("--misaligned-only", action="store_true",
                        help="only shapes where a size the instance states aligned to its vector width is not a "
                             "multiple of 16, which the JIT does not see (runtime/verification.py "
                             "alignment_unseen_by_jit)")
    args = parser.parse_args()
    if args.shapes_per_instance is not None and args.shapes_per_instance < 1:
        parser.error(f"--shapes-per-instance takes a positive count, not {args.shapes_per_instance}")
    from gconv.runtime.verification import DEVICE_SHAPES

    unknown = sorted(set(args.shapes or []) - set(DEVICE_SHAPES))
    if unknown:
        parser.error(f"unknown shapes {', '.join(unknown)}; known: {', '.join(DEVICE_SHAPES)}")

    import torch

    from gconv.runtime.registry import load_registry

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    claim_out_dir(out_dir, {"rule_set": args.rule_set, "dtypes": sorted(args.dtypes), "filter": args.filter,
                            "shapes": sorted(args.shapes) if args.shapes else None,
                            **({"shapes_per_instance": args.shapes_per_instance} if args.shapes_per_instance else {}),
                            **({"misaligned_only": True} if args.misaligned_only else {})})
    entries = [e for e in load_registry(args.rule_set).entries if e.config.dtype.value in args.dtypes]
    if args.filter:
        from gconv.generator.derived import filter_environment
        from gconv.schemas.expressions import parse

        selected = parse(args.filter)
        entries = [e for e in entries if selected.matches(filter_environment(e.config, e.rule))]
    done = {row["kernel"] for row in read_rows(out_dir)}
    todo = [e.name for e in entries if e.name not in done]
    print(f"{len(entries)} instances of {args.rule_set} ({', '.join(args.dtypes)}); {len(done)} done before, "
          f"{len(todo)} to run on {args.workers} workers", flush=True)
    deadline = time.time() + args.deadline_s if args.deadline_s else float("inf")
    started = time.time()
    context = multiprocessing.get_context("spawn")
    processes = [context.Process(target=worker, args=(i, todo[i::args.workers], args.rule_set, str(out_dir),
                                                      deadline, args.shapes, args.shapes_per_instance,
                                                      args.misaligned_only))
                 for i in range(args.workers)]
    for process in processes:
        process.start()
    while any(p.is_alive() for p in processes):
        time.sleep(10)
        finished = len({row["kernel"] for row in read_rows(out_dir)}) - len(done)
        rate = finished / max(time.time() - started, 1e-9)
        eta = (len(todo) - finished) / rate if rate else float("inf")
        print(f"  {finished}/{len(todo)} instances, {time.time() - started:.0f} s, ETA {eta:.0f} s", flush=True)
    crashed = [i for i, p in enumerate(processes) if p.exitcode != 0]
    if crashed:
        print(f"workers {crashed} exited abnormally (their instance lists were cut short)")

    rows = read_rows(out_dir)
    (out_dir / "rows.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))  # one file, merged
    for path in out_dir.glob("rows-*.jsonl"):
        path.unlink()
    expected = defaultdict(int)
    for entry in entries:
        expected[(entry.config.direction.value, entry.config.dtype.value)] += 1
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else "CPU"
    import triton

    environment = (f"Device: {device}; torch {torch.__version__}; triton {triton.__version__}; "
                   f"date {datetime.date.today().isoformat()}; command: `python bench/verify_device.py "
                   f"--rule-set {args.rule_set} --dtypes {' '.join(args.dtypes)} --out <dir>"
                   + (f" --filter \"{args.filter}\"" if args.filter else "")
                   + (f" --shapes {' '.join(args.shapes)}" if args.shapes else "")
                   + (f" --shapes-per-instance {args.shapes_per_instance}" if args.shapes_per_instance else "")
                   + (" --misaligned-only" if args.misaligned_only else "") + "`")
    summary = summarise(rows, args.rule_set, dict(expected), environment)
    (out_dir / "summary.md").write_text(summary)
    print(summary)
    all_tried = {row["kernel"] for row in rows} >= {e.name for e in entries}
    return 0 if all_tried and all(r["status"] == "pass" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
