#!/usr/bin/env bash
# Runs the Iceberg metadata interop suite (tests/iceberg/test_metadata_interop.py): builds the
# driver tests/iceberg/metadata_roundtrip.c with gcc (ASan + UBSan, not via CMake) into
# build-iceberg/metadata_roundtrip, then runs pytest from the repository's venv (pyiceberg with
# SqlCatalog on a temporary SQLite file, pyarrow).
#
# Output: pytest's quiet summary ("N passed in T s"). Exit status: 0 when everything passed,
# 1 when a test failed, 2 when the venv is missing or the driver does not compile. Extra
# arguments go to pytest (e.g. `-k hostile`); without any, the metadata suite runs.
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="$root/.cache/venv/bin/python"
if [ ! -x "$python" ]; then
  echo "run_iceberg_tests.sh: $python is missing (run make setup)" >&2
  exit 2
fi
out="$root/build-iceberg"
mkdir -p "$out"
CC="${CC:-gcc}"
if ! "$CC" -std=gnu17 -g -O1 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter \
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
    -I"$root/include" -I"$root/src" \
    "$root/tests/iceberg/metadata_roundtrip.c" \
    "$root/src/iceberg/metadata_parse.c" "$root/src/iceberg/metadata_write.c" \
    "$root/src/iceberg/schema.c" "$root/src/iceberg/partition_spec.c" \
    "$root/src/iceberg/transform.c" "$root/src/iceberg/murmur3.c" "$root/src/vec/vec.c" \
    "$root/src/common/arena.c" "$root/src/common/err.c" "$root/src/common/mem.c" \
    "$root/src/common/strbuf.c" "$root"/src/types/*.c \
    -ljansson -lm -lpthread -o "$out/metadata_roundtrip"; then
  echo "run_iceberg_tests.sh: building metadata_roundtrip failed" >&2
  exit 2
fi
export ICE_METADATA_ROUNDTRIP="$out/metadata_roundtrip"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/iceberg" || exit 2
if [ "$#" -eq 0 ]; then set -- test_metadata_interop.py; fi
"$python" -m pytest -q --tb=short -p no:cacheprovider "$@"
status=$?
[ "$status" -eq 5 ] && status=1   # "no tests collected" is a failure here
exit "$status"
