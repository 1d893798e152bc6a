# Explicit GEMM for 1x1, stride-1, unpadded fwd convolutions (prepared 2026-11-23, fifth session; not yet run), with
# carry [".whl"]:  bash bench/device_explicit_gemm.sh
# 1. every explicit-GEMM instance of full-tests (bf16, fp16) against float64 on the device shapes (interpreter-verified
#    so far; the TMA ones read the input through a 2-D tensor descriptor);
# 2. A/B: every igemm fwd candidate of `default` against its explicit_gemm=true twin on the synthetic pointwise problems.
# Copy $OUT/ab-explicit-gemm.csv, ab.log and verify-summary.md to bench/results/explicit-gemm/ with a README.
. bench/device_setup.sh
rm -rf /tmp/verify
timeout 200 python3 bench/verify_device.py --rule-set full-tests --dtypes bf16 fp16 --filter "explicit_gemm" \
  --shapes pointwise pointwise-odd --out /tmp/verify --deadline-s 170 > $OUT/verify.log 2>&1
echo "verify rc=$?"; cp /tmp/verify/summary.md $OUT/verify-summary.md 2>/dev/null
timeout 330 python3 -m bench.ab_variant --problems bench/problems/pointwise-synthetic-bf16.csv \
  --set explicit_gemm=true --directions fwd --deadline-s 310 --out $OUT/ab-explicit-gemm.csv > $OUT/ab.log 2>&1
echo "ab rc=$?"
tail -8 $OUT/verify-summary.md
tail -6 $OUT/ab.log
