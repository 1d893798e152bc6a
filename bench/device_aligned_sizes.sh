# Vector kernels with their sizes' alignment stated to the compiler (KernelConfig.vector_aligned_sizes; the templates'
# stated_alignment) on the device, with carry [".whl"]:  bash bench/device_aligned_sizes.sh [RESULT:PROBLEMS ...]
# (name the machine nvidia-h100-x1: every committed sweep is H100)
# 1. every bf16 and fp16 vector kernel of `default` against float64 on the first device shape it runs whose
#    vectorised size the JIT sees divisible by 8 only (tests/test_verification.py: each has one;
#    bench/results/verify-aligned-sizes/default-misaligned{,-fp16}/, complete since session 60, so a run verifies only
#    kernels added since; resumable); no sweeps if any fails;
# 2. the rows dropped from the given sweeps (default: the held-out files, then the tiny-group training files) measured
#    again (bench/results/aligned-sizes/README.md has the drop expression): run again until every file reports rc=0.
. bench/device_setup.sh
begun=$(date +%s)
# Each kernel runs on the first device shape (runtime/verification.py DEVICE_SHAPES) whose vectorised size the JIT
# sees divisible by 8 only: --misaligned-only, so no shape list here can miss one (session 59: the hand-kept list of
# default-all-shapes/ missed the multiplier-4 stride-2 shapes of 16 bwd_data kernels; tests/test_verification.py
# checks that every vector kernel has such a shape).
for dtype in bf16 fp16; do
  out=bench/results/verify-aligned-sizes/default-misaligned$([ $dtype = fp16 ] && echo -fp16)
  timeout 200 python3 bench/verify_device.py --rule-set default --dtypes $dtype --misaligned-only \
    --shapes-per-instance 1 --filter "vector_width > 1" --out $out --deadline-s 170 > $OUT/verify-$dtype.log 2>&1
  echo "verify $dtype rc=$?"; grep -E -A12 "instances pass" $out/summary.md | head -16
  if python3 -c "import json,sys; sys.exit(any(r['status'] != 'pass' for r in map(json.loads, open('$out/rows.jsonl'))))"
  then :; else echo "a $dtype kernel failed: no sweeps"; failed=1; fi
done
(cd bench/results && tar czf $OUT/verify-aligned-sizes.tgz verify-aligned-sizes)
[ -z "$failed" ] || exit 1
sweeps=${@:-"baseline-default-bf16-gputime:baseline-synthetic-bf16 fp16/heldout-default-fp16:baseline-synthetic-fp16
  fp16/heldout-default-fp16:depthwise-synthetic-fp16 tiny-groups/tiny-groups-default-bf16:tiny-groups-synthetic-bf16
  train-tiny-groups-default-bf16:train-tiny-groups-synthetic-bf16
  train-tiny-groups-seed78-default-bf16-gputime:train-tiny-groups-seed78-synthetic-bf16
  train-tiny-groups-seed84-default-bf16-gputime:train-tiny-groups-seed84-synthetic-bf16
  train-tiny-groups-seed79-default-fp16-gputime:train-tiny-groups-seed79-synthetic-fp16"}
SWEEP_FLAGS=--overlap-compile BUDGET_S=$(( ${BUDGET_S:-565} - ($(date +%s) - begun) )) \
  bash bench/device_resume_sweeps.sh $sweeps
