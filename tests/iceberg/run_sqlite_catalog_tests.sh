#!/usr/bin/env bash
# Runs the SQLite Iceberg catalog suite: builds the cmocka unit test tests/unit/test_ice_sqlite.c
# and the driver tests/iceberg/ice_sqlite_driver.c with gcc (ASan + UBSan, not via CMake) into
# build-iceberg/, runs the unit test, then runs tests/iceberg/test_sqlite_catalog_interop.py
# with pytest from the repository's venv (pyiceberg 0.12 SqlCatalog on the same SQLite file and
# warehouse as the C driver).
#
# Output: the unit test's cmocka summary, then pytest's quiet summary. Exit status: 0 when
# everything passed, 1 when a test failed, 2 when the venv is missing or a build failed. Extra
# arguments go to pytest (e.g. `-k concurrent`).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="$root/.cache/venv/bin/python"
out="$root/build-iceberg"
mkdir -p "$out"
CC="${CC:-gcc}"
cflags=(-std=gnu17 -g -O1 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
  -Wno-unused-parameter -fsanitize=address,undefined -fno-sanitize-recover=undefined
  -fno-omit-frame-pointer -I"$root/include" -I"$root/src")
srcs=("$root/src/catalog/ice_sqlite.c"
  "$root/src/iceberg/metadata_parse.c" "$root/src/iceberg/metadata_write.c"
  "$root/src/iceberg/schema.c" "$root/src/iceberg/partition_spec.c"
  "$root/src/iceberg/transform.c" "$root/src/iceberg/murmur3.c" "$root/src/vec/vec.c"
  "$root/src/common/arena.c" "$root/src/common/err.c" "$root/src/common/mem.c"
  "$root/src/common/strbuf.c" "$root"/src/types/*.c)
libs=(-lsqlite3 -ljansson -lm -lpthread)
if ! "$CC" "${cflags[@]}" "$root/tests/iceberg/ice_sqlite_driver.c" "${srcs[@]}" "${libs[@]}" \
    -o "$out/ice_sqlite_driver"; then
  echo "run_sqlite_catalog_tests.sh: building ice_sqlite_driver failed" >&2
  exit 2
fi
if ! "$CC" "${cflags[@]}" "$root/tests/unit/test_ice_sqlite.c" "${srcs[@]}" "${libs[@]}" -lcmocka \
    -o "$out/unit_ice_sqlite"; then
  echo "run_sqlite_catalog_tests.sh: building unit_ice_sqlite failed" >&2
  exit 2
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"
status=0
"$out/unit_ice_sqlite" || status=1
if [ ! -x "$python" ]; then
  echo "run_sqlite_catalog_tests.sh: $python is missing (run make setup)" >&2
  exit 2
fi
export ICE_SQLITE_DRIVER="$out/ice_sqlite_driver"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/iceberg" || exit 2
if [ "$#" -eq 0 ]; then set -- test_sqlite_catalog_interop.py; fi
"$python" -m pytest -q --tb=short -p no:cacheprovider "$@"
rc=$?
[ "$rc" -eq 5 ] && rc=1   # "no tests collected" is a failure here
[ "$rc" -ne 0 ] && status=1
exit "$status"
