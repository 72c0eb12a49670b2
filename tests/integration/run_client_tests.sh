#!/usr/bin/env bash
# Real clients against `sqe serve`: dbt-trino running tests/integration/dbt (seed, run, test,
# then run and test again over the existing relations) and the Trino CLI jar
# (tests/integration/test_trino_cli.py), both against one server on free loopback ports; then
# tests/integration/test_make_run.py: `make run`'s demo load and the README's first query over
# the Trino CLI and ADBC (its own server, temporary HOME, free ports).
#
#   tests/integration/run_client_tests.sh
#   SQE_BIN=build/sqe tests/integration/run_client_tests.sh
#
# What it needs is fetched once into .cache (then it works offline):
#   .cache/venv: dbt-core 1.10 and dbt-trino (later dbt-core releases fetch a parser from GitHub
#   at install time), pytest;
#   .cache/trino-cli/trino-cli-$TRINO_CLI_VERSION-executable.jar from Maven Central; java 17.
# The server is the ASan+UBSan build by default (build-asan/sqe, `make asan`); its output must
# hold no sanitizer report. Ends with "N passed, N failed"; exit status 0 when nothing failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

PY=.cache/venv/bin/python
DBT=.cache/venv/bin/dbt
SQE_BIN="${SQE_BIN:-build-asan/sqe}"
TRINO_CLI_VERSION="${TRINO_CLI_VERSION:-476}"
JAR_DIR=.cache/trino-cli
JAR="$JAR_DIR/trino-cli-$TRINO_CLI_VERSION-executable.jar"
MAVEN=https://repo1.maven.org/maven2/io/trino/trino-cli

die() { echo "run_client_tests.sh: $*" >&2; exit 2; }

[ -x "$SQE_BIN" ] || die "$SQE_BIN is missing; build it first (make asan, or set SQE_BIN)"
[ -x "$PY" ] || die "$PY is missing; run make setup"
command -v java >/dev/null || die "java is missing (Debian: openjdk-17-jre-headless)"

# ---- tools (idempotent; offline once cached) ----------------------------------------------
if ! "$DBT" --version 2>/dev/null | grep -q "trino"; then
  echo "installing dbt-core and dbt-trino into .cache/venv"
  .cache/venv/bin/pip install -q "dbt-core>=1.10,<1.11" "dbt-trino>=1.9,<1.11" ||
    die "could not install dbt-core / dbt-trino (offline?)"
fi
"$PY" -c 'import pytest' 2>/dev/null || .cache/venv/bin/pip install -q pytest ||
  die "could not install pytest"
if [ ! -s "$JAR" ]; then
  echo "fetching trino-cli $TRINO_CLI_VERSION from Maven Central"
  mkdir -p "$JAR_DIR"
  curl -fsSL -o "$JAR.part" "$MAVEN/$TRINO_CLI_VERSION/trino-cli-$TRINO_CLI_VERSION-executable.jar" &&
    mv "$JAR.part" "$JAR" || { rm -f "$JAR.part"; die "could not download the Trino CLI (offline?)"; }
fi

# ---- the server ---------------------------------------------------------------------------
# Free ports for both listeners (never the defaults 8080 / 50051: anything else on the machine
# may hold them), no health listener, and a data directory of its own (never ~/.sqe).
WORK=$(mktemp -d "${TMPDIR:-/tmp}/sqe-clients.XXXXXX")
free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
PORT=$(free_port)
FLIGHT_PORT=$(free_port)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1"
env $(env | grep -o '^SQE_[A-Z0-9_]*__[A-Z0-9_]*' | sed 's/^/-u /') \
  SQE_COORDINATOR__DATA_DIR="$WORK/data" \
  "$SQE_BIN" serve --bind 127.0.0.1 --trino-port "$PORT" --flight-port "$FLIGHT_PORT" \
  --health-port 0 >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
stop_server() {
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID"
    for _ in $(seq 600); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$SERVER_PID" 2>/dev/null && kill -KILL "$SERVER_PID"
  fi
  wait "$SERVER_PID" 2>/dev/null
}
trap 'stop_server' EXIT
for _ in $(seq 300); do
  curl -fs "http://127.0.0.1:$PORT/v1/info" >/dev/null 2>&1 && break
  kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/server.log"; die "sqe serve exited"; }
  sleep 0.1
