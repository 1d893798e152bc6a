# Sourced by the bench/device_*.sh scripts on the device (carry [".whl"]): the wheels the device lacks, then gconv in
# editable mode, and Triton's FP-fusion default set explicitly (it warns otherwise).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
python3 -m pip install -q --no-deps --no-build-isolation --no-index -e . >/dev/null 2>&1
export TRITON_DEFAULT_FP_FUSION=1

# Resume the bf16 `default` sweeps of the held-out baseline, the depthwise family and the training problems, each
# within $(left) seconds (the calling script defines left()); the CSVs and logs come back in $OUT.
resume_bf16_sweeps() {
  for name in baseline-default-bf16-gputime:baseline-synthetic-bf16 depthwise-family/depthwise-default-bf16:depthwise-synthetic-bf16 \
              train-default-bf16-gputime:train-synthetic-bf16; do
    out=${name%%:*}; problems=${name##*:}
    timeout $(left) gconv bench sweep --rule-set default --problems bench/problems/$problems.csv \
      --out bench/results/$out.csv --gpus auto > $OUT/$(basename $out).log 2>&1; echo "$out rc=$?"
    cp bench/results/$out.csv $OUT/
  done
}
