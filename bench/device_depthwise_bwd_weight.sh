# Depthwise (C/G = 1) backward weight with 64-pixel tiles, with carry [".whl"]:
#   bash bench/device_depthwise_bwd_weight.sh
# Depthwise bwd_weight is at 17% of the roofline on the bf16 files (geomean, problems >= 20 us; bench/summarise_sweeps.py
# over seeds 6, 7, 10 and the held-out baseline), its best kernels 32-pixel tiles (2x8, 4x8: `default` keeps block_m
# 16 and 32 only). The tiny-group kernels of the same template gained 1.25x on large problems with 8x8-pixel tiles as
# added instances (bench/results/tiny-bwd-weight/). bench/ab_variant.py times each depthwise bwd_weight kernel of
# `default` against its twin with 8x8-pixel tiles (block_m 64, tile_w 8), then with 4x16 (block_m 64, tile_w 16), on
# the bf16 seed-4 and seed-8 training problems; both twins pass against float64 under the interpreter (7x7 fp32 and
# 3x3 fp16 with dilation, tiles cut by the image edge). Score as added instances:
#   python -m bench.ab_rule ab-8x8.csv --add-twins "acc_registers_per_thread <= 128"
. bench/device_setup.sh
ab() {  # ab LABEL DEADLINE UPDATE...
  label=$1 deadline=$2; shift 2
  timeout $((deadline + 20)) python3 -m bench.ab_variant --problems bench/problems/train-seed4-synthetic-bf16.csv \
    bench/problems/train-seed8-synthetic-bf16.csv --algorithms depthwise --directions bwd_weight \
    --filter "group_channels == 1 and sliding_rows == 0" "$@" --deadline-s $deadline --out $OUT/ab-$label.csv \
    > $OUT/ab-$label.txt 2>&1
  echo "$label rc=$?"
}
ab 8x8 260 --set block_m=64
ab 4x16 260 --set block_m=64 --set tile_w=16
for f in $OUT/ab-*.txt; do echo "== $f"; sed -n '/speed-up of the best twin/,$p' $f; done
