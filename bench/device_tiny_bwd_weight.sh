# Tiny-group backward-weight (C/G = 2 or 4, the depthwise `_cpg` kernels), with carry [".whl"]:
#   bash bench/device_tiny_bwd_weight.sh
# These problems are the furthest from the roofline (2.7-20% on the bf16 files, e.g. n128_g8_c2_k2_hi128 7x7: 1.6 ms
# against a 0.044 ms roofline, bench/results/k-walk/README.md): a program of 4 warps walks 16- or 32-pixel tiles, and
# split_k 64 gives a 7x7 problem with G <= 8 only 448 programs (3.4 per SM), too few to hide the loads' latency.
# bench/ab_variant.py times each tiny-group bwd_weight kernel against its twin with 4x the splits (split_k 256), then
# against its twin with 64-pixel tiles (8 x 8), on the bf16 tiny-group training problems; both twins pass against
# float64 under the interpreter (7x7, C/G = 2, M = 2). A twin that wins becomes a rule axis value in `full`, then
# `default` (new instances: every training sweep needs their rows).
. bench/device_setup.sh
ab() {  # ab LABEL DEADLINE FILTER UPDATE
  timeout $(($2 + 20)) python3 -m bench.ab_variant --problems bench/problems/train-tiny-groups-synthetic-bf16.csv \
    bench/problems/train-tiny-groups-seed78-synthetic-bf16.csv --algorithms depthwise --directions bwd_weight \
    --filter "$3" --set $4 --deadline-s $2 --out $OUT/ab-$1.csv > $OUT/ab-$1.txt 2>&1
  echo "$1 rc=$?"
}
ab split_k-256 270 "group_channels > 1 and split_k == 64" split_k=256
ab block_m-64 270 "group_channels > 1" block_m=64
for f in $OUT/ab-*.txt; do echo "== $f"; sed -n '/speed-up of the best twin/,$p' $f; done
