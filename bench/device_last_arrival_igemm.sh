# The igemm bwd_weight kernels' last-arrival epilogue (session 38 prepared it: `_sk<S>la` on `igemm`, multistage and
# tma, in no set yet), on the device with carry [".whl"] (name nvidia-h100-x1), the tree stashed with
# `python -m bench.device_tree stash DIR --rule-set default`:
#   bash bench/device_last_arrival_igemm.sh
# Every split igemm bwd_weight kernel of `default` (the atomic splits: the two-stage, persistent and StreamK ones have
# no twin) against its last-arrival twin on bf16 training problems only (the network-like and quantized seeds: small
# layers, where the workspace memset and the cast kernel weigh most; then seed 4), interleaved, cuDNN alongside:
# $OUT/ab-last-arrival-igemm.csv. Score a rule with  python -m bench.ab_rule FILE [--keep-base EXPR]  and adopt it as
# the depthwise and direct ones were (bench/results/last-arrival/README.md: a set constraint, the replaced rows dropped
# and measured anew, the adopted instances verified with VERIFY_FILTER="last_arrival and algorithm == 'igemm'" bash
# bench/device_last_arrival_sweeps.sh). The interpreter runs programs one after another, so a counter two output
# tiles shared would pass CI: the A/B's check against cuDNN's output is the first GPU test of the counters (one per
# tile and group block, runtime/grid.py arrival_blocks). BUDGET_S for the whole call, default 570.
# Session 39's first run found 909 of 2,735 twins wrong: the last arrival read zeros where another thread had zeroed
# an element before this one read it (bench/results/last-arrival/README.md); the template now puts a barrier between.
# The call first probes five pairs (bench/last_arrival_probe.py: four that were wrong, a depthwise control).
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-570} - ($(date +%s) - start) )); }
P=bwd_weight_bf16_ K=bwd_weight_bf16_igemm_
timeout 120 python3 -m bench.last_arrival_probe --repeats 4 \
  ${P}n32_g64_c32_k32_hi7_wi7_y3_x3_s1x1_p1x1_d1x1:${K}m32n64k32_w4_s3_ms_g1_v1_mg1_sk8la \
  ${P}n32_g16_c8_k8_hi112_wi112_y3_x3_s1x1_p1x1_d1x1:${K}m32n32k32_w2_s3_ms_g1_v1_mg8_sk8la \
  ${P}n8_g2_c64_k64_hi112_wi112_y3_x3_s1x1_p1x1_d1x1:${K}m16n64k32_w2_s3_ms_g1_v1_mg1_sk8la \
  ${P}n32_g1_c512_k512_hi14_wi14_y3_x3_s1x1_p1x1_d1x1:${K}m64n64k64_w4_s4_tma_g8_v8_mg1_px8x8_sk16la \
  ${P}n32_g240_c1_k1_hi56_wi56_y5_x5_s1x1_p2x2_d1x1:bwd_weight_bf16_depthwise_t2x8c32_f5_m1_w4_v1_sk16la \
  > $OUT/probe.log 2>&1
echo "probe rc=$?: $(grep -c 'error 0.00' $OUT/probe.log) of 20 runs within 0.01"
TRAIN="bench/problems/train-network-like-seed1-synthetic-bf16.csv bench/problems/train-network-like-seed7-synthetic-bf16.csv
  bench/problems/train-network-quantized-seed1-synthetic-bf16.csv bench/problems/train-seed4-synthetic-bf16.csv"
ab_twins last-arrival-igemm $(( $(left) - 40 )) --set last_arrival=true --algorithms igemm --directions bwd_weight \
  --problems $TRAIN
