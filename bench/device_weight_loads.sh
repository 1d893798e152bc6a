# The implicit-GEMM bwd_data kernels with scalar loads, their weights loaded a step ahead (generator/render.py
# WEIGHT_LOADS), on the device with carry [".whl"]:  bash bench/device_weight_loads.sh
# (name the machine nvidia-h100-x1; BUDGET_S=seconds, default 300). Ran at commit d781b499; the choice was removed
# after it measured 0.99x (bench/results/weight-loads/README.md): check that commit out to run it again.
# sm_90 PTX of the best one-channel bwd_data kernel (bench/results/README.md "Next"): dY arrives in pipelined 16-byte
# copies, the weights in synchronous 2-byte loads right before each step's multiply. Every flat scalar bwd_data tile
# of `default` against its step-ahead twin, interleaved, cuDNN alongside, on DeepBench's one-channel layers and the
# seed-78 tiny-group and seed-10 training problems: $OUT/ab-weight-loads.csv; score with python -m bench.ab_rule.
. bench/device_setup.sh
ab_twins weight-loads $(( ${BUDGET_S:-300} - 40 )) --choice weight_loads=step_ahead --algorithms igemm \
  --directions bwd_data --filter "vector_width == 1 and groups_to_merge == 1 and not tap_major and pipeline != 'tma'" \
  --problems bench/problems/one-channel-deepbench-bwd-data-bf16.csv \
  bench/problems/train-tiny-groups-seed78-synthetic-bf16.csv bench/problems/train-seed10-synthetic-bf16.csv
