# Software-pipelined pixel loops for the backward-weight kernels without tensor cores, with carry [".whl"]:
#   bash bench/device_loop_stages.sh
# Depthwise bwd_weight is at 17% of the roofline on the bf16 files (problems >= 20 us), tiny groups and small-C/G
# direct kernels not far above; their pixel loops are plain `range` loops, which Triton does not pipeline (it
# pipelines loads that feed tl.dot, or a loop given num_stages): each step's dy and x loads wait for memory, and only
# other warps hide it. The `loop_stages` template choice (generator/render.py) walks the loop with
# tl.range(..., num_stages=N): the next N - 1 steps' loads are cp.async copies in flight (tests/test_loop_stages.py:
# float64 under the interpreter, cp.async in the sm_90 code). bench/ab_variant.py times each kernel against its twin
# with 3, then 2 stages: depthwise (C/G = 1, tiny groups) on the bf16 seed-4, seed-8 and seed-78 tiny-group training
# problems, then the direct kernels on seed 4. Score the rule "every kernel pipelined": python -m bench.ab_rule ab-depthwise-3.csv
. bench/device_setup.sh
ab() {  # ab LABEL DEADLINE ALGORITHM STAGES PROBLEMS...
  label=$1 deadline=$2 algorithm=$3 stages=$4; shift 4
  timeout $((deadline + 20)) python3 -m bench.ab_variant --problems "$@" --algorithms $algorithm \
    --directions bwd_weight --choice loop_stages=$stages --deadline-s $deadline --out $OUT/ab-$label.csv \
    > $OUT/ab-$label.txt 2>&1
  echo "$label rc=$?"
}
training="bench/problems/train-seed4-synthetic-bf16.csv bench/problems/train-seed8-synthetic-bf16.csv"
ab depthwise-3 190 depthwise 3 $training bench/problems/train-tiny-groups-seed78-synthetic-bf16.csv
ab depthwise-2 150 depthwise 2 $training bench/problems/train-tiny-groups-seed78-synthetic-bf16.csv
ab direct-3 150 direct 3 bench/problems/train-seed4-synthetic-bf16.csv
for f in $OUT/ab-*.txt; do echo "== $f"; sed -n '/speed-up of the best twin/,$p' $f; done
