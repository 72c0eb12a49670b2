#!/usr/bin/env bash
# Runs the Trino protocol integration tests (tests/integration/test_trino_protocol.py) against an
# `sqe` binary, by default the ASan+UBSan build (build-asan/sqe, built with `make asan`), so the
# server's sanitizer reports fail the run (the test fixture scans the server's output).
#
#   tests/integration/run_trino_tests.sh [pytest args...]
#   SQE_BIN=build/sqe tests/integration/run_trino_tests.sh -k paging
#
# Exit status: pytest's (0 when every test passed).
set -euo pipefail
cd "$(dirname "$0")/../.."

PYTHON=.cache/venv/bin/python
SQE_BIN="${SQE_BIN:-build-asan/sqe}"
if [ ! -x "$SQE_BIN" ]; then
  echo "run_trino_tests.sh: $SQE_BIN is missing; build it first (make asan, or set SQE_BIN)" >&2
  exit 2
fi
if ! "$PYTHON" -c 'import trino' 2>/dev/null; then
  echo "run_trino_tests.sh: the trino Python client is missing; run make setup" >&2
  exit 2
fi
export SQE_BIN
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"
exec "$PYTHON" -m pytest -q tests/integration/test_trino_protocol.py "$@"
