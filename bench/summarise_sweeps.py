"""The per direction x shape class summary of `gconv bench sweep` (speed-up of the best gconv instance over the best
cuDNN mode, % of roofline on problems >= 20 us) over the union of several sweep CSVs, optionally without the kernels
whose names contain a token (what a kernel family adds, measured in the same files), and the problems furthest from
the roofline (where the geomean loses most):

    python bench/summarise_sweeps.py bench/results/train-*-bf16*.csv [--without k64_] [--worst 5]
    python bench/summarise_sweeps.py --all-sweeps [--worst 5]    # every committed sweep (issue 4's numbers)
    python bench/summarise_sweeps.py --all-sweeps --breakdown 'C/G<=16'    # a shape class by channels per group
    python bench/summarise_sweeps.py --all-sweeps --against-fwd    # each backward direction against fwd, by stride

--all-sweeps reads the files from bench/device_setup.sh's ALL_SWEEPS (RESULT:PROBLEMS pairs: bench/results/RESULT.csv).
"""
from __future__ import annotations

import argparse
import math
import re
import statistics
from collections import Counter, defaultdict
from pathlib import Path

from gconv.bench.profile import best_per_problem, summarise
from gconv.bench.rows import read_rows
from gconv.bench.summary import geomean
from gconv.paths import REPO_ROOT
from gconv.schemas import Problem
from gconv.tables import table


DEVICE_SETUP = REPO_ROOT / "bench" / "device_setup.sh"
RESULTS = REPO_ROOT / "bench" / "results"


def sweep_pairs(setup_text: str, name: str = "ALL_SWEEPS") -> list[str]:
    """The RESULT:PROBLEMS pairs of the list NAME="..." in a device setup script's text, in its order."""
    match = re.search(rf'^{name}="([^"]*)"', setup_text, re.MULTILINE)
    if match is None:
        raise ValueError(f"no {name}=\"...\" list in the device setup script")
    return match.group(1).split()


def all_sweep_files(setup_text: str, results: Path = RESULTS) -> list[Path]:
    """The CSVs of ALL_SWEEPS="RESULT:PROBLEMS ..." in a device setup script's text (results/RESULT.csv), sorted, each
    once (a result measured from two problem files is listed twice there)."""
    return sorted({results / f"{pair.split(':')[0]}.csv" for pair in sweep_pairs(setup_text)})


def sweep_rows(files: list[Path], without: str | None = None) -> list[dict]:
    """The rows of every file, less the kernels whose names contain without."""
    return [r for f in files for r in read_rows(f) if not (without and without in r["kernel"])]


def furthest_from_roofline(rows: list[dict], count: int) -> str:
    """Per direction, the count problems (roofline time >= 20 us, as summarise counts them) whose best gconv instance
    reaches the least % of the roofline: its class, the instance, its time and the best cuDNN mode's."""
    by_direction = defaultdict(list)
    for key, best in best_per_problem(rows).items():
        pct = best.roofline_pct
        if pct is not None:
            by_direction[best.row["direction"]].append((pct, key, best))
    body = []
    for direction in sorted(by_direction):
        for pct, key, best in sorted(by_direction[direction], key=lambda item: (item[0], item[1]))[:count]:
            cudnn = f"{best.vendor_ms * 1e3:.0f}" if best.vendor_ms is not None else "-"
            body.append([direction, best.row["shape_class"], key, best.row["kernel"], f"{pct:.1f}%",
                         f"{best.ms * 1e3:.0f}", cudnn])
    return table(["direction", "shape class", "problem", "best gconv instance", "% roofline", "us", "cuDNN us"], body)


# channel_bucket's labels, in order, each with the most channels it holds (the last: any more)
CHANNEL_BUCKETS = ((1, "1"), (2, "2"), (4, "3-4"), (8, "5-8"), (16, "9-16"), (math.inf, ">16"))


def channel_bucket(channels: int) -> str:
    """Channels per group, by powers of two: 1, 2, 3-4, 5-8, 9-16, >16."""
    return next(label for top, label in CHANNEL_BUCKETS if channels <= top)


def kernel_family(kernel: str, direction: str) -> str:
    """An instance name's family (direction_dtype_ALGORITHM_...): the algorithm, 'merged' where a tile holds several
    groups (_mg2 and up), 'cpg' for the tiny-group depthwise kernels (_cpgN)."""
    tokens = kernel[len(direction) + 1:].split("_")
    family = tokens[1]
    merged = any(re.fullmatch(r"mg\d+", t) and t != "mg1" for t in tokens)
    return family + (" merged" if merged else "") + (" cpg" if any(t.startswith("cpg") for t in tokens) else "")


def class_breakdown(rows: list[dict], shape_class: str) -> str:
    """Where a shape class stands against the roofline: per direction x C/G x K/G bucket (channel_bucket), over the
    problems whose roofline time is >= 20 us (as summarise counts them), the geomean % of roofline of the best
    instance, its median GB/s and TFLOP/s, and the families of the best instances (kernel_family, with counts)."""
    buckets: dict[tuple[str, str, str], list] = defaultdict(list)
    for best in best_per_problem(rows).values():
        row = best.row
        if row["shape_class"] == shape_class and best.roofline_pct is not None:
            buckets[(row["direction"], channel_bucket(int(row["C"])), channel_bucket(int(row["K"])))].append(best)
    order = {label: i for i, (_, label) in enumerate(CHANNEL_BUCKETS)}
    body = []
    for direction, c, k in sorted(buckets, key=lambda key: (key[0], order[key[1]], order[key[2]])):
        bests = buckets[(direction, c, k)]
        pct = math.exp(statistics.fmean(math.log(b.roofline_pct) for b in bests))
        families = Counter(kernel_family(b.row["kernel"], direction) for b in bests)
        body.append([direction, c, k, len(bests), f"{pct:.1f}%",
                     f"{statistics.median(float(b.row['gbs'] or 0) for b in bests):.0f}",
                     f"{statistics.median(float(b.row['tflops'] or 0) for b in bests):.1f}",
                     ", ".join(f"{name} {n}" for name, n in sorted(families.items(), key=lambda kv: (-kv[1], kv[0])))])
    return table(["direction", "C/G", "K/G", "problems >= 20 us", "geomean % roofline", "median GB/s",
                  "median TFLOP/s", "best instances' families"], body)


