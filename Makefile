# SQE front door. `make run` starts SQE on its embedded default; `make test` runs every test.
# Build trees: build/ (release), build-debug/, build-asan/ (what the tests run), build-fuzz/.

SETUP  := scripts/setup.sh
VENV   := .cache/venv
NINJA  := ninja
CMAKE_GEN := cmake -G Ninja -S .

.PHONY: all release debug asan test test-unit test-sql test-tpch run shell setup fuzz-diff fuzz-sql fuzz-parquet fuzz-avro fuzz-arrow fuzz-toml fuzz-flight fuzz-trino fuzz-jwt fuzz-scan-task clean bench bench-iceberg bench-s3 bench-serve load

all: release

setup:
	@bash $(SETUP)

release: setup
	@$(CMAKE_GEN) -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
	@$(NINJA) -C build sqe slt_runner

debug: setup
	@$(CMAKE_GEN) -B build-debug -DCMAKE_BUILD_TYPE=Debug >/dev/null
	@$(NINJA) -C build-debug

asan: setup
	@$(CMAKE_GEN) -B build-asan -DCMAKE_BUILD_TYPE=Debug -DSQE_SANITIZE=ON >/dev/null
	@$(NINJA) -C build-asan

# The whole suite: unit and SQL tests under ASan+UBSan, then the TPC-H oracle (release build).
test: asan release
	@bash scripts/run_tests.sh

test-unit: asan
	@for t in build-asan/unit_*; do $$t || exit 1; done

test-sql: asan
	@./build-asan/slt_runner tests/sql

# The server on the embedded default: the Iceberg warehouse in ~/.sqe (SQLite catalog), with the
# demo tables of scripts/demo.sql, Trino HTTP on 127.0.0.1:8080 and Flight SQL on 127.0.0.1:50051
# (scripts/run_demo.sh; tests/integration/test_make_run.py runs it the same way on free ports).
run: release
	@bash scripts/run_demo.sh ./build/sqe

# The SQL shell on the embedded default warehouse.
shell: release
	@./build/sqe sql

# Differential fuzzing (tests/difftest): random queries over NULL-heavy tables on SQE and DuckDB,
# plus metamorphic checks; FUZZ_SECONDS (default 1800), SEED (default random), TRINO_URL (a
# running Trino 476: SQE's 0A000 refusals are checked on it). Prints the seed range and counts;
# reproducers go to .cache/difftest/.
fuzz-diff: release
	@$(VENV)/bin/python tests/difftest/run_diff.py --duration $${FUZZ_SECONDS:-1800} \
	    $${SEED:+--seed $$SEED} $${TRINO_URL:+--trino $$TRINO_URL}

fuzz-sql: setup
	@CC=clang $(CMAKE_GEN) -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DSQE_FUZZ=ON >/dev/null
	@$(NINJA) -C build-fuzz fuzz_sql_bind
	@mkdir -p .cache/fuzz-sql-corpus
	@./build-fuzz/fuzz_sql_bind -max_total_time=$${FUZZ_SECONDS:-600} -max_len=4096 -timeout=10 \
	    -dict=tests/fuzz/sql.dict .cache/fuzz-sql-corpus tests/fuzz/sql_seeds

fuzz-parquet: setup
	@CC=clang $(CMAKE_GEN) -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DSQE_FUZZ=ON >/dev/null
	@$(NINJA) -C build-fuzz fuzz_parquet_read fuzz_parquet_meta
	@mkdir -p .cache/fuzz-parquet-corpus
	@./build-fuzz/fuzz_parquet_read -max_total_time=$${FUZZ_SECONDS:-600} -max_len=262144 -timeout=10 \
	    -rss_limit_mb=4096 .cache/fuzz-parquet-corpus tests/data/parquet ../shared/corpus/parquet-testing/data

