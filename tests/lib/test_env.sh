# test_env.sh: the common start of the oracle test scripts (sourced, not run). Sets
#   root    the repository
#   build   the CMake build holding the test programs: $SQE_BUILD_DIR, default build-asan/
#   python  the repository's virtual environment's python
# and turns on the sanitizers' leak checks and UBSan stack traces. Call
#   test_env_require SCRIPT PROGRAM...
# to stop with status 2 (and a message naming SCRIPT) when the venv or a program is missing.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${SQE_BUILD_DIR:-$root/build-asan}"
case "$build" in /*) ;; *) build="$PWD/$build" ;; esac
python="$root/.cache/venv/bin/python"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"

test_env_require() {
  local script=$1
  shift
  if [ ! -x "$python" ]; then
    echo "$script: $python is missing (run make setup)" >&2
    exit 2
  fi
  local exe
  for exe in "$@"; do
    if [ ! -x "$build/$exe" ]; then
      echo "$script: $build/$exe is missing; build it with make asan" >&2
      exit 2
    fi
  done
}
