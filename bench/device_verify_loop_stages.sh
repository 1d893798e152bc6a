# The pipelined depthwise bwd_weight kernels against float64 on the GPU, every one of them, with carry [".whl"]:
#   bash bench/device_verify_loop_stages.sh
# The twenty-third session's check (bench/results/loop-stages/verify-summary.md) ran 141 of `default`'s 387 on a
# hand-picked shape subset and found no supported shape for the other 246; --shapes-per-instance 1 gives each
# instance the first device shape it supports. Then `full-tests` (516, which `verify-full-tests/` holds stale rows of:
# their sources changed), in the time left; both resumable with the same command.
. bench/device_setup.sh
filter="algorithm == 'depthwise' and direction == 'bwd_weight'"
for set in default full-tests; do
  timeout 280 python3 bench/verify_device.py --rule-set $set --filter "$filter" --shapes-per-instance 1 \
    --out bench/results/verify-loop-stages-$set --deadline-s 240 > $OUT/verify-$set.log 2>&1
  echo "$set rc=$?"; grep -E "instances pass" bench/results/verify-loop-stages-$set/summary.md
  (cd bench/results && tar czf $OUT/verify-loop-stages-$set.tgz verify-loop-stages-$set)
done
