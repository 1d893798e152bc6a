# Rolled tap loops for the depthwise kernels (2026-11-25, session 17), with carry [".whl"]:
#   bash bench/device_tap_loop.sh        C/G = 1: fwd and bwd_data rolled, bwd_data rolled-columns
#   bash bench/device_tap_loop.sh cpg    C/G = 2 and 4 (the _cpg kernels): fwd and bwd_data, rolled and rolled-columns
# Compiled for sm_90 with the JIT's specialisation, the unrolled depthwise bwd_data kernels spill (ptxas: up to 6 KB of
# stack with multiplier 2-4 and 5x5 / 7x7 filters; `python -m bench.ptxas_usage`), the likely cause of their 7-30x
# cliffs. bench/ab_variant.py times every depthwise candidate against its twin rendered with another tap loop, on bf16
# training problems (seeds 8 and 10; for cpg the C/G >= 2 problems of train-tiny-groups, seeds 4, 7 and seed 1); the
# CSVs and summaries come back in $OUT (bench/results/tap-loop/).
. bench/device_setup.sh
ab() {  # ab CHOICE SUFFIX DEADLINE DIRECTIONS... (problems and extra options from $problems and $extra)
  choice=$1 suffix=$2 deadline=$3; shift 3
  timeout $((deadline + 20)) python3 -m bench.ab_variant --problems $problems --choice tap_loop=$choice \
    --algorithms depthwise --directions "$@" $extra --deadline-s $deadline --out $OUT/ab-tap_loop-$choice$suffix.csv \
    > $OUT/ab-tap_loop-$choice$suffix.txt 2>&1
  echo "$choice$suffix rc=$?"
}
if [ "$1" = cpg ]; then
  problems="bench/problems/train-tiny-groups-synthetic-bf16.csv bench/problems/train-seed4-synthetic-bf16.csv
    bench/problems/train-seed7-synthetic-bf16.csv bench/problems/train-synthetic-bf16.csv"
  extra="--min-channels 2"
  ab rolled -cpg 250 fwd bwd_data
  ab rolled-columns -cpg 250 fwd bwd_data
else
  problems="bench/problems/train-seed8-synthetic-bf16.csv bench/problems/train-seed10-synthetic-bf16.csv"
  extra=""
  ab rolled "" 300 fwd bwd_data
  ab rolled-columns "" 210 bwd_data
fi
for f in $OUT/ab-tap_loop-*.txt; do echo "== $f"; sed -n '/speed-up of the best twin/,$p' $f; done
