#!/usr/bin/env bash
# Runs the Avro interop suite (tests/avro/test_avro_interop.py) against fastavro with the test
# driver avro_dump (tests/avro/avro_dump.c, built by CMake) from $SQE_BUILD_DIR (default
# build-asan/, `make asan`: ASan + UBSan), then runs pytest from the repository's venv.
#
# Output: pytest's quiet summary ("N passed in T s"). Exit status: 0 when everything passed,
# 1 when a test failed, 2 when the venv or the driver is missing. Extra arguments go to pytest
# (e.g. `-k truncation`).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/test_env.sh"
test_env_require run_avro_tests.sh avro_dump
export AVRO_DUMP="$build/avro_dump"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/avro" || exit 2
"$python" -m pytest -q --tb=short -p no:cacheprovider "$@"
status=$?
[ "$status" -eq 5 ] && status=1   # "no tests collected" is a failure here
exit "$status"
