#!/usr/bin/env bash
# Iceberg interop and robustness tests (issue 6, "Acceptance").
#
# 1. Fetches the Iceberg Java jars (java/pom.xml, `mvn dependency:copy-dependencies`) into
#    .cache/maven-interop/lib once, compiles java/IcebergInteropGen.java with javac into
#    .cache/iceberg-interop/classes.
# 2. Generates .cache/iceberg-interop/java-warehouse (Iceberg Java) and py-warehouse (pyiceberg)
#    with their expected rows; each is regenerated only when its generator sources change.
# 3. Runs the pytest files (extra arguments go to pytest, e.g. `-k concurrency` or a file name)
#    with SQE_BIN (default build/sqe), and ends with "N passed, N failed".
#
# Exit status: 0 when every test passed, 1 when one failed, 2 when setup failed.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
python="$root/.cache/venv/bin/python"
cache="${ICEBERG_INTEROP_DIR:-$root/.cache/iceberg-interop}"
mvncache="$root/.cache/maven-interop"
export ICEBERG_INTEROP_DIR="$cache"
export SQE_BIN="${SQE_BIN:-$root/build/sqe}"
mkdir -p "$cache"

fail_setup() { echo "run_interop_tests.sh: $*" >&2; echo "0 passed, 1 failed"; exit 2; }

[ -x "$python" ] || fail_setup "$python is missing (run make setup)"
command -v javac >/dev/null || fail_setup "javac missing (apt-get install openjdk-17-jdk-headless)"

hash_of() { cat "$@" | sha256sum | cut -c1-16; }

# ---- jars --------------------------------------------------------------------------------------
pom_hash="$(hash_of "$here/java/pom.xml")"
if [ "$(cat "$mvncache/lib.stamp" 2>/dev/null)" != "$pom_hash" ]; then
  command -v mvn >/dev/null || fail_setup "mvn missing (apt-get install maven)"
  echo "fetching Iceberg Java jars into $mvncache/lib"
  rm -rf "$mvncache/lib"
  (cd "$here/java" && mvn -q -B -Dmaven.repo.local="$mvncache/m2" dependency:copy-dependencies \
      -DoutputDirectory="$mvncache/lib" -DincludeScope=runtime) || fail_setup "mvn failed"
  echo "$pom_hash" > "$mvncache/lib.stamp"
fi

# ---- the Java program --------------------------------------------------------------------------
java_hash="$(hash_of "$here/java/IcebergInteropGen.java" "$here/java/pom.xml")"
classes="$cache/classes"
if [ "$(cat "$classes/.stamp" 2>/dev/null)" != "$java_hash" ]; then
  rm -rf "$classes" && mkdir -p "$classes"
  javac -nowarn -d "$classes" -cp "$mvncache/lib/*" "$here/java/IcebergInteropGen.java" \
    || fail_setup "javac failed"
  echo "$java_hash" > "$classes/.stamp"
fi
export ICEBERG_INTEROP_JAVA_CP="$classes:$mvncache/lib/*"

# ---- the warehouses ----------------------------------------------------------------------------
gen_status=0
jw="$cache/java-warehouse"
if [ "$(cat "$jw.stamp" 2>/dev/null)" != "$java_hash" ]; then
  echo "generating $jw (Iceberg Java)"
  rm -rf "$jw" "$jw.stamp"
  if java -Duser.timezone=UTC -cp "$ICEBERG_INTEROP_JAVA_CP" IcebergInteropGen gen "$jw"; then
    echo "$java_hash" > "$jw.stamp"
  else
    echo "run_interop_tests.sh: the Java generator failed" >&2; gen_status=1
  fi
fi
py_hash="$(hash_of "$here/gen_pyiceberg.py" "$here/canon.py")"
pw="$cache/py-warehouse"
if [ "$(cat "$pw.stamp" 2>/dev/null)" != "$py_hash" ]; then
  echo "generating $pw (pyiceberg)"
  rm -rf "$pw" "$pw.stamp"
  if "$python" "$here/gen_pyiceberg.py" "$pw"; then
    echo "$py_hash" > "$pw.stamp"
  else
    echo "run_interop_tests.sh: the pyiceberg generator failed" >&2; gen_status=1
  fi
fi

# ---- tests -------------------------------------------------------------------------------------
export PYTHONDONTWRITEBYTECODE=1
cd "$here" || exit 2
if [ "$#" -eq 0 ]; then
  set -- test_oracles.py test_read_foreign.py test_pyiceberg_reads_sqe.py test_concurrency.py \
    test_crash.py
fi
log="$(mktemp)"
"$python" -m pytest -q --tb=short -p no:cacheprovider -rfE "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
summary="$(tail -n 1 "$log")"
rm -f "$log"
count() { echo "$summary" | grep -oE "[0-9]+ $1" | head -1 | cut -d' ' -f1; }
passed=$(( $(count passed || true) + 0 ))
failed=$(( $(count failed || true) + 0 + $(count error || true) + 0 + gen_status ))
[ "$rc" -eq 5 ] && failed=$((failed + 1))   # no tests collected
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$rc" -eq 0 ] && exit 0
exit 1
