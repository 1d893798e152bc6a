# igemm bwd_data classes reached in h only (2026-11-23, fifth session), with carry [".whl"]:  bash bench/device_class_divisor.sh
# bench/ab_variant.py and bench/diagnose_classes.py found the flat igemm bwd_data walk wrong on the H100 for stride-2,
# dilation-2 problems: in the residue classes that taps reach in h but not in w, the compiler assumed the divisor
# fx_count (zero there) was nonzero. The templates now divide by max(fx_count, 1). Verified here: every igemm bwd_data
# instance of full-tests (flat and tap-major, bf16 and fp16) on the shapes with such classes, then the per-class
# diagnosis.
. bench/device_setup.sh
rm -rf /tmp/verify
timeout 420 python3 bench/verify_device.py --rule-set full-tests --dtypes bf16 fp16 \
  --filter "algorithm == 'igemm' and direction == 'bwd_data'" --shapes even-pad-s2-d2 odd-s2-d2 g2-s2-aligned \
  --out /tmp/verify --deadline-s 380 > $OUT/verify.log 2>&1
echo "verify rc=$?"; cp /tmp/verify/summary.md /tmp/verify/rows.jsonl $OUT/ 2>/dev/null
timeout 120 python3 bench/diagnose_classes.py > $OUT/diagnose.txt 2>&1; echo "diagnose rc=$?"
tail -8 $OUT/summary.md
grep -v '"pass"' $OUT/rows.jsonl | head -5
cat $OUT/diagnose.txt | cut -c1-200 | tail -32
