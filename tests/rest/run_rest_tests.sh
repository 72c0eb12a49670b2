#!/usr/bin/env bash
# Iceberg REST catalog tests (issue 7, item 1).
#
# 1. Fetches the jars of the test REST catalog (server/pom.xml) into .cache/maven-rest once and
#    compiles server/RestCatalogServer.java (tests/rest/rest_server.py does both, idempotently).
# 2. Takes rest_driver (tests/rest/rest_driver.c, built by CMake with the test drivers) from
#    $SQE_BUILD_DIR (default build-asan/, `make asan`).
# 3. Runs test_rest.py (through rest_driver), test_rest_flight.py (Flight SQL clients of `sqe
#    serve` with their own catalog tokens) and test_rest_serve.py (`sqe serve` of $SQE_BUILD_DIR
#    with REST catalogs in its config; Trino clients with their own bearer tokens) with pytest
#    (extra arguments go to pytest) and ends with "N passed, N failed".
#
# Exit status: 0 when every test passed, 1 when one failed, 2 when setup failed.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../lib/test_env.sh"
test_env_require run_rest_tests.sh rest_driver sqe

fail_setup() { echo "run_rest_tests.sh: $*" >&2; echo "0 passed, 1 failed"; exit 2; }

command -v javac >/dev/null || fail_setup "javac missing (apt-get install openjdk-17-jdk-headless)"
command -v mvn >/dev/null || fail_setup "mvn missing (apt-get install maven)"
(cd "$here" && "$python" -c "import rest_server; rest_server.ensure_built()") \
  || fail_setup "building the REST catalog server failed"
export REST_DRIVER="$build/rest_driver"
export SQE_SERVE="$build/sqe"

# ---- tests --------------------------------------------------------------------------------------
export PYTHONDONTWRITEBYTECODE=1
cd "$here" || exit 2
[ "$#" -eq 0 ] && set -- test_rest.py test_rest_serve.py test_rest_flight.py
log="$(mktemp)"
"$python" -m pytest -q --tb=short -p no:cacheprovider -rfE "$@" 2>&1 | tee "$log"
summary="$(tail -n 1 "$log")"
rm -f "$log"
count() { echo "$summary" | grep -oE "[0-9]+ $1" | head -1 | cut -d' ' -f1; }
passed=$(( $(count passed || true) + 0 ))
failed=$(( $(count failed || true) + 0 + $(count error || true) + 0 ))
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] || exit 1
