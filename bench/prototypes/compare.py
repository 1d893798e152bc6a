"""Table: prototype depthwise kernels vs gconv's current best `default` instance vs the best cuDNN mode (GPU times).

    python bench/prototypes/compare.py --sweep DIR/depthwise-default-bf16.csv --prototype DIR/prototype-depthwise.json \
        [--bwd-weight DIR/prototype-depthwise-bwd-weight.json] > DIR/summary.md

Speed-up = best cuDNN time / time (> 1: faster than cuDNN); geomean per direction at the bottom.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
from collections import defaultdict
from pathlib import Path


def _key(direction: str, n, g, m, h, y, s, d) -> tuple:
    return direction, f"n{n}_g{g}_m{m}_h{h}_y{y}_s{s}_d{d}"


def current_best(sweep: Path) -> tuple[dict, dict]:
    best, cudnn = {}, {}
    for r in csv.DictReader(sweep.open()):
        if r["status"] != "ok":
            continue
        key = _key(r["direction"], r["N"], r["G"], r["K"], r["Hi"], r["Y"], r["stride_h"], r["dil_h"])
        ms = float(r["time_ms"])
        table = cudnn if r["kernel"].startswith("cudnn") else best
        if ms < table.get(key, (math.inf, ""))[0]:
            table[key] = (ms, r["kernel"])
    return best, cudnn


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sweep", type=Path, required=True)
    parser.add_argument("--prototype", type=Path, required=True)
    parser.add_argument("--bwd-weight", type=Path)
    args = parser.parse_args()
    best, cudnn = current_best(args.sweep)
    proto = {}
    for row in json.loads(args.prototype.read_text()):
        for direction in ("fwd", "bwd_data", "bwd_weight"):
            times = {k.split("/", 1)[1]: v for k, v in row.items()
                     if k.startswith(direction + "/") and "cudnn" not in k}
            name = min(times, key=times.get)
            proto[(direction, row["problem"])] = (times[name], f"v1 {name}")
    if args.bwd_weight:
        for row in json.loads(args.bwd_weight.read_text()):
            times = {k: v for k, v in row.items() if k not in ("problem", "cudnn-exhaustive")}
            name = min(times, key=times.get)
            key = ("bwd_weight", row["problem"])
            if times[name] < proto[key][0]:
                proto[key] = (times[name], f"v2 {name}")
    print("| direction | problem | best cuDNN us | current gconv us | prototype us | current vs cuDNN | "
          "prototype vs cuDNN | prototype config | current kernel |")
    print("|---|---|---|---|---|---|---|---|---|")
    speedups = defaultdict(lambda: ([], []))
    for key in sorted(proto, key=lambda k: (["fwd", "bwd_data", "bwd_weight"].index(k[0]), k[1])):
        vendor, (cur, cur_name), (new, new_name) = cudnn[key][0], best[key], proto[key]
        speedups[key[0]][0].append(vendor / cur)
        speedups[key[0]][1].append(vendor / new)
        print(f"| {key[0]} | {key[1]} | {vendor * 1e3:.1f} | {cur * 1e3:.1f} | {new * 1e3:.1f} | {vendor / cur:.2f}x | "
              f"{vendor / new:.2f}x | {new_name} | {cur_name} |")
    print("\n| direction | geomean current vs cuDNN | geomean prototype vs cuDNN | geomean best of both vs cuDNN | "
          "prototype beats current |")
    print("|---|---|---|---|---|")
    for direction, (cur, new) in speedups.items():
        wins = sum(n > c for c, n in zip(cur, new))
        both = geomean([max(c, n) for c, n in zip(cur, new)])
        print(f"| {direction} | {geomean(cur):.2f}x | {geomean(new):.2f}x | {both:.2f}x | {wins} of {len(cur)} |")


if __name__ == "__main__":
    main()
