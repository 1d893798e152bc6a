# The stride-2 sliding-rows bwd_data kernels `default` took from bench/results/strided-sliding/, on the device with
# carry [".whl"] (name the machine nvidia-h100-x1; BUDGET_S=seconds, default 560; VERIFY_S, default 120):
#   bash bench/device_strided_sliding_adopt.sh         # depthwise (one channel per group)
#   bash bench/device_strided_sliding_adopt.sh tiny    # tiny groups (C/G = 2 or 4)
# 1. every one of them (bf16, fp16) against float64 on the first two device shapes it supports ($OUT/verify-summary.md);
# 2. the committed sweeps whose problems they run resumed (the new kernels are their missing (problem, kernel) pairs;
#    only these CSVs need to travel: bench/device_tree.py stash, then copy them back into bench/results/).
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
if [ "$1" = tiny ]; then rule=tiny-groups-strided-sliding-bwd-data sweeps=$STRIDED_TINY_SWEEPS
else rule=depthwise-strided-sliding-bwd-data sweeps=$STRIDED_DEPTHWISE_SWEEPS; fi
verify_default ${VERIFY_S:-120} "rule == '$rule'" bf16 fp16
grep -E "instances pass|FAIL" $OUT/verify-summary.md | head -5
STAGE_DIR=/tmp/gconv-stage resume_sweeps resumed $sweeps
