# Sourced by the bench/device_*.sh scripts on the device (carry [".whl"]): the wheels the device lacks, then gconv in
# editable mode, and Triton's FP-fusion default set explicitly (it warns otherwise).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
python3 -m pip install -q --no-deps --no-build-isolation --no-index -e . >/dev/null 2>&1
export TRITON_DEFAULT_FP_FUSION=1

# Every committed `default` sweep as RESULT:PROBLEMS (bench/results/RESULT.csv measures bench/problems/PROBLEMS.csv;
# the fp16 held-out file measures two problem files): held-out files first, then bf16 training, then fp16 training.
# Never the model-zoo evaluation (bench/device_zoo.sh): no rule is picked on it.
ALL_SWEEPS="baseline-default-bf16-gputime:baseline-synthetic-bf16 fp16/heldout-default-fp16:baseline-synthetic-fp16
  fp16/heldout-default-fp16:depthwise-synthetic-fp16 depthwise-family/depthwise-default-bf16:depthwise-synthetic-bf16
  tiny-groups/tiny-groups-default-bf16:tiny-groups-synthetic-bf16
  heldout-seed6007-default-bf16-gputime:heldout-seed6007-synthetic-bf16
  fp16/heldout-seed6007-default-fp16-gputime:heldout-seed6007-synthetic-fp16
  fp16/heldout-seed6011-default-fp16-gputime:heldout-seed6011-synthetic-fp16
  train-default-bf16-gputime:train-synthetic-bf16 train-seed4-default-bf16-gputime:train-seed4-synthetic-bf16
  train-seed6-default-bf16-gputime:train-seed6-synthetic-bf16 train-seed7-default-bf16-gputime:train-seed7-synthetic-bf16
  train-seed8-default-bf16-gputime:train-seed8-synthetic-bf16 train-seed10-default-bf16-gputime:train-seed10-synthetic-bf16
  train-seed11-fwd-default-bf16-gputime:train-seed11-fwd-synthetic-bf16
  train-tiny-groups-default-bf16:train-tiny-groups-synthetic-bf16
  train-tiny-groups-seed78-default-bf16-gputime:train-tiny-groups-seed78-synthetic-bf16
  train-tiny-groups-seed84-default-bf16-gputime:train-tiny-groups-seed84-synthetic-bf16
  train-tiny-groups-small-seed86-default-bf16-gputime:train-tiny-groups-small-seed86-synthetic-bf16
  train-default-fp16-gputime:train-synthetic-fp16
  train-seed5-default-fp16-gputime:train-seed5-synthetic-fp16 train-seed9-default-fp16-gputime:train-seed9-synthetic-fp16
  train-tiny-groups-seed79-default-fp16-gputime:train-tiny-groups-seed79-synthetic-fp16
  train-seed14-bwd-weight-default-fp16-gputime:train-seed14-bwd-weight-synthetic-fp16
  public-deepbench-default-bf16-gputime:public-deepbench-bf16
  train-odd-channels-seed1-default-bf16-gputime:odd-channels-seed1-synthetic-bf16
  train-odd-channels-seed2-default-bf16-gputime:train-odd-channels-seed2-synthetic-bf16
  train-network-like-seed1-default-bf16-gputime:train-network-like-seed1-synthetic-bf16
  train-seed12-bwd-weight-default-bf16-gputime:train-seed12-bwd-weight-synthetic-bf16
  train-seed13-fwd-default-bf16-gputime:train-seed13-fwd-synthetic-bf16
  train-network-like-seed7-default-bf16-gputime:train-network-like-seed7-synthetic-bf16
  train-network-like-seed8-default-bf16-gputime:train-network-like-seed8-synthetic-bf16
  train-network-quantized-seed1-default-bf16-gputime:train-network-quantized-seed1-synthetic-bf16
  train-odd-groups-seed1-default-bf16-gputime:train-odd-groups-seed1-synthetic-bf16
  train-seed15-default-fp16-gputime:train-seed15-synthetic-fp16
  train-seed16-default-bf16-gputime:train-seed16-synthetic-bf16
  train-seed17-bwd-weight-default-bf16-gputime:train-seed17-bwd-weight-synthetic-bf16
  train-seed18-dilated-depthwise-bwd-weight-default-bf16-gputime:train-seed18-dilated-depthwise-bwd-weight-synthetic-bf16"

