#!/usr/bin/env bash
# Start a throw-away PostgreSQL server for the tests, from Debian's `postgresql` package.
#
#   source .ci/postgres.sh          # starts it, exports TEST_DATABASE_URL, stops it on EXIT
#   .ci/postgres.sh CMD [ARGS...]   # runs CMD with TEST_DATABASE_URL set, then stops it
#
# Installs nothing (.ci/run apt-installs `postgresql`). The cluster lives in a fresh
# temporary directory, is initialised as the `postgres` user (when run as root), listens
# on a free port of 127.0.0.1 only with its unix socket in that directory, and is
# stopped and deleted on exit. Safe to source under `set -euo pipefail`.

_pg_fail() {
  echo "postgres.sh: $*" >&2
  return 1
}

_pg_free_port() {
  local py
  for py in python3 python; do
    if command -v "$py" >/dev/null 2>&1; then
      "$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
      return
    fi
  done
  # No Python: probe from a random high port upwards.
  local port=$((20000 + RANDOM % 20000))
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
  echo "$port"
}

_pg_as_owner() {
  # PostgreSQL refuses to run as root: run its commands as `postgres` then.
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

_pg_stop() {
  if [ -n "${_PG_DIR:-}" ] && [ -d "$_PG_DIR" ]; then
    if [ -f "$_PG_DIR/data/postmaster.pid" ]; then
      _pg_as_owner "$_PG_BIN/pg_ctl" -D "$_PG_DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$_PG_DIR"
  fi
  _PG_DIR=
}

_pg_start() {
  _PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$_PG_BIN" ] && [ -x "$_PG_BIN/initdb" ] \
    || _pg_fail "no PostgreSQL under /usr/lib/postgresql/*/bin (apt-get install postgresql)" || return 1

  _PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/skilleditor-pg.XXXXXX") || return 1
  mkdir -p "$_PG_DIR/socket"
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || _pg_fail "no postgres user to run the server as" || return 1
    chown -R postgres: "$_PG_DIR"
  fi

  local port log
  port=$(_pg_free_port)
  log="$_PG_DIR/server.log"
  _pg_as_owner "$_PG_BIN/initdb" -D "$_PG_DIR/data" -U postgres --auth=trust \
      --encoding=UTF8 --no-locale >"$_PG_DIR/initdb.log" 2>&1 \
    || { cat "$_PG_DIR/initdb.log" >&2; _pg_fail "initdb failed"; return 1; }
  # fsync off: the cluster is thrown away, and the tests run much faster without it.
  _pg_as_owner "$_PG_BIN/pg_ctl" -D "$_PG_DIR/data" -l "$log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $_PG_DIR/socket -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
      start >/dev/null \
    || { cat "$log" >&2; _pg_fail "the server did not start"; return 1; }
  _pg_as_owner "$_PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U postgres skilleditor_test \
    || _pg_fail "createdb failed" || return 1

  export TEST_DATABASE_URL="postgresql+psycopg://postgres@127.0.0.1:$port/skilleditor_test"
  echo "postgres.sh: PostgreSQL $("$_PG_BIN/postgres" --version | awk '{print $3}') on 127.0.0.1:$port ($TEST_DATABASE_URL)" >&2
}

_pg_register_trap() {
  # Keep an EXIT trap the caller already had, and run ours after it.
  local -a parts=()
  # `trap -p` prints a quoted `trap -- 'CMD' EXIT`; eval splits it back into words.
  eval "parts=($(trap -p EXIT))"
  if [ ${#parts[@]} -ge 3 ] && [ -n "${parts[2]}" ]; then
    trap "${parts[2]}
_pg_stop" EXIT
  else
    trap _pg_stop EXIT
  fi
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  # Sourced: leave the server running for the caller, stopped when its shell exits.
  _pg_register_trap
  _pg_start || { _pg_stop; return 1; }
else
  set -euo pipefail
  trap _pg_stop EXIT
  trap 'exit 130' INT TERM
  _pg_start
  if [ $# -gt 0 ]; then
    "$@"
  else
    echo "postgres.sh: give a command to run, or source this script" >&2
    exit 2
  fi
fi
