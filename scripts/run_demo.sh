#!/usr/bin/env bash
# What `make run` does: loads the demo schema of scripts/demo.sql into the embedded default
# warehouse through the shell (`sqe sql`), then serves that warehouse (`sqe serve`).
#
#   scripts/run_demo.sh SQE_BINARY [sqe serve options...]
#
# The options go to `sqe serve` (make run passes none: Trino HTTP on 127.0.0.1:8080, Flight SQL
# on 127.0.0.1:50051; tests/integration/test_make_run.py passes free ports and runs it with a
# temporary HOME). The shell and the server see the same HOME and SQE_<SECTION>__<KEY>
# variables, so they open the same catalog (~/.sqe/catalog.db by default). Every statement of
# demo.sql is idempotent: a second run leaves the tables as they are.
set -eu
[ $# -ge 1 ] || { echo "usage: scripts/run_demo.sh SQE_BINARY [sqe serve options...]" >&2; exit 2; }
sqe=$1
shift
root=$(cd "$(dirname "$0")/.." && pwd)
"$sqe" sql --bail -f "$root/scripts/demo.sql" >/dev/null

# the ports to show: the defaults unless given on the command line
trino_port=8080 flight_port=50051 prev=
for a in "$@"; do
  case "$prev" in
    --trino-port) trino_port=$a ;;
    --flight-port) flight_port=$a ;;
  esac
  case "$a" in
    --trino-port=*) trino_port=${a#*=} ;;
    --flight-port=*) flight_port=${a#*=} ;;
  esac
  prev=$a
done
echo "SQE: demo tables in iceberg.demo (region, nation, orders)."
echo "  shell:      $sqe sql            (same warehouse, in another terminal)"
echo "  Trino:      trino --server http://127.0.0.1:$trino_port --catalog iceberg --schema demo"
[ "$flight_port" = 0 ] ||
  echo "  Flight SQL: adbc_driver_flightsql.dbapi.connect('grpc://127.0.0.1:$flight_port')"
echo "  stop:       Ctrl-C (drains running queries)"
exec "$sqe" serve "$@"
