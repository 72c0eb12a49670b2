#!/usr/bin/env bash
# Runs the Iceberg data-writer tests: builds (gcc, ASan + UBSan, not via CMake) the sources the
# writer needs into build-iceberg-data-writer/, the cmocka unit test
# tests/unit/test_ice_data_writer.c and the driver tests/iceberg/data_writer_driver.c, runs the
# unit test, then tests/iceberg/test_data_writer_interop.py (pyarrow + pyiceberg oracle) with
# the repository's venv. Ends with "N passed, N failed" (unit tests and pytest cases together).
# Exit status: 0 when everything passed, 1 when a test failed, 2 when the venv is missing or a
# build failed. Extra arguments go to pytest (e.g. `-k rolling`).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="$root/.cache/venv/bin/python"
if [ ! -x "$python" ]; then
  echo "run_data_writer_tests.sh: $python is missing (run make setup)" >&2
  exit 2
fi
out="$root/build-iceberg-data-writer"
mkdir -p "$out/obj"
CC="${CC:-gcc}"
flags=(-std=gnu17 -g -O1 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
       -Wno-unused-parameter -fsanitize=address,undefined -fno-sanitize-recover=undefined
       -fno-omit-frame-pointer -I"$root/include" -I"$root/src")
libs=(-ljansson -lzstd -lz -lsnappy -llz4 -lbrotlienc -lbrotlidec -lxxhash -lm -lpthread)
srcs=("$root"/src/iceberg/*.c "$root"/src/format/parquet/*.c "$root"/src/format/avro/*.c
      "$root"/src/common/*.c "$root"/src/types/*.c "$root"/src/vec/*.c "$root"/src/io/*.c)
fail=0
for s in "${srcs[@]}"; do
  o="$out/obj/$(basename "$(dirname "$s")")_$(basename "$s" .c).o"
  if [ ! -e "$o" ] || [ "$s" -nt "$o" ] || [ -n "$(find "$root/src" -name '*.h' -newer "$o" -print -quit)" ]; then
    "$CC" "${flags[@]}" -c "$s" -o "$o" & 
  fi
  while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || fail=1; done
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || fail=1; done
if [ "$fail" -ne 0 ]; then
  echo "run_data_writer_tests.sh: building the sources failed" >&2
  exit 2
fi
if ! "$CC" "${flags[@]}" "$root/tests/unit/test_ice_data_writer.c" "$out"/obj/*.o -lcmocka "${libs[@]}" \
    -o "$out/unit_ice_data_writer" 2> >(grep -v 'ld: warning' >&2); then
  echo "run_data_writer_tests.sh: building unit_ice_data_writer failed" >&2
  exit 2
fi
if ! "$CC" "${flags[@]}" "$root/tests/iceberg/data_writer_driver.c" "$out"/obj/*.o "${libs[@]}" \
    -o "$out/data_writer_driver" 2> >(grep -v 'ld: warning' >&2); then
  echo "run_data_writer_tests.sh: building data_writer_driver failed" >&2
  exit 2
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"
passed=0
failed=0
unit_log="$out/unit.log"
"$out/unit_ice_data_writer" >"$unit_log" 2>&1
unit_rc=$?
grep -E '^\[  (FAILED|ERROR) |runtime error|Sanitizer' "$unit_log"
passed=$((passed + $(grep -c '^\[       OK \]' "$unit_log")))
failed=$((failed + $(grep -c '^\[  FAILED  \] test' "$unit_log")))
[ "$unit_rc" -ne 0 ] && [ "$(grep -c '^\[  FAILED  \] test' "$unit_log")" -eq 0 ] && failed=$((failed + 1))
export DATA_WRITER_DRIVER="$out/data_writer_driver"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/iceberg" || exit 2
py_log="$out/pytest.log"
"$python" -m pytest -q --tb=short -p no:cacheprovider test_data_writer_interop.py "$@" 2>&1 | tee "$py_log"
py=${PIPESTATUS[0]}
summary="$(tail -n 1 "$py_log")"
p=$(echo "$summary" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+' || true)
f=$(echo "$summary" | grep -oE '[0-9]+ (failed|error)' | grep -oE '[0-9]+' | paste -sd+ | bc 2>/dev/null || true)
passed=$((passed + ${p:-0}))
failed=$((failed + ${f:-0}))
[ "$py" -ne 0 ] && [ "${f:-0}" -eq 0 ] && failed=$((failed + 1))
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
