# The deep-split bwd_weight tiles of `default` (rules/full.yaml igemm-bwd-weight-deep-split: split_k 64 and 256 on the
# narrow 32 x 64 tile, scalar loads) on the device, with carry [".whl"]:  bash bench/device_deep_split.sh
# (name the machine nvidia-h100-x1: every committed sweep is H100; BUDGET_S=seconds, default 560)
# 1. every deep-split instance (`profiler` holds all 12 -- 24 when this ran, with the vector twins dropped since;
#    `default` and `full-tests` a subset) in bf16, fp16 and fp32 against float64 on six device shapes, one input
#    channel among them ($OUT/verify-summary.md);
# 2. then every committed sweep resumed: the new kernels are the missing (problem, kernel) pairs ($OUT/resumed.tgz).
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
timeout 150 python3 bench/verify_device.py --rule-set profiler --dtypes bf16 fp16 fp32 \
  --filter "rule == 'igemm-bwd-weight-deep-split'" --shapes g1-aligned odd-s2-d2 small-groups stem-7x7-odd \
  one-channel-5x20-s2 pointwise-odd --out /tmp/verify --deadline-s 120 > /tmp/verify.log 2>&1
echo "verify rc=$?"; cp /tmp/verify/summary.md $OUT/verify-summary.md 2>/dev/null; tail -n 3 /tmp/verify.log
grep -E "instances pass|FAIL" $OUT/verify-summary.md | head -5
STAGE_DIR=/tmp/gconv-stage resume_sweeps resumed $ALL_SWEEPS
