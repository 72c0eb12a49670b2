#!/usr/bin/env bash
# Runs the whole test suite; `make test` calls it once build-asan/ and build/ are built.
#
# Stages (each runs even when an earlier one failed):
#   unit  every build-asan/unit_* executable (cmocka; ASan + UBSan, leaks checked)
#   sql   build-asan/slt_runner over the sqllogictest corpus tests/sql/ (in-process)
#   sql-trino, sql-flight  the same corpus over Trino HTTP and Flight SQL (in-process servers)
#   sqlite   SQLite's sqllogictest corpus (../shared/corpus/sqllogictest: select1-5, evidence/)
#            through build/slt_runner --sqlite-corpus with tests/sqlite/skip.list (release build:
#            the corpus is about answers and runs 6x faster than under ASan; tests/sqlite/README.md)
#   trino-oracle  tests/trino_oracle: the corpus against the real Trino 476 (memory connector), the
#            semantics SQE promises; every difference is a listed exception (exceptions.txt).
#            Runs when scripts/setup.sh has cached Trino and a JDK >= 24 (else noted, not counted)
#   diff  tests/difftest/run_diff.py: a short seeded differential run (release build; seeds 1-20:
#         3,000 cases, about 7,200 queries with joins, subqueries, aggregates, windows and set
#         operations over NULL-heavy tables, on SQE and DuckDB, plus metamorphic checks on SQE);
#         `make fuzz-diff` is the long run. Counts are cases (a metamorphic case is a few queries)
#   tpch  tests/tpch/run_tpch.py at SF 0.1 against build/sqe (the release build), DuckDB as oracle
#   tpch-pq  the same on Parquet files (views over read_parquet)
#   tpch-ice the same on Iceberg tables loaded from those files (CTAS into a fresh warehouse)
#   parquet  tests/parquet (pytest): the parquet-testing corpus against pyarrow, damaged files,
#            generated round trips with pyarrow and DuckDB, writer interop (ASan build)
#   config   tests/config: the TOML reader against Python's tomllib, the configuration schema
#   avro, arrow  tests/avro, tests/arrow: the Avro and Arrow IPC codecs against fastavro, pyarrow
#   ice-meta, ice-mf, ice-cat, ice-xform  tests/iceberg: table metadata, manifests, the SQLite
#            catalog and partition transforms against pyiceberg
#   ice-write, ice-del  tests/iceberg: the data-file writer, delete files and the delete index
#   ice-bad  tests/iceberg/test_bad_input.py: damaged metadata, manifests and data files
#   trino    tests/integration: `sqe serve` driven by the real trino Python client and raw HTTP
#   ice-maint, ice-merge  CALL procedures and MERGE, read back with pyiceberg
#   interop  tests/iceberg/interop: tables from Iceberg Java and pyiceberg read by SQE, SQE's
#            tables read by both, 8 concurrent writers, kill -9 during writes
#   clients  tests/integration: dbt-trino (seed, run, test) and the Trino CLI jar
#   server, flight  tests/server, tests/flight: the server core and Flight SQL with real clients
#   serve    tests/load, tests/hostile, tests/flight/jdbc: concurrent clients, hostile input, what
#            SQL may reach of the server's files and object stores, limits, JDBC
#   load     tests/load/run_load.py, a smaller `make load` on the release build (16 clients, half
#            Flight SQL and half Trino, x 100 checked queries, 2 rounds, and a 5 s burst of Trino
#            statements between them; every answer verified, no failures, the server's RSS
#            bounded between rounds); about a minute
#   rest, s3 tests/rest, tests/s3: the Iceberg REST catalog client and S3 storage (issue 7)
#   rest-s3  tests/rest_s3: a REST catalog on S3 (moto, signature checks): per-user vended and
#            STS credentials, reads and writes, faults, the Iceberg SQL corpus on REST + S3
#   idp      tests/auth: a real Keycloak 26.7.3 (one per run, free loopback ports) with the realm
#            files there: the tokens, claims and discovery the identity tests rely on; and a real
#            Nessie 0.99.0 (one per run, warehouse on moto S3, OIDC against that Keycloak) as a
#            REST catalog that `sqe serve` (ASan) reaches with alice's and bob's own tokens. Runs
#            when scripts/setup.sh has cached Keycloak and a JDK >= 21 exists (else noted, not
#            counted); the Nessie tests skip, with the reason, when its jar is not cached
#   python   tests/cli, tests/bench, tests/sqlite and tests/layers (pytest): JSON output, the
#            include rule between src/ layers (scripts/check_layers.py), the benchmark harness
#            at SF 0.01, slt_runner's hash results and SQLite corpus mode
# A stage with nothing to run yet (no unit executables, no .test files) prints a note and is not
# counted. The closing line is "N passed, N failed", the sum of the stages' own counts (cmocka
# tests, sqllogictest records, TPC-H queries); the exit status is 1 when any stage failed.
# Environment: JOBS (parallel .test files, default: number of cores); TEST_TIMEOUT (seconds per
# unit executable, default 600; the sql and tpch stages get six times that).
set -u
cd "$(dirname "$0")/.."

