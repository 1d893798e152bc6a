# Sliding rows for depthwise bwd_data at stride 2 x 2 (stride-residue classes), on the device with carry [".whl"]:
#   bash bench/device_strided_sliding.sh    (name the machine nvidia-h100-x1; BUDGET_S=seconds, default 560)
# Every per-tap depthwise bwd_data kernel of `default` (one channel per group) against its twin with sliding rows,
# on bench/problems/strided-depthwise-bwd-data-train.csv (the training files' stride-2 depthwise bwd_data problems;
# never the held-out files), $OUT/ab-LABEL.csv each:
#   sr2        the same tiles (2 x 16, 4 x 8 and 4 x 16 pixels);
#   sr2-tall   8 x 16-pixel tiles of 64 channels, 4 warps (more class rows share a load);
#   sr2-wide   8 x 8-pixel tiles of 128 channels, 4 warps.
# Score each with python -m bench.ab_rule FILE --add-twins EXPR.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
# strided_twins LABEL DEADLINE FILTER ARGS...: ab_twins over the per-tap kernels FILTER selects
strided_twins() {
  label=$1 deadline=$2 filter=$3; shift 3
  ab_twins $label $deadline "$@" --algorithms depthwise --directions bwd_data \
    --filter "group_channels == 1 and sliding_rows == 0 and $filter" \
    --problems bench/problems/strided-depthwise-bwd-data-train.csv
}
strided_twins sr2 170 "block_m > 0" --set sliding_rows=2
# one base a vector width (the 4 x 16 tile), so each tall or wide twin is timed once
strided_twins sr2-tall 150 "tile_w == 16 and block_m == 64" --set sliding_rows=2 --set block_m=128 --set block_n=64
strided_twins sr2-wide $(( $(left) - 30 )) "tile_w == 16 and block_m == 64" --set sliding_rows=2 --set tile_w=8 \
  --set block_n=128
