# One entry point for set-up, serving, testing and benchmarks. Every target builds the virtual
# environment first, so a fresh clone needs nothing but `make serve` or `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: install serve test lint bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip uv
	$(BIN)/uv pip install --python $(BIN)/python --quiet -e '.[dev]'
	touch $(STAMP)

serve: $(STAMP)
	$(BIN)/opspec serve --host $(HOST) --port $(PORT)

lint: $(STAMP)
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app tests bench

test: lint
	$(BIN)/python -m pytest

bench: $(STAMP)
	@echo "installing the bench extra (onnx, onnxruntime, openvino: the engines the kernels race against)"
	$(BIN)/uv pip install --python $(BIN)/python --quiet -e '.[dev,bench]'
	@for script in bench/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis build *.egg-info
