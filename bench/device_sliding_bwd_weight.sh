# The sliding-rows depthwise bwd_weight kernels (generator/templates/depthwise_sliding_bwd_weight.py.j2) on the device,
# with carry [".whl"]:  bash bench/device_sliding_bwd_weight.sh
# First every one of `default` against float64 on the first device shape it supports (bench/verify_device.py), then
# their rows in every committed sweep (bench/device_resume_sweeps.sh: the sweeps measure exactly the missing pairs).
# Both resumable with the same command.
. bench/device_setup.sh
begun=$(date +%s)
timeout 130 python3 bench/verify_device.py --rule-set default --filter "sliding_rows > 0 and direction == 'bwd_weight'" \
  --shapes-per-instance 1 --out bench/results/verify-sliding-bwd-weight --deadline-s 110 > $OUT/verify.log 2>&1
echo "verify rc=$?"; grep -E "instances pass" bench/results/verify-sliding-bwd-weight/summary.md
(cd bench/results && tar czf $OUT/verify-sliding-bwd-weight.tgz verify-sliding-bwd-weight)
BUDGET_S=$(( ${BUDGET_S:-560} - ($(date +%s) - begun) )) bash bench/device_resume_sweeps.sh
