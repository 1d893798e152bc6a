# Training data for the tiny-group kernels (sixth session of 2026-11-23), with carry [".whl"]:
#   bash bench/device_tiny_groups_train.sh
# `default` (every candidate, cuDNN's two modes) on 24 seeded synthetic tiny-group shapes x 3 directions
# (bench/problems/train-tiny-groups-synthetic-bf16.csv; the held-out tiny-group set is seed 5150). Resumable: copy
# $OUT/train-tiny-groups-default-bf16.csv to bench/results/ and call again until complete, then retrain:
#   gconv train --measurements bench/results/train-default-bf16-gputime.csv \
#       bench/results/train-tiny-groups-default-bf16.csv --dtype bf16 --arch sm_90 --rule-set default
. bench/device_setup.sh
timeout 430 gconv bench sweep --rule-set default --problems bench/problems/train-tiny-groups-synthetic-bf16.csv \
  --out bench/results/train-tiny-groups-default-bf16.csv --gpus auto > $OUT/train-tiny-groups-default-bf16.log 2>&1
echo "train tiny groups rc=$?"; cp bench/results/train-tiny-groups-default-bf16.csv $OUT/
grep -v compiled $OUT/train-tiny-groups-default-bf16.log | tail -9
