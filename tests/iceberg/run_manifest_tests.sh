#!/usr/bin/env bash
# Runs the Iceberg manifest tests: builds (gcc, ASan + UBSan, not via CMake) the cmocka unit
# test tests/unit/test_iceberg_manifest.c and the driver tests/iceberg/manifest_driver.c into
# build-iceberg-manifest/, runs the unit test, then the pyiceberg interop suite
# tests/iceberg/test_manifest_interop.py with the repository's venv (pyiceberg SqlCatalog on a
# temporary SQLite file, pyarrow, fastavro).
#
# Output: cmocka's summary and pytest's quiet summary ("N passed in T s"). Exit status: 0 when
# everything passed, 1 when a test failed, 2 when the venv is missing or a build failed. Extra
# arguments go to pytest (e.g. `-k hostile`).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="$root/.cache/venv/bin/python"
if [ ! -x "$python" ]; then
  echo "run_manifest_tests.sh: $python is missing (run make setup)" >&2
  exit 2
fi
out="$root/build-iceberg-manifest"
mkdir -p "$out"
CC="${CC:-gcc}"
flags=(-std=gnu17 -g -O1 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
       -Wno-unused-parameter -fsanitize=address,undefined -fno-sanitize-recover=undefined
       -fno-omit-frame-pointer -I"$root/include" -I"$root/src")
srcs=("$root"/src/common/*.c "$root"/src/types/*.c "$root"/src/vec/*.c "$root"/src/io/*.c
      "$root"/src/format/avro/*.c "$root"/src/format/parquet/*.c "$root"/src/iceberg/*.c)
libs=(-ljansson -lz -lsnappy -lzstd -llz4 -lbrotlidec -lbrotlienc -lxxhash -lm -lpcre2-8 -lpthread)
if ! "$CC" "${flags[@]}" "$root/tests/unit/test_iceberg_manifest.c" "${srcs[@]}" \
    "${libs[@]}" -lcmocka -o "$out/unit_iceberg_manifest"; then
  echo "run_manifest_tests.sh: building unit_iceberg_manifest failed" >&2
  exit 2
fi
if ! "$CC" "${flags[@]}" "$root/tests/iceberg/manifest_driver.c" "${srcs[@]}" "${libs[@]}" \
    -o "$out/manifest_driver"; then
  echo "run_manifest_tests.sh: building manifest_driver failed" >&2
  exit 2
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"
status=0
"$out/unit_iceberg_manifest" 2>&1 | grep -E '^\[  (PASSED|FAILED|ERROR) |^\[==========\] [0-9]+ test|FAILED|ERROR|runtime error|Sanitizer'
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
export MANIFEST_DRIVER="$out/manifest_driver"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/iceberg" || exit 2
"$python" -m pytest -q --tb=short -p no:cacheprovider test_manifest_interop.py "$@"
py=$?
[ "$py" -eq 5 ] && py=1   # "no tests collected" is a failure here
[ "$py" -ne 0 ] && status=1
exit "$status"
