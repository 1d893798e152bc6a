# Sliding-rows depthwise kernels and merged narrow tiles (seventh session of 2026-11-23), with carry [".whl"]:
#   bash bench/device_sliding_rows.sh [SWEEP ...]
# 1. every new `default` instance (sliding rows; eight tiny groups per narrow tile; and the tiny-group kernels at
#    5x5 and 7x7 with K/G > 1, which had no device shape before) against float64 on the device shapes, all dtypes;
# 2. the bf16 `default` sweeps resumed, i.e. the rows of the new instances, in the order given (default: all five):
#    train tiny depthwise train-tiny baseline. Each CSV comes back in $OUT; copy it over its file in bench/results/.
# The gain of a family within one file: python bench/compare_sweeps.py F F --before-without _sr
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( 570 - ($(date +%s) - start) )); }
rm -rf /tmp/verify  # a warm machine keeps an earlier call's rows, which verify_device would skip as done
filter="sliding_rows > 0 or rule in ['igemm-bwd-data-merge-narrow', 'igemm-bwd-weight-merge-narrow'] or (group_channels > 1 and filter_size > 3 and multiplier > 1)"
timeout 200 python3 bench/verify_device.py --rule-set default --dtypes bf16 fp16 fp32 --filter "$filter" \
  --out /tmp/verify --deadline-s 180 > $OUT/verify.log 2>&1
echo "verify rc=$?"; cp /tmp/verify/summary.md $OUT/verify-summary.md 2>/dev/null
declare -A files=([train]=train-default-bf16-gputime:train-synthetic-bf16
                  [tiny]=tiny-groups/tiny-groups-default-bf16:tiny-groups-synthetic-bf16
                  [depthwise]=depthwise-family/depthwise-default-bf16:depthwise-synthetic-bf16
                  [train-tiny]=train-tiny-groups-default-bf16:train-tiny-groups-synthetic-bf16
                  [baseline]=baseline-default-bf16-gputime:baseline-synthetic-bf16)
for sweep in ${@:-train tiny depthwise train-tiny baseline}; do
  [ $(left) -lt 30 ] && { echo "$sweep: no time left"; continue; }
  name=${files[$sweep]}; out=${name%%:*}; problems=${name##*:}
  timeout $(left) gconv bench sweep --rule-set default --problems bench/problems/$problems.csv \
    --out bench/results/$out.csv --gpus auto > /tmp/sweep-$sweep.log 2>&1; echo "$sweep rc=$?"
  cp bench/results/$out.csv $OUT/
  { echo "== $sweep"; grep -v compiled /tmp/sweep-$sweep.log | tail -16; } >> $OUT/sweeps.log
done
grep -E "instances pass" $OUT/verify-summary.md; cat $OUT/sweeps.log
