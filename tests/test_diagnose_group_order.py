"""bench/diagnose_group_order.py's source patch (no GPU): every non-persistent igemm fwd / bwd_data kernel of
`default` but the split ones gets its group blocks walked fastest (on the device the patched kernels gave
bit-identical outputs)."""
import pytest

from gconv.bench.diagnose_group_order import OUTER, inner_source
from gconv.paths import REPO_ROOT
from gconv.runtime.registry import entries_by_name
from gconv.schemas import Algorithm, Direction, Pipeline


def _patchable():
    return [e for e in entries_by_name("default").values() if e.config.algorithm is Algorithm.igemm
            and e.config.direction is not Direction.bwd_weight
            and e.config.pipeline not in (Pipeline.persistent, Pipeline.streamk) and e.config.split_k == 1]


def test_every_non_persistent_igemm_kernel_has_the_launch_the_patch_rewrites():
    entries = _patchable()
    assert len(entries) > 50
    for entry in entries:
        text = inner_source((REPO_ROOT / entry.source).read_text(), entry.config.groups_to_merge)
        assert OUTER not in text and "tl.program_id(0) % group_blocks" in text and "tl.program_id(1)" not in text


def test_a_source_without_that_launch_is_refused():
    with pytest.raises(ValueError, match="not a non-persistent igemm kernel"):
        inner_source("def kernel(): pass\n", 1)


def test_a_split_forward_kernel_is_refused():
    entry = entries_by_name("default")["fwd_bf16_igemm_m64n64k64_w4_s3_ms_g8_v8_mg1_sk4la"]
    with pytest.raises(ValueError, match="a split igemm kernel: its splits"):
        inner_source((REPO_ROOT / entry.source).read_text(), 1)
