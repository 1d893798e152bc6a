"""Problem, KernelConfig and ArchSpec models: derived values, canonical names, validation messages."""
import pytest
from pydantic import ValidationError

from gconv.schemas import Algorithm, Direction, KernelConfig, Pipeline, Problem


def make_problem(**changes):
    fields = dict(direction="fwd", dtype="bf16", N=32, G=32, C=4, K=4, Hi=56, Wi=56, Y=3, X=3,
                  stride_h=1, stride_w=1, pad_h=1, pad_w=1, dil_h=1, dil_w=1)
    fields.update(changes)
    return Problem(**fields)


def test_problem_as_written_in_the_design():
    p = make_problem()
    assert (p.Ho, p.Wo) == (56, 56)
    assert p.key == "fwd_bf16_n32_g32_c4_k4_hi56_wi56_y3_x3_s1x1_p1x1_d1x1"
    assert p.input_shape == (32, 128, 56, 56) and p.weight_shape == (128, 4, 3, 3)


@pytest.mark.parametrize("changes, size", [
    (dict(Hi=11, Wi=9, stride_h=2, stride_w=2, pad_h=1, pad_w=1, dil_h=2, dil_w=2), (5, 4)),
    (dict(Hi=13, Wi=11, Y=1, X=1, stride_h=2, stride_w=2, pad_h=0, pad_w=0), (7, 6)),
    (dict(Hi=7, Wi=7, Y=7, X=7, pad_h=0, pad_w=0), (1, 1)),
])
def test_output_size_is_derived(changes, size):
    assert (make_problem(**changes).Ho, make_problem(**changes).Wo) == size


@pytest.mark.parametrize("direction, gemm", [
    ("fwd", (32 * 56 * 56, 4, 36)),
    ("bwd_data", (32 * 56 * 56, 4, 36)),
    ("bwd_weight", (4, 36, 32 * 56 * 56)),
])
def test_gemm_view(direction, gemm):
    view = make_problem(direction=direction).gemm
    assert (view.M, view.N, view.K) == gemm


def test_output_size_must_be_positive():
    with pytest.raises(ValidationError) as error:
        make_problem(Hi=2, Wi=2, Y=5, X=5, pad_h=0, pad_w=0)
    assert error.value.errors()[0]["msg"] == (
        "Value error, output size would be -2x-2: the dilated filter (5x5) is larger than the padded input (2x2)")


@pytest.mark.parametrize("field, value, message", [
    ("stride_h", 0, "Input should be greater than 0"),
    ("dil_w", -1, "Input should be greater than 0"),
    ("pad_h", -1, "Input should be greater than or equal to 0"),
    ("C", 0, "Input should be greater than 0"),
])
def test_problem_rejects_bad_values(field, value, message):
    with pytest.raises(ValidationError) as error:
        make_problem(**{field: value})
    assert error.value.errors()[0]["msg"] == message
    assert error.value.errors()[0]["loc"] == (field,)


def test_problem_rejects_unknown_fields():
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        make_problem(groups=2)


def test_every_generated_name_round_trips(expansions):
    for instance in expansions["full"]:
        assert KernelConfig.from_name(instance.name) == instance.config


