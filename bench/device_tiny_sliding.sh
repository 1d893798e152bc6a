# Sliding rows for the tiny-group forward kernels (C/G = 2 or 4), on the device with carry [".whl"]:
#   bash bench/device_tiny_sliding.sh      (name the machine nvidia-h100-x1; BUDGET_S=seconds, default 560)
# Every tiny-group fwd kernel of `default` against its twin with one axis set, on the training problems that have
# tiny groups (bf16 and the fp16 seed-79 set; never the held-out files), $OUT/ab-LABEL.csv each:
#   sr1, sr2            sliding rows at row stride 1 / 2 (the same 4-row tiles);
#   sr1-tall, sr2-tall  the same with 64-pixel tiles of 4 warps (8 x 8 and 4 x 16 pixels: more rows share a load);
#   c8                  no sliding, 8 groups a program (G = 8 fills half of a 16-group tile).
# Score each with python -m bench.ab_rule FILE --add-twins EXPR.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
tiny_twins fwd sr1 110 --set sliding_rows=1
tiny_twins fwd sr2 70 --set sliding_rows=2
tiny_twins fwd sr1-tall 110 --set sliding_rows=1 --set block_m=64 --set num_warps=4
tiny_twins fwd sr2-tall 70 --set sliding_rows=2 --set block_m=64 --set num_warps=4
tiny_twins fwd c8 $(( $(left) - 30 )) --set block_n=8
