#!/usr/bin/env bash
# Runs the configuration test suite: the differential TOML test against Python's tomllib
# (tests/config/test_toml_oracle.py), and optionally a short libFuzzer run of
# tests/fuzz/fuzz_toml.c. The TOML reader and config unit tests (tests/unit/test_toml.c,
# test_config.c) are CMake's unit_toml and unit_config, run by the unit stage of `make test`.
#
# Exit status: 0 when everything passed, 1 when a test failed, 2 when a tool is missing.
# Environment: SQE_FUZZ_SECONDS=N also fuzzes the TOML reader for N seconds with fuzz_toml from
# $SQE_FUZZ_BUILD_DIR (default build-fuzz/, `make fuzz-toml`); SQE_TOML_ORACLE_SEED /
# SQE_TOML_ORACLE_N change the oracle's random documents. Extra arguments go to pytest
# (e.g. -k structure).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/../lib/test_env.sh"
test_env_require run_config_tests.sh toml_dump
export TOML_DUMP="$build/toml_dump"
fuzz_build="${SQE_FUZZ_BUILD_DIR:-$root/build-fuzz}"
case "$fuzz_build" in /*) ;; *) fuzz_build="$PWD/$fuzz_build" ;; esac
if [ "${SQE_FUZZ_SECONDS:-0}" -gt 0 ] && [ ! -x "$fuzz_build/fuzz_toml" ]; then
  echo "run_config_tests.sh: $fuzz_build/fuzz_toml is missing; build it with make fuzz-toml" >&2
  exit 2
fi
cd "$root" || exit 2

status=0

export PYTHONDONTWRITEBYTECODE=1
"$python" -m pytest -q --tb=short -p no:cacheprovider tests/config/test_toml_oracle.py "$@"
rc=$?
[ "$rc" -eq 5 ] && rc=1
[ "$rc" -ne 0 ] && status=1

if [ "${SQE_FUZZ_SECONDS:-0}" -gt 0 ]; then
  out="$(mktemp -d "${TMPDIR:-/tmp}/sqe-config-fuzz.XXXXXX")"
  trap 'rm -rf "$out"' EXIT
  mkdir -p "$out/corpus"
  (cd "$out" && set -o pipefail && "$fuzz_build/fuzz_toml" -max_len=4096 \
    -max_total_time="$SQE_FUZZ_SECONDS" -print_final_stats=1 corpus 2>&1 | tail -3) || status=1
fi
exit "$status"
