# Depthwise bwd_weight with every tap of an unrolled tile in registers (session 57: the template choice
# filter_programs=unrolled, generator/templates/depthwise_unrolled_bwd_weight.py.j2), on the device with carry
# [".whl"], the tree stashed with `python -m bench.device_tree stash DIR --results-but`:
#   [PROBLEMS=FILE] [BUDGET_S=570] bash bench/device_unrolled_taps.sh          # first A/B
#   [PROBLEMS=FILE] [BUDGET_S=570] bash bench/device_unrolled_taps.sh small    # second A/B
#   [PROBLEMS=FILE] [BUDGET_S=570] bash bench/device_unrolled_taps.sh t4x8     # third
#   [PROBLEMS=FILE] [BUDGET_S=570] bash bench/device_unrolled_taps.sh row      # fourth
# The sliding-rows `default` kernels of one channel and filter a group with 4 x 8-pixel tiles and 16-byte vectors
# (32 groups a program, or 64 but at 7 x 7, whose unrolled twin spills) against their unrolled twins with one warp
# (a group's value a thread; two at 64 groups), interleaved, cuDNN alongside, on bf16 training problems only (by
# default bench/problems/unrolled-bwd-weight-train-bf16.csv: where cuDNN beat every kernel, and a sample where not):
# first keeping each base's split, then 256 splits (one warp a program leaves few programs: twins of the 64-split
# bases only). $OUT/ab-unrolled-*.csv; score with python -m bench.ab_rule FILES --sweeps <the training files>.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-570} - ($(date +%s) - start) )); }
default_problems=bench/problems/unrolled-bwd-weight-train-bf16.csv
[ -n "$1" ] && default_problems=bench/problems/unrolled-bwd-weight-large-train-bf16.csv
PROBLEMS=${PROBLEMS:-$default_problems}
BASES="sliding_rows > 0 and group_channels == 1 and multiplier == 1 and tile_w == 8 and block_m == 32
  and vector_width == 8"
WHOLE="$BASES and not (block_n == 64 and filter_size == 7)"  # the 64-group 7 x 7 twin spills at 4 x 8 pixels
C32="$BASES and block_n == 32 and split_k == 64"
C64="$BASES and block_n == 64 and num_warps == 2 and split_k == 64"
if [ "$1" = small ]; then
  # Second A/B (bench/results/unrolled-taps/README.md): 2 x 8-pixel twins (fewer registers: more warps an SM) with 256
  # splits, of the 64-split bases, on the problems whose fastest kernel takes 40 us or more; one group a thread (32
  # groups a warp, 64 with two).
  ab_twins unrolled-t2x8-c32 $(( $(left) / 2 )) --choice filter_programs=unrolled --set num_warps=1 --set block_m=16 \
    --set split_k=256 --algorithms depthwise --directions bwd_weight --problems $PROBLEMS --filter "$(echo $C32)"
  ab_twins unrolled-t2x8-c64 $(( $(left) - 30 )) --choice filter_programs=unrolled --set block_m=16 --set split_k=256 \
    --algorithms depthwise --directions bwd_weight --problems $PROBLEMS --filter "$(echo $C64)"
  exit 0
fi
if [ "$1" = t4x8 ]; then  # third: the 4 x 8-pixel tiles of 32 groups, one warp, 256 splits
  ab_twins unrolled-t4x8-c32-sk256 $(( $(left) - 30 )) --choice filter_programs=unrolled --set num_warps=1 \
    --set split_k=256 --algorithms depthwise --directions bwd_weight --problems $PROBLEMS --filter "$(echo $C32)"
  exit 0
fi
if [ "$1" = row ]; then  # fourth: one output row a tile (1 x 8 pixels: fewer registers), 256 splits
  ab_twins unrolled-t1x8-c64 $(( $(left) / 2 )) --choice filter_programs=unrolled --set block_m=8 --set split_k=256 \
    --algorithms depthwise --directions bwd_weight --problems $PROBLEMS --filter "$(echo $C64)"
  ab_twins unrolled-t1x8-c32 $(( $(left) - 30 )) --choice filter_programs=unrolled --set num_warps=1 --set block_m=8 \
    --set split_k=256 --algorithms depthwise --directions bwd_weight --problems $PROBLEMS --filter "$(echo $C32)"
  exit 0
fi
ab_twins unrolled-split $(( $(left) * 11 / 20 )) --choice filter_programs=unrolled --set num_warps=1 \
  --algorithms depthwise --directions bwd_weight --filter "$(echo $WHOLE)" --problems $PROBLEMS
ab_twins unrolled-sk256 $(( $(left) - 30 )) --choice filter_programs=unrolled --set num_warps=1 --set split_k=256 \
  --algorithms depthwise --directions bwd_weight --filter "$(echo $WHOLE) and split_k == 64" --problems $PROBLEMS
