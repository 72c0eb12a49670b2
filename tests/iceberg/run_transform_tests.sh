#!/usr/bin/env bash
# Runs the Iceberg partition-transform oracle: the pyiceberg cross-check
# tests/iceberg/test_transform_oracle.py with the repository's venv and the driver
# transform_driver (tests/iceberg/transform_driver.c, built by CMake) from $SQE_BUILD_DIR
# (default build-asan/, `make asan`: ASan + UBSan). The cmocka unit test
# tests/unit/test_iceberg_transform.c is CMake's unit_iceberg_transform, run by the unit stage
# of `make test`.
#
# Output: pytest's quiet summary ("N passed in T s"). Exit status: 0 when everything passed,
# 1 when a test failed, 2 when the venv or the driver is missing. Extra arguments go to pytest
# (e.g. `-k string`).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/test_env.sh"
test_env_require run_transform_tests.sh transform_driver
export TRANSFORM_DRIVER="$build/transform_driver"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/iceberg" || exit 2
"$python" -m pytest -q --tb=short -p no:cacheprovider test_transform_oracle.py "$@"
status=$?
[ "$status" -eq 5 ] && status=1   # "no tests collected" is a failure here
exit "$status"
