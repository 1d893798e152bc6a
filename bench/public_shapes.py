"""Training problems from a public list: DeepBench's convolution sets (baidu-research/DeepBench,
code/kernels/conv_problems.h at commit 1a81dcb94744246beede5b69a3a5740c4677ecad: `training_set`,
`inference_server_set`, `inference_device_set`), the layers of its speech (DeepSpeech), OCR and face-recognition
networks only. Its vision layers (ResNet, VGG, GoogLeNet at the ImageNet sizes 224 / 112 / 56 / 28 / 14 / 7) are
left out: those are model-zoo layers, held out for evaluating selection (DESIGN.md, data hygiene).

    python -m bench.public_shapes --dtype bf16 --out bench/problems/public-deepbench-bf16.csv

Each layer is a dense convolution (G = 1) for every direction; DeepBench's batch sizes are kept.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from gconv.schemas import Direction, DType, Problem

from bench.problems import write_problems

SOURCE = ("baidu-research/DeepBench code/kernels/conv_problems.h @ 1a81dcb94744246beede5b69a3a5740c4677ecad "
          "(training_set, inference_server_set, inference_device_set; speech, OCR and face layers)")
IMAGENET_SIZES = frozenset({224, 112, 56, 28, 14, 7})

# DeepBench's tuples as it writes them: (w, h, c, n, k, filter_w, filter_h, pad_w, pad_h, stride_w, stride_h), the
# layers whose width and height are not ImageNet pyramid sizes, with every batch size DeepBench lists for them.
DEEPBENCH_LAYERS = [
    *[(700, 161, 1, n, 32, 20, 5, 0, 0, 2, 2) for n in (1, 2, 4, 8, 16, 32)],  # DeepSpeech
    *[(341, 79, 32, n, 32, 10, 5, 0, 0, 2, 2) for n in (1, 2, 4, 8, 16, 32)],
    *[(w, h, c, n, k, 3, 3, 1, 1, 1, 1) for n in (1, 16)  # OCR
      for w, h, c, k in ((480, 48, 1, 16), (240, 24, 16, 32), (120, 12, 32, 64), (60, 6, 64, 128))],
    *[(108, 108, 3, n, 64, 3, 3, 1, 1, 2, 2) for n in (1, 8)],  # face recognition
    *[(w, w, c, n, k, 3, 3, 1, 1, 1, 1) for n in (1, 8) for w, c, k in ((54, 64, 64), (27, 128, 128))],
    *[(700, 161, 1, n, 64, 5, 5, 1, 1, 2, 2) for n in (1, 2, 16)],  # speech, 2-D filters
    *[(w, h, c, n, k, f, f, 1, 1, s, s) for n in (1, 2, 16)
      for w, h, c, k, f, s in ((350, 80, 64, 64, 3, 1), (350, 80, 64, 128, 5, 2), (175, 40, 128, 128, 3, 1),
                               (175, 40, 128, 256, 5, 2), (84, 20, 256, 256, 3, 1), (84, 20, 256, 512, 5, 2),
                               (42, 10, 512, 512, 3, 1))],
    (151, 40, 1, 1, 32, 20, 5, 8, 8, 8, 2),  # speech, inference on a device
]


def deepbench_problems(dtype: DType, directions=tuple(Direction)) -> list[Problem]:
    """Every DeepBench layer above (once, in list order) for each direction."""
    shapes = []
    for w, h, c, n, k, fw, fh, pw, ph, sw, sh in dict.fromkeys(DEEPBENCH_LAYERS):
        if w in IMAGENET_SIZES and h in IMAGENET_SIZES:
            raise ValueError(f"DeepBench layer {w}x{h} is at ImageNet sizes: a model-zoo layer")
        shapes.append(dict(N=n, G=1, C=c, K=k, Hi=h, Wi=w, Y=fh, X=fw, stride_h=sh, stride_w=sw, pad_h=ph,
                           pad_w=pw, dil_h=1, dil_w=1))
    return [Problem(direction=d, dtype=dtype, **s) for s in shapes for d in directions]


def write_public_problems(path: Path, dtype: DType) -> list[Problem]:
    """The DeepBench problems of dtype into a problem CSV whose first line names the source."""
    problems = deepbench_problems(dtype)
    write_problems(path, problems, comment=f"Public training problems: {SOURCE}; dense (G = 1); "
                                           f"python -m bench.public_shapes --dtype {dtype.value}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dtype", choices=[t.value for t in DType], default="bf16")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    problems = write_public_problems(args.out, DType(args.dtype))
    print(f"wrote {len(problems)} problems ({len(problems) // len(Direction)} layers x {len(Direction)} directions) "
          f"to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
