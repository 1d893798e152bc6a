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

test: $(STAMP)
	$(BIN)/gconv check
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS)

clean:
	rm -rf $(VENV)
