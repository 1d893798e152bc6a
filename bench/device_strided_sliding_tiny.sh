# Sliding rows for tiny-group bwd_data (C/G = 2 or 4) at stride 2 x 2 (stride-residue classes), on the device with
# carry [".whl"]:
#   bash bench/device_strided_sliding_tiny.sh    (name the machine nvidia-h100-x1; BUDGET_S=seconds, default 560)
# Every per-tap tiny-group bwd_data kernel of `default` against its twin with sliding rows, on
# bench/problems/strided-tiny-groups-bwd-data-train.csv (the training files' stride-2 tiny-group bwd_data problems;
# never the held-out files), $OUT/ab-LABEL.csv each:
#   tiny-sr2        the same tiles (4 x 8 of 8 and 16 groups, 4 x 16 of 16);
#   tiny-sr2-tall   the 8 x 8-pixel tile of 16 groups, 4 warps (more class rows share a load).
# Score each with python -m bench.ab_rule FILE --add-twins EXPR.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
tiny_strided_twins() {
  label=$1 deadline=$2 filter=$3; shift 3
  ab_twins $label $deadline "$@" --algorithms depthwise --directions bwd_data \
    --filter "group_channels > 1 and sliding_rows == 0 and $filter" \
    --problems bench/problems/strided-tiny-groups-bwd-data-train.csv
}
tiny_strided_twins tiny-sr2 200 "block_m > 0" --set sliding_rows=2
# one base a vector width (the 4 x 16 tile), so each tall twin is timed once
tiny_strided_twins tiny-sr2-tall $(( $(left) - 30 )) "tile_w == 16" --set sliding_rows=2 --set tile_w=8
