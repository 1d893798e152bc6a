# Fill .whl/ (git-ignored) with the wheels the device lacks, for carry [".whl"] (bench/device_setup.sh installs them):
# the device has torch, triton and numpy, but no pydantic; its Python is 3.12 on x86_64.
set -e
rm -rf .whl
python -m pip download -q --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \
  --dest .whl "pydantic>=2.6,<3"
ls .whl
