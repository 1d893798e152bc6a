# The division-free reduction walk (k_walk=incremental, session 18), with carry [".whl"]:
#   bash bench/device_k_walk.sh
# Compiled for sm_90, the incremental twins' loop bodies are 26-47% shorter on the small tiles (the small-C/G
# implicit GEMMs are instruction-bound: bench/results/small-groups/README.md). bench/ab_variant.py times every igemm
# candidate against its twin rendered with k_walk=incremental (tap-major and explicit-GEMM kernels have no twin), on
# bf16 training problems: the C/G <= 16 fwd / bwd_data ones, then seed 4 in all three directions; the CSVs and
# summaries come back in $OUT. (Run in session 20: bench/results/k-walk/; the rule is now incremental, so an A/B run
# today would pass --choice k_walk=divide.)
. bench/device_setup.sh
ab() {  # ab LABEL DEADLINE PROBLEMS DIRECTIONS...
  label=$1 deadline=$2 problems=$3; shift 3
  timeout $((deadline + 20)) python3 -m bench.ab_variant --problems $problems --choice k_walk=incremental \
    --directions "$@" --deadline-s $deadline --out $OUT/ab-k_walk-$label.csv > $OUT/ab-k_walk-$label.txt 2>&1
  echo "$label rc=$?"
}
ab small-groups 270 bench/problems/small-groups-train-bf16.csv fwd bwd_data
ab seed4 270 bench/problems/train-seed4-synthetic-bf16.csv fwd bwd_data bwd_weight
for f in $OUT/ab-k_walk-*.txt; do echo "== $f"; sed -n '/speed-up of the best twin/,$p' $f; done