def test_name_encodes_every_axis():
    config = KernelConfig(direction="bwd_weight", dtype="fp16", algorithm="igemm", block_m=128, block_n=64,
                          block_k=32, num_warps=4, num_stages=3, pipeline="tma", raster_group=8, vector_width=8,
                          groups_to_merge=1, split_k=4)
    assert config.name == "bwd_weight_fp16_igemm_m128n64k32_w4_s3_tma_g8_v8_mg1_sk4"
    direct = KernelConfig.from_name("fwd_fp32_direct_p64c32_w4_v1")
    assert (direct.algorithm, direct.block_m, direct.block_n, direct.pipeline) == \
        (Algorithm.direct, 64, 32, Pipeline.multistage)
    depthwise = KernelConfig.from_name("bwd_weight_bf16_depthwise_t2x16c64_f5_m4_w8_v8_sk16")
    assert (depthwise.algorithm, depthwise.block_m, depthwise.tile_h, depthwise.tile_w, depthwise.block_n,
            depthwise.filter_size, depthwise.multiplier, depthwise.num_warps, depthwise.vector_width,
            depthwise.split_k) == (Algorithm.depthwise, 32, 2, 16, 64, 5, 4, 8, 8, 16)
    assert depthwise.group_channels == 1  # names without _cpg: one input channel per group
    tiny = KernelConfig.from_name("bwd_data_bf16_depthwise_t4x8c16_f7_m2_cpg4_w2_v8")
    assert (tiny.group_channels, tiny.multiplier, tiny.block_n) == (4, 2, 16)
    assert tiny.name == "bwd_data_bf16_depthwise_t4x8c16_f7_m2_cpg4_w2_v8"
    assert KernelConfig(**{**tiny.axes(), "group_channels": 1}).name == "bwd_data_bf16_depthwise_t4x8c16_f7_m2_w2_v8"
    sliding = KernelConfig.from_name("fwd_fp16_depthwise_t8x8c128_f7_m2_sr2_w4_v8")
    assert (sliding.sliding_rows, sliding.tile_h, sliding.multiplier, sliding.group_channels) == (2, 8, 2, 1)
    assert KernelConfig(**{**sliding.axes(), "sliding_rows": 0}).name == "fwd_fp16_depthwise_t8x8c128_f7_m2_w4_v8"


SPLIT_TOKEN = ("is present exactly for bwd_weight kernels and, with a split above 1, for split fwd kernels (and their "
               "via_fwd bwd_data twins)")


@pytest.mark.parametrize("name, message", [
    ("fwd_fp16_igemm_m128", "'fwd_fp16_igemm_m128' is not a kernel name; expected e.g. "
     "'fwd_bf16_igemm_m128n64k32_w4_s3_ms_g8_v8_mg1', 'bwd_weight_fp16_direct_p64c32_w4_v8_sk4' or "
     "'fwd_bf16_depthwise_t4x16c32_f3_m1_w4_v8'"),
    ("fwd_fp16_depthwise_t4x16c32_f3_m1_w4_v8_sk1", "'fwd_fp16_depthwise_t4x16c32_f3_m1_w4_v8_sk1': the _sk<split> "
     f"token {SPLIT_TOKEN}"),
    ("bwd_data_fp16_direct_p64c32_w4_v1_sk2", f"'bwd_data_fp16_direct_p64c32_w4_v1_sk2': the _sk<split> token "
     f"{SPLIT_TOKEN}"),
    ("bwd_weight_fp16_direct_p64c32_w4_v1", f"'bwd_weight_fp16_direct_p64c32_w4_v1': the _sk<split> token "
     f"{SPLIT_TOKEN}"),
])
def test_from_name_rejects_bad_names(name, message):
    with pytest.raises(ValueError) as error:
        KernelConfig.from_name(name)
    assert str(error.value) == message


