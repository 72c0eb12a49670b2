#!/usr/bin/env bash
# The trino-oracle stage: the sqllogictest corpus (tests/sql) checked against the real Trino 476.
#
# Starts the cached Trino once (trino_server.py run), then
#   1. check_errcodes.py: errcodes.def names and codes against Trino's StandardErrorCode;
#   2. slt_runner --connector trino --trino-url URL --sqe-types --exceptions exceptions.txt
#      tests/sql: every file on a fresh memory catalog, every record judged against the file's
#      expected answer, and every query's column types against SQE's (run in-process beside);
#      the folders, files and records of exceptions.txt are left out or counted as excepted.
# Prints the runner's report, the agreement rate (records that agree / records run, where run =
# passed + failed + excepted), Trino's start time, the wall time, and closes with the summed
# "N passed, N failed". Exit 1 when anything failed. Usage: run_trino_oracle.sh [SLT_RUNNER]
set -u
cd "$(dirname "$0")/../.."
runner="${1:-build-asan/slt_runner}"
PY=.cache/venv/bin/python
[ -x "$PY" ] || PY=python3
export PY
started=$(date +%s)
out="$(mktemp)"
trap 'rm -f "$out"' EXIT

"$PY" tests/trino_oracle/trino_server.py run -- bash -c '
  "$PY" tests/trino_oracle/check_errcodes.py
  echo "errcodes-exit $?"
  "$1" --connector trino --trino-url "$TRINO_URL" --catalog memory --sqe-types \
    --exceptions tests/trino_oracle/exceptions.txt tests/sql
  echo "slt-exit $?"' _ "$runner" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}

passed=0 failed=0
while read -r p f; do passed=$((passed + p)) failed=$((failed + f)); done < <(
  grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" |
    sed -E 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/')
excepted=$(grep -oE '^[0-9]+ excepted' "$out" | grep -oE '[0-9]+' || echo 0)
grep -q '^errcodes-exit 0$' "$out" || { [ "$failed" -eq 0 ] && failed=1; }
grep -q '^slt-exit 0$' "$out" || { [ "$failed" -eq 0 ] && failed=1; }
[ "$rc" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1

# The agreement rate counts sqllogictest records only (the errcodes checks are not records).
read -r sp sf <<<"$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1 |
  sed -E 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/')"
sp=${sp:-0} sf=${sf:-0}
run=$((sp + sf + excepted))
if [ "$run" -gt 0 ]; then
  rate=$(awk "BEGIN { printf \"%.1f\", 100 * $sp / $run }")
  echo "agreement: $sp of $run records run agree with Trino 476 ($rate%);" \
    "$excepted excepted, $sf failed"
fi
grep -E '^trino_server: Trino .* ready' "$out" | sed 's/^trino_server: /start: /'
echo "wall time: $(($(date +%s) - started)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
