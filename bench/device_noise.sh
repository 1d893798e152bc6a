# Run-to-run noise of the held-out measurements on the device, with carry [".whl"] and the tree stashed by
# `python -m bench.device_tree stash DIR --rule-set default tests tiny --results-but noise noise-b`:
#     SWEEP_GPU=H200 bash bench/device_noise.sh   (BUDGET_S, default 570)
# The same focus sweep twice, in two processes one after the other: bench/results/noise.csv and noise-b.csv (both
# from `focus_sweep gather --name noise --remeasure "dtype == 'bf16'" --near-best 1.5` over the four bf16 held-out
# sweeps; noise-b the same two files copied) resumed, so every (problem, kernel) pair within 1.5x of its problem's
# fastest held-out row is timed twice on one GPU ($OUT/resumed.tgz). bench/noise_ceiling.py then says how well one
# run's oracle does in the other: the best any selector trained on such rows can score.
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-570} - ($(date +%s) - start) )); }
STAGE_DIR=/tmp/gconv-stage resume_sweeps resumed noise:noise noise-b:noise-b
tail -n 3 /tmp/gconv-stage/resumed/noise.log /tmp/gconv-stage/resumed/noise-b.log
