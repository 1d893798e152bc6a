# New `default` kernels, on the device with carry [".whl"] (name the machine nvidia-h100-x1; BUDGET_S, default 560;
# VERIFY_S, the seconds step 1 may take, default 130):
#   bash bench/device_verify_resume.sh "FILTER" DTYPES...
# 1. every instance of `default` FILTER (a `gconv rules list --filter` expression) selects, in DTYPES, against float64
#    on the first two device shapes it supports ($OUT/verify-summary.md; its verdict lines printed);
# 2. then every committed sweep resumed: the new kernels are the missing (problem, kernel) pairs ($OUT/resumed.tgz;
#    run bash bench/device_resume_sweeps.sh for what is left); RESUME="RESULT:PROBLEMS ..." names the sweeps instead
#    (only the CSVs carried: a sweep whose CSV is absent is measured whole).
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
filter=$1; shift
verify_default ${VERIFY_S:-130} "$filter" "$@"
grep -E "instances pass|FAIL" $OUT/verify-summary.md | head -5
STAGE_DIR=/tmp/gconv-stage resume_sweeps resumed ${RESUME:-$ALL_SWEEPS}
