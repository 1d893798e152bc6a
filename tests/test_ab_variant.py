"""bench/ab_variant.py's pairing (no GPU): twins from an axis change or a template choice, and its refusals."""
import pytest

from gconv.bench.ab_variant import broken_constraints, pairs_for
from gconv.bench.choice_args import parse_choice
from gconv.schemas import Algorithm, Problem

PROBLEM = Problem(direction="bwd_data", dtype="bf16", N=8, G=64, C=1, K=4, Hi=20, Wi=20, Y=5, X=5, stride_h=1,
                  stride_w=1, pad_h=4, pad_w=4, dil_h=2, dil_w=2)


def test_a_template_choice_twins_every_candidate_of_the_algorithm_with_the_same_config(tmp_path):
    pairs = pairs_for(PROBLEM, "default", "sm_90", {}, tmp_path, {"tap_loop": "unrolled"}, (Algorithm.depthwise,))
    assert sorted(p.base.name for p in pairs) == [
        "bwd_data_bf16_depthwise_t4x16c32_f5_m4_w4_v8", "bwd_data_bf16_depthwise_t4x8c32_f5_m4_w2_v8"]
    for pair in pairs:
        assert pair.twin == pair.base
        assert pair.twin_label == f"{pair.base.name}-tap_loop-unrolled"
        with open(pair.base_source) as base, open(pair.twin_source) as twin:
            base_text, twin_text = base.read(), twin.read()
        assert base_text.count("tl.range(FILTER, loop_unroll_factor=1)") == 2 and "static_range" not in base_text
        assert twin_text.count("tl.static_range(FILTER)") == 2 and "tl.range(" not in twin_text


def test_the_default_choice_makes_no_twin(tmp_path):
    assert pairs_for(PROBLEM, "default", "sm_90", {}, tmp_path, {"tap_loop": "rolled"}, (Algorithm.depthwise,)) == []


def test_an_unknown_choice_is_refused_with_the_known_ones():
    with pytest.raises(SystemExit) as error:
        parse_choice("tap_loop=sideways")
    assert str(error.value) == ("--choice wants choice=value with a template choice (tap_loop: unrolled, "
                                "rolled-columns, rolled; k_walk: divide, incremental; loop_stages: 1, 2, 3, 4; "
                                "channel_reduce: broadcast, split; filter_programs: apart, adjacent, single, unrolled; atomics: "
                                "acq_rel, relaxed; tap_walk: divide, carry; group_rows: divide, compare; bounds: "
                                "signed, unsigned; dy_view: groups, flat; warp_specialize: off, on), got "
                                "'tap_loop=sideways'")


def test_a_choice_the_template_does_not_use_makes_no_twin(tmp_path):
    sliding = Problem(direction="bwd_data", dtype="bf16", N=8, G=64, C=1, K=1, Hi=20, Wi=20, Y=3, X=3, stride_h=1,
                      stride_w=1, pad_h=1, pad_w=1, dil_h=1, dil_w=1)
    pairs = pairs_for(sliding, "default", "sm_90", {}, tmp_path, {"tap_loop": "rolled"}, (Algorithm.depthwise,))
    assert pairs and not any(p.base.sliding_rows for p in pairs)  # the sliding-rows template has no tap loop
    assert all(p.base.multiplier == 1 and p.base.filter_size == 3 for p in pairs)


def test_a_filter_keeps_only_the_base_kernels_it_selects(tmp_path):
    small = Problem(direction="fwd", dtype="bf16", N=2, G=8, C=8, K=8, Hi=16, Wi=16, Y=3, X=3, pad_h=1, pad_w=1)
    every = pairs_for(small, "default", "sm_90", {"tap_major": True}, tmp_path)
    merged = pairs_for(small, "default", "sm_90", {"tap_major": True}, tmp_path, where="groups_to_merge > 1")
    assert merged and len(merged) < len(every)
    assert all(p.base.groups_to_merge > 1 and p.twin.tap_major and not p.base.tap_major for p in merged)
    assert {p.base.name for p in merged} == {p.base.name for p in every if p.base.groups_to_merge > 1}


def test_rerendered_twins_every_selected_candidate_with_its_own_config_rendered_anew(tmp_path):
    """--rerendered: the checked-in source against the same instance rendered from the current templates (a template
    change timed before `gconv generate`); without it the same config and choices make no twin."""
    problem = Problem.from_key("bwd_weight_bf16_n8_g64_c1_k1_hi28_wi28_y3_x3_s1x1_p1x1_d1x1")
    where = "last_arrival"
    assert pairs_for(problem, "default", "sm_90", {}, tmp_path, None, (Algorithm.depthwise,), where) == []
    pairs = pairs_for(problem, "default", "sm_90", {}, tmp_path, None, (Algorithm.depthwise,), where, rerendered=True)
    assert pairs and all(p.twin == p.base and p.base.last_arrival for p in pairs)
    assert all(p.base_source.endswith(f"generated/kernels/bwd_weight/{p.base.name}.py") for p in pairs)
    assert all(p.twin_source == str(tmp_path / f"{p.base.name}.py") for p in pairs)


def test_twins_that_break_a_constraint_of_full_are_named_with_its_reason(tmp_path):
    """A twin past a set-wide constraint is still timed, but the note says which constraint a win would have to change:
    the 8 x 8-pixel tiny-group tile of 8 groups (a tile row of 64 values for 128 threads), and the two-stage depthwise
    bwd_weight splits where `full` asks for last arrival."""
    tiny = Problem(direction="fwd", dtype="bf16", N=8, G=16, C=2, K=2, Hi=20, Wi=20, Y=3, X=3, pad_h=1, pad_w=1)
    narrow = pairs_for(tiny, "default", "sm_90", {"tile_w": 8}, tmp_path, algorithms=(Algorithm.depthwise,),
                       where="sliding_rows > 0 and block_n == 8")
    assert [p.twin.name for p in narrow] == ["fwd_bf16_depthwise_t8x8c8_f3_m2_cpg2_sr1_w4_v8"]
    assert broken_constraints([p.twin for p in narrow], "sm_90") == [
        "1 of 1 twin breaks `full`'s constraint \"sliding_rows == 0 or tile_w * block_n >= threads\": a sliding-rows "
        "tile row (tile_w pixels x block_n groups) gives every thread at least one value: the 8 x 8-pixel tiles of 8 "
        "groups (64 values for 128 threads) convert layouts through shared memory, 36 barriers a program, and ran 2-4x "
        "slower than the 4 x 16 ones (bench/results/tiny-sliding-channels/)"]
    depthwise = Problem.from_key("bwd_weight_bf16_n8_g64_c1_k1_hi28_wi28_y3_x3_s1x1_p1x1_d1x1")
    two_stage = pairs_for(depthwise, "default", "sm_90", {"two_stage": True, "last_arrival": False}, tmp_path,
                          algorithms=(Algorithm.depthwise,), where="split_k > 1 and sliding_rows > 0")
    (note,) = broken_constraints([p.twin for p in two_stage] * 2, "sm_90")  # each distinct twin counts once
    assert note.startswith("8 of 8 twins break `full`'s constraint \"algorithm != 'depthwise' or direction != "
                           "'bwd_weight' or last_arrival == (split_k > 1 and filter_size != 7)\": depthwise bwd_weight "
                           "splits reduce by last arrival")
    wider = pairs_for(depthwise, "default", "sm_90", {"num_warps": 4}, tmp_path, algorithms=(Algorithm.depthwise,),
                      where="split_k > 1 and sliding_rows > 0 and num_warps == 2")
    assert wider and broken_constraints([p.twin for p in wider], "sm_90") == []
