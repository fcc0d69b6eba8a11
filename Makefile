# Every target sets up .venv itself, so a fresh clone needs nothing but Python >= 3.11.
# PYTHON=... names the one to make .venv with; otherwise the first of PYTHONS that is new enough
# (macOS's own python3 is 3.9: asking for the versioned names first finds Homebrew's or python.org's).
PYTHON ?=
PYTHONS := python3.13 python3.12 python3.11 python3
MIN_PYTHON := 3.11
VENV ?= .venv
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
# Compiled modules (and pytest's rewritten tests) are kept in build/pycache, even where the
# environment sets PYTHONDONTWRITEBYTECODE: without them each test worker compiles every test
# module again (11 s of a worker's start here, 5 s with them) and so does every daemon a test starts.
export PYTHONPYCACHEPREFIX ?= $(CURDIR)/build/pycache
export PYTHONDONTWRITEBYTECODE :=
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
# The MCP Inspector CLI (pinned in tests/inspector/package-lock.json) for tests/transports.
INSPECTOR_DIR := tests/inspector
INSPECTOR := $(INSPECTOR_DIR)/node_modules/.installed
# What `make test-mac` runs: the tests that need a real Mac and the person's own data.
MAC_TESTS := tests/backends/eventkit/test_on_a_mac.py tests/backends/things/test_things_on_a_mac.py

.PHONY: setup dev-setup run test test-fast test-mac lint bench clean browser FORCE

setup: $(STAMP)

# Prints the version it runs and exits non-zero when that is older than MIN_PYTHON (or it does not run).
VERSION_OK := -c 'import sys; print("%d.%d.%d" % tuple(sys.version_info[:3])); \
  sys.exit(sys.version_info[:2] < tuple(map(int, "$(MIN_PYTHON)".split("."))))'
# A .venv whose python is too old (or gone) is made again: pip would only fail deep inside it.
# Empty when .venv is fine or absent; otherwise what made it, for the line that says so.
STALE_VENV := $(shell test -e $(BIN)/python -o -L $(BIN)/python && \
  { v=$$($(BIN)/python $(VERSION_OK) 2>/dev/null) || \
    if [ -n "$$v" ]; then echo "Python $$v, too old for fruitctl"; \
    else echo "a Python that no longer runs"; fi; })

# One line and a non-zero status, before anything is made, when no Python is new enough.
define MAKE_VENV
python=; found=; \
for candidate in $(or $(PYTHON),$(PYTHONS)); do \
  command -v "$$candidate" >/dev/null || continue; \
  version=$$("$$candidate" $(VERSION_OK) 2>/dev/null) && { python=$$candidate; break; }; \
  found="$$found$${found:+, }$$candidate $${version:-(does not run)}"; \
done; \
if [ -z "$$python" ]; then \
  echo "fruitctl needs Python $(MIN_PYTHON) or newer; found $${found:-no $(or $(PYTHON),python3)}." \
    "Get one (macOS: brew install python@3.12, or python.org's installer;" \
    "Debian/Ubuntu: sudo apt-get install python3.11 python3.11-venv), then make again" \
    "(or name it: make run PYTHON=/path/to/python3.12)" >&2; \
  exit 1; \
fi; \
if [ -n "$(STALE_VENV)" ]; then \
  echo "==> $(VENV) was made by $(STALE_VENV): making it again"; \
  rm -rf $(VENV); \
fi; \
echo "==> making $(VENV) with Python $$version ($$python)"; \
"$$python" -m venv $(VENV)
endef

$(STAMP): pyproject.toml constraints.txt $(if $(STALE_VENV),FORCE)
	@test -x $(BIN)/python -a -z "$(STALE_VENV)" || { $(MAKE_VENV); }
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade "pip>=24"
	@echo "==> installing fruitctl and what runs it (FastAPI, the MCP SDK, SQLAlchemy, caldav, ...;"
	@echo "    about 190 MB in .venv, a minute or two the first time, seconds afterwards)"
	@$(PIP) -e . 2>&1 | $(STEPS)
	@touch $@

dev-setup: $(DEV_STAMP)

FORCE:

$(DEV_STAMP): $(STAMP)
	@echo "==> adding the test and lint tools (pytest, Radicale, Playwright, mypy, ruff, ...; about 330 MB)"
	@$(PIP) -e '.[dev]' 2>&1 | $(STEPS)
	@touch $@

# Where make installs Debian's packages itself (Linux, as root, with apt-get) or FRUITCTL_TEST_STRICT=1
# says so (.ci/run), the browser and the Inspector are required and a missing one fails the run.
# Elsewhere (a Mac, Linux without root) make says what it could not set up and goes on: those tests
# then skip, each naming what it needs (tests/needs.py holds the same rule).
DEBIAN_ROOT := { [ "$$(uname -s)" = Linux ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; }
REQUIRED := { [ "$$FRUITCTL_TEST_STRICT" = 1 ] || $(DEBIAN_ROOT); }

# --ignore-scripts: nothing in the tree needs an install script, and none may fetch anything else.
$(INSPECTOR): $(INSPECTOR_DIR)/package.json $(INSPECTOR_DIR)/package-lock.json
	@command -v npm >/dev/null || { \
	  if $(REQUIRED); then echo "make test needs node and npm (Debian: apt-get install nodejs npm)"; exit 1; fi; \
	  echo "==> no npm: the MCP Inspector test will skip (macOS: brew install node; Debian: apt-get install nodejs npm)"; \
	  exit 0; }; \
	npm ci --prefix $(INSPECTOR_DIR) --no-audit --no-fund --no-update-notifier --ignore-scripts --loglevel=error && touch $@

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
# work here): install it when missing, as root on Debian; where it is required, say how; elsewhere
# (a Mac: Homebrew's Chromium is an app, no `chromium` command) the test skips and says why.
browser:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || { \
	  if $(DEBIAN_ROOT); then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || exit 1; \
	  elif $(REQUIRED); then \
	    echo "make test needs chromium for the approval page test: sudo apt-get install -y chromium"; exit 1; \
	  else echo "==> no chromium: the approval page's browser test will skip (it needs Debian's chromium)"; fi; }

# -rfEs: the summary names each failure and error, and each skipped test and why (what it
# needs, tests/needs.py); -rs alone would leave the failures out of it.
test: lint $(INSPECTOR) browser
	$(BIN)/pytest -rfEs

# The fast lane, while working: every test that stays in this process, without the lint. It leaves
# out those marked slow (two seconds or more: a deadline waited out, a browser) and process (a
# daemon, a CLI, Radicale, a sandbox child started: tests/conftest.py fails a test that starts one
# unmarked). Two workers: with no process to wait on, the lane is all CPU. `make test` runs all.
test-fast: dev-setup
	$(BIN)/pytest -rfEs -n 2 -m "not slow and not process"

# The live round trips against this Mac's own Reminders, Calendar and Things: a temporary list and
# calendar, made and removed, and a to-do made and cancelled (Things' URLs cannot delete). macOS asks
# the app running make (your terminal) for access the first time. Checked before anything is
# installed: elsewhere there is nothing to run them against.
test-mac:
	@[ "$$(uname -s)" = Darwin ] || { \
	  echo "make test-mac needs a Mac: it runs the live EventKit and Things round trips against your own data" \
	    "(here, make test covers everything above them with fakes)" >&2; exit 1; }
	@$(MAKE) --no-print-directory dev-setup
	FRUITCTL_TEST_EVENTKIT=1 FRUITCTL_TEST_THINGS=1 $(BIN)/pytest -n 0 -rs $(MAC_TESTS)

# Every benchmark runs, each against a floor measured in the same run; then the run fails if any
# missed a target (each exits 1 then, after printing all its numbers).
BENCHMARKS := store_scale gateway_overhead mcp_stdio http_api socket_rpc caldav_sync things_reads \
  free_time cli_latency
bench: dev-setup
	@failed=; for name in $(BENCHMARKS); do \
	  echo "==> benchmarks/$$name.py"; \
	  $(BIN)/python benchmarks/$$name.py || failed="$$failed $$name"; \
	done; \
	if [ -n "$$failed" ]; then echo "==> a target was missed in:$$failed" >&2; exit 1; fi; \
	echo "==> every benchmark met its targets"

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache $(INSPECTOR_DIR)/node_modules
