"""Draw an A/B's problems from the training sweeps: per direction, the problems of one dtype whose fastest kernel among
those --filter selects runs within --within of the problem's fastest row (cuDNN's included), that fastest row taking at
least --min-us; a seeded draw of --per-direction of them. An A/B of a kernel change then times the kernels it
touches where they matter, and never on a held-out problem.

    python -m bench.ab_problems --filter EXPR --out bench/problems/NAME.csv [--directions fwd bwd_data bwd_weight]
        [--dtype bf16] [--within 1.5] [--min-us 20] [--per-direction 8] [--seed 0] [--measurements FILE.csv ...]

--filter is bench/drop_rows.py's grammar over a row (its problem columns and its kernel's axes; cuDNN's rows have
algorithm 'vendor'). The training sweeps are every data file of the shipped sm_90 models
(heuristics/models/sm_90/*/metadata.json) unless --measurements names others.
"""
from __future__ import annotations

import argparse
import random
import sys
from collections import defaultdict
from pathlib import Path

from gconv.bench.drop_rows import row_matches
from gconv.bench.problems import write_problems
from gconv.bench.rows import fastest_ms, read_rows
from gconv.errors import GconvError
from gconv.heuristics.model import METADATA_FILE, MODELS_DIR, ModelMetadata
from gconv.paths import REPO_ROOT
from gconv.schemas import Problem
from gconv.schemas.expressions import parse


def training_files(models: Path = MODELS_DIR / "sm_90") -> list[Path]:
    """Every data file the shipped models trained on, each once, in name order."""
    names = {name for path in models.glob(f"*/{METADATA_FILE}")
             for name in ModelMetadata.model_validate_json(path.read_text()).data_files}
    return [REPO_ROOT / name for name in sorted(names)]


def near_best_problems(rows: list[dict], where: str, within: float, min_ms: float) -> dict[str, Problem]:
    """problem key -> problem, for the problems whose fastest "ok" row where selects is within `within` of their
    fastest "ok" row, which takes at least min_ms."""
    expression = parse(where)
    best = fastest_ms(rows)
    best_selected = fastest_ms(rows, lambda row: row_matches(expression, row))
    return {key: Problem.from_key(key) for key, ms in sorted(best_selected.items())
            if best[key] >= min_ms and ms <= within * best[key]}


def drawn(problems: dict[str, Problem], directions: list[str], dtype: str, per_direction: int,
          seed: int) -> list[Problem]:
    """A seeded draw of per_direction problems of dtype per direction (all of them where there are fewer), in
    direction order."""
    by_direction = defaultdict(list)
    for key, problem in sorted(problems.items()):
        if problem.dtype.value == dtype and problem.direction.value in directions:
            by_direction[problem.direction.value].append(problem)
    out = []
    for direction in directions:
        pool = by_direction[direction]
        out += random.Random(seed).sample(pool, min(per_direction, len(pool)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--filter", required=True, help="the kernels the A/B touches (bench/drop_rows.py's grammar)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--directions", nargs="+", default=["fwd", "bwd_data", "bwd_weight"],
                        choices=["fwd", "bwd_data", "bwd_weight"])
    parser.add_argument("--dtype", default="bf16", choices=["bf16", "fp16", "fp32"])
    parser.add_argument("--within", type=float, default=1.5)
    parser.add_argument("--min-us", type=float, default=20.0)
    parser.add_argument("--per-direction", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--measurements", type=Path, nargs="+", help="default: the shipped models' training files")
    args = parser.parse_args(argv)
    files = args.measurements or training_files()
    try:
        missing = [str(path) for path in files if not path.is_file()]
        if missing:
            raise GconvError(f"no such measurements file: {', '.join(missing)}")
        rows = [row for path in files for row in read_rows(path)]
        problems = drawn(near_best_problems(rows, args.filter, args.within, args.min_us / 1000), args.directions,
                         args.dtype, args.per_direction, args.seed)
    except (GconvError, ValueError) as error:
        print(f"ab_problems: {error}", file=sys.stderr)
        return 2
    counts = ", ".join(f"{d} {sum(p.direction.value == d for p in problems)}" for d in args.directions)
    write_problems(args.out, problems, comment=(
        f"{len(problems)} {args.dtype} training problems ({counts}) whose fastest kernel of `{args.filter}` is within "
        f"{args.within:g}x of the problem's fastest (>= {args.min_us:g} us); seeded draw, seed {args.seed}, "
        f"{args.per_direction} a direction: python -m bench.ab_problems"))
    print(f"{args.out}: {len(problems)} problems ({counts})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
