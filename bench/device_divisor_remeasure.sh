# After the igemm bwd_data divisor fix (2026-11-23, fifth session), with carry [".whl"]:  bash bench/device_divisor_remeasure.sh
# 1. The igemm bwd_data rows of stride > 1, dilation > 1 problems timed code that summed taps that do not exist in
#    some classes (bench/device_class_divisor.sh); bench/drop_rows.py dropped them and the resumed bf16 sweeps measure
#    them again (training, held-out baseline, depthwise family).
# 2. With what is left: `default` against cuDNN on the held-out problems in fp16 (bench/device_fp16.sh's first half).
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( 560 - ($(date +%s) - start) )); }
resume_bf16_sweeps
mkdir -p bench/results/fp16
{ cat bench/problems/baseline-synthetic-fp16.csv; grep -v '^#\|^direction' bench/problems/depthwise-synthetic-fp16.csv; } \
  > /tmp/heldout-fp16.csv
timeout $(left) gconv bench sweep --rule-set default --problems /tmp/heldout-fp16.csv \
  --out bench/results/fp16/heldout-default-fp16.csv --gpus auto > $OUT/heldout-fp16.log 2>&1; echo "fp16 sweep rc=$?"
cp bench/results/fp16/heldout-default-fp16.csv $OUT/ 2>/dev/null
grep -v compiled $OUT/train-default-bf16-gputime.log | tail -3
grep -v compiled $OUT/heldout-fp16.log | tail -16
