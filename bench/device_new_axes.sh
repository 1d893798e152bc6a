# StreamK, two-stage split-K and explicit GEMM on the device in one call (sixth session of 2026-11-23), with carry
# [".whl"]:  bash bench/device_new_axes.sh
# 1. every StreamK, two-stage and explicit-GEMM instance of full-tests (bf16, fp16) against float64 on the device
#    shapes (StreamK and explicit GEMM were interpreter-verified only; two-stage matched cuDNN in two-stage/);
# 2. A/B of StreamK twins (pipeline=streamk, split_k=1) against every igemm bwd_weight candidate of `default`
#    (split-K with atomics included): the CK StreamK comparison of issue 4 on the H100;
# 3. A/B of every igemm fwd candidate of `default` against its explicit_gemm=true twin on the synthetic pointwise
#    problems.
# Results: bench/results/streamk/ and bench/results/explicit-gemm/ (verify-summary.md, ab-*.csv, ab-*.log).
. bench/device_setup.sh
rm -rf /tmp/verify
timeout 170 python3 bench/verify_device.py --rule-set full-tests --dtypes bf16 fp16 \
  --filter "pipeline == 'streamk' or two_stage or explicit_gemm" --out /tmp/verify --deadline-s 140 \
  > $OUT/verify.log 2>&1
echo "verify rc=$?"; cp /tmp/verify/summary.md $OUT/verify-summary.md 2>/dev/null
timeout 200 python3 -m bench.ab_variant --problems bench/problems/baseline-synthetic-bf16.csv \
  bench/problems/train-synthetic-bf16.csv --set pipeline=streamk --set split_k=1 --directions bwd_weight \
  --min-channels 16 --deadline-s 185 --out $OUT/ab-streamk.csv > $OUT/ab-streamk.log 2>&1; echo "streamk ab rc=$?"
timeout 180 python3 -m bench.ab_variant --problems bench/problems/pointwise-synthetic-bf16.csv \
  --set explicit_gemm=true --directions fwd --deadline-s 165 --out $OUT/ab-explicit-gemm.csv \
  > $OUT/ab-explicit-gemm.log 2>&1; echo "explicit gemm ab rc=$?"
tail -12 $OUT/verify-summary.md
tail -6 $OUT/ab-streamk.log
tail -6 $OUT/ab-explicit-gemm.log
