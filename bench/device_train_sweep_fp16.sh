# The fp16 GPU-time training sweep (resumable): `bash bench/device_train_sweep_fp16.sh` on the device with carry
# [".whl"]; copy the returned $OUT/train-default-fp16-gputime.csv over bench/results/train-default-fp16-gputime.csv and
# run it again until every problem is complete (the bf16 sweep took two calls: ~9.5 and ~2.5 minutes).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
python3 -m pip install -q --no-deps --no-build-isolation --no-index -e . >/dev/null 2>&1
export TRITON_DEFAULT_FP_FUSION=1
timeout 570 gconv bench sweep --rule-set default --problems bench/problems/train-synthetic-fp16.csv \
  --out bench/results/train-default-fp16-gputime.csv --gpus auto > $OUT/train.log 2>&1; echo "train rc=$?"
cp bench/results/train-default-fp16-gputime.csv $OUT/
grep -v compiled $OUT/train.log | tail -4
