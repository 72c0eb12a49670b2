#!/usr/bin/env bash
# Runs the Iceberg partition-transform tests: builds (gcc, ASan + UBSan, not via CMake) the
# cmocka unit test tests/unit/test_iceberg_transform.c and the oracle driver
# tests/iceberg/transform_driver.c into build-iceberg-transform/, runs the unit test, then the
# pyiceberg cross-check tests/iceberg/test_transform_oracle.py with the repository's venv.
#
# Output: cmocka's summary and pytest's quiet summary ("N passed in T s"). Exit status: 0 when
# everything passed, 1 when a test failed, 2 when the venv is missing or a build failed. Extra
# arguments go to pytest (e.g. `-k string`).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="$root/.cache/venv/bin/python"
if [ ! -x "$python" ]; then
  echo "run_transform_tests.sh: $python is missing (run make setup)" >&2
  exit 2
fi
out="$root/build-iceberg-transform"
mkdir -p "$out"
CC="${CC:-gcc}"
flags=(-std=gnu17 -g -O1 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
       -Wno-unused-parameter -fsanitize=address,undefined -fno-sanitize-recover=undefined
       -fno-omit-frame-pointer -I"$root/include" -I"$root/src")
srcs=("$root/src/iceberg/transform.c" "$root/src/iceberg/murmur3.c" "$root"/src/common/*.c
      "$root"/src/types/*.c "$root"/src/vec/*.c)
if ! "$CC" "${flags[@]}" "$root/tests/unit/test_iceberg_transform.c" "${srcs[@]}" \
    -lcmocka -lm -lpthread -o "$out/unit_iceberg_transform"; then
  echo "run_transform_tests.sh: building unit_iceberg_transform failed" >&2
  exit 2
fi
if ! "$CC" "${flags[@]}" "$root/tests/iceberg/transform_driver.c" "${srcs[@]}" \
    -lm -lpthread -o "$out/transform_driver"; then
  echo "run_transform_tests.sh: building transform_driver failed" >&2
  exit 2
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"
status=0
"$out/unit_iceberg_transform" 2>&1 | grep -E '^\[  (PASSED|FAILED|ERROR) |^\[==========\] [0-9]+ test|FAILED|ERROR|runtime error|Sanitizer'
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
export TRANSFORM_DRIVER="$out/transform_driver"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/iceberg" || exit 2
"$python" -m pytest -q --tb=short -p no:cacheprovider test_transform_oracle.py "$@"
py=$?
[ "$py" -eq 5 ] && py=1   # "no tests collected" is a failure here
[ "$py" -ne 0 ] && status=1
exit "$status"
