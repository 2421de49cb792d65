# One entry point for set-up, serving, testing and benchmarks. Every target builds the virtual
# environment first, so a fresh clone needs nothing but `make serve` or `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
IMAGE  ?= localhost/opspec:latest

.PHONY: install serve test lint bench clean image docs

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip uv
	$(BIN)/uv pip install --python $(BIN)/python --quiet -e '.[dev]'
	touch $(STAMP)

# Address and port come from OPSPEC_HOST / OPSPEC_PORT (default 127.0.0.1:8000), as for `opspec serve`.
serve: $(STAMP)
	$(BIN)/opspec serve

lint: $(STAMP)
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app tests bench

# The container image, built with buildah (scripts/image.sh says how, and makes the base offline when
# no registry answers); rebuilt only when what goes into it changes. `make test` builds it first so
# tests/test_image.py can run it; SKIP_IMAGE_TEST=1 leaves it out on a machine that cannot build
# images, except under CI, where it always runs.
image:
	scripts/image.sh $(IMAGE)

test: lint browser
	@if [ -z "$$SKIP_IMAGE_TEST" ] || [ -n "$$CI" ]; then scripts/image.sh $(IMAGE); fi
	$(BIN)/python -m pytest

# The docs site into site/ (mkdocs.yml): --strict, so a broken link or anchor is an error. `make test`
# builds it too (tests/docs/test_site.py). Open site/index.html, or serve site/ for its search.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

bench: $(STAMP)
	@if ! command -v wrk >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian's wrk, the load generator of bench/bench_http.py (apt, seconds)"; \
	    apt-get -o DPkg::Lock::Timeout=600 update -q && \
	    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q wrk; \
	  else echo "no wrk and no root apt-get: bench/bench_http.py skips"; fi; \
	fi
	@echo "installing the bench extra (onnx, onnxruntime, openvino: the engines the kernels race against)"
	$(BIN)/uv pip install --python $(BIN)/python --quiet -e '.[dev,bench]'
	@for script in bench/bench_*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis build *.egg-info site

# The page's tests drive Debian's Chromium (Playwright's own browser download cannot work offline).
CHROMIUM ?= /usr/bin/chromium
.PHONY: browser
browser:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian's chromium for the browser tests (apt, about a minute)"; \
	    apt-get -o DPkg::Lock::Timeout=600 update -q && \
	    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -q chromium; \
	  else echo "no $(CHROMIUM) and no root apt-get: the browser tests skip (and fail under CI=true)"; fi; \
	fi
