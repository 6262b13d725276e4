#!/usr/bin/env bash
# Lint with ruff, then run every test: the whole suite on SQLite (browser tests included),
# then the storage, web, hostile-input and API suites again on a throw-away PostgreSQL server
# when one can be started.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
# One worker per core (TEST_WORKERS=1 for a single process): each test has its own database
# and its own free ports, so the tests share nothing but the machine.
PYTEST=("$VENV/bin/python" -m pytest -n "${TEST_WORKERS:-auto}")

echo "== ruff check (the style pyproject.toml selects, 100-character lines) =="
"$VENV/bin/ruff" check .

echo "== pytest: every test, on SQLite (PostgreSQL-only cases run in the second pass) =="
env -u TEST_DATABASE_URL "${PYTEST[@]}" -m "not postgres" "$@"

if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  # shellcheck source=../.ci/postgres.sh
  source .ci/postgres.sh
  echo "== pytest: storage, web, hostile-input and API suites, on PostgreSQL =="
  "${PYTEST[@]}" tests/store tests/web tests/hostile tests/api "$@"
elif [ "${CI:-}" = "true" ]; then
  echo "PostgreSQL is not installed, and CI must run the suites on it" >&2
  exit 1
else
  echo "== PostgreSQL is not installed here: its run was skipped (apt-get install postgresql) =="
fi
