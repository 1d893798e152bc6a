# Resume committed `default` sweeps on the device after kernels changed, with carry [".whl"]:
#   bash bench/device_resume_sweeps.sh [RESULT:PROBLEMS ...]    (default: all of device_setup.sh's ALL_SWEEPS)
# (BUDGET_S=seconds, default 560, when the call does something else first)
# First drop the changed kernels' rows here (python bench/drop_rows.py --where ... FILES); a resumed sweep measures
# exactly the missing (problem, kernel) pairs. Run it again until every file reports rc=0. The CSVs and logs come
# back in $OUT/resumed.tgz (the device tool returns at most 8 files): `tar xzf FILES_AT/resumed.tgz -C /tmp` and copy
# /tmp/resumed/*.csv (keeping their paths) over bench/results/.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
STAGE_DIR=/tmp/gconv-stage resume_sweeps resumed ${@:-$ALL_SWEEPS}  # $OUT/resumed.tgz, refreshed after every file
