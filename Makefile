# Every target sets up .venv itself, so a fresh clone needs nothing but python3 (>= 3.11).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Re-install whenever the dependency declarations or the pinned constraints change.
STAMP := $(VENV)/.installed
# The MCP Inspector CLI (pinned in tests/inspector/package-lock.json) for tests/transports.
INSPECTOR_DIR := tests/inspector
INSPECTOR := $(INSPECTOR_DIR)/node_modules/.installed

.PHONY: setup run test lint bench clean browser

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade "pip>=24"
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev]'
	@touch $@

# --ignore-scripts: nothing in the tree needs an install script, and none may fetch anything else.
$(INSPECTOR): $(INSPECTOR_DIR)/package.json $(INSPECTOR_DIR)/package-lock.json
	@command -v npm >/dev/null || { echo "make test needs node and npm (Debian: apt-get install nodejs npm)"; exit 1; }
	@npm ci --prefix $(INSPECTOR_DIR) --no-audit --no-fund --ignore-scripts --loglevel=error
	@touch $@

# Sample data on first run (an empty store only), then the gateway in the foreground: its banner
# says how to talk to it (fruitctl ping, nc -U, socat). Ctrl-C stops it.
run: setup
	@$(BIN)/fruitctl demo
	@exec $(BIN)/fruitctl serve

lint: setup
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

bench: setup
	$(BIN)/python benchmarks/store_scale.py
	$(BIN)/python benchmarks/gateway_overhead.py
	$(BIN)/python benchmarks/mcp_stdio.py
	$(BIN)/python benchmarks/http_api.py
	$(BIN)/python benchmarks/socket_rpc.py
	$(BIN)/python benchmarks/caldav_sync.py
	$(BIN)/python benchmarks/things_reads.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache $(INSPECTOR_DIR)/node_modules
