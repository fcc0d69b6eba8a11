# Every target sets up .venv itself, so a fresh clone needs nothing but python3 (>= 3.11).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Re-install whenever the dependency declarations or the pinned constraints change.
STAMP := $(VENV)/.installed
# The MCP Inspector CLI (pinned in tests/inspector/package-lock.json) for tests/transports.
INSPECTOR_DIR := tests/inspector
INSPECTOR := $(INSPECTOR_DIR)/node_modules/.installed

.PHONY: setup run test lint bench clean

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

run: setup
	@$(BIN)/fruitctl demo
	@$(BIN)/fruitctl lists
	@$(BIN)/fruitctl reminders open

lint: setup
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint $(INSPECTOR)
	$(BIN)/pytest

bench: setup
	$(BIN)/python benchmarks/store_scale.py
	$(BIN)/python benchmarks/gateway_overhead.py
	$(BIN)/python benchmarks/mcp_stdio.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache $(INSPECTOR_DIR)/node_modules
