"""slt_runner's features for SQLite's sqllogictest corpus, on small files written here.

Hash results (`N values hashing to <md5>`, digests computed here with hashlib), hash-threshold,
comments after skipif/onlyif, and the --sqlite-corpus mode: SQLite's value rendering by type
letter, the DDL mapping (and that it is off without the flag), engine names in skipif/onlyif,
the skip list (groups, malformed lists, --check-skipped), --list-records and --record-timeout.
Also checks that tests/sqlite/duckdb_rate.py renders values exactly as the runner does, and that
tests/sqlite/skip.list parses.

Run: .cache/venv/bin/python -m pytest tests/sqlite/test_runner_corpus_mode.py
(slt_runner from $SQE_BUILD_DIR, default build-asan/).
"""
import hashlib
import importlib.util
import json
import os
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNNER = Path(os.environ.get("SQE_BUILD_DIR", ROOT / "build-asan")) / "slt_runner"


def md5_of(values):
    return hashlib.md5("".join(v + "\n" for v in values).encode()).hexdigest()


def run(tmp_path, text, *options, name="t.test", skip_list=None):
    """Writes text to a .test file and runs slt_runner on it; returns (exit status, output)."""
    if not RUNNER.exists():
        pytest.fail(f"{RUNNER} not built (make asan)")
    path = tmp_path / name
    path.write_text(text)
    args = [str(RUNNER), *options]
    if skip_list is not None:
        list_path = tmp_path / "skip.list"
        list_path.write_text(skip_list)
        args += ["--skip-list", str(list_path)]
    proc = subprocess.run(args + [str(path)], capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout + proc.stderr


def summary(output):
    (line,) = [l for l in output.splitlines() if l.endswith(" failed") and " passed, " in l]
    passed, failed = line.replace(" passed,", "").replace(" failed", "").split()
    return int(passed), int(failed)


# ---- hash results ------------------------------------------------------------------------------

def test_hash_results_match_and_mismatch(tmp_path):
    values = ["1", "2", "3"]
    good = f"""
query I rowsort
SELECT x FROM (VALUES 3, 1, 2) t(x)
----
3 values hashing to {md5_of(values)}

query IT valuesort
SELECT x, y FROM (VALUES (1, 'b'), (2, 'a')) t(x, y)
----
4 values hashing to {md5_of(sorted(["1", "b", "2", "a"]))}
"""
    rc, out = run(tmp_path, good)
    assert rc == 0 and summary(out) == (2, 0), out

    wrong_digest = f"""
query I rowsort
SELECT x FROM (VALUES 3, 1, 2) t(x)
----
3 values hashing to {md5_of(["1", "2", "4"])}
"""
    rc, out = run(tmp_path, wrong_digest)
    assert rc == 1 and summary(out) == (0, 1), out
    assert f"got 3 hashing to {md5_of(values)}" in out

    wrong_count = f"""
query I nosort
SELECT 1
----
2 values hashing to {md5_of(["1"])}
"""
    rc, out = run(tmp_path, wrong_count)
    assert rc == 1 and "expected 2 values hashing to" in out, out


def test_rewrite_writes_a_hash_above_the_threshold(tmp_path):
    text = """hash-threshold 2

query I rowsort
SELECT x FROM (VALUES 3, 1, 2) t(x)
----
0
"""
    rc, out = run(tmp_path, text, "--rewrite")
    assert rc == 1, out
    assert f"3 values hashing to {md5_of(['1', '2', '3'])}" in (tmp_path / "t.test").read_text()


def test_comment_after_a_condition(tmp_path):
    text = """onlyif nosuchconnector # a comment with words
query I nosort
SELECT 1
----
2

skipif nosuchconnector # another
query I nosort
SELECT 1
----
1
"""
    rc, out = run(tmp_path, text)
    assert rc == 0 and summary(out) == (1, 0) and "1 skipped" in out, out


# ---- the SQLite corpus mode: values --------------------------------------------------------------

RENDERING = """
query IIIIIIII nosort
SELECT true, 1 < 0, CAST(2.7 AS DOUBLE), CAST(-2.7 AS DOUBLE), 3.9, '12abc', 'abc', NULL
----
1
0
2
-2
3
12
0
NULL

query RRRRRR nosort
SELECT 1, CAST(1 AS DOUBLE) / 3, -CAST(0 AS DOUBLE), 2.5, true, NULL
----
1.000
0.333
0.000
2.500
1.000
NULL

query TTTTTTTTT nosort
SELECT '', NULL, CAST(1.5 AS DOUBLE), CAST(2 AS DOUBLE), CAST(1e20 AS DOUBLE), 1.50, true, 'a' || chr(9) || 'b', 7
----
(empty)
NULL
1.5
2.0
1.0e+20
1.5
1
a@b
7
"""


def test_sqlite_rendering(tmp_path):
    rc, out = run(tmp_path, RENDERING, "--sqlite-corpus")
    assert rc == 0 and summary(out) == (3, 0), out


def test_rendering_is_off_without_the_flag(tmp_path):
    rc, out = run(tmp_path, RENDERING)
    assert rc == 1 and summary(out) == (0, 3), out


# The same cases as RENDERING, for duckdb_rate.render (DuckDB hands over Python values).
PY_RENDERING = [
    (True, "I", "1"), (False, "I", "0"), (2.7, "I", "2"), (-2.7, "I", "-2"),
    (Decimal("3.9"), "I", "3"), ("12abc", "I", "12"), ("abc", "I", "0"), (None, "I", "NULL"),
    (1, "R", "1.000"), (1 / 3, "R", "0.333"), (-0.0, "R", "0.000"), (Decimal("2.5"), "R", "2.500"),
    (True, "R", "1.000"), (None, "R", "NULL"),
    ("", "T", "(empty)"), (None, "T", "NULL"), (1.5, "T", "1.5"), (2.0, "T", "2.0"),
    (1e20, "T", "1.0e+20"), (Decimal("1.50"), "T", "1.5"), (True, "T", "1"), ("a\tb", "T", "a@b"),
    (7, "T", "7"),
]


def test_duckdb_rate_renders_as_the_runner():
    path = ROOT / "tests/sqlite/duckdb_rate.py"
    spec = importlib.util.spec_from_file_location("duckdb_rate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    got = [(value, letter, module.render(value, letter)) for value, letter, _ in PY_RENDERING]
    assert got == PY_RENDERING


# ---- the SQLite corpus mode: statements ----------------------------------------------------------

MAPPING = """
statement ok
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT UNIQUE, c VARCHAR(8), UNIQUE (b(1)))

statement ok
CREATE INDEX ti ON t(a)

statement ok
CREATE UNIQUE INDEX tu ON t(b)

statement ok
INSERT INTO t VALUES (1, 'x', 'y')

query TT rowsort
SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 't'
----
a
integer
b
varchar
c
varchar(8)

statement ok
DROP INDEX ti

statement ok
REINDEX ti
"""


def test_ddl_mapping(tmp_path):
    rc, out = run(tmp_path, MAPPING, "--sqlite-corpus")
    assert rc == 0 and summary(out) == (3, 0), out
    assert "4 mapping: index statements" in out, out


def test_no_mapping_without_the_flag(tmp_path):
    rc, out = run(tmp_path, MAPPING)
    assert rc == 1 and "FAIL" in out and "t.test:2" in out, out


CONDITIONS = """
skipif postgresql
query I nosort
SELECT 1
----
2

onlyif sqlite
query I nosort
SELECT 1
----
2

onlyif postgresql
query I nosort
SELECT 1
----
1

onlyif mssql
halt

query I nosort
SELECT 2
----
2
"""


def test_engine_names(tmp_path):
    rc, out = run(tmp_path, CONDITIONS, "--sqlite-corpus")
    assert rc == 0 and summary(out) == (2, 0) and "2 skipped" in out, out
    assert "2 skipif/onlyif" in out, out
    # Without the corpus mode the runner is not "postgresql": `skipif postgresql` runs (and
    # fails), `onlyif postgresql` is skipped.
    rc, out = run(tmp_path, CONDITIONS)
    assert rc == 1 and summary(out) == (1, 1) and "2 skipped" in out, out
    assert "t.test:3\n" in out, out


def test_records_after_a_halt_count_as_skipped(tmp_path):
    text = """
query I nosort
SELECT 1
----
1

skipif sqlite
halt

query I nosort
SELECT 2
----
3

statement ok
SELECT 3
"""
    rc, out = run(tmp_path, text, "--sqlite-corpus")
    assert rc == 0 and summary(out) == (1, 0) and "2 skipped" in out, out
    assert "  2 skipif/onlyif" in out, out
    rc, out = run(tmp_path, text, "--sqlite-corpus", "--list-records")
    assert [json.loads(line)["skip"] is None for line in out.splitlines()] == [True, False, False]


# ---- the skip list -------------------------------------------------------------------------------

LISTED = """
query I nosort
SELECT 1
----
2

query I nosort
SELECT 3
----
3

query I nosort
SELECT 4
----
4
"""


def test_skip_list(tmp_path):
    skip_list = """# comment
## known wrong answers
t.test:2    returns 1, the file says 2

## pending engine fixes (nothing real)
t.test:7    passes already
"""
    rc, out = run(tmp_path, LISTED, skip_list=skip_list)
    assert rc == 0 and summary(out) == (1, 0), out
    assert "  1 known wrong answers" in out and "  1 pending engine fixes (nothing real)" in out

    rc, out = run(tmp_path, LISTED, "--check-skipped", "pending", skip_list=skip_list)
    assert rc == 0 and summary(out) == (1, 0), out
    assert "PASSES" in out and "t.test:7 (skip list line 6" in out, out
    assert "t.test:2 (skip list" not in out

    rc, out = run(tmp_path, LISTED, skip_list="## whole file\nt.test   all of it\n")
    assert rc == 0 and summary(out) == (0, 0) and "  3 whole file" in out, out


@pytest.mark.parametrize("bad, message", [
    ("## h\nt.test:2\n", "needs a reason"),
    ("t.test:2 no heading\n", "before the first '## heading'"),
    ("## h\nt.test:x reason\n", "bad line number"),
])
def test_malformed_skip_list(tmp_path, bad, message):
    rc, out = run(tmp_path, LISTED, skip_list=bad)
    assert rc == 2 and message in out, out


def test_the_corpus_skip_list_parses(tmp_path):
    rc, out = run(tmp_path, LISTED, skip_list=(ROOT / "tests/sqlite/skip.list").read_text())
    assert rc == 1 and summary(out) == (2, 1), out


# ---- --list-records and --record-timeout -----------------------------------------------------

def test_list_records(tmp_path):
    text = MAPPING + CONDITIONS
    rc, out = run(tmp_path, text, "--sqlite-corpus", "--list-records",
                  skip_list="## listed\nt.test:11 a reason\n")
    assert rc == 0, out
    records = [json.loads(line) for line in out.splitlines()]
    assert records[0]["sql"] == "CREATE TABLE t(a INTEGER, b VARCHAR, c VARCHAR(8))"
    assert records[0]["skip"] is None and records[0]["kind"] == "ok"
    assert records[1]["skip"].startswith("mapping: index statements")
    assert records[3]["line"] == 11 and records[3]["skip"] == "listed" and records[3]["listed"]
    query = records[4]
    assert query["kind"] == "query" and query["types"] == "TT" and query["sort"] == "rowsort"
    assert query["expected"] == ["a", "integer", "b", "varchar", "c", "varchar(8)"]
    assert [r["skip"] is not None for r in records[7:]] == [True, True, False, False]


def test_record_timeout(tmp_path):
    text = """
query I nosort
SELECT 1
----
1

query I nosort
SELECT count(*)
  FROM unnest(sequence(1, 10000)) a(x), unnest(sequence(1, 10000)) b(y),
       unnest(sequence(1, 10000)) c(z)
 WHERE x + y + z = 0
----
0

query I nosort
SELECT 2
----
2
"""
    rc, out = run(tmp_path, text, "--record-timeout", "2")
    assert rc == 1, out
    assert "t.test:7\n  timed out after 2 s (--record-timeout)" in out, out
    assert "t.test:0\n  timed out" in out, out
    assert summary(out) == (1, 1), out
