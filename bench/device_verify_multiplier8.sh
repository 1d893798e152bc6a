# The eight-filter tiny-group kernels of `default` (bench/results/multiplier8/) verified on the device against float64,
# with carry [".whl"] and the tree stashed by `python -m bench.device_tree stash DIR --rule-set default tests tiny
# --results-but`:  bash bench/device_verify_multiplier8.sh
# bf16 and fp16 on the first device shape each runs whose vectorised size (G) the JIT sees divisible by 8 only (the
# focus sweep verified them on aligned problems), fp32 (which no sweep measures) on its first two shapes; rows and
# summaries in $OUT/verify-m8.tgz (verify-m8-DTYPE/, one archive: the device tool returns at most 8 files).
. bench/device_setup.sh
for dtype in bf16 fp16; do
  timeout 230 python3 bench/verify_device.py --rule-set default --dtypes $dtype --misaligned-only \
    --shapes-per-instance 1 --filter "multiplier == 8" --out $OUT/verify-m8-$dtype --deadline-s 200 \
    > $OUT/verify-m8-$dtype.log 2>&1
  echo "verify $dtype rc=$?"; grep -E -A6 "instances pass" $OUT/verify-m8-$dtype/summary.md | head -8
done
timeout 200 python3 bench/verify_device.py --rule-set default --dtypes fp32 --shapes-per-instance 2 \
  --filter "multiplier == 8" --out $OUT/verify-m8-fp32 --deadline-s 170 > $OUT/verify-m8-fp32.log 2>&1
echo "verify fp32 rc=$?"; grep -E -A6 "instances pass" $OUT/verify-m8-fp32/summary.md | head -8
(cd $OUT && tar czf verify-m8.tgz verify-m8-* && rm -r verify-m8-bf16 verify-m8-fp16 verify-m8-fp32 verify-m8-*.log)
