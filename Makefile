# Two commands: `make run` serves the editor on SQLite with the demo workspace;
# `make test` runs every test (pipeline, storage and web on SQLite and PostgreSQL, browser).
# `make bench` prints the speed figures of docs/performance.md (BENCH_FLAGS="--quick --no-web"
# for a short run); the benchmarks live in benchmarks/, outside the installed package.
# `make bench-check` is the speed gate CI runs: each request's cost as a ratio to a floor
# measured in the same run, failing on a row over its budget (docs/performance.md).
# `make screenshots` runs the browser tests that take the pictures in docs/screenshots/ and
# writes them there (SKILL_EDITOR_SCREENSHOTS=1); other runs keep them in temporary folders.
PYTHON ?= python3
VENV ?= .venv
HOST ?= 127.0.0.1
PORT ?= 5000

.PHONY: setup run test bench bench-check screenshots

# pip says only its errors (-qq): its notices, warnings and the editable install's build
# output are noise before every `make run` that follows a change of pyproject.toml.
PIP_INSTALL = $(VENV)/bin/pip install -qq --disable-pip-version-check

$(VENV)/.installed: pyproject.toml client/pyproject.toml
	@echo "Installing Skill Editor and its dependencies in $(VENV) (again when pyproject.toml changes)"
	@$(PYTHON) -m venv $(VENV)
	@$(PIP_INSTALL) --upgrade pip
	@$(PIP_INSTALL) -e '.[test]' -e ./client
	@touch $@

setup: $(VENV)/.installed

run: setup
	$(VENV)/bin/skill-editor serve --host $(HOST) --port $(PORT)

test: setup
	VENV=$(VENV) bash scripts/test.sh

bench: setup
	$(VENV)/bin/python -m benchmarks $(BENCH_FLAGS)

bench-check: setup
	$(VENV)/bin/python -m benchmarks.gate

screenshots: setup
	SKILL_EDITOR_SCREENSHOTS=1 $(VENV)/bin/python -m pytest -q -p no:cacheprovider \
		tests/browser/test_editor.py::test_screenshot \
		tests/browser/test_pipeline_steps.py::test_screenshot \
		tests/browser/test_layout.py::test_no_sideways_scrolling_and_columns \
		tests/browser/test_layout.py::test_dark_mode_follows_the_system
