# Sourced by the bench/device_*.sh scripts on the device (carry [".whl"]): the wheels the device lacks, then gconv in
# editable mode, and Triton's FP-fusion default set explicitly (it warns otherwise).
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
python3 -m pip install -q --no-deps --no-build-isolation --no-index -e . >/dev/null 2>&1
export TRITON_DEFAULT_FP_FUSION=1
