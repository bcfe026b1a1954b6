# Two entry points on a fresh Debian machine: `make run` (the main job) and `make test`.
PYTHON ?= python3
RUN_DIR ?= runs/demo
PYTEST_ARGS ?= -n 2

.PHONY: deps install run serve test bench

deps:  ## Debian's Chromium: the harness and the browser tests drive it.
	@command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)

install: deps
	$(PYTHON) -m pip install -q -e ".[test]"

run: install  ## serve the four apps and run the scripted demo agent, writing its trajectory
	admindesk demo --out $(RUN_DIR)

serve: install
	admindesk serve

test: install
	$(PYTHON) -m pytest $(PYTEST_ARGS)

bench: install
	$(PYTHON) bench/reset_bench.py
	$(PYTHON) bench/harness_bench.py
