#!/usr/bin/env bash
# Runs the Avro interop suite (tests/avro/test_avro_interop.py) against fastavro: builds the
# test driver tests/avro/avro_dump.c with gcc (ASan + UBSan, not via CMake) into
# build-avro/avro_dump, then runs pytest from the repository's venv.
#
# Output: pytest's quiet summary ("N passed in T s"). Exit status: 0 when everything passed,
# 1 when a test failed, 2 when the venv is missing or the driver does not compile. Extra
# arguments go to pytest (e.g. `-k truncation`).
set -u
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="$root/.cache/venv/bin/python"
if [ ! -x "$python" ]; then
  echo "run_avro_tests.sh: $python is missing (run make setup)" >&2
  exit 2
fi
out="$root/build-avro"
mkdir -p "$out"
CC="${CC:-gcc}"
if ! "$CC" -std=gnu17 -g -O1 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter \
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
    -I"$root/include" -I"$root/src" \
    "$root/tests/avro/avro_dump.c" "$root"/src/format/avro/*.c \
    "$root/src/common/arena.c" "$root/src/common/err.c" "$root/src/common/mem.c" \
    "$root/src/common/strbuf.c" \
    -ljansson -lz -lsnappy -lm -o "$out/avro_dump"; then
  echo "run_avro_tests.sh: building avro_dump failed" >&2
  exit 2
fi
export AVRO_DUMP="$out/avro_dump"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"
export PYTHONDONTWRITEBYTECODE=1
cd "$root/tests/avro" || exit 2
"$python" -m pytest -q --tb=short -p no:cacheprovider "$@"
status=$?
[ "$status" -eq 5 ] && status=1   # "no tests collected" is a failure here
exit "$status"
