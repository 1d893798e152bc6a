"""Seeded problem lists and numeric facts shared by the tests that hold two implementations together (libgconv and
the compiled selector against Python's selection)."""
import math
import random

import numpy as np

from gconv import Problem


def seeded_problems(seed: int, count: int, dtypes: tuple[str, ...] = ("fp16", "bf16", "fp32")) -> list[Problem]:
    """Shapes across the axes the support checks and the estimate react to: odd, aligned and depthwise channels,
    merged-group counts, strides, padding and dilation; every direction and dtype. Tensors stay 32-bit indexable."""
    rng = random.Random(seed)
    problems = []
    while len(problems) < count:
        G = rng.choice([1, 2, 3, 4, 8, 16, 32, 64, 96, 128, 256])
        channels = [1, 2, 3, 4, 5, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256]
        C, K = (1, 1) if rng.random() < 0.2 else (rng.choice(channels), rng.choice(channels))
        Y = rng.choice([1, 3, 5, 7])
        X = Y if rng.random() < 0.8 else rng.choice([1, 3])
        fields = dict(direction=rng.choice(["fwd", "bwd_data", "bwd_weight"]), dtype=rng.choice(dtypes),
                      N=rng.choice([1, 2, 4, 8, 32, 128]), G=G, C=C, K=K, Hi=rng.choice([1, 7, 14, 28, 56, 112]),
                      Y=Y, X=X, stride_h=rng.choice([1, 1, 2]), pad_h=rng.choice([0, Y // 2]),
                      dil_h=rng.choice([1, 1, 1, 2]))
        fields.update(Wi=fields["Hi"] if rng.random() < 0.8 else rng.choice([5, 9, 30]), stride_w=fields["stride_h"],
                      pad_w=fields["pad_h"], dil_w=fields["dil_h"])
        try:
            problem = Problem(**fields)
        except ValueError:
            continue  # the filter does not fit the padded input
        elements = max(problem.N * G * C * problem.Hi * problem.Wi, G * K * C * Y * X,
                       problem.N * G * K * problem.Ho * problem.Wo)
        if elements < 2**31:
            problems.append(problem)
    return problems


def numpy_is_libm() -> bool:
    """Whether numpy's log2/exp/exp2 give libm's results here (the C library's): then feature rows and predicted
    times compare bit for bit; numpy's SIMD kernels on some CPUs (AVX-512) may differ in the last bit."""
    positive, exponents = np.geomspace(1e-12, 1e12, 20001), np.linspace(-40.0, 40.0, 20001)
    checks = [(np.log2, math.log2, positive), (np.exp, math.exp, exponents)]
    if hasattr(math, "exp2"):  # Python 3.11+
        checks.append((np.exp2, math.exp2, exponents))
    return all((function(values) == np.array([scalar(v) for v in values])).all() for function, scalar, values in checks)
