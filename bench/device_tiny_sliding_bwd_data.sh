# Sliding rows for the tiny-group backward-data kernels (C/G = 2 or 4, stride 1), on the device with carry [".whl"]:
#   bash bench/device_tiny_sliding_bwd_data.sh    (name the machine nvidia-h100-x1; BUDGET_S=seconds, default 560)
# Every tiny-group bwd_data kernel of `default` against its twin with sliding rows, on the training problems that
# have tiny groups (bf16 and the fp16 seed-79 set; never the held-out files), $OUT/ab-LABEL.csv each:
#   bwd-sr1       the same tiles (4 x 8 and 4 x 16 pixels);
#   bwd-sr1-tall  64-pixel tiles of 4 warps (8 x 8 and 4 x 16 pixels: more rows share a load).
# Score each with python -m bench.ab_rule FILE --add-twins EXPR.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
tiny_twins bwd_data bwd-sr1 200 --set sliding_rows=1
tiny_twins bwd_data bwd-sr1-tall $(( $(left) - 30 )) --set sliding_rows=1 --set block_m=64 --set num_warps=4
