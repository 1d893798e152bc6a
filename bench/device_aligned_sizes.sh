# Vector kernels with their sizes' alignment stated to the compiler (KernelConfig.vector_aligned_sizes; the templates'
# stated_alignment) on the device, with carry [".whl"]:  bash bench/device_aligned_sizes.sh [RESULT:PROBLEMS ...]
# (name the machine nvidia-h100-x1: every committed sweep is H100)
# 1. every bf16 vector kernel of `default` against float64 on the first device shape it runs whose vectorised size
#    the JIT sees divisible by 8 only (tests/test_verification.py: each has one; bench/results/verify-aligned-sizes/;
#    resumable); no sweeps if any fails;
# 2. the rows dropped from the given sweeps (default: the held-out files, then the tiny-group training files) measured
#    again (bench/results/aligned-sizes/README.md has the drop expression): run again until every file reports rc=0.
. bench/device_setup.sh
begun=$(date +%s)
shapes="boxes-c24-s2 pointwise-odd merge-boxes-c8-k16 multiplier-s2 multiplier4-odd tiny-groups-c2k1-d2
  tiny-groups-c4k1-s2 tiny-groups-c4k2 tiny-groups-c4k4-s2-d2 tiny-groups-5x5-d2 tiny-groups-7x7 tiny-groups-5x5-c4k2-s2
  tiny-groups-5x5-c2k4-d2 tiny-groups-5x5-c4k4 tiny-groups-7x7-c4k2 tiny-groups-7x7-c2k4 sliding-5x5-m2-d2
  sliding-5x5-m2-s2 sliding-5x5-m4-s2 sliding-7x7-m1 sliding-7x7-m4 sliding-7x7-m4-s2 merge-boxes-c4
  merge-boxes-c2-k6-s2 aligned8-3x3 aligned8-3x3-s2 aligned8-3x3-m2 aligned8-5x5 aligned8-5x5-s2 aligned8-7x7-s2 aligned8-7x7-m2
  aligned8-7x7-m2-s2 aligned8-5x5-m4 aligned8-c2k2 aligned8-c2k4 aligned8-5x5-c2k1 aligned8-5x5-c2k2 aligned8-7x7-c4k1 aligned8-7x7-c2k2
  aligned8-7x7-c4k4 aligned8-c24-k64"
# (session 28's run, default/, had the shapes before aligned8-*: 188 instances ran none of them)
out=bench/results/verify-aligned-sizes/default-all-shapes
timeout 200 python3 bench/verify_device.py --rule-set default --dtypes bf16 --shapes $shapes --shapes-per-instance 1 \
  --filter "vector_width > 1" --out $out --deadline-s 170 > $OUT/verify.log 2>&1
echo "verify rc=$?"; grep -E -A12 "instances pass" $out/summary.md | head -16
(cd bench/results && tar czf $OUT/verify-aligned-sizes.tgz verify-aligned-sizes)
# An instance no listed shape runs is not a failure here (its vectorised size is aligned in every device shape).
if python3 -c "import json,sys; sys.exit(any(r['status'] != 'pass' and 'no verification shape' not in r['detail']
    for r in map(json.loads, open('$out/rows.jsonl'))))"; then :; else echo "a kernel failed: no sweeps"; exit 1; fi
sweeps=${@:-"baseline-default-bf16-gputime:baseline-synthetic-bf16 fp16/heldout-default-fp16:baseline-synthetic-fp16
  fp16/heldout-default-fp16:depthwise-synthetic-fp16 tiny-groups/tiny-groups-default-bf16:tiny-groups-synthetic-bf16
  train-tiny-groups-default-bf16:train-tiny-groups-synthetic-bf16
  train-tiny-groups-seed78-default-bf16-gputime:train-tiny-groups-seed78-synthetic-bf16
  train-tiny-groups-seed84-default-bf16-gputime:train-tiny-groups-seed84-synthetic-bf16
  train-tiny-groups-seed79-default-fp16-gputime:train-tiny-groups-seed79-synthetic-fp16"}
SWEEP_FLAGS=--overlap-compile BUDGET_S=$(( ${BUDGET_S:-565} - ($(date +%s) - begun) )) \
  bash bench/device_resume_sweeps.sh $sweeps