# libFuzzer on the other hostile-input decoders: make fuzz-avro | fuzz-arrow | fuzz-toml
# | fuzz-flight | fuzz-trino | fuzz-jwt (JWT and JWKS parsing, src/auth/)
# (FUZZ_SECONDS, default 600; corpora grow under .cache/fuzz-<name>-corpus).
FUZZ_BIN_fuzz-avro  := fuzz_avro
FUZZ_BIN_fuzz-arrow := fuzz_arrow_ipc
FUZZ_BIN_fuzz-toml  := fuzz_toml
FUZZ_BIN_fuzz-flight := fuzz_flight_command
FUZZ_BIN_fuzz-trino  := fuzz_trino_request
FUZZ_BIN_fuzz-jwt    := fuzz_jwt
fuzz-avro fuzz-arrow fuzz-toml fuzz-flight fuzz-trino fuzz-jwt: setup
	@CC=clang $(CMAKE_GEN) -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DSQE_FUZZ=ON >/dev/null
	@$(NINJA) -C build-fuzz $(FUZZ_BIN_$@)
	@mkdir -p .cache/$@-corpus
	@./build-fuzz/$(FUZZ_BIN_$@) -max_total_time=$${FUZZ_SECONDS:-600} \
	    -max_len=65536 -timeout=10 -rss_limit_mb=2048 .cache/$@-corpus \
	    tests/fuzz/$(subst fuzz-,,$@)_seeds

# libFuzzer on the scan task decoder (src/scan/scan_task.c): make fuzz-scan-task [FUZZ_SECONDS=600].
# Seeds: tests/fuzz/scan_task_seeds (regenerate: SCAN_TASK_SEED_DIR=tests/fuzz/scan_task_seeds
# build-asan/unit_scan_task); crashes become inputs under tests/fuzz/scan_task_regressions.
fuzz-scan-task: setup
	@CC=clang $(CMAKE_GEN) -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DSQE_FUZZ=ON >/dev/null
	@$(NINJA) -C build-fuzz fuzz_scan_task
	@mkdir -p .cache/fuzz-scan-task-corpus
	@./build-fuzz/fuzz_scan_task -max_total_time=$${FUZZ_SECONDS:-600} -max_len=65536 \
	    -timeout=10 -rss_limit_mb=2048 .cache/fuzz-scan-task-corpus tests/fuzz/scan_task_seeds \
	    tests/fuzz/scan_task_regressions

# Benchmark (issue 4): TPC-H on Parquet, SQE side by side with DuckDB and DataFusion, answers
# checked; writes bench/results/<date>-tpch-sf<SF>.{json,md,png}. See bench/README.md.
# make bench [SUITE=tpch] [SF=1] [RUNS=5] [THREADS=2] [CODEC=zstd|snappy]
SUITE   := tpch
SF      := 1
RUNS    := 5
THREADS := 2
CODEC   := zstd

bench: release
	@$(VENV)/bin/python bench/run_bench.py --suite $(SUITE) --sf $(SF) --runs $(RUNS) \
	    --threads $(THREADS) --codec $(CODEC)

clean:
	rm -rf build build-debug build-asan build-fuzz

# Iceberg read overhead: TPC-H over the same files as Iceberg tables and through read_parquet.
bench-iceberg: release
	@$(VENV)/bin/python bench/iceberg_overhead.py --sf $(SF) --runs $(RUNS) --threads $(THREADS)

# TPC-H over S3 (moto on loopback, signature checks) vs local disk, with S3 requests per query.
bench-s3: release
	@$(VENV)/bin/python bench/s3_vs_local.py --sf $(SF) --runs $(RUNS) --threads $(THREADS) --sqe build/sqe

# 10 M rows streamed to ADBC over Flight SQL, against DuckDB's .arrow() in-process.
bench-serve: release
	@$(VENV)/bin/python bench/serve_stream.py --sqe build/sqe --threads $(THREADS) \
	    --out bench/results/$$(date +%F)-serve-stream.md

# Load: 64 clients (half Flight SQL, half Trino) x 200 checked queries, two rounds.
load: release
	@$(VENV)/bin/python tests/load/run_load.py --sqe build/sqe \
	    --report bench/results/$$(date +%F)-serve-load.md
