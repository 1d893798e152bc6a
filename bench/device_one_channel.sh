# The one-input-channel dense bwd_weight layers (G = 1, C = 1: DeepBench's speech front ends,
# bench/problems/one-channel-deepbench-bf16.csv, public training problems) with more splits, on the device, with carry
# [".whl"]:  bash bench/device_one_channel.sh      (about 3 minutes; name the machine nvidia-h100-x1)
# They are the bwd_weight problems furthest from the roofline (`python bench/summarise_sweeps.py FILES --worst 6`:
# n32_g1_c1_k32_hi161_wi700 5x20 s2 at 1.1%, 1,957 us against cuDNN's 823). The best `default` kernel there is a
# direct tile (one program per filter tap: each of the 100 taps' programs reads all of dY again); the implicit-GEMM
# tiles that read dY once for every tap (GEMM N = C*Y*X = 100 taps in one 128-wide tile) come with split_k 8 at most
# for one channel (v1), i.e. 16-32 programs for 132 SMs. Their twins with split_k 64 and 256 (same tile, more
# programs sharing the N*Ho*Wo walk) against them, interleaved, cuDNN alongside: $OUT/ab-one-channel-sk{64,256}.csv.
. bench/device_setup.sh
for split in 64 256; do
  ab_twins one-channel-sk$split 80 --set split_k=$split --algorithms igemm --filter "split_k == 8" \
    --directions bwd_weight --problems bench/problems/one-channel-deepbench-bf16.csv
done
