# Deeper reduction steps for large channels per group (prepared 2026-11-23, fifth session; not yet run), with carry
# [".whl"]:  bash bench/device_block_k.sh
# `default` and `profiler` keep only block_k 32 kernels, and fwd loses to cuDNN at 128-640 channels per group (about
# 0.5x; tap-major did not help, bench/results/tap-major/). `full` has block_k 64 tiles nobody has timed on those
# shapes: A/B every igemm fwd and bwd_data candidate of `default` against its block_k=64 twin, then its num_stages=4
# twin, on the training problems (not the held-out baseline) with C and K per group >= 64. Copy $OUT/*.csv and *.log
# to bench/results/block-k/ with a README.
. bench/device_setup.sh
for update in "block_k=64" "num_stages=4"; do
  tag=${update%%=*}
  timeout 280 python3 -m bench.ab_variant --problems bench/problems/train-synthetic-bf16.csv \
    bench/problems/train-seed6-synthetic-bf16.csv --set $update --directions fwd bwd_data --min-channels 64 \
    --deadline-s 260 --out $OUT/ab-$tag.csv > $OUT/ab-$tag.log 2>&1; echo "$update rc=$?"
  tail -7 $OUT/ab-$tag.log
done
