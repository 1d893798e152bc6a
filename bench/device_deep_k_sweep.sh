# The deep-k rule (block_k 64 fwd / bwd_data tiles, bench/results/block-k/) added ~7 candidates to `default` on about a
# third of the problems: resume every committed `default` sweep so each has their rows (2026-11-25, session 15), with
# carry [".whl"]:  bash bench/device_deep_k_sweep.sh   (again until every file reports rc=0; the CSVs and logs come
# back in $OUT/deep-k.tgz (the device tool returns at most 8 files), unpack it over bench/results/). Held-out files
# first, then bf16 training, then fp16 training.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( 560 - ($(date +%s) - start) )); }
mkdir -p $OUT/deep-k
for pair in baseline-default-bf16-gputime:baseline-synthetic-bf16 fp16/heldout-default-fp16:baseline-synthetic-fp16 \
            train-seed8-default-bf16-gputime:train-seed8-synthetic-bf16 \
            train-default-bf16-gputime:train-synthetic-bf16 \
            train-seed4-default-bf16-gputime:train-seed4-synthetic-bf16 \
            train-seed6-default-bf16-gputime:train-seed6-synthetic-bf16 \
            train-seed7-default-bf16-gputime:train-seed7-synthetic-bf16 \
            train-tiny-groups-default-bf16:train-tiny-groups-synthetic-bf16 \
            train-default-fp16-gputime:train-synthetic-fp16 \
            train-seed5-default-fp16-gputime:train-seed5-synthetic-fp16; do
  out=${pair%%:*}; problems=${pair##*:}
  [ $(left) -gt 30 ] || break
  timeout $(left) gconv bench sweep --rule-set default --problems bench/problems/$problems.csv \
    --compile-window 2 --out bench/results/$out.csv --gpus auto > $OUT/deep-k/$(basename $out).log 2>&1
  echo "$out rc=$?"
  mkdir -p $OUT/deep-k/$(dirname $out) && cp bench/results/$out.csv $OUT/deep-k/$out.csv
done
(cd $OUT && tar czf deep-k.tgz deep-k && rm -r deep-k)
