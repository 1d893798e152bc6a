# Sliding rows for bwd_data at stride 2 x 2 (stride-residue classes), on the device with carry [".whl"]:
#   bash bench/device_strided_sliding.sh         # depthwise (one channel per group), 50 problems
#   bash bench/device_strided_sliding.sh tiny    # tiny groups (C/G = 2 or 4), 55 problems
# (name the machine nvidia-h100-x1; BUDGET_S=seconds, default 560). Every per-tap kernel of `default` of the kind
# against its twin with sliding rows, on bench/problems/strided-depthwise-bwd-data-train.csv or
# strided-tiny-groups-bwd-data-train.csv (the training files' stride-2 x 2 problems of the kind; never the held-out
# files), $OUT/ab-LABEL.csv each:
#   sr2, tiny-sr2         the same tiles (depthwise 2 x 16, 4 x 8 and 4 x 16 pixels; tiny groups 4 x 8 and 4 x 16);
#   sr2-tall, sr2-wide    8 x 16-pixel tiles of 64 channels and 8 x 8 of 128, 4 warps (more class rows share a load);
#   tiny-sr2-tall         the 8 x 8-pixel tile of 16 groups, 4 warps.
# The taller twins come from one base a vector width (the 4 x 16 tile), so each is timed once.
# Score each with python -m bench.ab_rule FILE... --add-twins EXPR.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
# strided_twins LABEL DEADLINE FILTER ARGS...: ab_twins over the per-tap kernels of the kind FILTER selects
strided_twins() {
  label=$1 deadline=$2 filter=$3; shift 3
  ab_twins $label $deadline "$@" --algorithms depthwise --directions bwd_data \
    --filter "$kind and sliding_rows == 0 and $filter" --problems bench/problems/strided-$problems-bwd-data-train.csv
}
if [ "$1" = tiny ]; then
  kind="group_channels > 1" problems=tiny-groups
  strided_twins tiny-sr2 200 "block_m > 0" --set sliding_rows=2
  strided_twins tiny-sr2-tall $(( $(left) - 30 )) "tile_w == 16" --set sliding_rows=2 --set tile_w=8
else
  kind="group_channels == 1" problems=depthwise
  strided_twins sr2 170 "block_m > 0" --set sliding_rows=2
  strided_twins sr2-tall 150 "tile_w == 16 and block_m == 64" --set sliding_rows=2 --set block_m=128 --set block_n=64
  strided_twins sr2-wide $(( $(left) - 30 )) "tile_w == 16 and block_m == 64" --set sliding_rows=2 --set tile_w=8 \
    --set block_n=128
fi
