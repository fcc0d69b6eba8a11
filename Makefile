# Every target sets up .venv itself, so a fresh clone needs nothing but python3 (>= 3.11).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Re-install whenever the dependency declarations or the pinned constraints change. `make run`
# installs what runs the gateway (about 190 MB); the test and lint tools come with the first
# `make test`, `make lint` or `make bench` (about 330 MB more).
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
PIP := $(BIN)/python -m pip install --disable-pip-version-check --progress-bar off -c constraints.txt
# pip's own lines, one per package it fetches: progress without its pages of detail.
STEPS := awk '/^Collecting/ { print "    " $$2; fflush() } \
  /^Successfully installed/ { print "    installed " NF - 2 " packages"; fflush() } \
  /^ERROR/ { print; fflush() }'
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
# The MCP Inspector CLI (pinned in tests/inspector/package-lock.json) for tests/transports.
INSPECTOR_DIR := tests/inspector
INSPECTOR := $(INSPECTOR_DIR)/node_modules/.installed

.PHONY: setup dev-setup run test lint bench clean browser

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || { echo "==> making .venv with $$($(PYTHON) --version)"; $(PYTHON) -m venv $(VENV); }
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade "pip>=24"
	@echo "==> installing fruitctl and what runs it (FastAPI, the MCP SDK, SQLAlchemy, caldav, ...;"
	@echo "    about 190 MB in .venv, a minute or two the first time, seconds afterwards)"
	@$(PIP) -e . 2>&1 | $(STEPS)
	@touch $@

dev-setup: $(DEV_STAMP)

$(DEV_STAMP): $(STAMP)
	@echo "==> adding the test and lint tools (pytest, Radicale, Playwright, mypy, ruff, ...; about 330 MB)"
	@$(PIP) -e '.[dev]' 2>&1 | $(STEPS)
	@touch $@

# --ignore-scripts: nothing in the tree needs an install script, and none may fetch anything else.
$(INSPECTOR): $(INSPECTOR_DIR)/package.json $(INSPECTOR_DIR)/package-lock.json
	@command -v npm >/dev/null || { echo "make test needs node and npm (Debian: apt-get install nodejs npm)"; exit 1; }
	@npm ci --prefix $(INSPECTOR_DIR) --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

# Sample data on first run (an empty store only), then the gateway in the foreground: its banner
# says how to talk to it (fruitctl ping, nc -U, socat). Ctrl-C stops it.
run: setup
	@echo "==> sample data, into an empty local store only"
	@$(BIN)/fruitctl demo
	@echo "==> starting the gateway (Ctrl-C stops it)"
	@exec $(BIN)/fruitctl serve

lint: dev-setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

# The approval page's browser test drives Debian's chromium (Playwright's own download cannot
# work here): install it when missing, as root; otherwise say how.
browser:
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || exit 1; \
	  else echo "make test needs chromium for the approval page test: sudo apt-get install -y chromium"; exit 1; fi; }

test: lint $(INSPECTOR) browser
	$(BIN)/pytest

bench: dev-setup
	$(BIN)/python benchmarks/store_scale.py
	$(BIN)/python benchmarks/gateway_overhead.py
	$(BIN)/python benchmarks/mcp_stdio.py
	$(BIN)/python benchmarks/http_api.py
	$(BIN)/python benchmarks/socket_rpc.py
	$(BIN)/python benchmarks/caldav_sync.py
	$(BIN)/python benchmarks/things_reads.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache $(INSPECTOR_DIR)/node_modules
