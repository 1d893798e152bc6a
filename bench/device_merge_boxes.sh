# Merged pixel boxes (several tiny groups a tile: rules/full.yaml igemm-bwd-weight-merge-boxes and
# igemm-fwd-merge-boxes) on the device, with carry [".whl"]:  bash bench/device_merge_boxes.sh DIRECTION
# (bwd_weight or fwd; name the machine nvidia-h100-x1: every committed sweep is H100)
# 1. every merged pixel-box kernel of DIRECTION in `default` and `full-tests` against float64 on the device shapes
#    made for them (bench/verify_device.py into bench/results/verify-merge-boxes/DIRECTION-SET; resumable); the sweeps
#    are not resumed if any fails;
# 2. the C library's GPU check of the `tests` set (capi/device_check.sh: its merged pixel-box kernels through
#    libgconv) when CAPI=1;
# 3. their rows in every committed sweep (bench/device_resume_sweeps.sh: the sweeps measure exactly the missing
#    pairs; run this script again until every file reports rc=0).
. bench/device_setup.sh
begun=$(date +%s)
direction=${1:?"usage: bash bench/device_merge_boxes.sh bwd_weight|fwd"}
if [ "$direction" = fwd ]; then  # one descriptor of x for every tap: stride 1 only
  shapes="merge-boxes-c4 merge-boxes-c8-k16 merge-boxes-c2-k2-7x7 merge-boxes-fwd-c6-k3-d2"
else
  shapes="merge-boxes-c4 merge-boxes-c2-k6-s2 merge-boxes-c8-k16 merge-boxes-c2-k2-7x7"
fi
for set in default full-tests; do
  out=bench/results/verify-merge-boxes/$direction-$set
  timeout 100 python3 bench/verify_device.py --rule-set $set --dtypes bf16 fp16 --shapes $shapes --out $out \
    --filter "tile_w > 0 and groups_to_merge > 1 and direction == '$direction'" --deadline-s 85 \
    > $OUT/verify-$direction-$set.log 2>&1
  echo "verify $direction $set rc=$?"; grep -E -A12 "instances pass" $out/summary.md | head -24
done
(cd bench/results && tar czf $OUT/verify-merge-boxes.tgz verify-merge-boxes)
if grep -q "^## Failures" bench/results/verify-merge-boxes/$direction-*/summary.md; then
  echo "a kernel failed: no sweeps"; exit 1
fi
[ -n "$CAPI" ] && capi_check 230
BUDGET_S=$(( ${BUDGET_S:-560} - ($(date +%s) - begun) )) bash bench/device_resume_sweeps.sh
