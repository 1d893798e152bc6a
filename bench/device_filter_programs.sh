# The depthwise bwd_weight kernels with their filter programs adjacent (generator/render.py FILTER_PROGRAMS) on the
# device, with carry [".whl"]:  bash bench/device_filter_programs.sh
# (name the machine nvidia-h100-x1: every committed sweep is H100)
# Nsight Compute found the sliding depthwise bwd_weight kernel DRAM-bound (61% of DRAM, L1 hits 1.7%, L2 37%;
# bench/results/ncu/): its grid is (splits, group blocks, filter columns) and the GPU launches axis 0 fastest, so the
# seven programs that walk the same dy and x tiles for one filter column each launch splits x group blocks apart and
# read them from DRAM again. The `adjacent` twin renumbers the launch index with the filter axis fastest (same grid,
# same work per program; tests/test_filter_programs.py). Every depthwise bwd_weight kernel of `default` (sliding rows
# or not, tiny groups too) against that twin on bf16 training problems only (seeds 1, 4 and 10, the seed-78 tiny
# groups), interleaved, cuDNN alongside: $OUT/ab-filter-programs.csv; then score a rule with
#   python -m bench.ab_rule bench/results/filter-programs/ab-filter-programs.csv [--keep-base EXPR]
. bench/device_setup.sh
timeout 560 python3 -m bench.ab_variant --choice filter_programs=adjacent --algorithms depthwise \
  --directions bwd_weight --deadline-s 540 --out $OUT/ab-filter-programs.csv \
  --problems bench/problems/train-seed10-synthetic-bf16.csv bench/problems/train-seed4-synthetic-bf16.csv \
  bench/problems/train-synthetic-bf16.csv bench/problems/train-tiny-groups-seed78-synthetic-bf16.csv \
  > $OUT/ab-filter-programs.log 2>&1
echo "ab rc=$?"; sed -n '/speed-up of the best twin/,$p' $OUT/ab-filter-programs.log | head -30
