"""One batch of `gconv bench sweep` in a fresh process: a job (JSON) on stdin, rows back as JSON lines.

Run as `python -m gconv.bench.sweep_worker`. Messages, one JSON object per line on the original stdout:
`{"start": key}` before a problem, `{"problem": key, "rows": [row]}` after each of its kernels and cuDNN modes (the
measure function calls its on_row with each row it times), `{"finished": key}` after it, `{"done": true}` at the
end. A crash or hang here costs only this batch, and of the problem it was on only the kernels not yet sent: the
parent sees which problem was started and not finished.
"""
from __future__ import annotations

import faulthandler
import importlib
import json
import os
import sys
from collections.abc import Callable
from typing import TextIO


def load_callable(spec: str) -> Callable:
    """'package.module:function' -> the function (the sweep's measure and warm hooks)."""
    module_name, _, name = spec.partition(":")
    if not module_name or not name:
        raise ValueError(f"{spec!r}: expected MODULE:FUNCTION, e.g. gconv.bench.profile:profile_problem")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"{spec!r}: cannot import {module_name}: {error}") from None
    function = getattr(module, name, None)
    if not callable(function):
        raise ValueError(f"{spec!r}: {module_name} has no function {name!r}")
    return function


def run_job(job: dict, channel: TextIO) -> None:
    """Measure each problem of the job, sending each row as the measure function times it (its on_row): a batch
    stopped on a problem that takes minutes (every kernel of a 1-PFLOP layer) keeps the kernels it timed, and a
    resumed sweep times only the rest."""
    from gconv.schemas import Problem

    from .rows import ProfileRow

    measure = load_callable(job["measure"])

    def send(message: dict) -> None:
        channel.write(json.dumps(message) + "\n")
        channel.flush()

    for item in job["problems"]:
        problem = Problem(**item["problem"])
        send({"start": problem.key})

        def on_row(row, key=problem.key) -> None:
            send({"problem": key, "rows": [(row if isinstance(row, ProfileRow) else ProfileRow(**row)).model_dump()]})

        measure(problem, job["rule_set"], kernels=item["kernels"], skip=set(item["skip"]), warmup=job["warmup"],
                repeats=job["repeats"], budget_ms=job["budget_ms"], on_row=on_row)
        send({"finished": problem.key})
    send({"done": True})


def main() -> int:
    faulthandler.enable()  # a segfault leaves a Python traceback in the batch's stderr
    channel = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # anything else printed (Triton, CUDA, the measured code) goes to stderr, not into the protocol
    sys.stdout = sys.stderr
    run_job(json.load(sys.stdin), channel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
