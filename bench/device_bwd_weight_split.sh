# Deeper splits and deeper reduction steps for the igemm bwd_weight tiles (prepared 2026-11-26, twenty-fifth
# session), with carry [".whl"]:  bash bench/device_bwd_weight_split.sh
# On dense-ish bwd_weight problems (C and K per group >= 32) whose weight is small and whose pixel reduction is long
# (n16_g1_c64_k64_hi80_wi350 3x3: 9 tiles of 64 x 64, 448,000 pixels), the best `default` kernel runs 144 programs
# (split_k 16) at 1-2 per SM and takes 3.3x cuDNN's time. A/B every split_k 16 igemm candidate of `default` against
# its split_k 64 and split_k 32 twins, then the split_k 1 and 16 TMA and 64-row ones against their block_k 64 twins, on the bf16
# training problems of seeds 1, 4, 6 and 7 (never the held-out baseline) with C and K per group >= 32. Copy $OUT/* to
# bench/results/bwd-weight-split/ with a README.
. bench/device_setup.sh
FILES="bench/problems/train-synthetic-bf16.csv bench/problems/train-seed6-synthetic-bf16.csv
  bench/problems/train-seed4-synthetic-bf16.csv bench/problems/train-seed7-synthetic-bf16.csv"
ab() {  # TAG FILTER UPDATE...
  tag=$1 filter=$2; shift 2
  timeout 185 python3 -m bench.ab_variant --problems $FILES --directions bwd_weight --min-channels 32 \
    --filter "$filter" "$@" --deadline-s 170 --out $OUT/ab-$tag.csv > $OUT/ab-$tag.log 2>&1; echo "$tag rc=$?"
  tail -6 $OUT/ab-$tag.log
}
ab split_k-64 "split_k == 16" --set split_k=64
ab split_k-32 "split_k == 16" --set split_k=32
ab block_k-64 "split_k in [1, 16] and groups_to_merge == 1 and (pipeline == 'tma' or block_m == 64)" --set block_k=64
