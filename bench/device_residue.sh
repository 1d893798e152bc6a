# For the next device session (prepared 2026-11-23, fourth session; not yet run), with carry [".whl"]:
#   bash bench/device_residue.sh
# The igemm bwd_data kernels now tile stride-residue classes apart (templates/igemm_bwd_data.py.j2):
# 1. every bwd_data igemm instance of full-tests (bf16, fp16) against float64 on the device shapes;
# 2. their rows at stride > 1, dropped from the held-out and training files (bench/drop_rows.py), measured again by
#    resuming the sweeps: held-out first (their speed-up over cuDNN is the result), then training, with what is left.
# Copy the returned CSVs over the files of the same names under bench/results/ (depthwise-default-bf16.csv goes to
# bench/results/depthwise-family/), then retrain: gconv train --measurements bench/results/train-default-bf16-gputime.csv.
. bench/device_setup.sh
rm -rf /tmp/verify  # a warm machine keeps an earlier call's rows, which verify_device would skip as done
start=$(date +%s)
left() { echo $(( 575 - ($(date +%s) - start) )); }
timeout 200 python3 bench/verify_device.py --rule-set full-tests --dtypes bf16 fp16 \
  --filter "direction == 'bwd_data' and algorithm == 'igemm'" --out /tmp/verify --deadline-s 170 > $OUT/verify.log 2>&1
echo "verify rc=$?"; cp /tmp/verify/summary.md $OUT/verify-summary.md
resume_bf16_sweeps
tail -12 $OUT/verify-summary.md
grep -v compiled $OUT/baseline-default-bf16-gputime.log | tail -14