# The committed sweeps (of ALL_SWEEPS, held-out ones first) whose problems hold depthwise bwd_data at stride 2 x 2 with a
# 3x3, 5x5 or 7x7 filter and multiplier 1, 2 or 4: what the stride-2 sliding-rows kernels run
# (bench/device_strided_sliding_adopt.sh),
STRIDED_DEPTHWISE_SWEEPS="baseline-default-bf16-gputime:baseline-synthetic-bf16
  fp16/heldout-default-fp16:baseline-synthetic-fp16 fp16/heldout-default-fp16:depthwise-synthetic-fp16
  depthwise-family/depthwise-default-bf16:depthwise-synthetic-bf16
  heldout-seed6007-default-bf16-gputime:heldout-seed6007-synthetic-bf16
  fp16/heldout-seed6007-default-fp16-gputime:heldout-seed6007-synthetic-fp16
  fp16/heldout-seed6011-default-fp16-gputime:heldout-seed6011-synthetic-fp16
  train-default-bf16-gputime:train-synthetic-bf16 train-seed4-default-bf16-gputime:train-seed4-synthetic-bf16
  train-seed6-default-bf16-gputime:train-seed6-synthetic-bf16 train-seed7-default-bf16-gputime:train-seed7-synthetic-bf16
  train-seed8-default-bf16-gputime:train-seed8-synthetic-bf16 train-default-fp16-gputime:train-synthetic-fp16
  train-seed5-default-fp16-gputime:train-seed5-synthetic-fp16 train-seed9-default-fp16-gputime:train-seed9-synthetic-fp16
  train-network-like-seed1-default-bf16-gputime:train-network-like-seed1-synthetic-bf16
  train-network-like-seed7-default-bf16-gputime:train-network-like-seed7-synthetic-bf16
  train-network-like-seed8-default-bf16-gputime:train-network-like-seed8-synthetic-bf16
  train-network-quantized-seed1-default-bf16-gputime:train-network-quantized-seed1-synthetic-bf16
  train-seed15-default-fp16-gputime:train-seed15-synthetic-fp16
  train-seed16-default-bf16-gputime:train-seed16-synthetic-bf16"

# ... and those whose problems hold tiny groups (C/G = 2 or 4) so (bench/device_strided_sliding_adopt.sh tiny).
STRIDED_TINY_SWEEPS="tiny-groups/tiny-groups-default-bf16:tiny-groups-synthetic-bf16
  train-seed4-default-bf16-gputime:train-seed4-synthetic-bf16 train-seed6-default-bf16-gputime:train-seed6-synthetic-bf16
  train-tiny-groups-default-bf16:train-tiny-groups-synthetic-bf16
  train-tiny-groups-seed78-default-bf16-gputime:train-tiny-groups-seed78-synthetic-bf16
  train-tiny-groups-seed84-default-bf16-gputime:train-tiny-groups-seed84-synthetic-bf16
  train-tiny-groups-small-seed86-default-bf16-gputime:train-tiny-groups-small-seed86-synthetic-bf16
  train-seed9-default-fp16-gputime:train-seed9-synthetic-fp16
  train-tiny-groups-seed79-default-fp16-gputime:train-tiny-groups-seed79-synthetic-fp16
  train-network-like-seed1-default-bf16-gputime:train-network-like-seed1-synthetic-bf16
  train-network-like-seed8-default-bf16-gputime:train-network-like-seed8-synthetic-bf16
  train-seed15-default-fp16-gputime:train-seed15-synthetic-fp16
  train-seed16-default-bf16-gputime:train-seed16-synthetic-bf16"

# The training problem files that hold tiny groups (C/G = 2 or 4), bf16 and the fp16 seed-79 set (never the held-out
# files): the problems of the tiny-group A/Bs (bench/device_tiny_sliding*.sh).
TINY_TRAIN="bench/problems/train-tiny-groups-synthetic-bf16.csv bench/problems/train-tiny-groups-seed78-synthetic-bf16.csv
  bench/problems/train-tiny-groups-seed84-synthetic-bf16.csv bench/problems/small-groups-train-bf16.csv
  bench/problems/train-seed11-fwd-synthetic-bf16.csv bench/problems/train-seed4-synthetic-bf16.csv
  bench/problems/train-seed6-synthetic-bf16.csv bench/problems/train-synthetic-bf16.csv
  bench/problems/train-tiny-groups-seed79-synthetic-fp16.csv bench/problems/train-tiny-groups-small-seed86-synthetic-bf16.csv"

# tiny_twins DIRECTION LABEL DEADLINE ARGS...: ab_twins over every tiny-group depthwise kernel of `default` in
# DIRECTION against its twin (ARGS: --set / --choice), on $TINY_TRAIN.
tiny_twins() {
  direction=$1 label=$2 deadline=$3; shift 3
  ab_twins $label $deadline "$@" --algorithms depthwise --directions $direction --filter "group_channels > 1" \
    --problems $TINY_TRAIN
}

# verify_default SECONDS FILTER DTYPES...: every `default` instance FILTER (a `gconv rules list --filter` expression)
# selects, in DTYPES, against float64 on the first $VERIFY_SHAPES (default two) device shapes it supports
# (bench/verify_device.py stops starting runs after SECONDS; one 7x7 depthwise instance takes ~15 s to compile and run
# on two shapes, hence the minute of grace), $OUT/verify-summary.md; prints its rc and last lines. Its rows go to a
# folder named by the options' hash: a later call with the same options resumes them on a warm machine (which keeps
# /tmp), one with other options starts afresh instead of being refused by verify_device.py.
verify_default() {
  seconds=$1 filter=$2; shift 2
  dir=/tmp/verify-$(echo "$filter|$*|${VERIFY_SHAPES:-2}" | md5sum | cut -c1-12)
  timeout $((seconds + 60)) python3 bench/verify_device.py --rule-set default --dtypes "$@" --filter "$filter" \
    --shapes-per-instance ${VERIFY_SHAPES:-2} --out $dir --deadline-s $seconds > $dir.log 2>&1
  echo "verify rc=$?"; cp $dir/summary.md $OUT/verify-summary.md 2>/dev/null; tail -n 3 $dir.log
}

