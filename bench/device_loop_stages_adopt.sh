# Adopting three-stage depthwise bwd_weight pixel loops (generator/render.py loop_stages), with carry [".whl"]:
#   bash bench/device_loop_stages_adopt.sh
# after dropping those kernels' rows from every committed sweep here (bench/results/loop-stages/README.md):
# 1. default's depthwise bwd_weight instances (every dtype) against float64 on a covering subset of the device shapes
#    (filters 3 / 5 / 7, multipliers 1 / 2 / 4, C/G 1 / 2 / 4, strides and dilations);
# 2. the resumed sweeps (device_resume_sweeps.sh) in the time left: they measure exactly the dropped rows, then
#    whatever else a file lacks (DeepBench's last problems).
start=$(date +%s)
. bench/device_setup.sh
rm -rf /tmp/verify-loop-stages
timeout 140 python3 bench/verify_device.py --rule-set default --dtypes bf16 fp16 fp32 \
  --filter "algorithm == 'depthwise' and direction == 'bwd_weight'" \
  --shapes depthwise-s2 depthwise-5x5-d2 depthwise-7x7-s2 multiplier-s2 multiplier4-odd tiny-groups-s2 \
    tiny-groups-c4k4-s2-d2 tiny-groups-5x5-c2k2 tiny-groups-7x7-c4k2 small-groups \
  --out /tmp/verify-loop-stages --deadline-s 120 > $OUT/verify.log 2>&1
echo "verify rc=$?"; cp /tmp/verify-loop-stages/summary.md $OUT/verify-summary.md 2>/dev/null
grep -E "instances pass" $OUT/verify-summary.md
left() { echo $(( ${BUDGET_S:-575} - ($(date +%s) - start) )); }
resume_sweeps resumed $ALL_SWEEPS
(cd $OUT && tar czf resumed.tgz resumed && rm -r resumed)
