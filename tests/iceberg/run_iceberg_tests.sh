#!/usr/bin/env bash
# Runs the Iceberg metadata interop suite (tests/iceberg/test_metadata_interop.py) with the
# driver metadata_roundtrip (tests/iceberg/metadata_roundtrip.c, built by CMake) from
# $SQE_BUILD_DIR (default build-asan/, `make asan`: ASan + UBSan), then runs pytest from the
# repository's venv (pyiceberg with SqlCatalog on a temporary SQLite file, pyarrow).
#
# Output: pytest's quiet summary ("N passed in T s"). Exit status: 0 when everything passed,
# 1 when a test failed, 2 when the venv or the driver is missing. Extra arguments go to pytest
# (e.g. `-k hostile`); without any, the metadata suite runs.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/test_env.sh"
test_env_require run_iceberg_tests.sh metadata_roundtrip
export ICE_METADATA_ROUNDTRIP="$build/metadata_roundtrip"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/iceberg" || exit 2
if [ "$#" -eq 0 ]; then set -- test_metadata_interop.py; fi
"$python" -m pytest -q --tb=short -p no:cacheprovider "$@"
status=$?
[ "$status" -eq 5 ] && status=1   # "no tests collected" is a failure here
exit "$status"
