"""The per direction x shape class summary of `gconv bench sweep` (speed-up of the best gconv instance over the best
cuDNN mode, % of roofline on problems >= 20 us) over the union of several sweep CSVs, optionally without the kernels
whose names contain a token (what a kernel family adds, measured in the same files):

    python bench/summarise_sweeps.py bench/results/train-*-bf16*.csv [--without k64_]
"""
from __future__ import annotations

import argparse
from pathlib import Path

from gconv.bench.profile import summarise
from gconv.bench.rows import read_rows


def summary(files: list[Path], without: str | None = None) -> str:
    """summarise() over the rows of every file, less the kernels whose names contain without."""
    return summarise([r for f in files for r in read_rows(f) if not (without and without in r["kernel"])])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--without", metavar="TOKEN", help="leave out kernels whose names contain TOKEN")
    args = parser.parse_args(argv)
    print(summary(args.files, args.without))


if __name__ == "__main__":
    main()
