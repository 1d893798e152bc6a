# The sliding-rows depthwise bwd_weight prototype (bench/proto_depthwise_bwd_weight.py) against the best `default`
# kernel and cuDNN on the bf16 training files' depthwise bwd_weight problems, with carry [".whl"]:
#   bash bench/device_proto_depthwise_bwd_weight.sh
# Depthwise bwd_weight is the class furthest from the roofline (22% geomean on problems >= 20 us); cuDNN beats the
# best `default` kernel 2.8x on `n32_g384_hi17 5x5` (24 vs 66 us). The `default` kernels load x once per tap; the
# prototype loads each input row once per filter column and pairs it with every output row it feeds.
. bench/device_setup.sh
timeout 390 python3 -m bench.proto_depthwise_bwd_weight --sweep bench/results/train-seed4-default-bf16-gputime.csv \
  bench/results/train-seed8-default-bf16-gputime.csv bench/results/train-default-bf16-gputime.csv \
  bench/results/train-seed6-default-bf16-gputime.csv bench/results/train-seed7-default-bf16-gputime.csv \
  bench/results/train-seed10-default-bf16-gputime.csv \
  --compile-s 150 --deadline-s 330 --out $OUT/proto.csv > $OUT/proto.txt 2>&1
echo "rc=$?"; grep -E "problems|compiled|deadline|prototype over|^  [a-z]" $OUT/proto.txt | tail -25
