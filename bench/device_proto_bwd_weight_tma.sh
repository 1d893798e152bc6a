# The tensor-descriptor igemm bwd_weight prototype (bench/proto_bwd_weight_tma.py) against the best `default` kernel
# and cuDNN on the bf16 training files' bwd_weight problems with C and K per group >= 16 in eights (never the held-out
# baseline), with carry [".whl"]:  bash bench/device_proto_bwd_weight_tma.sh
# The `default` igemm bwd_weight loop is bound by instruction issue (~180 instructions a thread per 64 x 64 x 32 step,
# sm_90 PTX), and dense C/G = 64 layers run at a third of cuDNN's speed (n16_g1_c64_k64_hi80_wi350 3x3: 268 vs 81 us).
# Copy $OUT/* to bench/results/bwd-weight-tma/ with a README.
. bench/device_setup.sh
timeout 570 python3 -m bench.proto_bwd_weight_tma --sweep bench/results/train-default-bf16-gputime.csv \
  bench/results/train-seed4-default-bf16-gputime.csv bench/results/train-seed6-default-bf16-gputime.csv \
  bench/results/train-seed7-default-bf16-gputime.csv bench/results/train-seed8-default-bf16-gputime.csv \
  bench/results/train-seed10-default-bf16-gputime.csv bench/results/public-deepbench-default-bf16-gputime.csv \
  --compile-s 200 --deadline-s 520 --out $OUT/proto.csv > $OUT/proto.txt 2>&1
echo "rc=$?"; grep -E "problems|compile deadline|deadline|prototype over|^  [0-9]" $OUT/proto.txt | tail -25
grep -c BAD $OUT/proto.txt
