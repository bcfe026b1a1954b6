# Two entry points on a fresh Debian machine: `make run` (the main job) and `make test`.
PYTHON ?= python3
# The main job: an agent over a task selection, its run folder and HTML report.
AGENT ?= reference
TASKS ?= pa-easy-01
RUN_DIR ?= runs/main
PYTEST_ARGS ?= -n 2

.PHONY: deps install run report demo serve test check bench

deps:  ## Debian's Chromium: the harness and the browser tests drive it.
	@command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)

install: deps
	$(PYTHON) -m pip install -q -e ".[test]"
	@# browsergym-core pins an older Playwright; the adapter runs on ours, so it goes in without its pins.
	$(PYTHON) -m pip install -q beautifulsoup4 "lxml>=4.9,<6" "pyparsing>=3"
	$(PYTHON) -m pip install -q --no-deps "browsergym-core>=0.14"

run: install  ## serve the four apps, run $(AGENT) over $(TASKS), write $(RUN_DIR) and its report
	admindesk run --agent $(AGENT) --tasks $(TASKS) --out $(RUN_DIR)
	admindesk report $(RUN_DIR)

demo: install  ## the scripted cross-app demo episode (EHR download -> fax upload)
	admindesk demo --out runs/demo

serve: install
	admindesk serve

test: install
	$(PYTHON) -m pytest $(PYTEST_ARGS)

check: install  ## the whole task suite's proof: reference, rerun, controls and ablations on every task
	admindesk tasks check all --ablate --workers 2

bench: install
	$(PYTHON) bench/reset_bench.py
	$(PYTHON) bench/harness_bench.py
