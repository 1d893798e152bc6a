"""How well can any selector do on measured rows? The efficiency one run's oracle scores in another run of the same
(problem, kernel) pairs: a selector that knew every true time could still lose this much to the noise of measuring
(the held-out oracle is the fastest of noisy times, so it is biased low, and near-ties swap places between runs).

    python bench/noise_ceiling.py split --ledger bench/results/NAME.kept RESUMED_A.csv RESUMED_B.csv --out-dir DIR
    python bench/noise_ceiling.py report RUN_A.csv RUN_B.csv [--reference FILE ...]

split keeps, of each resumed copy of a focus sweep (bench/focus_sweep.py gather, resumed twice on the device:
bench/device_noise.sh), the rows measured beyond gather's ledger, into DIR/run-a.csv and DIR/run-b.csv. report prints,
per direction x dtype, the spread of B / A over the pairs both runs time (geomean, P10, median, P90) and the
validation table (heuristics/validation.py) of each run ranked by the other ("A in B": B's times, A's order), and with
--reference (e.g. the committed held-out files the pairs were gathered from) of each run ranked by the reference.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gconv.bench.compare_rows import quantile, row_ratios
from gconv.bench.focus_sweep import read_pair_list, rows_beyond
from gconv.bench.rows import existing_rows, rewrite_rows
from gconv.bench.summary import geomean
from gconv.heuristics.dataset import ProblemMeasurements, group_by_target, read_measurements
from gconv.heuristics.validation import ValidationReport, evaluate, measured_ranker, report_table
from gconv.tables import table

RUN_NAMES = ("run-a.csv", "run-b.csv")


def split(ledger: Path, resumed: list[Path], out_dir: Path) -> list[tuple[Path, int]]:
    """Write each resumed copy's new rows to out_dir/run-a.csv, run-b.csv; (path, rows) of each."""
    listed = read_pair_list(ledger)
    written = []
    out_dir.mkdir(parents=True, exist_ok=True)
    for source, name in zip(resumed, RUN_NAMES, strict=True):
        rows = rows_beyond(existing_rows(source), listed)
        if not rows:
            raise ValueError(f"{source}: no rows beyond the ledger {ledger}: was it resumed on the device?")
        rewrite_rows(out_dir / name, rows)
        written.append((out_dir / name, len(rows)))
    return written


def spread_table(run_a: list[dict], run_b: list[dict]) -> str:
    """Per direction: pairs both runs time and the geomean, P10, median, P90 of B / A."""
    rows = [[group, len(values), f"{geomean(values):.3f}", f"{quantile(values, 0.1):.3f}",
             f"{quantile(values, 0.5):.3f}", f"{quantile(values, 0.9):.3f}"]
            for group, values in row_ratios(run_a, run_b).items()]
    return table(["direction", "pairs", "geomean B/A", "P10", "median", "P90"], rows)


def ranked_reports(measured: dict[str, ProblemMeasurements], ranking: dict[str, ProblemMeasurements],
                   selector: str) -> list[ValidationReport]:
    """One report per direction x dtype: measured's problems that ranking also times, each chosen as ranking orders
    its candidates (heuristics/validation.py's measured_ranker)."""
    shared = {key: m for key, m in measured.items() if key in ranking}
    return [evaluate(group, measured_ranker(ranking), direction=f"{direction}/{dtype}", selector=selector)
            for (direction, dtype), group in sorted(group_by_target(shared).items())]


def ceiling_reports(run_a: Path, run_b: Path, reference: list[Path]) -> list[ValidationReport]:
    """A in B and B in A (each run's oracle scored by the other's times), then reference in A and in B."""
    a, b = read_measurements([run_a]), read_measurements([run_b])
    reports = ranked_reports(b, a, "A in B") + ranked_reports(a, b, "B in A")
    if reference:
        ref = read_measurements(reference)
        reports += ranked_reports(a, ref, "ref in A") + ranked_reports(b, ref, "ref in B")
    return sorted(reports, key=lambda r: r.direction)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    split_parser = commands.add_parser("split", help="the rows two resumed copies measured beyond the ledger")
    split_parser.add_argument("--ledger", type=Path, required=True)
    split_parser.add_argument("resumed", type=Path, nargs=2)
    split_parser.add_argument("--out-dir", type=Path, required=True)
    report = commands.add_parser("report", help="spread of B / A and each run's oracle scored by the other")
    report.add_argument("runs", type=Path, nargs=2)
    report.add_argument("--reference", type=Path, nargs="+", default=[])
    args = parser.parse_args(argv)
    try:
        if args.command == "split":
            for path, count in split(args.ledger, args.resumed, args.out_dir):
                print(f"wrote {path}: {count} rows")
            return 0
        run_a, run_b = args.runs
        print(spread_table(existing_rows(run_a), existing_rows(run_b)))
        print()
        print(report_table(ceiling_reports(run_a, run_b, args.reference)))
        return 0
    except (OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
