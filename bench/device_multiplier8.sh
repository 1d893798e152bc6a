# The tiny-group kernels' eight-filter multiplier (m8: C/G 3-4 with K/G 5-8 padded to 4 x 8, runtime/padding.py) on
# the device, with carry [".whl"] and the tree stashed by `python -m bench.device_tree stash DIR --rule-set default
# tests tiny --results-but multiplier8`:  SWEEP_GPU=H200 bash bench/device_multiplier8.sh   (BUDGET_S, default 570)
# The focus sweep bench/results/multiplier8.csv resumed ($OUT/resumed.tgz): the (problem, kernel) pairs the m8 kernels
# add -- fwd (per-tap and sliding rows) and bwd_data (sliding rows at stride 1 and 2 x 2) of four channels a group, on
# C/G 3-4 problems whose K/G pads to 8 -- measured, each checked against the reference as every sweep row is
# (`focus_sweep scatter` then puts them into the sweeps).
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-570} - ($(date +%s) - start) )); }
STAGE_DIR=/tmp/gconv-stage resume_sweeps resumed multiplier8:multiplier8
tail -n 4 /tmp/gconv-stage/resumed/multiplier8.log
