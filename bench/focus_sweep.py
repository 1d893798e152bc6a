"""Resume many committed sweeps as one small sweep: only the problems that lack a row of `default` (or have one to
measure again) travel to the device.

    python -m bench.focus_sweep gather --name NAME [--remeasure EXPR] [--remeasure-pairs FILE] [--near-best RATIO]
        [--in-problems-with EXPR] [--sweeps RESULT:PROBLEMS ...]
    (on the device: RESUME="NAME:NAME" bash bench/device_verify_resume.sh FILTER DTYPES..., or any resume of
     bench/results/NAME.csv over bench/problems/NAME.csv)
    python -m bench.focus_sweep scatter --name NAME --measured DEVICE_COPY_OF_NAME.csv [--sweeps ...] [--note TEXT]

A rule-set change that adds a few kernels leaves a few missing (problem, kernel) pairs in each of some thirty sweep
CSVs: carrying them all (tens of MB) does not fit the device tree, and resuming each costs a process start and a
compile warm-up. `gather` writes bench/problems/NAME.csv, the problems of the sweeps (bench/device_setup.sh's
ALL_SWEEPS unless --sweeps) that lack a row or have one --remeasure selects (bench/drop_rows.py's grammar: the rows of
kernels whose code changed, or new kernels' bases to time twins and bases in one run) or --remeasure-pairs lists
(one 'problem<TAB>kernel' a line: e.g. the rows bench/outlier_rows.py finds mistimed), each once, and
bench/results/NAME.csv, their rows so far less those to measure again, and bench/results/NAME.kept, the (problem,
kernel) pairs of those rows. A resume that takes several device calls copies each call's resumed NAME.csv over
bench/results/NAME.csv before the next (the ledger, not that file, says which rows came from the sweeps).
The resumed copy then holds the missing rows; `scatter` puts every row it holds beyond the ledger into each sweep
whose problems hold its problem, replacing that sweep's row of the same (problem, kernel), and deletes the three NAME
files. Every file is rewritten through a temporary file (nothing half-written).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gconv.bench.drop_rows import row_matches
from gconv.bench.problems import read_problems, write_problems
from gconv.bench.profile import plan_jobs
from gconv.bench.rows import done_kernels, fastest_ms, read_rows, rewrite_rows
from gconv.bench.summarise_sweeps import DEVICE_SETUP, sweep_pairs
from gconv.errors import ExpressionError
from gconv.files import replacing
from gconv.paths import REPO_ROOT
from gconv.schemas.expressions import parse

BENCH = REPO_ROOT / "bench"


def sweep_files(pair: str, bench: Path) -> tuple[Path, Path]:
    """RESULT:PROBLEMS -> (BENCH/results/RESULT.csv, BENCH/problems/PROBLEMS.csv), both existing: a committed sweep's
    results missing would read as no rows (gather: every pair to measure) or be written anew (scatter: the new rows
    only), as in a tree whose results bench/device_tree.py's stash moved away."""
    result, problems = pair.split(":")
    paths = bench / "results" / f"{result}.csv", bench / "problems" / f"{problems}.csv"
    for path in paths:
        if not path.exists():
            raise FileNotFoundError(f"{path} does not exist: a sweep of --sweeps names a committed results and "
                                    f"problems file (restore a stashed tree first)")
    return paths


def pair_key(row: dict) -> tuple[str, str]:
    return row["problem"], row["kernel"]


def ledger_path(bench: Path, name: str) -> Path:
    """The (problem, kernel) pairs gather took from the sweeps, one tab-separated pair a line."""
    return bench / "results" / f"{name}.kept"


