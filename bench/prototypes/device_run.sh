# The device calls of the 2026-11-23 prototype session, as run (results: bench/results/depthwise-gputime/,
# bench/results/baseline-default-bf16-gputime.*):   bash bench/prototypes/device_run.sh 1|2
set -x
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
python3 -m pip install -q --no-deps --no-build-isolation --no-index -e . >/dev/null 2>&1
export TRITON_DEFAULT_FP_FUSION=1
start=$(date +%s)
left() { echo $(( 575 - ($(date +%s) - start) )); }
if [ "${1:-1}" = 1 ]; then
  timeout 300 python3 bench/prototypes/depthwise.py --out $OUT > $OUT/prototype.log 2>&1; echo "prototype rc=$?"
  timeout $(left) gconv bench sweep --rule-set default --problems bench/problems/depthwise-synthetic-bf16.csv \
    --out $OUT/depthwise-default-bf16.csv --gpus auto > $OUT/sweep.log 2>&1; echo "sweep rc=$?"
else
  timeout 150 gconv bench sweep --rule-set default --problems bench/problems/baseline-synthetic-bf16.csv \
    --out $OUT/baseline-default-bf16.csv --gpus auto > $OUT/baseline.log 2>&1; echo "baseline rc=$?"
  timeout 170 python3 bench/prototypes/depthwise_bwd_weight.py --out $OUT > $OUT/prototype-bwd-weight.log 2>&1
  echo "prototype rc=$?"
  timeout $(left) gconv bench sweep --rule-set default --problems bench/problems/train-synthetic-bf16.csv \
    --out $OUT/train-default-bf16.csv --gpus auto > $OUT/train.log 2>&1; echo "train rc=$?"
fi
