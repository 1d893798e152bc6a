# Tiny groups (C/G = 2, 4) on the depthwise kernels (sixth session of 2026-11-23), with carry [".whl"]:
#   [VERIFY_FILTER=EXPR] bash bench/device_tiny_groups.sh [resume]
# 1. every tiny-group instance of full-tests (bf16, fp16; VERIFY_FILTER narrows them, default "group_channels > 1")
#    against float64 on the device shapes;
# 2. `default` against cuDNN on the synthetic tiny-group problems (bench/problems/tiny-groups-synthetic-bf16.csv;
#    resumable: copy the returned CSV to bench/results/tiny-groups/ and call again until complete);
# 3. with `resume`: the bf16 training sweep resumed, i.e. the rows of new `default` instances on the training problems
#    (the held-out and depthwise sets hold no C/G 2 or 4 problem and no 1x1 stride-1 fwd problem).
# Copy $OUT/verify-summary.md and tiny-groups-default-bf16.csv / .log to bench/results/tiny-groups/ and the training
# CSV over bench/results/train-default-bf16-gputime.csv, then retrain:
#   gconv train --measurements bench/results/train-default-bf16-gputime.csv --dtype bf16
# Run on 2026-11-23: `bash bench/device_tiny_groups.sh` twice (the first call's verification shapes lacked most
# (C, K) pairs, and its sweep timed out; it also resumed all three bf16 sweeps), then
# `VERIFY_FILTER="group_channels > 1 and block_n == 8" bash bench/device_tiny_groups.sh resume` for the 8-group tiles.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( 575 - ($(date +%s) - start) )); }
rm -rf /tmp/verify  # a warm machine keeps an earlier call's rows, which verify_device would skip as done
timeout 230 python3 bench/verify_device.py --rule-set full-tests --dtypes bf16 fp16 \
  --filter "${VERIFY_FILTER:-group_channels > 1}" --out /tmp/verify --deadline-s 200 > $OUT/verify.log 2>&1
echo "verify rc=$?"; cp /tmp/verify/summary.md $OUT/verify-summary.md 2>/dev/null
mkdir -p bench/results/tiny-groups
timeout $(( $(left) - 120 )) gconv bench sweep --rule-set default \
  --problems bench/problems/tiny-groups-synthetic-bf16.csv --out bench/results/tiny-groups/tiny-groups-default-bf16.csv \
  --gpus auto > $OUT/tiny-groups-default-bf16.log 2>&1
echo "tiny groups rc=$?"; cp bench/results/tiny-groups/tiny-groups-default-bf16.csv $OUT/ 2>/dev/null
if [ "$1" = resume ]; then
  timeout $(left) gconv bench sweep --rule-set default --problems bench/problems/train-synthetic-bf16.csv \
    --out bench/results/train-default-bf16-gputime.csv --gpus auto > $OUT/train-default-bf16-gputime.log 2>&1
  echo "train rc=$?"; cp bench/results/train-default-bf16-gputime.csv $OUT/
fi
grep -E "instances pass" $OUT/verify-summary.md
grep -v compiled $OUT/tiny-groups-default-bf16.log | tail -8
[ "$1" = resume ] && grep -v compiled $OUT/train-default-bf16-gputime.log | tail -5
