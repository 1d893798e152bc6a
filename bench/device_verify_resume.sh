# New `default` kernels, on the device with carry [".whl"] (name the machine nvidia-h100-x1; BUDGET_S, default 560):
#   bash bench/device_verify_resume.sh "FILTER" DTYPES...
# 1. every instance of `default` FILTER (a `gconv rules list --filter` expression) selects, in DTYPES, against float64
#    on the first two device shapes it supports ($OUT/verify-summary.md);
# 2. then every committed sweep resumed: the new kernels are the missing (problem, kernel) pairs ($OUT/resumed.tgz;
#    run bash bench/device_resume_sweeps.sh for what is left).
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
filter=$1; shift
verify_default 130 "$filter" "$@"
STAGE_DIR=/tmp/gconv-stage resume_sweeps resumed $ALL_SWEEPS
