# The tiny-group fwd kernels of eight channels a group (cpg8: C/G 5-8 padded to 8, runtime/padding.py) on the
# device, with carry [".whl"] and the tree stashed by `python -m bench.device_tree stash DIR --rule-set default
# tests tiny --results-but cpg8`:  SWEEP_GPU=H200 bash bench/device_cpg8.sh   (BUDGET_S, default 570)
# The focus sweep bench/results/cpg8.csv resumed ($OUT/resumed.tgz): the (problem, kernel) pairs the cpg8 kernels add
# -- fwd, per tap (4 x 8 pixels of 8 groups) and sliding rows (4 x 16 of 8) -- on the problems whose C/G pads to 8,
# measured, each checked against the reference as every sweep row is (`focus_sweep scatter` then puts them into the
# sweeps).
# (The rule behind those kernels was reverted after this measurement: bench/results/cpg8/README.md.)
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-570} - ($(date +%s) - start) )); }
STAGE_DIR=/tmp/gconv-stage resume_sweeps resumed cpg8:cpg8
tail -n 4 /tmp/gconv-stage/resumed/cpg8.log