def against_fwd(rows: list[dict]) -> str:
    """Each backward direction against fwd on the same shapes (same FLOPs and bytes, so the same roofline): per
    direction x shape class x stride (1, or more along either axis), over the shapes both directions measured whose
    roofline time is >= 20 us (as summarise counts them), the geomean of fwd's best time over the direction's best
    time and the geomean % of roofline of each. Where a direction is far slower than fwd on the same work, its kernels
    leave the most on the table."""
    by_shape: dict[str, dict[str, object]] = defaultdict(dict)
    for key, best in best_per_problem(rows).items():
        direction = best.row["direction"]
        if best.roofline_pct is not None:
            by_shape[key[len(direction) + 1:]][direction] = best
    groups: dict[tuple[str, str, str], list] = defaultdict(list)
    for bests in by_shape.values():
        fwd = bests.get("fwd")
        for direction, best in bests.items():
            if fwd is not None and direction != "fwd":
                strided = int(best.row["stride_h"]) > 1 or int(best.row["stride_w"]) > 1
                groups[(direction, best.row["shape_class"], ">1" if strided else "1")].append((fwd, best))
    body = []
    for (direction, klass, stride), pairs in sorted(groups.items()):
        body.append([direction, klass, stride, len(pairs), f"{geomean([f.ms / b.ms for f, b in pairs]):.2f}x",
                     f"{geomean([f.roofline_pct for f, _ in pairs]):.1f}%",
                     f"{geomean([b.roofline_pct for _, b in pairs]):.1f}%"])
    return table(["direction", "shape class", "stride", "shapes >= 20 us", "fwd time / its time", "fwd % roofline",
                  "its % roofline"], body)


def via_fwd(rows: list[dict]) -> str:
    """Stride-1 bwd_data against its forward twin (Problem.forward_twin) where both were measured: per shape class, the
    geomean of the twin's best gconv time over bwd_data's, and the speed-up bwd_data's best gconv kernel would get
    if the twin's kernels were among its candidates (its time / the lesser of both; the filter's transposition not
    counted), over every such problem and over those whose roofline time is >= 20 us; each class also by the largest
    of 64, 32 and 16 dividing K/G (the tap-major bwd_data kernels pad each filter tap's K/G to their block_k, where
    the forward twin's flat reduction over K/G x Y x X pads once)."""
    bests = best_per_problem(rows)
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for key, best in bests.items():
        if best.row["direction"] != "bwd_data":
            continue
        problem = Problem.from_key(key)
        twin = problem.forward_twin()
        if twin is not None and twin.key in bests:
            divisor = next((f"K/G % {d} = 0" for d in (64, 32, 16) if problem.K % d == 0), "other K/G")
            for group in ("all", divisor):
                groups[(best.row["shape_class"], group)].append((best, bests[twin.key]))
    body = []
    for (klass, group), pairs in sorted(groups.items(), key=lambda item: (item[0][0], item[0][1] != "all",
                                                                          item[0][1])):
        timed = [(b, f) for b, f in pairs if b.roofline_pct is not None]

        def best_of_both(chosen: list) -> str:
            return f"{geomean([b.ms / min(b.ms, f.ms) for b, f in chosen]):.3f}x" if chosen else "-"
        body.append([klass, group, len(pairs), best_of_both(pairs), len(timed),
                     f"{geomean([f.ms / b.ms for b, f in timed]):.2f}x" if timed else "-", best_of_both(timed)])
    return table(["shape class", "K/G", "twins", "best of both", "twins >= 20 us", "twin time / its time",
                  "best of both"], body)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--all-sweeps", action="store_true", help="every file of bench/device_setup.sh's ALL_SWEEPS")
    parser.add_argument("--without", metavar="TOKEN", help="leave out kernels whose names contain TOKEN")
    parser.add_argument("--worst", type=int, default=0, metavar="N",
                        help="also list the N problems per direction furthest from the roofline")
    parser.add_argument("--breakdown", metavar="CLASS", choices=["depthwise", "C/G<=16", "C/G>16"],
                        help="also break a shape class down by channels per group (class_breakdown)")
    parser.add_argument("--against-fwd", action="store_true",
                        help="also compare each backward direction with fwd on the same shapes, by stride "
                             "(against_fwd)")
    parser.add_argument("--via-fwd", action="store_true",
                        help="also compare stride-1 bwd_data with the forward problem it is (via_fwd)")
    args = parser.parse_args(argv)
    if args.worst < 0:
        parser.error(f"--worst must be 0 or more, got {args.worst}")
    if args.all_sweeps == bool(args.files):
        parser.error("give sweep CSVs or --all-sweeps (one of them)")
    files = all_sweep_files(DEVICE_SETUP.read_text()) if args.all_sweeps else args.files
    rows = sweep_rows(files, args.without)
    print(summarise(rows))
    if args.worst:
        print()
        print(furthest_from_roofline(rows, args.worst))
    if args.breakdown:
        print()
        print(class_breakdown(rows, args.breakdown))
    if args.against_fwd:
        print()
        print(against_fwd(rows))
    if args.via_fwd:
        print()
        print(via_fwd(rows))


if __name__ == "__main__":
    main()
