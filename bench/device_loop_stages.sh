# Software-pipelined loops for the kernels without tensor cores, with carry [".whl"]:
#   bash bench/device_loop_stages.sh
# Depthwise bwd_weight is at 17-22% of the roofline on the bf16 files (problems >= 20 us) and C/G <= 16 at 13-17% in
# every direction, where the depthwise, tiny-group and direct kernels win. Their loops are plain: Triton pipelines the
# loads of a loop only when they feed tl.dot or the loop asks for stages, so each step's loads wait for memory and
# only other warps hide it. The `loop_stages` template choice (generator/render.py) walks the innermost loop with
# tl.range(..., num_stages=N): the depthwise / direct bwd_weight pixel loops, the direct fwd / bwd_data channel loops,
# the rolled depthwise tap-column loops (5x5 / 7x7 tiny groups, large C/G = 1 bwd_data tiles); the next N - 1 steps'
# loads become cp.async copies in flight (tests/test_loop_stages.py: float64 under the interpreter, cp.async in the
# sm_90 code; all 240 bf16 twins of `default` compile for sm_90 on the CPU, at most 60 KB of shared memory).
# bench/ab_variant.py times each such kernel against its twin with 3 stages on bf16 training problems
# (kernels whose source the choice does not change make no twin). Score the rule "every kernel pipelined":
#   python -m bench.ab_rule ab-depthwise-bwd_weight.csv    (and --keep-base EXPR for the kernels that lose)
. bench/device_setup.sh
ab() {  # ab LABEL DEADLINE ALGORITHM DIRECTIONS PROBLEMS...
  label=$1 deadline=$2 algorithm=$3 directions=$4; shift 4
  timeout $((deadline + 20)) python3 -m bench.ab_variant --problems "$@" --algorithms $algorithm \
    --directions $directions --choice loop_stages=3 --deadline-s $deadline --out $OUT/ab-$label.csv \
    > $OUT/ab-$label.txt 2>&1
  echo "$label rc=$?"
}
seeds="bench/problems/train-seed4-synthetic-bf16.csv bench/problems/train-seed8-synthetic-bf16.csv"
tiny=bench/problems/train-tiny-groups-seed78-synthetic-bf16.csv
ab depthwise-bwd_weight 180 depthwise bwd_weight $seeds $tiny
ab depthwise-rolled 150 depthwise "fwd bwd_data" $tiny $seeds
ab direct 150 direct "fwd bwd_data bwd_weight" bench/problems/train-seed4-synthetic-bf16.csv --max-channels 4  # where they win
for f in $OUT/ab-*.txt; do echo "== $f"; sed -n '/speed-up of the best twin/,$p' $f; done
