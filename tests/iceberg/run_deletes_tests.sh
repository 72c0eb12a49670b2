#!/usr/bin/env bash
# Runs the Iceberg row-level delete tests: builds (gcc, ASan + UBSan, not via CMake) the cmocka
# unit test tests/unit/test_ice_deletes.c and the driver tests/iceberg/deletes_driver.c into
# build-deletes/, runs the unit test, then the interop suite tests/iceberg/test_deletes_interop.py
# (pyroaring, pyiceberg's Puffin/DV reader, pyarrow) with the repository's venv.
#
# Output: the per-test lines, then "N passed, N failed" (unit tests and interop tests together).
# Exit status: 0 when everything passed, 1 when a test failed, 2 when the venv is missing or a
# build failed. Extra arguments go to pytest (e.g. `-k pyroaring`).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="$root/.cache/venv/bin/python"
if [ ! -x "$python" ]; then
  echo "run_deletes_tests.sh: $python is missing (run make setup)" >&2
  exit 2
fi
out="$root/build-deletes"
mkdir -p "$out"
CC="${CC:-gcc}"
flags=(-std=gnu17 -g -O1 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
       -Wno-unused-parameter -fsanitize=address,undefined -fno-sanitize-recover=undefined
       -fno-omit-frame-pointer -I"$root/include" -I"$root/src")
ice=(bounds manifest manifest_list metadata_parse metadata_write murmur3 partition_spec schema
     transform roaring puffin delete_index delete_write)
srcs=("$root"/src/common/*.c "$root"/src/types/*.c "$root"/src/vec/*.c "$root"/src/io/*.c
      "$root"/src/format/parquet/*.c "$root"/src/format/avro/*.c)
for f in "${ice[@]}"; do srcs+=("$root/src/iceberg/$f.c"); done
libs=(-ljansson -lz -lsnappy -lzstd -llz4 -lbrotlidec -lbrotlienc -lxxhash -lm -lpcre2-8 -lpthread)
if ! "$CC" "${flags[@]}" "$root/tests/unit/test_ice_deletes.c" "${srcs[@]}" "${libs[@]}" \
    -lcmocka -o "$out/unit_ice_deletes"; then
  echo "run_deletes_tests.sh: building unit_ice_deletes failed" >&2
  exit 2
fi
if ! "$CC" "${flags[@]}" "$root/tests/iceberg/deletes_driver.c" "${srcs[@]}" "${libs[@]}" \
    -o "$out/deletes_driver"; then
  echo "run_deletes_tests.sh: building deletes_driver failed" >&2
  exit 2
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"
passed=0
failed=0
unit_log="$out/unit.log"
"$out/unit_ice_deletes" >"$unit_log" 2>&1
unit_rc=$?
grep -E '^\[ +(OK|FAILED|ERROR) +\] |runtime error|Sanitizer' "$unit_log" | grep -v 'test(s)'
ok=$(grep -cE '^\[       OK \] ' "$unit_log")
bad=$(grep -cE '^\[  FAILED  \] test_' "$unit_log")
passed=$((passed + ok))
failed=$((failed + bad))
# a crash or sanitizer report without a cmocka FAILED line still counts as a failure
if [ "$unit_rc" -ne 0 ] && [ "$bad" -eq 0 ]; then failed=$((failed + 1)); tail -20 "$unit_log"; fi
export DELETES_DRIVER="$out/deletes_driver"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/iceberg" || exit 2
py_log="$out/pytest.log"
"$python" -m pytest -q -rA --tb=short -p no:cacheprovider test_deletes_interop.py "$@" >"$py_log" 2>&1
py_rc=$?
grep -E '^(PASSED|FAILED|ERROR|SKIPPED) ' "$py_log"
grep -E '^(E |FAILED)' "$py_log" | head -40
ok=$(grep -cE '^PASSED ' "$py_log")
bad=$(grep -cE '^(FAILED|ERROR) ' "$py_log")
passed=$((passed + ok))
failed=$((failed + bad))
if [ "$py_rc" -ne 0 ] && [ "$bad" -eq 0 ]; then failed=$((failed + 1)); tail -20 "$py_log"; fi
[ "$py_rc" -eq 5 ] && failed=$((failed + 1))   # no tests collected
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
