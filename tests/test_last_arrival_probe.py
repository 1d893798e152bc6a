"""bench/last_arrival_probe.py's diagnosis of a wrong last-arrival run: each split's partial sums (float64, the pixel
ranges the igemm template gives the splits) and which splits a wrong element's value sums."""
import torch

from gconv.runtime.vendor import vendor_run
from gconv.schemas import KernelConfig, Problem

from bench.last_arrival_probe import explain, split_partials
from bench.timing import operand_sets

PROBLEM = Problem.from_key("bwd_weight_fp32_n3_g2_c5_k6_hi7_wi6_y3_x3_s2x1_p1x1_d1x2")
CONFIG = KernelConfig.from_name("bwd_weight_fp32_igemm_m32n64k32_w4_s3_ms_g1_v1_mg1_sk4la")


def test_the_splits_partial_sums_add_up_to_the_reference():
    x, dy = operand_sets(PROBLEM, "cpu", 1)[0]
    partials = split_partials(PROBLEM, CONFIG, x, dy)
    expected = torch.nn.grad.conv2d_weight(x.double(), PROBLEM.weight_shape, dy.double(), stride=(2, 1),
                                           padding=(1, 1), dilation=(1, 2), groups=2)
    # N*Ho*Wo = 3*4*4 = 48 pixels over 4 splits in whole 32-pixel steps: split 0 takes 32, split 1 the other 16
    assert partials.shape == (4, 12, 5, 3, 3)
    torch.testing.assert_close(partials.sum(0), expected, rtol=1e-12, atol=1e-12)
    assert partials[0].any() and partials[1].any() and not partials[2:].any()


def test_a_wrong_element_is_explained_by_the_splits_it_sums():
    problem = Problem.from_key("bwd_weight_fp32_n8_g1_c2_k3_hi8_wi8_y3_x3_s1x1_p1x1_d1x1")
    config = KernelConfig.from_name("bwd_weight_fp32_igemm_m32n64k32_w4_s3_ms_g1_v1_mg1_sk4la")
    x, dy = operand_sets(problem, "cpu", 1)[0]
    partials = split_partials(problem, config, x, dy)  # 512 pixels: four splits of 128
    expected = vendor_run(problem, x, dy).double()
    out = expected.clone()
    out[1, 0, 2, 2] -= partials[2, 1, 0, 2, 2]  # split 2 missing
    out[2, 1, 0, 0] = 0.0  # read as zero
    scale = expected.abs().max().item()
    lines = explain(problem, config, out, expected, partials, scale)
    assert lines[0] == ("    wrong 2 of 54 elements (1 exactly zero) in 1 of 1 tiles; elements per wrong tile "
                        "[(2, 1)]")
    assert "[('11.1', 1), ('....', 1)]" in lines[1]