export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
TEST_TIMEOUT="${TEST_TIMEOUT:-600}"
PYTHON=.cache/venv/bin/python
# the oracle scripts take their test drivers from here (built with the unit tests by `make asan`)
export SQE_BUILD_DIR="$PWD/build-asan"

total_passed=0
total_failed=0
failed_stages=0
summary=()
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# stage_done NAME PASSED FAILED OK DETAIL: records a stage's outcome.
stage_done() {
  local name=$1 passed=$2 failed=$3 ok=$4 detail=$5
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  if [ "$ok" = 1 ]; then
    summary+=("$(printf '%-8s PASS  %s' "$name" "$detail")")
  else
    failed_stages=$((failed_stages + 1))
    summary+=("$(printf '%-8s FAIL  %s' "$name" "$detail")")
  fi
}

stage_note() {
  echo "note: $2"
  summary+=("$(printf '%-5s SKIP  %s' "$1" "$2")")
}

# summary_counts FILE: prints "P F" from the last "N passed, N failed" line of FILE, or nothing.
summary_counts() {
  grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1 |
    sed -E 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/'
}

# ---- unit ---------------------------------------------------------------------------------------
echo "== unit tests"
shopt -s nullglob
units=(build-asan/unit_*)
shopt -u nullglob
if [ ${#units[@]} -eq 0 ]; then
  stage_note unit "no build-asan/unit_* executables yet"
else
  passed=0 failed=0 bad=()
  for exe in "${units[@]}"; do
    [ -x "$exe" ] && [ -f "$exe" ] || continue
    timeout -k 10 "$TEST_TIMEOUT" "$exe" >"$log" 2>&1
    rc=$?
    cat "$log"
    p=$(grep -oE '\[  PASSED  \] [0-9]+ test' "$log" | tail -n 1 | grep -oE '[0-9]+' | head -n 1)
    f=$(grep -oE '\[  FAILED  \] [0-9]+ test' "$log" | tail -n 1 | grep -oE '[0-9]+' | head -n 1)
    p=${p:-0} f=${f:-0}
    if [ "$rc" -ne 0 ]; then
      bad+=("$(basename "$exe")")
      [ "$f" -eq 0 ] && f=1   # crashed, leaked or timed out outside any test
      [ "$rc" -eq 124 ] && echo "FAIL $exe: timed out after ${TEST_TIMEOUT}s"
    fi
    passed=$((passed + p)) failed=$((failed + f))
  done
  detail="$passed passed, $failed failed in ${#units[@]} executables"
  [ ${#bad[@]} -gt 0 ] && detail="$detail (failing: ${bad[*]})"
  stage_done unit "$passed" "$failed" "$([ ${#bad[@]} -eq 0 ] && echo 1 || echo 0)" "$detail"
fi

# ---- sql ----------------------------------------------------------------------------------------
# sql_stage NAME CONNECTOR: the corpus through one of the runner's connectors (embedded: the
# in-process API; trino / flight: the same statements over the protocol, to an in-process server).
sql_stage() {
  local name=$1 connector=$2
  echo "== sqllogictest (tests/sql, $connector)"
  if [ -z "$(find tests/sql -name '*.test' -print -quit 2>/dev/null)" ]; then
    stage_note "$name" "no tests/sql/**/*.test files yet"
  elif [ ! -x build-asan/slt_runner ]; then
    echo "FAIL: build-asan/slt_runner is missing (make asan)"
    stage_done "$name" 0 1 0 "build-asan/slt_runner missing"
  else
    timeout -k 10 $((TEST_TIMEOUT * 6)) build-asan/slt_runner --jobs "$JOBS" \
      --connector "$connector" tests/sql 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    read -r p f <<<"$(summary_counts "$log")"
    if [ -z "${p:-}" ]; then p=0 f=1; fi
    [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    stage_done "$name" "$p" "$f" "$([ "$rc" -eq 0 ] && echo 1 || echo 0)" "$p passed, $f failed (records)"
  fi
}
sql_stage sql embedded
sql_stage sql-trino trino
sql_stage sql-flight flight

# ---- sqlite -------------------------------------------------------------------------------------
# SQLite's sqllogictest corpus with the SQLite mapping and the skip list (tests/sqlite/README.md).
# The release build of slt_runner: 14 s of CPU against 74 s under ASan, most of it planning the
# many-table joins of select5; the ASan stages above cover the runner and the engine's memory.
# --record-timeout 60: a record that hangs (join planning, issue 15 item 4) is named; the slowest
# record that runs takes under 2 s.
echo "== SQLite's sqllogictest corpus (select1-5, evidence; build/slt_runner --sqlite-corpus)"
sqlite_corpus=""
for dir in "${SQE_SQLITE_CORPUS:-}" ../shared/corpus/sqllogictest ../../shared/corpus/sqllogictest; do
  if [ -n "$dir" ] && [ -f "$dir/select1.test" ]; then sqlite_corpus=$dir; break; fi
done
if [ -z "$sqlite_corpus" ]; then
  stage_note sqlite "SQLite's corpus not found (../shared/corpus/sqllogictest or \$SQE_SQLITE_CORPUS)"
elif [ ! -x build/slt_runner ]; then
  echo "FAIL: build/slt_runner is missing (make release)"
  stage_done sqlite 0 1 0 "build/slt_runner missing"
elif ! (cd "$sqlite_corpus" && md5sum --quiet -c "$OLDPWD/tests/sqlite/corpus.md5"); then
  echo "FAIL: $sqlite_corpus is not the version of tests/sqlite/corpus.md5 (the skip list's lines)"
  stage_done sqlite 0 1 0 "corpus differs from tests/sqlite/corpus.md5"
else
  sqlite_start=$SECONDS
  timeout -k 10 $((TEST_TIMEOUT * 6)) build/slt_runner --sqlite-corpus \
    --skip-list tests/sqlite/skip.list --jobs "$JOBS" --record-timeout 60 "$sqlite_corpus" 2>&1 |
    tee "$log"
  rc=${PIPESTATUS[0]}
  read -r p f <<<"$(summary_counts "$log")"
  if [ -z "${p:-}" ]; then p=0 f=1; fi
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  skipped=$(grep -E '^[0-9]+ skipped$' "$log" | tail -n 1 | grep -oE '^[0-9]+')
  stage_done sqlite "$p" "$f" "$([ "$rc" -eq 0 ] && echo 1 || echo 0)" \
    "$p passed, $f failed, ${skipped:-0} skipped (records) in $((SECONDS - sqlite_start)) s"
fi

# ---- trino-oracle -------------------------------------------------------------------------------
echo "== sqllogictest against the real Trino 476 (tests/trino_oracle)"
if ! { [ -x "$PYTHON" ] && "$PYTHON" tests/trino_oracle/trino_server.py present; }; then
  stage_note trino-oracle "no cached Trino 476 or JDK >= 24 (bash scripts/setup.sh installs them)"
elif [ ! -x build-asan/slt_runner ]; then
  echo "FAIL: build-asan/slt_runner is missing (make asan)"
  stage_done trino-oracle 0 1 0 "build-asan/slt_runner missing"
else
  timeout -k 10 $((TEST_TIMEOUT * 6)) bash tests/trino_oracle/run_trino_oracle.sh 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  read -r p f <<<"$(summary_counts "$log")"
  if [ -z "${p:-}" ]; then p=0 f=1; fi
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  stage_done trino-oracle "$p" "$f" "$([ "$rc" -eq 0 ] && echo 1 || echo 0)" \
    "$p passed, $f failed; $(grep -oE '^agreement: .*' "$log" | head -n 1)"
fi

# ---- diff ---------------------------------------------------------------------------------------
echo "== differential tester (tests/difftest, SQE against DuckDB, seeds 1-20, release build)"
if [ ! -x "$PYTHON" ] || [ ! -x build/sqe ]; then
  echo "FAIL: $PYTHON or build/sqe is missing (bash scripts/setup.sh; make release)"
  stage_done diff 0 1 0 "no Python virtual environment or release build"
else
  timeout -k 10 "$TEST_TIMEOUT" "$PYTHON" tests/difftest/run_diff.py --seed 1 --batches 20 2>&1 |
    tee "$log"
  rc=${PIPESTATUS[0]}
  read -r p f <<<"$(summary_counts "$log")"
  if [ -z "${p:-}" ]; then p=0 f=1; fi
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  stage_done diff "$p" "$f" "$([ "$rc" -eq 0 ] && echo 1 || echo 0)" \
    "$p passed, $f failed (cases); $(grep -oE '[0-9]+ queries on each engine' "$log" | head -n 1)"
fi

# ---- tpch ---------------------------------------------------------------------------------------
# tpch_stage NAME FORMAT: run_tpch.py at SF 0.1 on tpchgen files of FORMAT (csv: loaded into
# memory tables; parquet: queried in place through views over read_parquet).
tpch_stage() {
  local name=$1 format=$2
  echo "== TPC-H oracle (SF 0.1, $format, DuckDB)"
  if [ ! -x "$PYTHON" ]; then
    echo "FAIL: $PYTHON is missing (bash scripts/setup.sh)"
    stage_done "$name" 0 1 0 "no Python virtual environment"
    return
  fi
  timeout -k 10 $((TEST_TIMEOUT * 6)) \
    "$PYTHON" tests/tpch/run_tpch.py --sf 0.1 --format "$format" --sqe build/sqe 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  read -r p f <<<"$(summary_counts "$log")"
  if [ -z "${p:-}" ]; then p=0 f=1; fi
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  ok=$([ "$rc" -eq 0 ] && echo 1 || echo 0)
  stage_done "$name" "$p" "$f" "$ok" "$p passed, $f failed (queries)"
}
tpch_stage tpch csv
tpch_stage tpch-pq parquet
tpch_stage tpch-ice iceberg

# ---- python suites ------------------------------------------------------------------------------
# pytest_stage NAME DESCRIPTION COMMAND...: a pytest suite; counts come from pytest's closing
# line ("N failed, N passed, N skipped, N xfailed in T s").
pytest_stage() {
  local name=$1 what=$2
  shift 2
  echo "== $what"
  if [ ! -x "$PYTHON" ]; then
    echo "FAIL: $PYTHON is missing (bash scripts/setup.sh)"
    stage_done "$name" 0 1 0 "no Python virtual environment"
    return
  fi
  timeout -k 10 $((TEST_TIMEOUT * 6)) "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  local line p f
  line="$(grep -E '^=*\s*[0-9]+ (passed|failed)' "$log" | tail -n 1)"
  p="$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+' || true)"
  f=0
  for n in $(grep -oE '[0-9]+ (failed|errors?)' <<<"$line" | grep -oE '[0-9]+'); do f=$((f + n)); done
  p=${p:-0}
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  stage_done "$name" "$p" "$f" "$([ "$rc" -eq 0 ] && echo 1 || echo 0)" "${line:-no pytest summary}"
}
pytest_stage parquet "Parquet oracle (corpus vs pyarrow, damaged files, round trips, writer interop)" \
  env SQE_BIN="$PWD/build-asan/sqe" bash tests/parquet/run_parquet_tests.sh
pytest_stage config "TOML reader against tomllib, configuration" bash tests/config/run_config_tests.sh
pytest_stage avro "Avro container files against fastavro" bash tests/avro/run_avro_tests.sh
pytest_stage arrow "Arrow IPC against pyarrow" bash tests/arrow/run_arrow_tests.sh
pytest_stage ice-meta "Iceberg table metadata against pyiceberg" bash tests/iceberg/run_iceberg_tests.sh
pytest_stage ice-mf "Iceberg manifests and manifest lists against pyiceberg" \
  bash tests/iceberg/run_manifest_tests.sh
pytest_stage ice-cat "SQLite Iceberg catalog against pyiceberg's SqlCatalog" \
  bash tests/iceberg/run_sqlite_catalog_tests.sh
pytest_stage ice-xform "Iceberg partition transforms against pyiceberg" \
  bash tests/iceberg/run_transform_tests.sh
pytest_stage ice-write "Iceberg data-file writer against pyarrow and pyiceberg" \
  bash tests/iceberg/run_data_writer_tests.sh
pytest_stage ice-bad "Damaged Iceberg tables: errors name the file, failed writes change nothing" \
  env SQE_BIN="$PWD/build-asan/sqe" "$PYTHON" -m pytest -q -p no:cacheprovider tests/iceberg/test_bad_input.py
pytest_stage ice-del "Iceberg deletes (Roaring, Puffin, delete index) against pyroaring, pyiceberg" \
  bash tests/iceberg/run_deletes_tests.sh
pytest_stage ice-maint "Iceberg maintenance procedures against pyiceberg (ASan build)" \
  env SQE_BIN="$PWD/build-asan/sqe" "$PYTHON" -m pytest -q -p no:cacheprovider \
  tests/iceberg/test_procedures_interop.py
pytest_stage ice-merge "MERGE on Iceberg tables, read back by pyiceberg (release build)" \
  env SQE_BIN="$PWD/build/sqe" "$PYTHON" -m pytest -q -p no:cacheprovider tests/iceberg/test_merge_interop.py
pytest_stage interop "Iceberg interop: Iceberg Java and pyiceberg tables, concurrency, crashes" \
  env SQE_BIN="$PWD/build/sqe" bash tests/iceberg/interop/run_interop_tests.sh
pytest_stage trino "Trino HTTP protocol with the trino Python client (sqe serve, ASan build)" \
  env SQE_BIN="$PWD/build-asan/sqe" bash tests/integration/run_trino_tests.sh
pytest_stage clients "dbt-trino and the Trino CLI jar against sqe serve (ASan build)" \
  env SQE_BIN="$PWD/build-asan/sqe" bash tests/integration/run_client_tests.sh
pytest_stage server "sqe serve: config, auth, sessions, limits, health, drain, hostile HTTP (ASan)" \
  env SQE_BIN="$PWD/build-asan/sqe" bash tests/server/run_server_tests.sh
pytest_stage flight "Flight SQL with ADBC and pyarrow.flight (ASan build)" \
  bash tests/flight/run_flight_tests.sh "$PWD/build-asan"
pytest_stage serve "sqe serve: short load, hostile input, file access and limits, Flight SQL JDBC (ASan)" \
  env SQE_BIN="$PWD/build-asan/sqe" "$PYTHON" -m pytest -q -p no:cacheprovider tests/load \
  tests/hostile tests/flight/jdbc
# load: like pytest_stage, with run_load.py's own "N passed, N failed" line
echo "== load: 16 clients (Flight SQL and Trino) x 100 checked queries, 2 rounds, a 5 s Trino burst (release build)"
if [ ! -x "$PYTHON" ] || [ ! -x build/sqe ]; then
  echo "FAIL: $PYTHON or build/sqe is missing (bash scripts/setup.sh; make release)"
  stage_done load 0 1 0 "no Python virtual environment or release build"
else
  timeout -k 10 "$TEST_TIMEOUT" "$PYTHON" tests/load/run_load.py --sqe build/sqe --clients 16 \
    --queries 100 --rounds 2 --burst 5 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  read -r p f <<<"$(summary_counts "$log")"
  if [ -z "${p:-}" ]; then p=0 f=1; fi
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  stage_done load "$p" "$f" "$([ "$rc" -eq 0 ] && echo 1 || echo 0)" "$p passed, $f failed (queries)"
fi
pytest_stage rest "Iceberg REST catalog client against Iceberg's REST handlers (Java), pyiceberg" \
  bash tests/rest/run_rest_tests.sh
pytest_stage rest-s3 "Iceberg REST + S3 (moto): per-user reads/writes, STS, faults, SQL corpus on REST" \
  bash tests/rest_s3/run_rest_s3_tests.sh
pytest_stage s3 "S3 storage (SigV4, multipart, listing, retries) against moto checking signatures" \
  bash tests/s3/run_s3_tests.sh
# idp: only when Keycloak can run here (setup installed it, a JDK >= 21 exists)
if [ -x "$PYTHON" ] && ! why="$("$PYTHON" tests/auth/keycloak_peer.py present)"; then
  echo "== Keycloak identity provider (tests/auth)"
  stage_note idp "$why"
else
  pytest_stage idp "Keycloak and Nessie: tokens, discovery, JWKS; each user's token on Nessie (tests/auth)" \
    env SQE_BIN="$PWD/build-asan/sqe" "$PYTHON" -m pytest -q -p no:cacheprovider tests/auth
fi
pytest_stage python "CLI and benchmark smoke tests, slt_runner's corpus features, the layer rule" \
  "$PYTHON" -m pytest -q -p no:cacheprovider tests/cli tests/bench tests/sqlite tests/layers

# ---- summary ------------------------------------------------------------------------------------
echo "== summary"
for line in "${summary[@]}"; do echo "$line"; done
echo "$total_passed passed, $total_failed failed"
[ "$failed_stages" -eq 0 ]
