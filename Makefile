# Every target sets up .venv itself, so a fresh clone needs nothing but python3 (>= 3.11).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Re-install whenever the dependency declarations or the pinned constraints change.
STAMP := $(VENV)/.installed

.PHONY: setup run test lint bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade "pip>=24"
	@$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[dev]'
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

test: lint
	$(BIN)/pytest

bench: setup
	$(BIN)/python benchmarks/store_scale.py
	$(BIN)/python benchmarks/gateway_overhead.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
