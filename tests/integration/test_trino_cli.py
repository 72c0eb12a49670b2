"""`sqe serve` driven by the real Trino CLI (io.trino:trino-cli executable jar from Maven Central).

Runs `java -jar trino-cli-<v>-executable.jar --server ... --execute SQL --output-format CSV` and
checks the printed rows, the exit status and error messages: plain queries over every common
type, a session (catalog / schema) with DDL and DML, a result long enough to be paged, the
metadata tables (SHOW CATALOGS / SCHEMAS, information_schema, system.jdbc) that the CLI's
completion and clients rely on, statements from a file, and failures.

The server: $SQE_TRINO_URL when set (tests/integration/run_client_tests.sh starts one and runs
dbt against it too), else a fresh `sqe serve` ($SQE_BIN, default build/sqe) on free ports.
The jar: $TRINO_CLI_JAR, default .cache/trino-cli/trino-cli-476-executable.jar (fetched by
run_client_tests.sh).

Run: .cache/venv/bin/python -m pytest tests/integration/test_trino_cli.py
"""
import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "load"))
from sqe_serve import SqeServe  # noqa: E402

SQE = Path(os.environ.get("SQE_BIN", ROOT / "build" / "sqe"))
JAR = Path(os.environ.get("TRINO_CLI_JAR", ROOT / ".cache" / "trino-cli" / "trino-cli-476-executable.jar"))


@pytest.fixture(scope="module")
def server():
    url = os.environ.get("SQE_TRINO_URL")
    if url:
        yield url
        return
    if not SQE.exists():
        pytest.fail(f"{SQE} not built (run `make` in {ROOT}, or set SQE_BIN)")
    # free Trino and Flight SQL ports, no health listener, a data directory of its own
    srv = SqeServe(SQE, tempfile.mkdtemp(prefix="sqe-cli-test-"))
    yield f"http://127.0.0.1:{srv.trino_port}"
    status, out = srv.stop()
    assert status == 0, out[-3000:]
    assert SqeServe.sanitizer_report(out) is None, out[-3000:]


@pytest.fixture(scope="module")
def java():
    exe = shutil.which("java")
    if not exe:
        pytest.fail("java is not installed (Debian: openjdk-17-jre-headless)")
    if not JAR.exists():
        pytest.fail(f"{JAR} is missing: run tests/integration/run_client_tests.sh once online")
    return exe


def cli(java, server, *args, sql=None, fmt="CSV", timeout=120):
    """Runs the CLI once; returns (exit status, stdout, stderr)."""
    cmd = [java, "-jar", str(JAR), "--server", server, "--user", "cli-test",
           "--output-format", fmt]
    if sql is not None:
        cmd += ["--execute", sql]
    cmd += list(args)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def rows(text):
    return [r for r in csv.reader(io.StringIO(text))]


def test_types_as_csv(java, server):
    rc, out, err = cli(java, server, sql=(
        "SELECT 42, BIGINT '-9000000000', 1.50, DOUBLE '0.25', true, 'it''s', NULL, "
        "DATE '2024-02-29', TIMESTAMP '2024-01-02 03:04:05.678', ARRAY[1, 2], "
        "CAST(ROW(1, 'x') AS ROW(a integer, b varchar))"))
    assert rc == 0, err
    assert rows(out) == [["42", "-9000000000", "1.50", "0.25", "true", "it's", "",
                          "2024-02-29", "2024-01-02 03:04:05.678", "[1, 2]", "{a=1, b=x}"]]


def test_session_ddl_dml(java, server):
    schema = "cli_" + uuid.uuid4().hex[:8]
    rc, out, err = cli(java, server, sql=f"CREATE SCHEMA memory.{schema}")
    assert rc == 0, err
    rc, out, err = cli(java, server, "--catalog", "memory", "--schema", schema, sql=(
        "CREATE TABLE t (id integer, name varchar); "
        "INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, NULL); "
        "SELECT id, coalesce(name, '?') FROM t ORDER BY id DESC"), fmt="CSV_HEADER")
    assert rc == 0, err
    lines = rows(out)
    assert lines[-4:] == [["id", "_col1"], ["3", "?"], ["2", "two"], ["1", "one"]]
    rc, out, err = cli(java, server, sql=f"SELECT count(*), sum(id) FROM memory.{schema}.t")
    assert rc == 0, err
    assert rows(out) == [["3", "6"]]


def test_paged_result(java, server):
    rc, out, err = cli(java, server, sql=(
        "SELECT a * 1000 + b + 1, (a * 1000 + b + 1) * (a * 1000 + b + 1) "
        "FROM UNNEST(sequence(0, 19)) AS x (a) CROSS JOIN UNNEST(sequence(0, 999)) AS y (b)"))
    assert rc == 0, err
    got = rows(out)
    assert len(got) == 20000
    assert sorted(int(r[0]) for r in got) == list(range(1, 20001))
    assert sum(int(r[0]) for r in got) == 20000 * 20001 // 2
    assert all(int(r[1]) == int(r[0]) ** 2 for r in got)


def test_metadata_tables(java, server):
    schema = "meta_" + uuid.uuid4().hex[:8]
    rc, out, err = cli(java, server, "--catalog", "memory", sql=(
        f"CREATE SCHEMA {schema}; "
        f"CREATE TABLE {schema}.items (sku varchar(10) NOT NULL, qty bigint); "
        f"CREATE VIEW {schema}.big AS SELECT sku FROM {schema}.items WHERE qty > 10"))
    assert rc == 0, err
    rc, out, err = cli(java, server, sql="SHOW CATALOGS")
    assert rc == 0, err
    assert {"memory", "system"} <= {r[0] for r in rows(out)}
    rc, out, err = cli(java, server, sql="SHOW SCHEMAS FROM memory")
    assert rc == 0, err
    assert {"information_schema", schema} <= {r[0] for r in rows(out)}
    rc, out, err = cli(java, server, sql=(
        "SELECT table_name, table_type FROM memory.information_schema.tables "
        f"WHERE table_schema = '{schema}' ORDER BY 1"))
    assert rc == 0, err
    assert rows(out) == [["big", "VIEW"], ["items", "BASE TABLE"]]
    rc, out, err = cli(java, server, sql=(
        "SELECT column_name, data_type, type_name, column_size, is_nullable, ordinal_position "
        f"FROM system.jdbc.columns WHERE table_cat = 'memory' AND table_schem = '{schema}' "
        "AND table_name = 'items' ORDER BY ordinal_position"))
    assert rc == 0, err
    assert rows(out) == [["sku", "12", "varchar(10)", "10", "NO", "1"],
                         ["qty", "-5", "bigint", "19", "YES", "2"]]


def test_file_of_statements(java, server, tmp_path):
    script = tmp_path / "script.sql"
    script.write_text("SELECT 'first';\nSELECT upper('second') AS s;\n")
    rc, out, err = cli(java, server, "--file", str(script))
    assert rc == 0, err
    assert rows(out) == [["first"], ["SECOND"]]


def test_errors(java, server):
    rc, out, err = cli(java, server, sql="SELECT * FROM memory.nosuchschema.nosuchtable")
    assert rc != 0
    assert "nosuchschema" in err and "does not exist" in err
    rc, out, err = cli(java, server, sql="SELECT 1 +")
    assert rc != 0
    assert "mismatched input" in err and "LINE 1: SELECT 1 +" in err
    rc, out, err = cli(java, server, sql="SELECT 1 / 0")
    assert rc != 0
    assert "Division by zero" in err
