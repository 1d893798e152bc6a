# Tap-major igemm on the device (2026-11-23, fifth session), with carry [".whl"]:  bash bench/device_tap_major.sh
# `default` now walks the bwd_data reduction tap by tap (bench/ab_variant.py measured 1.07x the flat walk on C/G > 16):
# 1. every tap-major instance of full-tests (fwd and bwd_data, bf16 and fp16) against float64 on the device shapes;
# 2. the new default kernels measured by resuming the bf16 sweeps: held-out baseline, depthwise family, training.
# Copy the returned CSVs over the files of the same names under bench/results/ (depthwise-default-bf16.csv goes to
# bench/results/depthwise-family/), drop the flat bwd_data rows default no longer has, then retrain.
. bench/device_setup.sh
rm -rf /tmp/verify  # a warm machine keeps an earlier call's rows, which verify_device would skip as done
start=$(date +%s)
left() { echo $(( 575 - ($(date +%s) - start) )); }
timeout 230 python3 bench/verify_device.py --rule-set full-tests --dtypes bf16 fp16 --filter "tap_major" \
  --out /tmp/verify --deadline-s 200 > $OUT/verify.log 2>&1
echo "verify rc=$?"; cp /tmp/verify/summary.md $OUT/verify-summary.md
resume_bf16_sweeps
tail -12 $OUT/verify-summary.md
grep -v compiled $OUT/train-default-bf16-gputime.log | tail -14
