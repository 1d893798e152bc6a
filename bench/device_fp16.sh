# fp16 on the device (2026-11-23, fourth session), as run with carry [".whl"]:  bash bench/device_fp16.sh
# 1. `default` against cuDNN on the held-out synthetic problems in fp16 (baseline + depthwise shapes), resumable:
#    the CSV is written under bench/results/fp16/ and comes back in $OUT; copy it there to resume in a later call;
# 2. every fp16 depthwise instance of full-tests against float64 (runtime/verification.py), with what is left.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( 575 - ($(date +%s) - start) )); }
mkdir -p bench/results/fp16
{ cat bench/problems/baseline-synthetic-fp16.csv; grep -v '^#\|^direction' bench/problems/depthwise-synthetic-fp16.csv; } \
  > /tmp/heldout-fp16.csv
timeout 400 gconv bench sweep --rule-set default --problems /tmp/heldout-fp16.csv \
  --out bench/results/fp16/heldout-default-fp16.csv --gpus auto > $OUT/sweep.log 2>&1; echo "sweep rc=$?"
cp bench/results/fp16/heldout-default-fp16.csv $OUT/
timeout $(left) python3 bench/verify_device.py --rule-set full-tests --dtypes fp16 --filter "algorithm == 'depthwise'" \
  --out /tmp/verify --deadline-s $(( $(left) - 25 )) > $OUT/verify.log 2>&1; echo "verify rc=$?"
cat /tmp/verify/rows-*.jsonl > $OUT/verify-rows.jsonl 2>/dev/null
cp /tmp/verify/summary.md $OUT/verify-summary.md 2>/dev/null
grep -v compiled $OUT/sweep.log | tail -16
tail -12 $OUT/verify-summary.md
