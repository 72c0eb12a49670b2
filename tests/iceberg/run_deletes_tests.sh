#!/usr/bin/env bash
# Runs the Iceberg row-level delete tests: the cmocka unit test unit_ice_deletes
# (tests/unit/test_ice_deletes.c) and the interop suite tests/iceberg/test_deletes_interop.py
# (pyroaring, pyiceberg's Puffin/DV reader, pyarrow) with the repository's venv and the driver
# deletes_driver (tests/iceberg/deletes_driver.c). Both programs are built by CMake and taken
# from $SQE_BUILD_DIR (default build-asan/, `make asan`: ASan + UBSan).
#
# Output: the per-test lines, then "N passed, N failed" (unit tests and interop tests together).
# Exit status: 0 when everything passed, 1 when a test failed, 2 when the venv or a program is
# missing. Extra arguments go to pytest (e.g. `-k pyroaring`).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/test_env.sh"
test_env_require run_deletes_tests.sh unit_ice_deletes deletes_driver
out="$(mktemp -d "${TMPDIR:-/tmp}/sqe-deletes-tests.XXXXXX")"
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
unit_log="$out/unit.log"
"$build/unit_ice_deletes" >"$unit_log" 2>&1
unit_rc=$?
grep -E '^\[ +(OK|FAILED|ERROR) +\] |runtime error|Sanitizer' "$unit_log" | grep -v 'test(s)'
ok=$(grep -cE '^\[       OK \] ' "$unit_log")
bad=$(grep -cE '^\[  FAILED  \] test_' "$unit_log")
passed=$((passed + ok))
failed=$((failed + bad))
# a crash or sanitizer report without a cmocka FAILED line still counts as a failure
if [ "$unit_rc" -ne 0 ] && [ "$bad" -eq 0 ]; then failed=$((failed + 1)); tail -20 "$unit_log"; fi
export DELETES_DRIVER="$build/deletes_driver"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/iceberg" || exit 2
py_log="$out/pytest.log"
"$python" -m pytest -q -rA --tb=short -p no:cacheprovider test_deletes_interop.py "$@" >"$py_log" 2>&1
py_rc=$?
grep -E '^(PASSED|FAILED|ERROR|SKIPPED) ' "$py_log"
grep -E '^(E |FAILED)' "$py_log" | head -40
ok=$(grep -cE '^PASSED ' "$py_log")
bad=$(grep -cE '^(FAILED|ERROR) ' "$py_log")
passed=$((passed + ok))
failed=$((failed + bad))
if [ "$py_rc" -ne 0 ] && [ "$bad" -eq 0 ]; then failed=$((failed + 1)); tail -20 "$py_log"; fi
[ "$py_rc" -eq 5 ] && failed=$((failed + 1))   # no tests collected
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
