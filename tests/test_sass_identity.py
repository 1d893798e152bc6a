"""bench/sass_identity.py: a source text compiles to the same sm_90 code as itself, and the bwd_data store's vector
hint changes the code only where the JIT could not already see the rows aligned (G * C not a multiple of 16)."""
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from gconv.bench.sass_identity import compile_the_same
from gconv.paths import REPO_ROOT
from gconv.runtime.registry import entries_by_name
from gconv.schemas import Problem

HINT = "    dx_offs = tl.max_contiguous(tl.multiple_of(dx_offs, [1, VEC]), [1, VEC])\n"


def problem(G: int) -> Problem:
    return Problem(direction="bwd_data", dtype="bf16", N=32, G=G, C=24, K=24, Hi=64, Wi=64, Y=3, X=3, pad_h=1,
                   pad_w=1)


def test_the_store_hint_changes_code_only_where_the_jit_cannot_see_the_alignment():
    source = (REPO_ROOT / entries_by_name("default")["bwd_data_bf16_igemm_m128n32k32_w4_s3_ms_g1_v8_mg1"].source)
    text = source.read_text()
    assert text.count(HINT) == 1
    without = text.replace(HINT, "")
    jobs = [(text, text, problem(19)), (without, text, problem(16)), (without, text, problem(19))]
    # In a spawned interpreter, as `gconv check` compiles: this session may have imported Triton to interpret.
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
        same = list(pool.map(compile_the_same, *zip(*jobs), ["sm_90"] * len(jobs)))
    assert same == [True, True, False]  # G * C = 384 is seen divisible by 16; 456 is not
