# Merged groups for C/G = 4 (prepared 2026-11-23, sixth session; not yet run), with carry [".whl"]:
#   bash bench/device_merge_tiny.sh
# C/G = K/G = 4 on large images is the tiny-group class still below cuDNN (bench/results/tiny-groups/compare.md:
# bwd_weight 0.28x, bwd_data 0.41x). `default`'s merged-group kernels need vector width 8, so those problems reach
# them only with their channels padded 4 -> 8, unpadded only scalar kernels of one group per tile. A/B every igemm
# candidate of `default` that runs a tiny-group problem unpadded against its groups_to_merge=8 twin (block-diagonal
# tiles of 8 groups, same tile and vector width), then against its twin with 4-element vectors too (C/G = 4 only),
# with cuDNN and every output checked against cuDNN's. Compare the twins with the best `default` kernel of
# bench/results/tiny-groups/tiny-groups-default-bf16.csv (which holds the v8 merged kernels on channels padded
# 4 -> 8); copy $OUT/ab-merge8*.csv and .log to bench/results/tiny-groups/.
. bench/device_setup.sh
timeout 280 python3 -m bench.ab_variant --problems bench/problems/tiny-groups-synthetic-bf16.csv \
  --set groups_to_merge=8 --directions fwd bwd_data bwd_weight --deadline-s 265 --out $OUT/ab-merge8.csv \
  > $OUT/ab-merge8.log 2>&1; echo "merge8 rc=$?"
timeout 280 python3 -m bench.ab_variant --problems bench/problems/tiny-groups-synthetic-bf16.csv \
  --set groups_to_merge=8 --set vector_width=4 --directions fwd bwd_data bwd_weight --deadline-s 265 \
  --out $OUT/ab-merge8-v4.csv > $OUT/ab-merge8-v4.log 2>&1; echo "merge8 v4 rc=$?"
tail -8 $OUT/ab-merge8.log $OUT/ab-merge8-v4.log
