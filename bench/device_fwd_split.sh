# Forward split-K (session 56: `_sk<S>la` on the flat igemm fwd, in `full` only), on the device with carry [".whl"],
# the tree stashed with `python -m bench.device_tree stash DIR --results-but none`:
#   [SPLITS="2 4 8 16"] [PROBLEMS=FILE] [BUDGET_S=570] bash bench/device_fwd_split.sh
# Each split count S in turn: the `default` tiles the `full` rule igemm-fwd-split splits (64 x 64 x 64 with 4 warps,
# 128 x 64 x 64 with 8; multistage and tma) against their twins with split_k=S reduced by last arrival, interleaved,
# cuDNN alongside, on bf16 training problems only: by default the C/G > 16 ones whose 128 x 64 output tiles fill
# under one wave of the SMs with GEMM-K >= 1024 (written by `python -m bench.vendor_wins --direction fwd --dtype bf16
# --bucket "C/G>16" "under 1 wave" deep --problems-out bench/problems/fwd-split-under-wave-bf16.csv`).
# $OUT/ab-fwd-split-skS-PROBLEMS.csv; score with python -m bench.ab_rule FILES --add-twins "..." --sweeps ...
# The A/B's check against cuDNN's output is the first GPU test of the forward counters (one per output tile and
# group block, runtime/grid.py arrival_blocks): the interpreter runs programs one after another.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-570} - ($(date +%s) - start) )); }
SPLITS=${SPLITS:-"2 4 8 16"}
PROBLEMS=${PROBLEMS:-bench/problems/fwd-split-under-wave-bf16.csv}
BASES="block_k == 64 and block_n == 64 and ((block_m == 64 and num_warps == 4) or (block_m == 128 and num_warps == 8))
  and groups_to_merge == 1 and not tap_major and tile_w == 0 and not explicit_gemm and not aligned_k
  and pipeline in ['multistage', 'tma']"
runs=$(echo $SPLITS | wc -w) done_runs=0
for split in $SPLITS; do
  share=$(( $(left) / (runs - done_runs) - 15 ))
  done_runs=$((done_runs + 1))
  ab_twins fwd-split-sk$split-$(basename $PROBLEMS .csv) $share --set split_k=$split --set last_arrival=true \
    --directions fwd --filter "$(echo $BASES)" --problems $PROBLEMS
done
