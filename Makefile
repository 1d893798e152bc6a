# Two entry points for a fresh machine: `make demo` (the main job) and `make test` (the test suite).
# Both create .venv on first use: the CPU build of torch first (so nothing pulls the multi-GB CUDA build),
# then gconv in editable mode with its test extras.
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_WORKERS ?= 2

.PHONY: demo test setup clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q torch==2.13.0
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/gconv demo

# The C library of the tiny set (docs/cmake.md): configured and built before pytest so tests/test_capi.py runs against
# it; ctest then adds the configure checks of all six sets and the helper (its Python test already ran in pytest).
CMAKE_BUILD_DIR ?= build/ci-tiny

test: $(STAMP)
	$(BIN)/gconv check
	cmake -S . -B $(CMAKE_BUILD_DIR) -DRULE_SET=tiny -DGCONV_PYTHON=$(abspath $(BIN)/python)
	cmake --build $(CMAKE_BUILD_DIR) -j $(PYTEST_WORKERS)
	GCONV_LIBRARY=$(abspath $(CMAKE_BUILD_DIR))/libgconv.so $(BIN)/python -m pytest -n $(PYTEST_WORKERS)
	cd $(CMAKE_BUILD_DIR) && ctest --output-on-failure -j $(PYTEST_WORKERS) --label-exclude python

clean:
	rm -rf $(VENV)
