# The merged-group tiles of 64-deep steps `default` took from bench/results/odd-channels/, on the device with
# carry [".whl"]:  bash bench/device_merge_deep.sh    (name the machine nvidia-h100-x1; BUDGET_S, default 560)
# 1. every such instance of `default` (of the rules RULES names, default all three) in bf16 and fp16 against float64
#    on the first two device shapes it supports ($OUT/verify-summary.md);
# 2. then every committed sweep resumed: the new kernels are the missing (problem, kernel) pairs ($OUT/resumed.tgz;
#    run bash bench/device_resume_sweeps.sh for what is left).
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
RULES=${RULES:-"'igemm-fwd-merge-deep', 'igemm-bwd-data-merge-deep', 'igemm-bwd-weight-merge-deep'"}
verify_default 130 "rule in [$RULES]" bf16 fp16
STAGE_DIR=/tmp/gconv-stage resume_sweeps resumed $ALL_SWEEPS
