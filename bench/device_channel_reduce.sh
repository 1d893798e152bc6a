# The split channel reduction of the tiny-group depthwise kernels (generator/render.py CHANNEL_REDUCES) on the device,
# with carry [".whl"]:  bash bench/device_channel_reduce.sh ab|tiles|adopt
# (name the machine nvidia-h100-x1: every committed sweep is H100)
# tiles: the fwd kernels on bigger tiles (below), split and broadcast, as twins of `default`'s;
# ab:    as twins of `default`'s fwd and bwd_data kernels on training problems only (the seed-78 and seed-84 tiny-group
#        shapes, C/G 2-4, and the seed-8 synthetic shapes for their depthwise multipliers): $OUT/ab-channel-reduce.csv;
# adopt: after channel_reduce() chose split somewhere and the changed kernels' rows were dropped from every sweep
#        (bench/results/channel-reduce/README.md): the changed kernels of `default` and `full-tests` against float64
#        on the device shapes of tiny groups with several filters (bench/results/verify-channel-reduce/; the sweeps
#        are not resumed if any fails), then their rows in every committed sweep (bench/device_resume_sweeps.sh).
. bench/device_setup.sh
begun=$(date +%s)
case ${1:?"usage: bash bench/device_channel_reduce.sh ab|tiles|adopt"} in
ab)
  timeout 560 python3 -m bench.ab_variant --choice channel_reduce=split --algorithms depthwise \
    --directions fwd bwd_data --deadline-s 540 --out $OUT/ab-channel-reduce.csv \
    --problems bench/problems/train-tiny-groups-seed78-synthetic-bf16.csv \
    bench/problems/train-tiny-groups-seed84-synthetic-bf16.csv bench/problems/train-seed8-synthetic-bf16.csv \
    > $OUT/ab-channel-reduce.log 2>&1
  echo "ab rc=$?"; tail -30 $OUT/ab-channel-reduce.log;;
tiles)  # the fwd kernels on twice the pixels a thread (8 x 8 tiles of 2 warps, 8 x 16 of 4), taps rolled (3x3 unrolled
        # spills there), split and broadcast, on the tiny-group training shapes: $OUT/ab-fwd-*.csv
  for twin in "t8x8-w2-split:--set block_m=64 --set tile_w=8 --set num_warps=2 --choice channel_reduce=split" \
              "t8x8-w2-broadcast:--set block_m=64 --set tile_w=8 --set num_warps=2 --choice channel_reduce=broadcast" \
              "t8x16-w4-split:--set block_m=128 --set tile_w=16 --set num_warps=4 --choice channel_reduce=split"; do
    name=${twin%%:*}
    timeout 170 python3 -m bench.ab_variant ${twin#*:} --choice tap_loop=rolled --algorithms depthwise \
      --filter "group_channels > 1" --directions fwd --deadline-s 160 --out $OUT/ab-fwd-$name.csv \
      --problems bench/problems/train-tiny-groups-seed78-synthetic-bf16.csv \
      bench/problems/train-tiny-groups-seed84-synthetic-bf16.csv > $OUT/ab-fwd-$name.log 2>&1
    echo "$name rc=$?"; tail -4 $OUT/ab-fwd-$name.log
  done;;
adopt)
  shapes="tiny-groups-s2 tiny-groups-c2k4 tiny-groups-c4k2 tiny-groups-c4k4-s2-d2 tiny-groups-5x5-c2k2
    tiny-groups-5x5-c4k2-s2 tiny-groups-5x5-c2k4-d2 tiny-groups-5x5-c4k4 tiny-groups-7x7-c2k2-s2 tiny-groups-7x7-c4k2
    tiny-groups-7x7-c2k4 tiny-groups-7x7-c4k4-s2"
  for set in default full-tests; do
    out=bench/results/verify-channel-reduce/$set
    timeout 100 python3 bench/verify_device.py --rule-set $set --dtypes bf16 fp16 --shapes $shapes --out $out \
      --filter "direction == 'bwd_data' and algorithm == 'depthwise' and group_channels > 1 and multiplier > 1" \
      --deadline-s 85 > $OUT/verify-$set.log 2>&1
    echo "verify $set rc=$?"; grep -E -A12 "instances pass" $out/summary.md | head -24
  done
  (cd bench/results && tar czf $OUT/verify-channel-reduce.tgz verify-channel-reduce)
  if grep -q "^## Failures" bench/results/verify-channel-reduce/*/summary.md; then
    echo "a kernel failed: no sweeps"; exit 1
  fi
  BUDGET_S=$(( ${BUDGET_S:-560} - ($(date +%s) - begun) )) bash bench/device_resume_sweeps.sh;;
esac
