# The last-arrival bwd_weight kernels (`_sk<S>la`: depthwise 3x3 and 5x5 splits, session 37; direct splits with
# vectors, session 38) in every `default` sweep, on the device with carry [".whl"] (name nvidia-h100-x1):
#   bash bench/device_last_arrival_sweeps.sh [RESULT:PROBLEMS ...]   (default: $ALL_SWEEPS, then the two zoo files)
# The atomic kernels they replace had their rows dropped first (python bench/drop_rows.py --where "algorithm ==
# 'depthwise' and direction == 'bwd_weight' and split_k > 1 and filter_size != 7" FILES; the direct ones likewise:
# "algorithm == 'direct' and direction == 'bwd_weight' and split_k > 1 and vector_width > 1"), so the resume measures
# exactly the new pairs.
# 0. With CAPI_S > 0 (default 0), the C library's GPU check of the `tests` set first (stash the tree with --rule-set
#    default tests).
# 1. With VERIFY_S > 0 (default 0), every such `default` instance (bf16, fp16, fp32; VERIFY_FILTER, default
#    "last_arrival", and VERIFY_DTYPES narrow it) against float64 on the first device shape it supports (each worker
#    process runs its instances one after another on the workspace it keeps: one left dirty would fail the next):
#    $OUT/verify-summary.md.
# 2. The resumed sweeps in the time left (BUDGET_S, default 570): $OUT/resumed.tgz, as device_resume_sweeps.sh. The
#    zoo files are evaluation only: no rule is picked on them.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-570} - ($(date +%s) - start) )); }
[ ${CAPI_S:-0} -gt 0 ] && capi_check $CAPI_S
if [ ${VERIFY_S:-0} -gt 0 ]; then
  VERIFY_SHAPES=1 verify_default $VERIFY_S "${VERIFY_FILTER:-last_arrival}" ${VERIFY_DTYPES:-bf16 fp16 fp32}
  grep -E "instances pass|FAIL" $OUT/verify-summary.md | head -12
fi
ZOOS="zoo2/zoo2-timm-default-bf16-gputime:zoo2-timm-bf16 zoo/zoo-timm-default-bf16-gputime:zoo-timm-bf16"
STAGE_DIR=/tmp/gconv-stage resume_sweeps resumed ${@:-$ALL_SWEEPS $ZOOS}
