# Held-out real-network problems (bench/zoo_shapes.py: grouped layers of timm models, never trained on or used to pick
# rules), on the device with carry [".whl"] (name the machine nvidia-h100-x1; BUDGET_S=seconds, default 560):
#   bash bench/device_zoo.sh
# 1. when bench/problems/zoo-timm-bf16.csv is not in the tree: writes it and bench/results/zoo/layers.csv with the
#    device's timm ($OUT/zoo-timm-bf16.csv, $OUT/layers.csv);
# 2. sweeps `default` and cuDNN over it, resumable: run again (with the files of step 1 committed) until rc=0
#    ($OUT/resumed.tgz: bench/results/zoo/zoo-timm-default-bf16-gputime.csv and its log).
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
if [ ! -f bench/problems/zoo-timm-bf16.csv ]; then
  python3 -c "import timm, torch, torchvision; print('timm', timm.__version__, 'torch', torch.__version__)"
  python3 -m bench.zoo_shapes --layers bench/results/zoo/layers.csv --problems bench/problems/zoo-timm-bf16.csv \
    || exit 1
  cp bench/problems/zoo-timm-bf16.csv bench/results/zoo/layers.csv $OUT/
fi
mkdir -p bench/results/zoo
STAGE_DIR=/tmp/gconv-stage resume_sweeps resumed zoo/zoo-timm-default-bf16-gputime:zoo-timm-bf16
