# First call of the eighth session of 2026-11-23, with carry [".whl"]:  bash bench/device_verify_pending.sh
# 1. libgconv's GPU ctests on the `tests` set: its sliding-rows kernels through gconv_run (never run on a GPU);
# 2. the fp16 and fp32 sliding-rows and merged-narrow instances of `default` against float64 (bf16 passed in the
#    seventh session), on a covering subset of the device shapes (each instance gets at least two it supports, or all
#    it has; full-shape runs recompile every kernel per shape and ran out of time);
# 3. the bf16 tiny-group kernels at 5x5 / 7x7 with K/G > 1 on their eight device shapes;
# 4. in the time left, the fp16 training sweep (resumable; bench/device_train_sweep.sh continues it).
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( 570 - ($(date +%s) - start) )); }
timeout 170 bash capi/device_check.sh tests $OUT/capi > /dev/null 2>&1; echo "capi rc=$?"
grep -E "tests passed|Failed|FAILED" $OUT/capi/ctest.log | head -8
rm -rf /tmp/verify /tmp/verify-cpg
timeout 150 python3 bench/verify_device.py --rule-set default --dtypes fp16 fp32 \
  --filter "sliding_rows > 0 or rule in ['igemm-bwd-data-merge-narrow', 'igemm-bwd-weight-merge-narrow']" \
  --shapes depthwise-7x7-s2 depthwise-s2 multiplier-s2 small-groups tiny-groups-c4k4-s2-d2 sliding-3x3-m1 \
    sliding-3x3-m2-d2 sliding-5x5-m1 sliding-5x5-m1-s2 sliding-5x5-m2-d2 sliding-5x5-m2-s2 sliding-7x7-m1 \
    sliding-7x7-m2 sliding-7x7-m2-s2 \
  --out /tmp/verify --deadline-s 120 > /tmp/verify.log 2>&1
echo "verify rc=$?"; cp /tmp/verify/summary.md $OUT/verify-summary.md 2>/dev/null; tail -n 3 /tmp/verify.log
timeout 100 python3 bench/verify_device.py --rule-set default --dtypes bf16 \
  --filter "group_channels > 1 and filter_size > 3 and multiplier > 1" \
  --shapes tiny-groups-5x5-c2k2 tiny-groups-5x5-c2k4-d2 tiny-groups-5x5-c4k2-s2 tiny-groups-5x5-c4k4 \
    tiny-groups-7x7-c2k2-s2 tiny-groups-7x7-c2k4 tiny-groups-7x7-c4k2 tiny-groups-7x7-c4k4-s2 \
  --out /tmp/verify-cpg --deadline-s 75 > /tmp/verify-cpg.log 2>&1
echo "verify cpg rc=$?"; cp /tmp/verify-cpg/summary.md $OUT/verify-cpg-summary.md 2>/dev/null; tail -n 2 /tmp/verify-cpg.log
grep -E "instances pass" $OUT/verify-summary.md $OUT/verify-cpg-summary.md
if [ $(left) -gt 60 ]; then
  timeout $(( $(left) - 15 )) gconv bench sweep --rule-set default --problems bench/problems/train-synthetic-fp16.csv \
    --out bench/results/train-default-fp16-gputime.csv --gpus auto > $OUT/train-fp16.log 2>&1; echo "train fp16 rc=$?"
  cp bench/results/train-default-fp16-gputime.csv $OUT/ 2>/dev/null
  grep -v compiled $OUT/train-fp16.log | tail -n 4
fi
