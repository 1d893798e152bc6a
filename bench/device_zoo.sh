# Held-out real-network problems (bench/zoo_shapes.py: grouped layers of timm models, never trained on or used to pick
# rules), on the device with carry [".whl"] (name the machine nvidia-h100-x1; BUDGET_S=seconds, default 560):
#   bash bench/device_zoo.sh              # the first zoo file: zoo_shapes.MODELS
#   ZOO=zoo2 bash bench/device_zoo.sh     # the second: ZOO2_MODELS below, less every problem of bench/problems/
# 1. when bench/problems/$ZOO-timm-bf16.csv is not in the tree: writes it and bench/results/$ZOO/layers.csv with the
#    device's timm ($OUT/$ZOO-timm-bf16.csv, $OUT/layers.csv);
# 2. sweeps `default` and cuDNN over it, resumable: run again (with the files of step 1 committed) until rc=0
#    ($OUT/resumed.tgz: bench/results/$ZOO/$ZOO-timm-default-bf16-gputime.csv and its log).
# The second file (session 35) is a clean check: the first one's pattern drove the network-like training shapes.
ZOO2_MODELS="regnetx_016 mobilenetv2_100 convnextv2_atto ghostnet_100"
. bench/device_setup.sh
start=$(date +%s)
left() { echo $(( ${BUDGET_S:-560} - ($(date +%s) - start) )); }
zoo=${ZOO:-zoo}
problems=bench/problems/$zoo-timm-bf16.csv
if [ ! -f $problems ]; then
  python3 -c "import timm, torch, torchvision; print('timm', timm.__version__, 'torch', torch.__version__)"
  if [ $zoo = zoo ]; then
    python3 -m bench.zoo_shapes --layers bench/results/zoo/layers.csv --problems $problems || exit 1
  else
    python3 -m bench.zoo_shapes --models $ZOO2_MODELS --layers bench/results/$zoo/layers.csv --problems $problems \
      --exclude bench/problems/*.csv || exit 1
  fi
  cp $problems bench/results/$zoo/layers.csv $OUT/
fi
mkdir -p bench/results/$zoo
STAGE_DIR=/tmp/gconv-stage resume_sweeps resumed $zoo/$zoo-timm-default-bf16-gputime:$zoo-timm-bf16
