#!/usr/bin/env bash
# Runs the server-core tests: the C unit tests of src/server/core (cmocka,
# tests/server/test_server_core.c, built by CMake as server_core_tests and taken from
# $SQE_BUILD_DIR, default build-asan/, `make asan`: ASan + UBSan) and of the Trino front end's
# admission limit and retry window (test_trino_admission.c, trino_admission_tests; an in-process
# server on a free port, libcurl) and of the shared HTTP server's route table
# (test_http_server.c, http_server_tests: 404/405, per-route auth, bodies, health) and Trino's
# external authentication without an IdP (test_trino_oauth2.c, trino_oauth2_tests), then the `sqe serve` tests
# (tests/server/test_server.py; test_embedded_catalog.py: the shell and the server share the
# embedded default warehouse; test_free_ports.py: test servers take free ports;
# test_runtime_sessions.py: system.runtime.sessions and current_groups() over both protocols) against an `sqe` binary, by default $SQE_BUILD_DIR/sqe. Prints a
# final "N passed, N failed" line.
#
#   tests/server/run_server_tests.sh [pytest args...]
#   SQE_BIN=build/sqe tests/server/run_server_tests.sh -k auth
#
# Exit status: 0 when everything passed, 1 when a test failed, 2 when a tool is missing.
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${SQE_BUILD_DIR:-$root/build-asan}"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
cd "$root" || exit 2
python=.cache/venv/bin/python
export SQE_BIN="${SQE_BIN:-$build/sqe}"
if [ ! -x "$SQE_BIN" ]; then
  echo "run_server_tests.sh: $SQE_BIN is missing; build it first (make asan, or set SQE_BIN)" >&2
  exit 2
fi
for exe in server_core_tests trino_admission_tests http_server_tests trino_oauth2_tests; do
  if [ ! -x "$build/$exe" ]; then
    echo "run_server_tests.sh: $build/$exe is missing; build it with make asan" >&2
    exit 2
  fi
done
if ! "$python" -c 'import trino' 2>/dev/null; then
  echo "run_server_tests.sh: the trino Python client is missing; run make setup" >&2
  exit 2
fi
out="$(mktemp -d "${TMPDIR:-/tmp}/sqe-server-tests.XXXXXX")"
trap 'rm -rf "$out"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"

unit_passed=0
unit_failed=0
for exe in server_core_tests trino_admission_tests http_server_tests trino_oauth2_tests; do
  p=0 f=0
  if "$build/$exe" > "$out/unit.log" 2>&1; then
    p=$(grep -c '^\[       OK \]' "$out/unit.log")
  else
    cat "$out/unit.log"
    p=$(grep -c '^\[       OK \]' "$out/unit.log")
    f=$(( $(grep -c '^\[ RUN      \]' "$out/unit.log") - p ))
    [ "$f" -gt 0 ] || f=1
  fi
  echo "$exe: $p passed, $f failed"
  unit_passed=$((unit_passed + p))
  unit_failed=$((unit_failed + f))
done

export PYTHONDONTWRITEBYTECODE=1
"$python" -m pytest -q -p no:cacheprovider tests/server/test_server.py \
  tests/server/test_embedded_catalog.py tests/server/test_free_ports.py \
  tests/server/test_sessions_ownership.py tests/server/test_runtime_sessions.py "$@" \
  | tee "$out/py.log"
line="$(grep -E '^server tests: ' "$out/py.log" | tail -1)"
py_passed=$(echo "$line" | sed -E 's/.* ([0-9]+) passed.*/\1/')
py_failed=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
[ -n "$line" ] || { py_passed=0; py_failed=1; }
passed=$((unit_passed + py_passed))
failed=$((unit_failed + py_failed))
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
