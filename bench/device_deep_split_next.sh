# Where else many pixel splits pay (after ../results/one-channel/), on the device with carry [".whl"]:
#   bash bench/device_deep_split_next.sh      (name the machine nvidia-h100-x1; BUDGET_S=seconds, default 560)
# 1. the deep-split tiles of `default` (scalar loads) against their widest-vector twins (in `profiler` when
#    this ran, verified; dropped after it) on
#    the training problems whose channels allow them: DeepBench and the seed-10 synthetic set, C and K per group >= 8
#    ($OUT/ab-deep-split-v8.csv);
# 2. every split igemm bwd_weight tile of `default` (split_k 8 or 16, one stage) against its split_k 64 twin on
#    training problems with C and K per group <= 16, where the deep-split tiles won synthetic layers too
#    ($OUT/ab-split64-small.csv). Score both with python -m bench.ab_rule FILE --add-twins EXPR.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
ab_twins deep-split-v8 150 --set vector_width=8 --algorithms igemm --filter "rule == 'igemm-bwd-weight-deep-split'" \
  --directions bwd_weight --min-channels 8 --problems bench/problems/public-deepbench-bf16.csv \
  bench/problems/train-seed10-synthetic-bf16.csv
ab_twins split64-small $(( $(left) - 40 )) --set split_k=64 --algorithms igemm \
  --filter "split_k in [8, 16] and not two_stage" --directions bwd_weight --max-channels 16 \
  --problems bench/problems/train-tiny-groups-seed78-synthetic-bf16.csv bench/problems/train-seed10-synthetic-bf16.csv
