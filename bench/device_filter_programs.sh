# The depthwise bwd_weight kernels with their filter programs adjacent (generator/render.py FILTER_PROGRAMS) on the
# device, with carry [".whl"]:  bash bench/device_filter_programs.sh
# (name the machine nvidia-h100-x1: every committed sweep is H100)
# Nsight Compute found the sliding depthwise bwd_weight kernel DRAM-bound (61% of DRAM, L1 hits 1.7%, L2 37%;
# bench/results/ncu/): its grid is (splits, group blocks, filter columns) and the GPU launches axis 0 fastest, so the
# seven programs that walk the same dy and x tiles for one filter column each launch splits x group blocks apart and
# read them from DRAM again. The `adjacent` twin renumbers the launch index with the filter axis fastest (same grid,
# same work per program; tests/test_filter_programs.py). Every depthwise bwd_weight kernel of `default` (sliding rows
# or not, tiny groups too) against that twin on bf16 training problems only (seeds 1, 4 and 10, the seed-78 tiny
# groups), interleaved, cuDNN alongside: $OUT/ab-filter-programs.csv; then score a rule with
#   python -m bench.ab_rule bench/results/filter-programs/ab-filter-programs.csv [--keep-base EXPR]
# (BUDGET_S=seconds, default 565: keep it below the session's budget_left_s)
# First, the held-out rows `python bench/dtype_twins.py ... --drop` took out (bench/results/README.md, next device
# session: a kernel's fp16 and bf16 times on one layer far apart) are measured again ($OUT/resumed.tgz; quick, and
# nothing to do when none were dropped).
. bench/device_setup.sh
begun=$(date +%s)
BUDGET_S=150 bash bench/device_resume_sweeps.sh fp16/heldout-default-fp16:baseline-synthetic-fp16 \
  fp16/heldout-default-fp16:depthwise-synthetic-fp16 baseline-default-bf16-gputime:baseline-synthetic-bf16 \
  depthwise-family/depthwise-default-bf16:depthwise-synthetic-bf16
left=$(( ${BUDGET_S:-565} - ($(date +%s) - begun) ))
ab_twins filter-programs $((left - 30)) --choice filter_programs=adjacent --algorithms depthwise \
  --directions bwd_weight --problems bench/problems/train-seed10-synthetic-bf16.csv \
  bench/problems/train-seed4-synthetic-bf16.csv bench/problems/train-synthetic-bf16.csv \
  bench/problems/train-tiny-groups-seed78-synthetic-bf16.csv
