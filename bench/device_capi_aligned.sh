# Second call of the eighth session of 2026-11-23, with carry [".whl"]:  bash bench/device_capi_aligned.sh
# 1. libgconv's GPU ctests on the `tests` set with the aligned cubins (capi/aot.py): every library kernel through
#    gconv_run against float64, on problems that launch the aligned cubins and on problems that launch the generic ones;
# 2. bench/capi_speed.py: gconv_run (aligned and generic cubins) over the Triton JIT on the same kernels and problems;
# 3. in the time left, the fp16 training sweep (resumable, two batches compiled and measured at a time).
# Its first run (second call) ran the fp16 / fp32 sliding-rows fwd verification as step 3 instead (command in
# bench/results/sliding-rows/verify-fwd-fp16-fp32-summary.md); its third call ran it with the unit channel strides
# compiled in (capi/aot.py UNIT_STRIDES).
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( 570 - ($(date +%s) - start) )); }
timeout 300 bash capi/device_check.sh tests $OUT/capi > /dev/null 2>&1; echo "capi rc=$?"
grep -E "configure \+ build" $OUT/capi/device-check.txt; grep -E "tests passed|Failed|FAILED|failed" $OUT/capi/ctest.log | head -12
rm -f $OUT/capi/configure.log $OUT/capi/build.log
GCONV_LIBRARY=$(pwd)/build/device-tests/libgconv.so PYTHONUNBUFFERED=1 timeout $(( $(left) > 150 ? 150 : $(left) )) \
  python3 -m bench.capi_speed --out $OUT/capi-speed.csv > $OUT/capi-speed.log 2>&1; echo "capi_speed rc=$?"
tail -n 16 $OUT/capi-speed.log
if [ $(left) -gt 60 ]; then
  timeout $(( $(left) - 15 )) gconv bench sweep --rule-set default --problems bench/problems/train-synthetic-fp16.csv \
    --compile-window 2 --out bench/results/train-default-fp16-gputime.csv --gpus auto > $OUT/train-fp16.log 2>&1
  echo "train fp16 rc=$?"; cp bench/results/train-default-fp16-gputime.csv $OUT/ 2>/dev/null
  grep -v compiled $OUT/train-fp16.log | tail -n 4
fi
