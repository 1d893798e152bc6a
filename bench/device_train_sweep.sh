# Continue the GPU-time training sweep (resumable; compiled and measured 2 batches at a time, the next 2 compiled while
# these are measured, so a call stopped by its limit keeps what it measured) of one problem file: `bash bench/device_train_sweep.sh [bf16|fp16] [train|train-seed4]`
# on the device with carry [".whl"] sweeps bench/problems/<name>-synthetic-<dtype>.csv; copy the returned
# $OUT/<name>-default-<dtype>-gputime.csv over bench/results/<name>-default-<dtype>-gputime.csv and run it again until
# every problem is complete (bf16 seed 1 took two calls, ~9.5 and ~2.5 minutes, on 2026-11-23).
# (bench/problems/<name>-<dtype>.csv when there is no synthetic file of that name: public-deepbench)
dtype=${1:-bf16}
name=${2:-train}
problems=bench/problems/$name-synthetic-$dtype.csv
[ -f $problems ] || problems=bench/problems/$name-$dtype.csv
. bench/device_setup.sh
timeout 570 gconv bench sweep --rule-set default --problems $problems --compile-window 2 \
  --out bench/results/$name-default-$dtype-gputime.csv --gpus auto --require-gpu H100 --overlap-compile \
  > $OUT/$name.log 2>&1
echo "$name rc=$?"
cp bench/results/$name-default-$dtype-gputime.csv $OUT/
grep -v compiled $OUT/$name.log | tail -4
