#!/usr/bin/env bash
# GPU check of the C library on the device (docs/cmake.md): build one rule set, run ctest (GPU tests included) and
# gconv-helper --validate for each direction. Usage: capi/device_check.sh [RULE_SET] [OUT_DIR]
set -uo pipefail
rule_set=${1:-tests}
out=${2:-${OUT:-build/device-check}}
mkdir -p "$out"
build=build/device-$rule_set
python=$(command -v python3)
{
  echo "# $(date -u +%FT%TZ) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
  $python -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  start=$SECONDS
  cmake -S . -B "$build" -DRULE_SET="$rule_set" -DGCONV_ARCH=90 -DGCONV_PYTHON="$python" > "$out/configure.log" 2>&1 \
    || { echo "configure failed"; tail -20 "$out/configure.log"; exit 1; }
  cmake --build "$build" -j "$(nproc)" > "$out/build.log" 2>&1 || { echo "build failed"; tail -40 "$out/build.log"; exit 1; }
  echo "configure + build: $((SECONDS - start)) s"
  (cd "$build" && ctest --output-on-failure -j 4 --label-exclude configure) > "$out/ctest.log" 2>&1
  echo "ctest exit $?"; tail -25 "$out/ctest.log"
  for direction in fwd bwd_data bwd_weight; do
    for shape in "--n 32 --g 32 --c 4 --k 4 --hw 56 56 --yx 3 3 --stride 1 1 --pad 1 1" \
                 "--n 8 --g 2 --c 64 --k 64 --hw 28 28 --yx 3 3 --stride 2 2 --pad 1 1" \
                 "--n 4 --g 48 --c 1 --k 1 --hw 30 30 --yx 5 5 --stride 1 1 --pad 2 2"; do
      "$build/gconv-helper" $direction $shape --validate; echo " exit $?"
    done
  done
} 2>&1 | tee "$out/device-check.txt"
