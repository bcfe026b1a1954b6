# Two entry points on a fresh Debian machine: `make run` (the main job) and `make test`.
# Python runs in a virtual environment this Makefile makes ($(VENV)): Debian's own Python
# refuses `pip install` outside one (PEP 668: an externally managed environment).
SYSTEM_PYTHON ?= python3
VENV ?= .venv
PYTHON := $(VENV)/bin/python
ADMINDESK := $(VENV)/bin/admindesk
# The main job: an agent over a task selection, its run folder and HTML report.
AGENT ?= reference
TASKS ?= pa-easy-01
RUN_DIR ?= runs/main
PYTEST_ARGS ?= -n 2 --dist worksteal --durations=40

.PHONY: deps install run report demo serve test check bench

deps:  ## Debian's Chromium: the harness and the browser tests drive it.
	@command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)

# Debian ships venv apart from Python (python3-venv): without it `-m venv` fails, so it is
# installed and the half-made folder made again.
$(PYTHON):
	$(SYSTEM_PYTHON) -m venv $(VENV) || (rm -rf $(VENV) && apt-get update \
		&& apt-get install -y python3-venv && $(SYSTEM_PYTHON) -m venv $(VENV))

# Installed again only when the package's requirements change.
$(VENV)/.installed: pyproject.toml setup.py | $(PYTHON)
	$(PYTHON) -m pip install -q -e ".[test,browsergym]"
	@touch $@

install: deps $(VENV)/.installed

run: install  ## serve the four apps, run $(AGENT) over $(TASKS), write $(RUN_DIR) and its report
	$(ADMINDESK) run --agent $(AGENT) --tasks $(TASKS) --out $(RUN_DIR)
	$(ADMINDESK) report $(RUN_DIR)

demo: install  ## the scripted cross-app demo episode (EHR download -> fax upload)
	$(ADMINDESK) demo --out runs/demo

serve: install
	$(ADMINDESK) serve

test: install  ## the environment's scripts first on PATH: tests start `admindesk` as a user would
	PATH="$(abspath $(VENV))/bin:$$PATH" $(PYTHON) -m pytest $(PYTEST_ARGS)

check: install  ## the whole task suite's proof: reference, rerun, controls and ablations on every task
	$(ADMINDESK) tasks check all --ablate --workers 2

bench: install
	$(PYTHON) bench/reset_bench.py
	$(PYTHON) bench/harness_bench.py
