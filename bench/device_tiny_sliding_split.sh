# The split channel reduction in the tiny-group sliding-rows fwd kernels, on the device with carry [".whl"]:
#   bash bench/device_tiny_sliding_split.sh    (name the machine nvidia-h100-x1; BUDGET_S=seconds, default 560)
# Every tiny-group sliding-rows fwd kernel of `default` against its twin rendered with channel_reduce=split (a
# [pixels, groups] accumulator an output channel, plain multiply-adds, no [pixels, groups, M, CPG] product: compiled
# for sm_90 the 7x7 M = C/G = 4 kernel needs 128 registers instead of 222 and two thirds of the FP instructions,
# bench/results/tiny-sliding/README.md) on the tiny-group training problems, $OUT/ab-sliding-split.csv.
# Score with python -m bench.ab_rule FILE --keep-base EXPR.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
ab_twins sliding-split $(( $(left) - 30 )) --choice channel_reduce=split --algorithms depthwise --directions fwd \
  --filter "group_channels > 1 and sliding_rows > 0" --problems $TINY_TRAIN
