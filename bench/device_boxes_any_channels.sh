# Pixel boxes on any channel count (C * bytes % 16 == 0: each tap's channels rounded up to whole column tiles, no
# channel padding) on the device, with carry [".whl"]:  bash bench/device_boxes_any_channels.sh
# 1. every pixel-box kernel of `default` against float64 on the device shapes whose C no column tile divides
#    (bench/verify_device.py; resumable);
# 2. the C library's GPU check of the `tests` set (capi/device_check.sh: AOT build, ctest, gconv-helper --validate);
#    skipped when $OUT/capi already holds a finished check from this machine's earlier call;
# 3. the pixel-box rows dropped from the committed sweeps (python bench/drop_rows.py --where "tile_w > 0 and
#    algorithm == 'igemm' and C % block_n != 0" FILES) measured again (bench/device_resume_sweeps.sh; run this script
#    again until every file reports rc=0).
. bench/device_setup.sh
begun=$(date +%s)
timeout 170 python3 bench/verify_device.py --rule-set default --filter "tile_w > 0 and algorithm == 'igemm'" \
  --dtypes bf16 fp16 --shapes pointwise pointwise-odd boxes-c24-s2 boxes-c96-5x5 \
  --out bench/results/verify-boxes-any-channels --deadline-s 150 > $OUT/verify.log 2>&1
echo "verify rc=$?"; grep -E "instances pass|FAIL" bench/results/verify-boxes-any-channels/summary.md | head -20
(cd bench/results && tar czf $OUT/verify-boxes-any-channels.tgz verify-boxes-any-channels)
[ -z "$SKIP_CAPI" ] && capi_check 200
BUDGET_S=$(( ${BUDGET_S:-560} - ($(date +%s) - begun) )) bash bench/device_resume_sweeps.sh
