#!/usr/bin/env bash
# Runs the Iceberg data-writer tests: the cmocka unit test unit_ice_data_writer
# (tests/unit/test_ice_data_writer.c), then tests/iceberg/test_data_writer_interop.py (pyarrow +
# pyiceberg oracle) with the repository's venv and the driver data_writer_driver
# (tests/iceberg/data_writer_driver.c). Both programs are built by CMake and taken from
# $SQE_BUILD_DIR (default build-asan/, `make asan`: ASan + UBSan). Ends with
# "N passed, N failed" (unit tests and pytest cases together).
# Exit status: 0 when everything passed, 1 when a test failed, 2 when the venv or a program is
# missing. Extra arguments go to pytest (e.g. `-k rolling`).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/test_env.sh"
test_env_require run_data_writer_tests.sh unit_ice_data_writer data_writer_driver
out="$(mktemp -d "${TMPDIR:-/tmp}/sqe-data-writer-tests.XXXXXX")"
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
unit_log="$out/unit.log"
"$build/unit_ice_data_writer" >"$unit_log" 2>&1
unit_rc=$?
grep -E '^\[  (FAILED|ERROR) |runtime error|Sanitizer' "$unit_log"
passed=$((passed + $(grep -c '^\[       OK \]' "$unit_log")))
failed=$((failed + $(grep -c '^\[  FAILED  \] test' "$unit_log")))
[ "$unit_rc" -ne 0 ] && [ "$(grep -c '^\[  FAILED  \] test' "$unit_log")" -eq 0 ] && failed=$((failed + 1))
export DATA_WRITER_DRIVER="$build/data_writer_driver"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/iceberg" || exit 2
py_log="$out/pytest.log"
"$python" -m pytest -q --tb=short -p no:cacheprovider test_data_writer_interop.py "$@" 2>&1 | tee "$py_log"
py=${PIPESTATUS[0]}
summary="$(tail -n 1 "$py_log")"
p=$(echo "$summary" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+' || true)
f=$(echo "$summary" | grep -oE '[0-9]+ (failed|error)' | grep -oE '[0-9]+' | paste -sd+ | bc 2>/dev/null || true)
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-0}))
[ "$py" -ne 0 ] && [ "${f:-0}" -eq 0 ] && failed=$((failed + 1))
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