def read_pair_list(path: Path) -> frozenset[tuple[str, str]]:
    """The (problem, kernel) pairs of a 'problem<TAB>kernel' a line file (gather's ledger format)."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    listed = set()
    for number, line in enumerate(path.read_text().splitlines(), 1):
        fields = line.split("\t")
        if len(fields) != 2 or not all(fields):
            raise ValueError(f"{path}:{number}: expected 'problem<TAB>kernel', got {line!r}")
        listed.add((fields[0], fields[1]))
    return frozenset(listed)


def write_pair_list(path: Path, pairs) -> None:
    """(problem, kernel) pairs as read_pair_list reads them, through a temporary file (nothing half-written)."""
    with replacing(path) as listing:
        listing.writelines(f"{problem}\t{kernel}\n" for problem, kernel in pairs)


def near_best_rows(rows: list[dict], ratio: float) -> list[bool]:
    """Per row: whether it is within ratio of its problem's fastest "ok" row (cuDNN's included), or not "ok" (no time
    to judge it by). The ranker's label gains halve every tenth of log time (heuristics/train.yaml `ranking`), so the
    rows within ~2x of the best carry nearly all it learns: the ones to measure first when a kernel change leaves too
    many stale rows for one session."""
    best = fastest_ms(rows)
    return [row["status"] != "ok" or float(row["time_ms"]) <= ratio * best[row["problem"]] for row in rows]


def marked_problems(rows: list[dict], near: list[bool], expression) -> set[str]:
    """The problems of rows that have an "ok" row near their best (near: near_best_rows) that expression selects."""
    return {row["problem"] for row, close in zip(rows, near)
            if close and row["status"] == "ok" and row_matches(expression, row)}


def gather(pairs: list[str], name: str, remeasure: str | None, bench: Path = BENCH, arch: str = "sm_90",
           near_best: float | None = None, in_problems_with: str | None = None,
           remeasure_pairs: frozenset[tuple[str, str]] = frozenset()) -> tuple[int, int, int]:
    """Write BENCH/problems/NAME.csv, BENCH/results/NAME.csv and its ledger (above); (problems, rows kept, pairs to
    measure). With near_best, a row remeasure selects is measured again only within near_best of its problem's best
    (near_best_rows); the others stay as they are. With in_problems_with, only in the problems one of whose rows
    near the best (every row without near_best) it selects: e.g. `detail != ''`, the rows a focus sweep measured on
    another GPU, so that the rows that decide a problem's best all come from that GPU. remeasure_pairs: (problem,
    kernel) pairs measured again as the rows remeasure selects are."""
    expression = parse(remeasure) if remeasure else None
    marker = parse(in_problems_with) if in_problems_with else None
    problems, kept, seen_rows = {}, [], set()
    for pair in pairs:
        result, problem_file = sweep_files(pair, bench)
        existing, listed = read_rows(result), {p.key: p for p in read_problems(problem_file)}
        lacking = {job.problem.key for job in plan_jobs(list(listed.values()), "default", arch, done_kernels(existing))}
        near = near_best_rows(existing, near_best) if near_best is not None else [True] * len(existing)
        eligible = listed.keys() if marker is None else marked_problems(existing, near, marker) & listed.keys()
        redone = [row["problem"] in eligible and close and (pair_key(row) in remeasure_pairs or (
                  expression is not None and row_matches(expression, row))) for row, close in zip(existing, near)]
        chosen = lacking | {row["problem"] for row, again in zip(existing, redone) if again}
        for key in [key for key in listed if key in chosen]:
            problems.setdefault(key, listed[key])
        for row, again in zip(existing, redone):  # a pair's first row decides; one to measure again is left out
            if row["problem"] in chosen and pair_key(row) not in seen_rows:
                seen_rows.add(pair_key(row))
                if not again:
                    kept.append(row)
    focus = list(problems.values())
    owed = plan_jobs(focus, "default", arch, done_kernels(kept))
    write_problems(bench / "problems" / f"{name}.csv", focus, comment=f"bench/focus_sweep.py gather: the problems of "
                   f"{len(pairs)} sweeps that lack a `default` row")
    rewrite_rows(bench / "results" / f"{name}.csv", kept)
    write_pair_list(ledger_path(bench, name), map(pair_key, kept))
    return len(focus), len(kept), sum(len(job.pending) for job in owed)


def rows_beyond(rows: list[dict], ledger: frozenset[tuple[str, str]]) -> list[dict]:
    """The rows of a resumed focus sweep that gather's ledger does not list: those the device measured."""
    return [row for row in rows if pair_key(row) not in ledger]


