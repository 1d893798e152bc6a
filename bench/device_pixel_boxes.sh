# The igemm bwd_weight pixel-box kernels (rules/full.yaml igemm-bwd-weight-boxes, `_px<rows>x<cols>`; prototype in
# bench/results/bwd-weight-tma/) on the device, with carry [".whl"]:  bash bench/device_pixel_boxes.sh
# First every one of `default` against float64 on the device shapes it supports (bench/verify_device.py), then their
# rows in every committed sweep (bench/device_resume_sweeps.sh: the sweeps measure exactly the missing pairs). Both
# resumable with the same command.
. bench/device_setup.sh
begun=$(date +%s)
timeout 150 python3 bench/verify_device.py --rule-set default --filter "tile_w > 0 and algorithm == 'igemm'" \
  --dtypes bf16 fp16 --shapes-per-instance 3 --out bench/results/verify-pixel-boxes --deadline-s 130 > $OUT/verify.log 2>&1
echo "verify rc=$?"; grep -E "instances pass" bench/results/verify-pixel-boxes/summary.md
(cd bench/results && tar czf $OUT/verify-pixel-boxes.tgz verify-pixel-boxes)
BUDGET_S=$(( ${BUDGET_S:-560} - ($(date +%s) - begun) )) bash bench/device_resume_sweeps.sh
