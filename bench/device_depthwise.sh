# The device call of the depthwise-family session (2026-11-23, third session), as run with carry [".whl"]:
#   bash bench/device_depthwise.sh      (results: bench/results/depthwise-family/)
# 1. every bf16 depthwise instance of full-tests against float64 on the device shapes (runtime/verification.py);
# 2. the depthwise problems: `default`, now with the depthwise family, against cuDNN (same CSV format as before);
# 3. the resumable GPU-time training sweep continues with what is left of the call (the CSV comes back in $OUT).
set -x
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( 580 - ($(date +%s) - start) )); }
timeout 200 python3 bench/verify_device.py --rule-set full-tests --dtypes bf16 --filter "algorithm == 'depthwise'" \
  --out $OUT/verify --deadline-s 170 > $OUT/verify.log 2>&1; echo "verify rc=$?"
timeout 200 gconv bench sweep --rule-set default --problems bench/problems/depthwise-synthetic-bf16.csv \
  --out $OUT/depthwise-default-bf16.csv --gpus auto > $OUT/sweep.log 2>&1; echo "sweep rc=$?"
timeout $(left) gconv bench sweep --rule-set default --problems bench/problems/train-synthetic-bf16.csv \
  --out bench/results/train-default-bf16-gputime.csv --gpus auto > $OUT/train.log 2>&1; echo "train rc=$?"
cp bench/results/train-default-bf16-gputime.csv $OUT/
tail -25 $OUT/verify/summary.md
grep -v compiled $OUT/sweep.log | tail -30
grep -v compiled $OUT/train.log | tail -4
