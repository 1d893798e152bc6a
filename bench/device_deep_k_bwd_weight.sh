# The block_k 64 bwd_weight tiles `default` gained (rules/default.yaml deep-k-bwd-weight; bench/results/bwd-weight-split/)
# on the device, with carry [".whl"]:  bash bench/device_deep_k_bwd_weight.sh
# First every one of `default` against float64 on the device shapes it supports (bench/verify_device.py), then their
# rows in every committed sweep (bench/device_resume_sweeps.sh: the sweeps measure exactly the missing pairs). Both
# resumable with the same command.
. bench/device_setup.sh
begun=$(date +%s)
timeout 130 python3 bench/verify_device.py --rule-set default \
  --filter "direction == 'bwd_weight' and block_k == 64 and split_k == 1" \
  --dtypes bf16 fp16 fp32 --shapes-per-instance 3 --out bench/results/verify-deep-k-bwd-weight --deadline-s 110 > $OUT/verify.log 2>&1
echo "verify rc=$?"; grep -E "instances pass" bench/results/verify-deep-k-bwd-weight/summary.md
(cd bench/results && tar czf $OUT/verify-deep-k-bwd-weight.tgz verify-deep-k-bwd-weight)
BUDGET_S=$(( ${BUDGET_S:-560} - ($(date +%s) - begun) )) bash bench/device_resume_sweeps.sh
