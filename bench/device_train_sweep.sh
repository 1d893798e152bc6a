# Continue the GPU-time training sweep (resumable; compiled and measured 2 batches at a time, so a call stopped by its
# limit keeps what it measured) of one dtype: `bash bench/device_train_sweep.sh [bf16|fp16]` on the
# device with carry [".whl"]; copy the returned $OUT/train-default-<dtype>-gputime.csv over
# bench/results/train-default-<dtype>-gputime.csv and run it again until every problem is complete (bf16 took two
# calls, ~9.5 and ~2.5 minutes, on 2026-11-23).
dtype=${1:-bf16}
. bench/device_setup.sh
timeout 570 gconv bench sweep --rule-set default --problems bench/problems/train-synthetic-$dtype.csv --compile-window 2 \
  --out bench/results/train-default-$dtype-gputime.csv --gpus auto > $OUT/train.log 2>&1; echo "train rc=$?"
cp bench/results/train-default-$dtype-gputime.csv $OUT/
grep -v compiled $OUT/train.log | tail -4
