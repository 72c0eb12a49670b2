#!/bin/sh
# run_arrow_tests.sh: builds the Arrow IPC test driver (ASan/UBSan) from the sources it needs and
# runs the pyarrow interoperability tests. Usage: tests/arrow/run_arrow_tests.sh [pytest args]
# Env: SQE_ARROW_BUILD (default build-arrow/), PYTHON (default .cache/venv/bin/python).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${SQE_ARROW_BUILD:-$root/build-arrow}
python=${PYTHON:-$root/.cache/venv/bin/python}
mkdir -p "$out"
cd "$root"
${CC:-gcc} -std=gnu17 -O1 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter \
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -Iinclude -Isrc \
    tests/arrow/arrow_ipc_driver.c src/format/arrow/*.c src/common/*.c src/types/*.c src/vec/vec.c \
    -o "$out/arrow_ipc_driver" -ljansson -lm -lpthread
ARROW_IPC_DRIVER="$out/arrow_ipc_driver" exec "$python" -m pytest -q "$root/tests/arrow/test_arrow_interop.py" "$@"