@pytest.mark.parametrize("changes, message", [
    (dict(block_m=96), "Value error, block_m must be a power of two, got 96"),
    (dict(split_k=2), "Value error, split_k > 1 is an axis of bwd_weight and of the igemm fwd kernels with "
     "last_arrival over the flat reduction of one group (not tap_major, explicit_gemm, pixel boxes nor merged groups), "
     "got split_k=2 for fwd igemm without last_arrival"),
    (dict(algorithm="direct"), "Value error, the direct algorithm has no block_k axis: it must be 1"),
    (dict(filter_size=3), "Value error, the igemm algorithm has no filter_size axis: it must be 0"),
    (dict(algorithm="depthwise", block_k=1, num_stages=1, tile_w=8, filter_size=3, multiplier=3),
     "Value error, depthwise multiplier must be a power of two, got 3"),
    (dict(algorithm="depthwise", block_k=1, num_stages=1, tile_w=128, filter_size=3, multiplier=1),
     "Value error, depthwise tile_w (128) must be at most block_m (64), the pixels of the tile"),
    (dict(algorithm="depthwise", block_k=1, num_stages=1, tile_w=8, filter_size=4, multiplier=1),
     "Value error, depthwise filter_size must be odd (the square filter it unrolls), got 4"),
    (dict(algorithm="depthwise", block_k=1, num_stages=1, tile_w=0, filter_size=3, multiplier=1),
     "Value error, depthwise tile_w must be a power of two, got 0"),
    (dict(algorithm="depthwise", block_k=1, num_stages=1, tile_w=8, filter_size=3, multiplier=1, group_channels=3),
     "Value error, depthwise group_channels must be a power of two, got 3"),
    (dict(group_channels=2), "Value error, the igemm algorithm has no group_channels axis: it must be 0"),
    (dict(sliding_rows=1), "Value error, the igemm algorithm has no sliding_rows axis: it must be 0"),
    (dict(direction="bwd_weight", algorithm="depthwise", block_k=1, num_stages=1, tile_w=8, filter_size=3,
          multiplier=1, group_channels=2, sliding_rows=1),
     "Value error, sliding_rows is an axis of the depthwise kernels: fwd with row stride 1 or 2, bwd_data with stride "
     "1 or 2 x 2 (all tiny groups too) and bwd_weight with row stride 1 or 2, multiplier 1 and one channel per "
     "group; got "
     "sliding_rows=1 for bwd_weight with group_channels=2, multiplier=1"),
    (dict(direction="bwd_weight", algorithm="depthwise", block_k=1, num_stages=1, tile_w=8, filter_size=3,
          multiplier=2, sliding_rows=1),
     "Value error, sliding_rows is an axis of the depthwise kernels: fwd with row stride 1 or 2, bwd_data with stride "
     "1 or 2 x 2 (all tiny groups too) and bwd_weight with row stride 1 or 2, multiplier 1 and one channel per "
     "group; got "
     "sliding_rows=1 for bwd_weight with group_channels=1, multiplier=2"),
])
def test_kernel_config_validation(changes, message):
    fields = dict(direction=Direction.fwd, dtype="fp16", algorithm="igemm", block_m=64, block_n=64, block_k=32,
                  num_warps=4, num_stages=3)
    fields.update(changes)
    with pytest.raises(ValidationError) as error:
        KernelConfig(**fields)
    assert error.value.errors()[0]["msg"] == message


def test_arch_specs_load(rules):
    assert rules.archs["sm_90"].has_tma and not rules.archs["sm_80"].has_tma
    assert rules.archs["sm_90"].max_warps_per_block == 32


def test_problem_fields_hold_every_field_in_order():
    problem = Problem(direction="bwd_data", dtype="fp16", N=2, G=3, C=4, K=5, Hi=6, Wi=7, Y=3, X=1, stride_h=2,
                      stride_w=1, pad_h=1, pad_w=0, dil_h=2, dil_w=1)
    assert problem.fields == tuple(getattr(problem, name) for name in Problem.model_fields)


def test_problem_key_reads_back():
    problem = Problem(direction="bwd_weight", dtype="fp16", N=3, G=5, C=7, K=9, Hi=11, Wi=13, Y=3, X=5, stride_h=2,
                      stride_w=1, pad_h=1, pad_w=2, dil_h=2, dil_w=1)
    assert Problem.from_key(problem.key) == problem
    with pytest.raises(ValueError) as error:
        Problem.from_key(problem.key + "_extra")
    assert str(error.value) == (f"not a problem key: '{problem.key}_extra' "
                                "(e.g. fwd_bf16_n32_g16_c24_k24_hi128_wi128_y3_x3_s1x1_p1x1_d1x1)")
