# The igemm bwd_weight kernels' last-arrival epilogue (session 38 prepared it: `_sk<S>la` on `igemm`, multistage and
# tma, in no set yet), on the device with carry [".whl"] (name nvidia-h100-x1), the tree stashed with
# `python -m bench.device_tree stash DIR --rule-set default`:
#   bash bench/device_last_arrival_igemm.sh
# Every split igemm bwd_weight kernel of `default` (the atomic splits: the two-stage, persistent and StreamK ones have
# no twin) against its last-arrival twin on bf16 training problems only (the network-like and quantized seeds: small
# layers, where the workspace memset and the cast kernel weigh most; then seed 4), interleaved, cuDNN alongside:
# $OUT/ab-last-arrival-igemm.csv. Score a rule with  python -m bench.ab_rule FILE [--keep-base EXPR]  and adopt it as
# the depthwise and direct ones were (bench/results/last-arrival/README.md: a set constraint, the replaced rows dropped
# and measured anew, the adopted instances verified with VERIFY_FILTER="last_arrival and algorithm == 'igemm'" bash
# bench/device_last_arrival_sweeps.sh). The interpreter runs programs one after another, so a counter two output
# tiles shared would pass CI: the A/B's check against cuDNN's output is the first GPU test of the counters (one per
# tile and group block, runtime/grid.py arrival_blocks). BUDGET_S for the whole call, default 570.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-570} - ($(date +%s) - start) )); }
TRAIN="bench/problems/train-network-like-seed1-synthetic-bf16.csv bench/problems/train-network-like-seed7-synthetic-bf16.csv
  bench/problems/train-network-quantized-seed1-synthetic-bf16.csv bench/problems/train-seed4-synthetic-bf16.csv"
ab_twins last-arrival-igemm $(( $(left) - 40 )) --set last_arrival=true --algorithms igemm --directions bwd_weight \
  --problems $TRAIN
