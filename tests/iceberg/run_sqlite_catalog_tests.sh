#!/usr/bin/env bash
# Runs the SQLite Iceberg catalog interop suite tests/iceberg/test_sqlite_catalog_interop.py with
# pytest from the repository's venv (pyiceberg 0.12 SqlCatalog on the same SQLite file and
# warehouse as the C driver) and the driver ice_sqlite_driver (tests/iceberg/ice_sqlite_driver.c,
# built by CMake) from $SQE_BUILD_DIR (default build-asan/, `make asan`: ASan + UBSan). The
# cmocka unit test tests/unit/test_ice_sqlite.c is CMake's unit_ice_sqlite, run by the unit
# stage of `make test`.
#
# Output: pytest's quiet summary. Exit status: 0 when everything passed, 1 when a test failed,
# 2 when the venv or the driver is missing. Extra arguments go to pytest (e.g. `-k concurrent`).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/test_env.sh"
test_env_require run_sqlite_catalog_tests.sh ice_sqlite_driver
export ICE_SQLITE_DRIVER="$build/ice_sqlite_driver"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/iceberg" || exit 2
if [ "$#" -eq 0 ]; then set -- test_sqlite_catalog_interop.py; fi
"$python" -m pytest -q --tb=short -p no:cacheprovider "$@"
status=$?
[ "$status" -eq 5 ] && status=1   # "no tests collected" is a failure here
exit "$status"