# capi_check SECONDS: the C library's GPU check of the `tests` set (capi/device_check.sh: AOT build, ctest,
# gconv-helper --validate), its summary lines printed and its logs in $OUT/capi.tgz.
capi_check() {
  timeout $1 bash capi/device_check.sh tests $OUT/capi > /dev/null 2>&1
  echo "capi check rc=$?"; grep -E "configure|build|ctest exit|exit [1-9]|failed" $OUT/capi/device-check.txt | head -20
  (cd $OUT && tar czf capi.tgz capi && rm -r capi)
}

# The GPU model whose rows a results file holds: bench/results/h200/ the H200's, every other file the H100's (issue
# targets and training rows); resume_sweeps passes it to --require-gpu, so a resumed file never mixes the two by
# accident. $SWEEP_GPU overrides it, on purpose only: an H200 focus sweep of stale H100 rows, whose rows then carry
# `focus_sweep scatter --note` (relaxed-atomics/README.md "Measured again on an H200" says why that beats stale rows),
# or $SWEEP_NOTE (resume_sweeps' --note) where no scatter follows (the resumed file is the one committed).
sweep_gpu() { [ -n "$SWEEP_GPU" ] && { echo "$SWEEP_GPU"; return; }; case $1 in h200/*) echo H200 ;; *) echo H100 ;; esac; }

# resume_sweeps DEST RESULT:PROBLEMS...: resume each `default` sweep (only its missing rows are measured), compiled and
# measured 2 batches at a time, the next 2 compiled while these are measured (--overlap-compile: timings as clean,
# bench/results/stale-rows/; $SWEEP_FLAGS adds options; $SWEEP_NOTE, e.g. "measured on NVIDIA H200 (x/README.md)",
# goes into the detail of every row written (--note: 'DETAIL; NOTE' where a row has one; resumed rows stay), while
# more than 30 of $(left) seconds remain (the calling script defines left()); each CSV and log goes to $OUT/DEST/
# under the CSV's path in bench/results/. With $STAGE_DIR they go to $STAGE_DIR/DEST/ instead, archived into
# $OUT/DEST.tgz after every file: a call cut short still returns the files it finished (the device tool returns at
# most 8 files, and nothing a script had yet to archive when its time ran out). $STAGE_DIR/DEST/ is emptied first: a
# warm machine keeps /tmp from an earlier call, whose files would come back again.
resume_sweeps() {
  dest=$1; shift
  root=${STAGE_DIR:-$OUT}
  [ -n "$STAGE_DIR" ] && rm -rf "$STAGE_DIR/$dest"
  for pair in "$@"; do
    out=${pair%%:*}; problems=${pair##*:}
    [ $(left) -gt 30 ] || { echo "$out: not resumed, time is up"; continue; }
    mkdir -p $root/$dest/$(dirname $out)
    timeout $(left) gconv bench sweep --rule-set default --problems bench/problems/$problems.csv --compile-window 2 \
      --out bench/results/$out.csv --gpus auto --require-gpu $(sweep_gpu $out) --overlap-compile $SWEEP_FLAGS \
      ${SWEEP_NOTE:+--note "$SWEEP_NOTE"} \
      >> $root/$dest/$out.log 2>&1
    echo "$out rc=$?"
    cp bench/results/$out.csv $root/$dest/$out.csv
    [ -n "$STAGE_DIR" ] && (cd $STAGE_DIR && tar czf $OUT/$dest.tgz.part $dest && mv $OUT/$dest.tgz.part $OUT/$dest.tgz)
  done
}

# The bf16 held-out baseline, depthwise family and first training sweeps (the earlier device scripts' resume).
resume_bf16_sweeps() {
  resume_sweeps . baseline-default-bf16-gputime:baseline-synthetic-bf16 \
    depthwise-family/depthwise-default-bf16:depthwise-synthetic-bf16 train-default-bf16-gputime:train-synthetic-bf16
}

# ab_twins LABEL DEADLINE ARGS...: bench/ab_variant.py with ARGS (--choice / --set, --algorithms, --directions,
# --problems, ...) until DEADLINE seconds, into $OUT/ab-LABEL.csv and .log; prints its rc and the best-twin summary.
ab_twins() {
  label=$1 deadline=$2; shift 2
  timeout $((deadline + 20)) python3 -m bench.ab_variant "$@" --deadline-s $deadline --out $OUT/ab-$label.csv \
    > $OUT/ab-$label.log 2>&1
  echo "$label rc=$?"; sed -n '/speed-up of the best twin/,$p' $OUT/ab-$label.log | head -30
}
