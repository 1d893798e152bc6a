# The direct bwd_weight kernels' last-arrival A/B (session 37 prepared it, session 38 ran it and adopted the rule:
# bench/results/last-arrival/README.md), on the device with carry [".whl"] (name nvidia-h100-x1), the tree stashed
# with `python -m bench.device_tree stash DIR --rule-set default tests` (step 1 builds `tests`):
#   bash bench/device_last_arrival_direct.sh
# Since the rule, the vector splits of `default` are the twins themselves: an A/B again needs
# `--set last_arrival=false` for them.
# 1. The C library's GPU check of the `tests` set (capi_check: AOT build, ctest's GPU tests, gconv-helper --validate):
#    its last-arrival kernels' C launch path (a zeroed temporary of each call) has not run on a GPU yet.
# 2. The direct bwd_weight kernels' last-arrival epilogue (`_sk<S>la` on `direct`, in no set yet): every split direct
#    bwd_weight kernel of `default` against its twin on bf16 training problems only (the network-like and quantized
#    seeds, seed 4, the first tiny-group sets), interleaved, cuDNN alongside: $OUT/ab-last-arrival-direct.csv; score
#    a rule with  python -m bench.ab_rule FILE [--keep-base EXPR]  and adopt it as the depthwise one was
#    (bench/results/last-arrival/README.md: a set constraint, the replaced rows dropped and measured anew).
# (CAPI_S seconds for step 1, default 240; BUDGET_S for the whole call, default 570.)
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-570} - ($(date +%s) - start) )); }
capi_check ${CAPI_S:-240}
TRAIN="bench/problems/train-network-like-seed1-synthetic-bf16.csv bench/problems/train-network-like-seed7-synthetic-bf16.csv
  bench/problems/train-network-quantized-seed1-synthetic-bf16.csv bench/problems/train-seed4-synthetic-bf16.csv
  bench/problems/train-tiny-groups-synthetic-bf16.csv bench/problems/train-tiny-groups-seed78-synthetic-bf16.csv"
ab_twins last-arrival-direct $(( $(left) - 40 )) --set last_arrival=true --algorithms direct --directions bwd_weight \
  --problems $TRAIN
