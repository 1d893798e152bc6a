# The depthwise bwd_weight kernels with one program for every filter row / column (generator/render.py
# FILTER_PROGRAMS "single") on the device, with carry [".whl"]:  bash bench/device_single_filter_program.sh
# (name the machine nvidia-h100-x1: every committed sweep is H100)
# Nsight Compute found the sliding depthwise bwd_weight kernel DRAM-bound, its FILTER programs of one (split, group
# block) each reading the same dY and X tiles (bench/results/ncu/); launching them side by side ("adjacent") gained
# 1-2% (bench/results/filter-programs/). The "single" twin reads each dY tile once and each X row for every filter
# column back to back, with FILTER x FILTER accumulators (the twin keeps the grid: its other filter programs return at
# once). Every C/G = 1 depthwise bwd_weight kernel of `default` with a 3x3 or 5x5 filter (7x7 twins spill, compiled
# for sm_90) against that twin on bf16 training problems only (the network-like seeds 1 and 7, seeds 10, 4 and 1),
# interleaved, cuDNN alongside: $OUT/ab-single-filter-program.csv; score a rule with
#   python -m bench.ab_rule bench/results/single-filter-program/ab-single-filter-program.csv [--keep-base EXPR]
# Then (SPLITS=1) the split-64 kernels against twins of 256 splits, "single" and as they are: the single program's
# grid has FILTER times fewer programs at one split count, so the first A/B lost parallelism on small problems
# ($OUT/ab-single-split256.csv, $OUT/ab-apart-split256.csv).
# (BUDGET_S=seconds, default 565: keep it below the session's budget_left_s)
. bench/device_setup.sh
begun=$(date +%s)
TRAIN="bench/problems/train-network-like-seed1-synthetic-bf16.csv bench/problems/train-network-like-seed7-synthetic-bf16.csv
  bench/problems/train-seed10-synthetic-bf16.csv bench/problems/train-seed4-synthetic-bf16.csv
  bench/problems/train-synthetic-bf16.csv"
left=$(( ${BUDGET_S:-565} - ($(date +%s) - begun) ))
[ -n "$SPLITS" ] || ab_twins single-filter-program $((left - 30)) --choice filter_programs=single --algorithms depthwise \
  --directions bwd_weight --filter "group_channels == 1 and filter_size <= 5" --problems $TRAIN
[ -n "$SPLITS" ] || exit 0
left=$(( ${BUDGET_S:-565} - ($(date +%s) - begun) ))
ab_twins single-split256 $((left / 2 - 20)) --set split_k=256 --choice filter_programs=single --algorithms depthwise \
  --directions bwd_weight --filter "split_k == 64 and group_channels == 1 and filter_size <= 5" --problems $TRAIN
left=$(( ${BUDGET_S:-565} - ($(date +%s) - begun) ))
ab_twins apart-split256 $((left - 30)) --set split_k=256 --algorithms depthwise \
  --directions bwd_weight --filter "split_k == 64 and group_channels == 1 and filter_size <= 5" --problems $TRAIN
