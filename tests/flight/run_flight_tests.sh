#!/bin/sh
# run_flight_tests.sh: starts flight_test_server (twice: open, and with toy authentication),
# runs tests/flight/test_flight_sql.py with the ADBC driver and pyarrow.flight, and prints
# "N passed, N failed". Usage: run_flight_tests.sh [BUILD_DIR]; the build directory defaults to
# $SQE_BUILD_DIR, else build-asan/ (`make asan` builds flight_test_server there). Exit status:
# 0 when everything passed, 1 when a test failed, 2 when the server program is missing.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-${SQE_BUILD_DIR:-$ROOT/build-asan}}
case "$BUILD" in /*) ;; *) BUILD="$PWD/$BUILD" ;; esac
SERVER=$BUILD/flight_test_server
PY=$ROOT/.cache/venv/bin/python
if [ ! -x "$SERVER" ]; then echo "run_flight_tests.sh: $SERVER is missing; build it with make asan" >&2; exit 2; fi
LOG=$(mktemp -d)
"$SERVER" --port 0 >"$LOG/port" 2>"$LOG/server.err" &
SPID=$!
"$SERVER" --port 0 --user alice secret >"$LOG/port2" 2>"$LOG/server2.err" &
SPID2=$!
for i in $(seq 1 100); do
  grep -q PORT "$LOG/port" 2>/dev/null && grep -q PORT "$LOG/port2" 2>/dev/null && break
  sleep 0.1
done
PORT=$(awk '/PORT/{print $2}' "$LOG/port")
PORT2=$(awk '/PORT/{print $2}' "$LOG/port2")
SQE_FLIGHT_URI="grpc://127.0.0.1:$PORT" SQE_FLIGHT_PID=$SPID SQE_FLIGHT_AUTH_URI="grpc://127.0.0.1:$PORT2" \
  SQE_FLIGHT_SERVER="$SERVER" \
  "$PY" -m pytest -q -p no:cacheprovider "$ROOT/tests/flight/test_flight_sql.py" >"$LOG/pytest.out" 2>&1
cat "$LOG/pytest.out"
kill -TERM $SPID $SPID2 2>/dev/null
wait $SPID $SPID2 2>/dev/null
# pytest's closing line; warnings printed after it must not hide the counts
SUMMARY=$(grep -E '^=*[[:space:]]*[0-9]+ (passed|failed|errors?)' "$LOG/pytest.out" | tail -1)
P=$(echo "$SUMMARY" | grep -o '[0-9]* passed' | grep -o '[0-9]*'); P=${P:-0}
F=$(echo "$SUMMARY" | grep -o '[0-9]* failed' | grep -o '[0-9]*'); F=${F:-0}
E=$(echo "$SUMMARY" | grep -o '[0-9]* error' | grep -o '[0-9]*'); E=${E:-0}
grep -q "ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error" "$LOG/server.err" "$LOG/server2.err" && { echo "sanitizer report in server log:"; cat "$LOG/server.err" "$LOG/server2.err" | head -60; F=$((F+1)); }
[ -n "$SUMMARY" ] || F=$((F+1))   # no pytest summary: collection or startup failed
echo "$P passed, $((F+E)) failed"
rm -rf "$LOG"
[ $((F+E)) -eq 0 ]
