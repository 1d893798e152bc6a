# Last-arrival split reductions for the depthwise bwd_weight kernels (KernelConfig.last_arrival, `_sk<S>la`), on the
# device with carry [".whl"] (name nvidia-h100-x1):  bash bench/device_last_arrival.sh
# A split depthwise bwd_weight kernel costs three kernels a call: a memset of its fp32 workspace, itself (atomics into
# the workspace) and a cast into the result; on real-network layers of 10-30 us (zoo2 depthwise bwd_weight, 0.78x of
# cuDNN) the two extra launches are a large share. The last-arrival twin adds into a workspace the runtime keeps zeroed
# (runtime/arrival_workspace.py) and counts its splits in; the last split of each output block casts and re-zeroes:
# one kernel. 1. Every split depthwise bwd_weight kernel of `default` against that twin on bf16 training problems
# only (network-like and quantized seeds first, then seeds 10, 4, the first training set and the first tiny-group set),
# interleaved, cuDNN alongside, each twin's error against cuDNN's output recorded: $OUT/ab-last-arrival.csv; score a
# rule with  python -m bench.ab_rule bench/results/last-arrival/ab-last-arrival.csv [--keep-base EXPR]
# 2. The fp32 sliding-rows fwd 8-byte (2-wide) instances no session-36 verification deadline reached, against float64
# ($OUT/verify-summary.md). (BUDGET_S=seconds, default 570: keep it below the session's budget_left_s.)
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-570} - ($(date +%s) - start) )); }
TRAIN="bench/problems/train-network-like-seed1-synthetic-bf16.csv bench/problems/train-network-like-seed7-synthetic-bf16.csv
  bench/problems/train-network-like-seed8-synthetic-bf16.csv bench/problems/train-network-quantized-seed1-synthetic-bf16.csv
  bench/problems/train-seed10-synthetic-bf16.csv bench/problems/train-seed4-synthetic-bf16.csv
  bench/problems/train-synthetic-bf16.csv bench/problems/train-tiny-groups-synthetic-bf16.csv"
ab_twins last-arrival $(( $(left) - ${VERIFY_S:-110} - 60 )) --set last_arrival=true --algorithms depthwise \
  --directions bwd_weight --problems $TRAIN
VERIFY_SHAPES=1 verify_default $(( $(left) - 70 )) \
  "algorithm == 'depthwise' and dtype == 'fp32' and vector_width == 2 and direction == 'fwd' and sliding_rows > 0" fp32
grep -E "instances pass|FAIL" $OUT/verify-summary.md | head -12
