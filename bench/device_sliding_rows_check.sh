# Second call for the sliding-rows kernels (seventh session of 2026-11-23), with carry [".whl"]:
#   bash bench/device_sliding_rows_check.sh
# The first call (bench/device_sliding_rows.sh) ran out of time in its verification. This one runs
# 1. libgconv's GPU ctests on the `tests` set (its sliding-rows and merged narrow kernels through gconv_run);
# 2. every sliding-rows and merged-narrow instance of `default` (all dtypes) against float64 on the device shapes,
#    then, in the time left, the tiny-group kernels at 5x5 and 7x7 with K/G > 1 (bf16);
# 3. the bf16 sweeps of the tiny-group training problems and the held-out baseline resumed.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( 565 - ($(date +%s) - start) )); }
timeout 170 bash capi/device_check.sh tests $OUT/capi > /dev/null 2>&1; echo "capi rc=$?"
grep -E "tests passed|Failed|FAILED" $OUT/capi/ctest.log | head -5
rm -rf /tmp/verify /tmp/verify-cpg
timeout 190 python3 bench/verify_device.py --rule-set default --dtypes bf16 fp16 fp32 \
  --filter "sliding_rows > 0 or rule in ['igemm-bwd-data-merge-narrow', 'igemm-bwd-weight-merge-narrow']" \
  --out /tmp/verify --deadline-s 175 > /tmp/verify.log 2>&1
echo "verify rc=$?"; cp /tmp/verify/summary.md $OUT/verify-summary.md 2>/dev/null; tail -3 /tmp/verify.log
for name in train-tiny-groups-default-bf16:train-tiny-groups-synthetic-bf16 baseline-default-bf16-gputime:baseline-synthetic-bf16; do
  out=${name%%:*}; problems=${name##*:}
  [ $(left) -lt 40 ] && { echo "$out: no time left"; continue; }
  timeout $(( $(left) - 30 )) gconv bench sweep --rule-set default --problems bench/problems/$problems.csv \
    --out bench/results/$out.csv --gpus auto > /tmp/sweep-$out.log 2>&1; echo "$out rc=$?"
  cp bench/results/$out.csv $OUT/
  { echo "== $out"; grep -v compiled /tmp/sweep-$out.log | tail -9; } >> $OUT/sweeps.log
done
if [ $(left) -gt 40 ]; then
  timeout $(( $(left) - 10 )) python3 bench/verify_device.py --rule-set default --dtypes bf16 \
    --filter "group_channels > 1 and filter_size > 3 and multiplier > 1" --out /tmp/verify-cpg \
    --deadline-s $(( $(left) - 20 )) > /tmp/verify-cpg.log 2>&1; echo "verify cpg rc=$?"
  cp /tmp/verify-cpg/summary.md $OUT/verify-cpg-summary.md 2>/dev/null; tail -2 /tmp/verify-cpg.log
fi
grep -E "instances pass" $OUT/verify-summary.md $OUT/verify-cpg-summary.md; cat $OUT/sweeps.log
