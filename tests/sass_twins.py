"""The sm_90 tensor-core loop of a kernel rendered with each value of one template choice (bench/mma_loop.py),
compiled in a spawned process: a test session may run Triton's interpreter, whose Triton cannot compile."""
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from gconv.schemas import Problem


def mma_loop_twins(kernel: str, problem_key: str, choice: str, values: tuple[str, ...]) -> list[dict[str, int]]:
    """Per value of choice, the opcodes of kernel's loop as the JIT compiles it for the problem."""
    from gconv.bench.mma_loop import mma_loop

    problem = Problem.from_key(problem_key)
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        return [pool.submit(mma_loop, kernel, problem, {choice: value}).result() for value in values]
