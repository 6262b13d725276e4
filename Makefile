# Two commands: `make run` serves the editor on SQLite with the demo workspace;
# `make test` runs every test (pipeline, storage and web on SQLite and PostgreSQL, browser).
# `make bench` prints the speed figures of docs/performance.md (BENCH_FLAGS="--quick --no-web"
# for a short run); the benchmarks live in benchmarks/, outside the installed package.
PYTHON ?= python3
VENV ?= .venv
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: setup run test bench

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test]'
	touch $@

setup: $(VENV)/.installed

run: setup
	$(VENV)/bin/skill-editor serve --host $(HOST) --port $(PORT)

test: setup
	VENV=$(VENV) bash scripts/test.sh

bench: setup
	$(VENV)/bin/python -m benchmarks $(BENCH_FLAGS)
