#!/usr/bin/env bash
# Iceberg REST catalog + S3 tests with per-user vended credentials (issue 7).
#
# 1. Builds the test REST catalog (tests/rest/rest_server.py) and fetches iceberg-aws and the AWS
#    SDK jars (tests/rest_s3/pom.xml) into .cache/maven-rest-s3 once.
# 2. Takes `sqe` and `slt_runner` from $SQE_BUILD_DIR (default build-asan/).
# 3. Runs test_rest_s3.py (moto S3 with signature checks + the REST catalog on s3:// + sqe serve
#    + pyiceberg: reads, writes, faults) and test_rest_s3_slt.py (the Iceberg SQL corpus
#    tests/sql/iceberg through slt_runner --iceberg-rest, compared with the embedded run) with
#    pytest (extra arguments go to pytest instead); ends with "N passed, N failed".
#
# Exit status: 0 when every test passed, 1 when one failed, 2 when setup failed.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../lib/test_env.sh"
test_env_require run_rest_s3_tests.sh sqe slt_runner

fail_setup() { echo "run_rest_s3_tests.sh: $*" >&2; echo "0 passed, 1 failed"; exit 2; }

command -v javac >/dev/null || fail_setup "javac missing (apt-get install openjdk-17-jdk-headless)"
command -v mvn >/dev/null || fail_setup "mvn missing (apt-get install maven)"
(cd "$here/../rest" && "$python" -c "import rest_server; rest_server.ensure_built(); rest_server.ensure_s3_jars()") \
  || fail_setup "building the REST catalog server failed"
export SQE_SERVE="$build/sqe"

export PYTHONDONTWRITEBYTECODE=1
cd "$here" || exit 2
[ "$#" -eq 0 ] && set -- test_rest_s3.py test_rest_s3_sts.py test_rest_s3_slt.py
log="$(mktemp)"
"$python" -m pytest -q --tb=short -p no:cacheprovider -rfE "$@" 2>&1 | tee "$log"
summary="$(tail -n 1 "$log")"
rm -f "$log"
count() { echo "$summary" | grep -oE "[0-9]+ $1" | head -1 | cut -d' ' -f1; }
passed=$(( $(count passed || true) + 0 ))
failed=$(( $(count failed || true) + 0 + $(count error || true) + 0 ))
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] || exit 1
