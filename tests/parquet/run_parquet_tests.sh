#!/usr/bin/env bash
# Runs the Parquet test suite (tests/parquet: oracle self-checks, the parquet-testing corpus,
# damaged files, generated round trips, writer interop) with the repository's venv pytest.
#
# Quiet: one line of dots, the failures (short tracebacks), and pytest's closing line
# "N failed, N passed, N skipped in T s". Exit status: 0 when everything passed, 1 when a test
# failed, 2 when the venv or the sqe binary is missing (or pytest's own codes for usage errors).
# SQE binary: build-asan/sqe (`make asan`), or $SQE_BIN. Environment: SQE_TEST_JOBS (parallel
# sqe processes, default 2), SQE_PARQUET_HEAVY=1 (also the 1 GiB corpus file). Extra arguments
# go to pytest (e.g. `-k corpus`, or a test file).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="$root/.cache/venv/bin/python"
if [ ! -x "$python" ]; then
  echo "run_parquet_tests.sh: $python is missing (run make setup)" >&2
  exit 2
fi
if [ -z "${SQE_BIN:-}" ] && [ ! -x "$root/build-asan/sqe" ]; then
  echo "run_parquet_tests.sh: $root/build-asan/sqe is missing (run make asan, or set SQE_BIN)" >&2
  exit 2
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/parquet" || exit 2
"$python" -m pytest -q --tb=short -p no:cacheprovider "$@"
status=$?
[ "$status" -eq 5 ] && status=1   # "no tests collected" is a failure here
exit "$status"
