# StreamK and two-stage split-K on the device (prepared 2026-11-23, fifth session; not yet run), with carry [".whl"]:
#   bash bench/device_streamk.sh
# 1. every StreamK and two-stage instance of full-tests (bf16, fp16) against float64 on the device shapes (StreamK is
#    interpreter-verified only so far; two-stage matched cuDNN in bench/results/two-stage/);
# 2. the A/B of StreamK twins (pipeline=streamk, split_k=1) against every igemm bwd_weight candidate of `default`
#    (split-K with atomics included), the CK StreamK comparison of issue 4 on the H100.
# Copy $OUT/ab-streamk.csv, ab.log and verify-summary.md to bench/results/streamk/ with a README.
. bench/device_setup.sh
rm -rf /tmp/verify
timeout 250 python3 bench/verify_device.py --rule-set full-tests --dtypes bf16 fp16 \
  --filter "pipeline == 'streamk' or two_stage" --out /tmp/verify --deadline-s 220 > $OUT/verify.log 2>&1
echo "verify rc=$?"; cp /tmp/verify/summary.md $OUT/verify-summary.md 2>/dev/null
timeout 320 python3 -m bench.ab_variant --problems bench/problems/baseline-synthetic-bf16.csv \
  bench/problems/train-synthetic-bf16.csv --set pipeline=streamk --set split_k=1 --directions bwd_weight \
  --min-channels 16 --deadline-s 300 --out $OUT/ab-streamk.csv > $OUT/ab.log 2>&1; echo "ab rc=$?"
tail -8 $OUT/verify-summary.md
tail -6 $OUT/ab.log
