# The depthwise family's power-of-two channel padding (runtime/padding.py, capi/src/select.c) on the device, with carry
# [".whl"] and the tree stashed by `python -m bench.device_tree stash DIR --rule-set default tests tiny --results-but
# pow2-padding`:  SWEEP_GPU=H200 bash bench/device_pow2_padding.sh   (BUDGET_S=seconds, default 570)
# 1. the focus sweep bench/results/pow2-padding.csv resumed ($OUT/resumed.tgz): the (problem, kernel) pairs the
#    padding adds -- the four-channel (cpg4) kernels on C/G = 3 problems, the two-channel ones on C/G = 2 with
#    K/G = 3 -- measured,
#    each checked against the reference as every sweep row is (`focus_sweep scatter` then puts them into the sweeps);
# 2. the C library's GPU check of the `tests` set (capi_check: ctest runs tests/test_capi.py, whose
#    test_padded_run_on_the_device pads C=3 to a cpg4 kernel in every direction), $OUT/capi.tgz.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-570} - ($(date +%s) - start) )); }
STAGE_DIR=/tmp/gconv-stage resume_sweeps resumed pow2-padding:pow2-padding
tail -n 4 /tmp/gconv-stage/resumed/pow2-padding.log
[ $(left) -gt 120 ] && capi_check $(( $(left) - 10 ))
