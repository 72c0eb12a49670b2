#!/usr/bin/env bash
# Runs the configuration test suite: the TOML reader and config unit tests (cmocka, built here
# with gcc and ASan/UBSan from src/common only, so a half-built tree elsewhere does not matter),
# then the differential TOML test against Python's tomllib (tests/config/test_toml_oracle.py),
# and optionally a short libFuzzer run of tests/fuzz/fuzz_toml.c.
#
# Exit status: 0 when everything passed, 1 when a test failed, 2 when a tool is missing.
# Environment: SQE_FUZZ_SECONDS=N also fuzzes the TOML reader for N seconds (needs clang);
# SQE_TOML_ORACLE_SEED / SQE_TOML_ORACLE_N change the oracle's random documents. Extra
# arguments go to pytest (e.g. -k structure).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="$root/.cache/venv/bin/python"
if [ ! -x "$python" ]; then
  echo "run_config_tests.sh: $python is missing (run make setup)" >&2
  exit 2
fi
command -v gcc >/dev/null || { echo "run_config_tests.sh: gcc is missing" >&2; exit 2; }
out="$(mktemp -d "${TMPDIR:-/tmp}/sqe-config-tests.XXXXXX")"
trap 'rm -rf "$out"' EXIT
cd "$root" || exit 2

cflags=(-std=gnu17 -g -O1 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
        -fsanitize=address,undefined -fno-sanitize-recover=undefined -Iinclude -Isrc)
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1"
status=0
for t in toml config; do
  if ! gcc "${cflags[@]}" "tests/unit/test_$t.c" src/common/*.c -lcmocka -lm -o "$out/unit_$t"; then
    echo "run_config_tests.sh: unit_$t does not build" >&2
    status=1
    continue
  fi
  if ! "$out/unit_$t"; then status=1; fi
done

export PYTHONDONTWRITEBYTECODE=1
"$python" -m pytest -q --tb=short -p no:cacheprovider tests/config/test_toml_oracle.py "$@"
rc=$?
[ "$rc" -eq 5 ] && rc=1
[ "$rc" -ne 0 ] && status=1

if [ "${SQE_FUZZ_SECONDS:-0}" -gt 0 ]; then
  if ! command -v clang >/dev/null; then
    echo "run_config_tests.sh: clang is missing, skipping the fuzz run" >&2
  else
    clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -Iinclude -Isrc \
      tests/fuzz/fuzz_toml.c src/common/toml.c src/common/arena.c src/common/mem.c src/common/err.c \
      src/common/strbuf.c -lm -o "$out/fuzz_toml" || status=1
    mkdir -p "$out/corpus"
    if [ -x "$out/fuzz_toml" ]; then
      (cd "$out" && set -o pipefail && ./fuzz_toml -max_len=4096 -max_total_time="$SQE_FUZZ_SECONDS" -print_final_stats=1 \
        corpus 2>&1 | tail -3) || status=1
    fi
  fi
fi
exit "$status"