done
curl -fs "http://127.0.0.1:$PORT/v1/info" >/dev/null || die "sqe serve did not start"

PASSED=0
FAILED=0
check() { # name, log file, command...
  local name=$1 log=$2
  shift 2
  if "$@" >"$log" 2>&1; then
    PASSED=$((PASSED + 1))
    echo "ok   $name"
  else
    FAILED=$((FAILED + 1))
    echo "FAIL $name (log: $log)"
    tail -n 40 "$log" | sed 's/^/     /'
  fi
}

# ---- dbt ----------------------------------------------------------------------------------
export SQE_TRINO_PORT=$PORT DBT_SEND_ANONYMOUS_USAGE_STATS=false DBT_USE_COLORS=false
export DBT_TARGET_PATH="$WORK/dbt-target" DBT_LOG_PATH="$WORK/dbt-logs"
DBT_ARGS=(--project-dir "$ROOT/tests/integration/dbt" --profiles-dir "$ROOT/tests/integration/dbt")
check "dbt seed" "$WORK/dbt-seed.log" "$DBT" seed "${DBT_ARGS[@]}"
check "dbt run" "$WORK/dbt-run.log" "$DBT" run "${DBT_ARGS[@]}"
check "dbt test" "$WORK/dbt-test.log" "$DBT" test "${DBT_ARGS[@]}"
# again, over the relations the first round created (replace table, replace view, reseed);
# an existing table is dropped first, not renamed away: the memory catalog has no
# ALTER TABLE ... RENAME TO yet (set SQE_DBT_ON_TABLE_EXISTS=rename to try dbt's default)
ON_EXISTS="{\"on_table_exists\": \"${SQE_DBT_ON_TABLE_EXISTS:-drop}\"}"
check "dbt seed (again)" "$WORK/dbt-seed2.log" "$DBT" seed "${DBT_ARGS[@]}"
check "dbt run (again)" "$WORK/dbt-run2.log" "$DBT" run "${DBT_ARGS[@]}" --vars "$ON_EXISTS"
check "dbt test (again)" "$WORK/dbt-test2.log" "$DBT" test "${DBT_ARGS[@]}"

# ---- the Trino CLI ------------------------------------------------------------------------
# test_make_run.py starts its own server the way `make run` does (temporary HOME, free ports)
SQE_TRINO_URL="http://127.0.0.1:$PORT" TRINO_CLI_JAR="$ROOT/$JAR" SQE_BIN="$SQE_BIN" \
  "$PY" -m pytest -q -rA -p no:cacheprovider tests/integration/test_trino_cli.py \
  tests/integration/test_make_run.py >"$WORK/cli.log" 2>&1
CLI_PASSED=$(grep -c '^PASSED ' "$WORK/cli.log")
CLI_FAILED=$(grep -c '^\(FAILED\|ERROR\) ' "$WORK/cli.log")
if [ "$CLI_PASSED" -eq 0 ] && [ "$CLI_FAILED" -eq 0 ]; then CLI_FAILED=1; fi
PASSED=$((PASSED + CLI_PASSED))
FAILED=$((FAILED + CLI_FAILED))
grep '^\(PASSED\|FAILED\|ERROR\) ' "$WORK/cli.log" | sed 's/^PASSED /ok   trino-cli /; s/^\(FAILED\|ERROR\) /FAIL trino-cli /'
[ "$CLI_FAILED" -eq 0 ] || { echo "     (log: $WORK/cli.log)"; grep -A30 '^___' "$WORK/cli.log" | head -60 | sed 's/^/     /'; }

# ---- the server's health ------------------------------------------------------------------
stop_server
trap - EXIT
if grep -q 'ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:' "$WORK/server.log"; then
  FAILED=$((FAILED + 1))
  echo "FAIL server sanitizer report (log: $WORK/server.log)"
else
  PASSED=$((PASSED + 1))
  echo "ok   server shut down without sanitizer reports"
fi

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ] && rm -rf "$WORK"
[ "$FAILED" -eq 0 ]