def scatter(pairs: list[str], name: str, measured: Path, bench: Path = BENCH, note: str = "") -> dict[Path, int]:
    """Move the rows measured holds beyond gather's ledger into the sweeps (above); rows added or replaced per sweep.
    A note goes into the detail column of every moved row whose detail is empty (e.g. the GPU of a focus sweep run on
    another chip than its sweeps': each such row says so)."""
    sweeps = [sweep_files(pair, bench) for pair in pairs]  # every sweep found before the first is rewritten
    before = read_pair_list(ledger_path(bench, name))
    new = [row if row["detail"] or not note else {**row, "detail": note}
           for row in rows_beyond(read_rows(measured), before)]
    added = {}
    for result, problem_file in sweeps:
        keys = {problem.key for problem in read_problems(problem_file)}
        mine = [row for row in new if row["problem"] in keys]
        if not mine:
            continue
        replaced = {pair_key(row) for row in mine}
        rows = [row for row in read_rows(result) if pair_key(row) not in replaced]
        rewrite_rows(result, rows + mine)
        added[result] = added.get(result, 0) + len(mine)
    for path in (bench / "results" / f"{name}.csv", ledger_path(bench, name), bench / "problems" / f"{name}.csv"):
        path.unlink()
    return added


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["gather", "scatter"])
    parser.add_argument("--name", required=True, help="the focused sweep's file name (no folder, no .csv)")
    parser.add_argument("--sweeps", nargs="+", help="RESULT:PROBLEMS pairs (default: bench/device_setup.sh's "
                        "ALL_SWEEPS)")
    parser.add_argument("--remeasure", help="gather: rows of the focused problems to drop and measure again")
    parser.add_argument("--remeasure-pairs", type=Path, metavar="FILE",
                        help="gather: also measure again these (problem, kernel) pairs, one 'problem<TAB>kernel' a "
                             "line (bench/outlier_rows.py writes them)")
    parser.add_argument("--near-best", type=float, metavar="RATIO",
                        help="gather: of the rows --remeasure selects, only those within RATIO of their problem's "
                             "fastest row (e.g. 2.5)")
    parser.add_argument("--in-problems-with", metavar="EXPR",
                        help="gather: measure again only in the problems one of whose rows within --near-best (any "
                             "row without it) EXPR selects, e.g. \"detail != ''\" (rows already measured on another GPU)")
    parser.add_argument("--measured", type=Path, help="scatter: the resumed copy of bench/results/NAME.csv")
    parser.add_argument("--note", default="", help="scatter: written into the detail column of each moved row "
                        "without one (e.g. 'measured on NVIDIA H200')")
    args = parser.parse_args(argv)
    remeasuring = args.remeasure is not None or args.remeasure_pairs is not None
    if args.near_best is not None and (args.near_best < 1 or not remeasuring):
        parser.error("--near-best takes a ratio of at least 1 and goes with --remeasure")
    if args.in_problems_with is not None and not remeasuring:
        parser.error("--in-problems-with goes with --remeasure")
    pairs = args.sweeps or sweep_pairs(DEVICE_SETUP.read_text())
    if args.command == "gather":
        try:
            listed = read_pair_list(args.remeasure_pairs) if args.remeasure_pairs else frozenset()
            problems, kept, owed = gather(pairs, args.name, args.remeasure, near_best=args.near_best,
                                           in_problems_with=args.in_problems_with, remeasure_pairs=listed)
        except (FileNotFoundError, ExpressionError, ValueError) as error:  # before anything is written
            parser.error(str(error))
        print(f"bench/problems/{args.name}.csv: {problems} problems; bench/results/{args.name}.csv: {kept} rows so "
              f"far, {owed} (problem, kernel) pairs to measure")
        return 0
    if args.measured is None:
        parser.error("scatter needs --measured")
    if not ledger_path(BENCH, args.name).exists():
        parser.error(f"no bench/results/{args.name}.kept: gather first")
    try:
        added = scatter(pairs, args.name, args.measured, note=args.note)
    except FileNotFoundError as error:
        parser.error(str(error))
    for path, count in added.items():
        print(f"{path.relative_to(REPO_ROOT)}: {count} rows added or replaced")
    return 0


if __name__ == "__main__":
    sys.exit(main())
