# The 8-byte (half-width) depthwise loads of session 36 (rules/full.yaml `vectors: [max, half, scalar]`, candidates
# only where 8 does not divide G; 4 in fp32), on the device with carry [".whl"] (name nvidia-h100-x1):
#   bash bench/device_half_vectors.sh [RESULT:PROBLEMS ...]     (step 2's sweeps; default: all of SWEEPS below)
# 1. every such `default` instance (bf16, fp16, fp32) against float64 on the first device shape it supports
#    ($OUT/verify-summary.md; stops starting instances after VERIFY_S seconds, default 300: 543 of the 615 ran in
#    that; VERIFY_WHERE="direction == 'fwd'" narrows the filter, for the rest);
# 2. in the time left (BUDGET_S, default 570), their rows in the training sweeps whose problems hold such G (the
#    resume measures exactly the missing pairs), then the second zoo file ($OUT/resumed.tgz, as
#    device_resume_sweeps.sh).
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-570} - ($(date +%s) - start) )); }
VERIFY_SHAPES=1 verify_default ${VERIFY_S:-300} \
  "algorithm == 'depthwise' and ((dtype != 'fp32' and vector_width == 4) or (dtype == 'fp32' and vector_width == 2))${VERIFY_WHERE:+ and ($VERIFY_WHERE)}" \
  bf16 fp16 fp32
grep -E "instances pass|FAIL" $OUT/verify-summary.md | head -12
SWEEPS="train-network-quantized-seed1-default-bf16-gputime:train-network-quantized-seed1-synthetic-bf16
  train-seed4-default-bf16-gputime:train-seed4-synthetic-bf16 train-seed7-default-bf16-gputime:train-seed7-synthetic-bf16
  train-seed8-default-bf16-gputime:train-seed8-synthetic-bf16
  train-seed11-fwd-default-bf16-gputime:train-seed11-fwd-synthetic-bf16
  train-seed5-default-fp16-gputime:train-seed5-synthetic-fp16 train-seed9-default-fp16-gputime:train-seed9-synthetic-fp16
  zoo2/zoo2-timm-default-bf16-gputime:zoo2-timm-bf16"
STAGE_DIR=/tmp/gconv-stage resume_sweeps resumed ${@:-$SWEEPS}
