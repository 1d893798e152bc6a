# The tiny-group kernels `default` took from bench/results/tiny-sliding/, on the device with carry [".whl"]:
#   bash bench/device_tiny_sliding_adopt.sh [FILTER]  (name the machine nvidia-h100-x1; BUDGET_S=seconds, default 560)
# FILTER (a `gconv rules list --filter` expression) picks them: by default the fwd ones (sliding rows on the 8 x 8 and
# 4 x 16 tiles at row stride 1 and 2, the 4 x 8-pixel tile of 8 groups); the bwd_data ones were run with
# "rule == 'tiny-groups-sliding-bwd-data'".
# bench/device_verify_resume.sh on them in bf16, fp16 and fp32 (150 s of verification): float64 verification on the
# first two device shapes each supports, then every committed sweep resumed.
VERIFY_S=150 bash bench/device_verify_resume.sh \
  "${1:-algorithm == 'depthwise' and group_channels > 1 and direction == 'fwd' and (sliding_rows > 0 or block_n == 8)}" \
  bf16 fp16 fp32
