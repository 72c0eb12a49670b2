#!/usr/bin/env bash
# Runs the Iceberg manifest interop suite tests/iceberg/test_manifest_interop.py with the
# repository's venv (pyiceberg SqlCatalog on a temporary SQLite file, pyarrow, fastavro) and the
# driver manifest_driver (tests/iceberg/manifest_driver.c, built by CMake) from $SQE_BUILD_DIR
# (default build-asan/, `make asan`: ASan + UBSan). The cmocka unit test
# tests/unit/test_iceberg_manifest.c is CMake's unit_iceberg_manifest, run by the unit stage of
# `make test`.
#
# Output: pytest's quiet summary ("N passed in T s"). Exit status: 0 when everything passed,
# 1 when a test failed, 2 when the venv or the driver is missing. Extra arguments go to pytest
# (e.g. `-k hostile`).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/test_env.sh"
test_env_require run_manifest_tests.sh manifest_driver
export MANIFEST_DRIVER="$build/manifest_driver"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/iceberg" || exit 2
"$python" -m pytest -q --tb=short -p no:cacheprovider test_manifest_interop.py "$@"
status=$?
[ "$status" -eq 5 ] && status=1   # "no tests collected" is a failure here
exit "$status"
