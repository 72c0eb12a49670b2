#!/bin/sh
# run_arrow_tests.sh: runs the pyarrow interoperability tests with the Arrow IPC test driver
# arrow_ipc_driver (tests/arrow/arrow_ipc_driver.c, built by CMake) from $SQE_BUILD_DIR (default
# build-asan/, `make asan`: ASan + UBSan). Usage: tests/arrow/run_arrow_tests.sh [pytest args]
# Env: SQE_BUILD_DIR, PYTHON (default .cache/venv/bin/python). Exit status: pytest's, or 2 when
# the driver is missing.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${SQE_BUILD_DIR:-$root/build-asan}
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
python=${PYTHON:-$root/.cache/venv/bin/python}
if [ ! -x "$build/arrow_ipc_driver" ]; then
  echo "run_arrow_tests.sh: $build/arrow_ipc_driver is missing; build it with make asan" >&2
  exit 2
fi
cd "$root"
ARROW_IPC_DRIVER="$build/arrow_ipc_driver" exec "$python" -m pytest -q "$root/tests/arrow/test_arrow_interop.py" "$@"
