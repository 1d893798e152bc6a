# Implicit-GEMM walks on channel counts that pad every tile (C/G a multiple of 8 but not of 32), on the device with
# carry [".whl"]:  bash bench/device_odd_channels.sh    (name the machine nvidia-h100-x1; BUDGET_S, default 560)
# Twins of `default`'s igemm kernels on bench/problems/odd-channels-seed1-synthetic-bf16.csv (training problems):
# 1. fwd with the tap-major reduction walk (address and bounds arithmetic per pixel row and tap instead of per element;
#    C/G = 24 pads each tap's 24 channels to a block of 32) -> $OUT/ab-odd-tap-major.csv
# 2. two groups merged into one block-diagonal tile (C/G = K/G = 24 only), every direction -> $OUT/ab-odd-merge2.csv
# Score with python -m bench.ab_rule FILE --add-twins "block_m > 0" (what adding them would gain).
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
ODD=bench/problems/odd-channels-seed1-synthetic-bf16.csv
ab_twins odd-tap-major 230 --set tap_major=true --directions fwd --filter "tile_w == 0 and not explicit_gemm" \
  --problems $ODD
ab_twins odd-merge2 $(( $(left) - 40 )) --set groups_to_merge=2 --max-channels 32 --filter "groups_to_merge == 1" \
  --problems $ODD
