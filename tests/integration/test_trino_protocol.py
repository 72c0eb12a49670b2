"""`sqe serve`: the Trino client protocol, driven by the real `trino` Python client and raw HTTP.

Starts `sqe serve --trino-port <free port>` ($SQE_BIN, default build/sqe) as a subprocess and
checks what clients rely on: every SQE type decoded to the exact Python value, NULLs, results
spread over many pages, errors with errorName/errorCode/errorType and line/column, update counts
of DDL and DML, session round trips through the X-Trino-Set-*/-Clear-*/-Added-Prepare headers
(USE, SET/RESET SESSION, PREPARE/DEALLOCATE, session properties and time zone sent by the
client), parameter binding (EXECUTE IMMEDIATE and the legacy PREPARE/EXECUTE with
X-Trino-Prepared-Statement), cancel (DELETE), concurrent clients, /v1/info, malformed requests,
and graceful shutdown on SIGTERM. After the run the server's stderr must hold no sanitizer
report (run against an ASan build: tests/integration/run_trino_tests.sh).

Run: .cache/venv/bin/python -m pytest tests/integration/test_trino_protocol.py
"""
import base64
import datetime
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import trino
from dateutil.relativedelta import relativedelta

ROOT = Path(__file__).resolve().parents[2]
SQE = Path(os.environ.get("SQE_BIN", ROOT / "build" / "sqe"))
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                     "WARNING: ThreadSanitizer")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One `sqe serve` process on a free loopback port."""

    def __init__(self, *extra):
        if not SQE.exists():
            pytest.fail(f"{SQE} not built (run `make` in {ROOT})")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"sqe-serve-{self.port}.log"
        self.log = open(self.log_path, "w+")
        env = dict(os.environ)
        env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
        # These are protocol tests over the in-memory catalog: no Iceberg warehouse (the embedded
        # default lives in ~/.sqe), no dedicated health listener, no Flight SQL port (servers of
        # parallel tests would race for the default one), and a data directory of their own.
        self.data_dir = tempfile.mkdtemp(prefix="sqe-trino-test-")
        env["SQE_CATALOG__TYPE"] = "memory"
        env["SQE_COORDINATOR__DATA_DIR"] = self.data_dir
        env["SQE_METRICS__HEALTH_PORT"] = "0"
        env["SQE_COORDINATOR__FLIGHT_SQL_PORT"] = "0"
        self.proc = subprocess.Popen(
            [str(SQE), "serve", "--trino-port", str(self.port), *extra],
            stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.time() + 30
        while True:
            try:
                with urllib.request.urlopen(self.base + "/v1/info", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("sqe serve did not start:\n" + self.output())
            time.sleep(0.05)

    def output(self):
        self.log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self, timeout=60):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError("sqe serve did not stop on SIGTERM:\n" + self.output())
        out = self.output()
        self.log.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)
        return self.proc.returncode, out

    def connect(self, **kw):
        kw.setdefault("user", "tester")
        return trino.dbapi.connect(host="127.0.0.1", port=self.port, **kw)


@pytest.fixture(scope="module")
def server():
    srv = Server()
    yield srv
    rc, out = srv.stop()
    for marker in SANITIZER_MARKERS:
        assert marker not in out, out
    assert rc == 0, out


def query(srv, sql, **kw):
    conn = srv.connect(**kw)
    cur = conn.cursor()
    cur.execute(sql)
    return cur.fetchall()


def one(srv, sql, **kw):
    (row,) = query(srv, sql, **kw)
    return row


# --- raw HTTP helpers --------------------------------------------------------------------------

def http(method, url, body=None, headers=None, timeout=30):
    """Returns (status, headers, body bytes) without raising on HTTP errors."""
    req = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def post(srv, sql, user="raw", headers=None):
    h = {"X-Trino-User": user} if user else {}
    h.update(headers or {})
    return http("POST", srv.base + "/v1/statement", sql.encode(), h)


def run_raw(srv, sql, headers=None):
    """Runs sql over raw HTTP; returns the list of QueryResults documents and response headers."""
    status, hdrs, body = post(srv, sql, headers=headers)
    assert status == 200, body
    docs, all_headers = [json.loads(body)], [hdrs]
    while "nextUri" in docs[-1]:
        status, hdrs, body = http("GET", docs[-1]["nextUri"], headers={"X-Trino-User": "raw"})
        assert status == 200, body
        docs.append(json.loads(body))
        all_headers.append(hdrs)
    return docs, all_headers


# --- /v1/info and malformed requests ----------------------------------------------------------

def test_info(server):
    status, hdrs, body = http("GET", server.base + "/v1/info")
    assert status == 200
    assert hdrs["Content-Type"].startswith("application/json")
    info = json.loads(body)
    assert info["coordinator"] is True
    assert info["starting"] is False
    assert info["environment"] == "sqe"
    assert info["nodeVersion"]["version"]
    assert isinstance(info["uptime"], str)
    status, _, body = http("GET", server.base + "/v1/info/state")
    assert (status, json.loads(body)) == (200, "ACTIVE")


def test_missing_user_is_400(server):
    status, _, body = post(server, "SELECT 1", user=None)
    assert status == 400
    assert b"User must be set" in body
    status, _, _ = post(server, "SELECT 1", user="")
    assert status == 400


def test_unknown_paths_are_404(server):
    for path in ["/", "/v1", "/v1/statementx", "/v1/statement/executing/x", "/v2/statement",
                 "/v1/statement/executing/20200101_000000_00001_abcde/slug/notanumber",
                 "/v1/statement/executing/../../etc/passwd/1",
                 "/v1/statement/queued/nosuchquery/abc/1", "/ui/query.html"]:
        status, _, _ = http("GET", server.base + path)
        assert status == 404, path
    status, _, _ = http("DELETE", server.base + "/v1/statement/executing/nosuch/abc/1")
    assert status == 404


def test_wrong_methods_are_405(server):
    assert http("GET", server.base + "/v1/statement")[0] == 405
    assert http("PUT", server.base + "/v1/statement", b"SELECT 1", {"X-Trino-User": "u"})[0] == 405
    assert http("POST", server.base + "/v1/info", b"x")[0] == 405
    assert http("HEAD", server.base + "/v1/statement")[0] == 200  # JDBC connection check
    # the shared route table names the path's methods (src/server/core/http_server.c)
    status, hdrs, _ = http("PUT", server.base + "/v1/statement", b"SELECT 1", {"X-Trino-User": "u"})
    assert status == 405 and hdrs.get("Allow") == "POST, HEAD"
    status, hdrs, _ = http("PUT", server.base + "/v1/statement/executing/x/y/1", b"x")
    assert status == 405 and hdrs.get("Allow") == "GET, DELETE"
    status, hdrs, _ = http("POST", server.base + "/healthz", b"x")
    assert status == 405 and hdrs.get("Allow") == "GET, HEAD"


def test_empty_and_nul_bodies_are_400(server):
    assert post(server, "")[0] == 400
    assert post(server, "  \n\t ")[0] == 400
    assert post(server, "SELECT 1\0 --")[0] == 400


def test_sql_too_large_is_413(server):
    sql = "SELECT 1 -- " + "x" * (1 << 20)
    status, hdrs, body = post(server, sql)
    assert status == 413
    doc = json.loads(body)
    assert doc["error"]["errorName"] == "QUERY_TEXT_TOO_LARGE"
    assert doc["stats"]["state"] == "FAILED"
    # the server still works afterwards
    assert one(server, "SELECT 1") == [1]


def test_query_results_shape(server):
    docs, _ = run_raw(server, "SELECT 1 AS a, 'x' AS b")
    first = docs[0]
    assert set(first) >= {"id", "infoUri", "nextUri", "stats"}
    assert first["stats"]["state"] == "QUEUED"
    assert first["nextUri"].startswith(server.base + "/v1/statement/queued/" + first["id"] + "/")
    assert first["infoUri"].startswith("http://")
    data_docs = [d for d in docs if d.get("data")]
    assert data_docs and all("columns" in d for d in data_docs)
    assert [r for d in data_docs for r in d["data"]] == [[1, "x"]]
    last = docs[-1]
    assert "nextUri" not in last
    assert last["stats"]["state"] == "FINISHED"
    for key in ("queued", "scheduled", "nodes", "totalSplits", "completedSplits", "cpuTimeMillis",
                "wallTimeMillis", "processedRows", "processedBytes", "peakMemoryBytes"):
        assert key in last["stats"], key
    assert last["columns"] == [
        {"name": "a", "type": "integer",
         "typeSignature": {"rawType": "integer", "arguments": []}},
        {"name": "b", "type": "varchar(1)",
         "typeSignature": {"rawType": "varchar", "arguments": [{"kind": "LONG", "value": 1}]}}]


def test_type_signatures(server):
    docs, _ = run_raw(server, """SELECT CAST('x' AS VARCHAR) v, CAST(1 AS DECIMAL(12,3)) d,
        TIMESTAMP '2020-01-01 00:00:00.123' ts, TIMESTAMP '2020-01-01 00:00:00 UTC' tz,
        ARRAY[1] a, MAP(ARRAY['k'], ARRAY[1.5e0]) m,
        CAST(ROW(1, 'x') AS ROW(f1 BIGINT, f2 VARCHAR)) r, ROW(1, 2) anon""")
    sigs = {c["name"]: c["typeSignature"] for c in docs[-1]["columns"]}
    types = {c["name"]: c["type"] for c in docs[-1]["columns"]}
    unbounded = {"rawType": "varchar", "arguments": [{"kind": "LONG", "value": 2147483647}]}
    assert types["v"] == "varchar" and sigs["v"] == unbounded
    assert sigs["d"] == {"rawType": "decimal", "arguments": [{"kind": "LONG", "value": 12},
                                                             {"kind": "LONG", "value": 3}]}
    assert sigs["ts"] == {"rawType": "timestamp", "arguments": [{"kind": "LONG", "value": 3}]}
    assert sigs["tz"] == {"rawType": "timestamp with time zone",
                          "arguments": [{"kind": "LONG", "value": 0}]}
    assert sigs["a"] == {"rawType": "array", "arguments": [
        {"kind": "TYPE", "value": {"rawType": "integer", "arguments": []}}]}
    assert sigs["m"]["rawType"] == "map"
    assert [a["kind"] for a in sigs["m"]["arguments"]] == ["TYPE", "TYPE"]
    assert sigs["m"]["arguments"][1]["value"] == {"rawType": "double", "arguments": []}
    assert sigs["r"] == {"rawType": "row", "arguments": [
        {"kind": "NAMED_TYPE", "value": {"fieldName": {"name": "f1"},
                                         "typeSignature": {"rawType": "bigint", "arguments": []}}},
        {"kind": "NAMED_TYPE", "value": {"fieldName": {"name": "f2"},
                                         "typeSignature": unbounded}}]}
    assert all("fieldName" not in a["value"] for a in sigs["anon"]["arguments"])


# --- values ------------------------------------------------------------------------------------

def test_scalar_types(server):
    row = one(server, """SELECT true, TINYINT '-8', SMALLINT '300', 70000,
        9223372036854775807, REAL '1.5', 0.1e0, 123.45, DECIMAL '-12345678901234567890.123456789',
        CAST('héllo ☃' AS VARCHAR), CAST('ab' AS CHAR(4)), X'00ff10', DATE '2024-02-29',
        TIME '01:02:03.456', TIMESTAMP '2024-01-02 03:04:05.123456',
        TIMESTAMP '2024-01-02 03:04:05.5 UTC', TIMESTAMP '2024-07-01 12:00:00 Europe/Berlin',
        TIMESTAMP '2024-01-02 03:04:05 +05:30', INTERVAL '1' DAY + INTERVAL '2' HOUR,
        INTERVAL '3' MONTH, UUID '12151fd2-7586-11e9-8f9e-2a86e4085a59', json_parse('{"a": [1, 2]}')
        """)
    assert row == [
        True, -8, 300, 70000, 9223372036854775807, 1.5, 0.1, Decimal("123.45"),
        Decimal("-12345678901234567890.123456789"), "héllo ☃", "ab  ", b"\x00\xff\x10",
        datetime.date(2024, 2, 29), datetime.time(1, 2, 3, 456000),
        datetime.datetime(2024, 1, 2, 3, 4, 5, 123456),
        datetime.datetime(2024, 1, 2, 3, 4, 5, 500000, tzinfo=ZoneInfo("UTC")),
        datetime.datetime(2024, 7, 1, 12, 0, 0, tzinfo=ZoneInfo("Europe/Berlin")),
        datetime.datetime(2024, 1, 2, 3, 4, 5,
                          tzinfo=datetime.timezone(datetime.timedelta(hours=5, minutes=30))),
        datetime.timedelta(days=1, hours=2), relativedelta(months=3),
        uuid.UUID("12151fd2-7586-11e9-8f9e-2a86e4085a59"), '{"a":[1,2]}']


def test_special_doubles(server):
    row = one(server, "SELECT nan(), infinity(), -infinity(), REAL 'NaN', -0.0e0, 1e300")
    assert row[0] != row[0] and row[3] != row[3]
    assert row[1] == float("inf") and row[2] == float("-inf")
    assert row[4] == 0.0 and str(row[4]) == "-0.0"
    assert row[5] == 1e300
    docs, _ = run_raw(server, "SELECT nan(), infinity(), -infinity()")
    assert [r for d in docs for r in d.get("data", [])] == [["NaN", "Infinity", "-Infinity"]]


def test_raw_value_encoding(server):
    docs, _ = run_raw(server, """SELECT 12.50, X'0102', DATE '2024-01-02',
        TIMESTAMP '2024-01-02 03:04:05.120', MAP(ARRAY[1, 2], ARRAY['a', 'b']),
        CAST(ROW(1, 'x') AS ROW(a INTEGER, b VARCHAR)), ARRAY[ARRAY[1], NULL]""")
    (row,) = [r for d in docs for r in d.get("data", [])]
    assert row == ["12.50", base64.b64encode(b"\x01\x02").decode(), "2024-01-02",
                   "2024-01-02 03:04:05.120", {"1": "a", "2": "b"}, [1, "x"], [[1], None]]


def test_nested_types(server):
    row = one(server, """SELECT ARRAY[1, NULL, 3], ARRAY[ARRAY['a'], ARRAY[]],
        MAP(ARRAY['x', 'y'], ARRAY[1.5e0, NULL]),
        CAST(ROW(1, 'a', ARRAY[DATE '2020-01-01']) AS ROW(i BIGINT, s VARCHAR, d ARRAY(DATE))),
        ARRAY[CAST(ROW(1.5, X'01') AS ROW(p DECIMAL(3,1), q VARBINARY))],
        MAP(ARRAY[1], ARRAY[MAP(ARRAY['k'], ARRAY[true])])""")
    assert row[0] == [1, None, 3]
    assert row[1] == [["a"], []]
    assert row[2] == {"x": 1.5, "y": None}
    assert tuple(row[3]) == (1, "a", [datetime.date(2020, 1, 1)])
    assert row[3].i == 1 and row[3].s == "a"
    assert tuple(row[4][0]) == (Decimal("1.5"), b"\x01")
    assert row[5] == {1: {"k": True}}


def test_nulls(server):
    row = one(server, """SELECT NULL, CAST(NULL AS BIGINT), CAST(NULL AS VARCHAR),
        CAST(NULL AS DECIMAL(10,2)), CAST(NULL AS DOUBLE), CAST(NULL AS VARBINARY),
        CAST(NULL AS DATE), CAST(NULL AS TIMESTAMP(3)), CAST(NULL AS TIMESTAMP(6) WITH TIME ZONE),
        CAST(NULL AS ARRAY(INTEGER)), CAST(NULL AS MAP(VARCHAR, INTEGER)),
        CAST(NULL AS ROW(a INTEGER)), CAST(NULL AS UUID), CAST(NULL AS BOOLEAN)""")
    assert row == [None] * 14
    rows = query(server, "SELECT x FROM (VALUES 1, NULL, 3) t(x) ORDER BY x NULLS FIRST")
    assert rows == [[None], [1], [3]]


def test_empty_result(server):
    conn = server.connect()
    cur = conn.cursor()
    cur.execute("SELECT 1 AS a WHERE false")
    assert cur.fetchall() == []
    assert [d[0] for d in cur.description] == ["a"]


# --- paging ------------------------------------------------------------------------------------

BIG = ("SELECT a * 1000 + b AS i, 'row ' || CAST(a * 1000 + b AS VARCHAR) AS s "
       "FROM UNNEST(sequence(0, 99)) x(a) CROSS JOIN UNNEST(sequence(1, 1000)) y(b)")


def test_multi_page_result(server):
    conn = server.connect()
    cur = conn.cursor()
    cur.execute(BIG + " ORDER BY i")
    rows = cur.fetchall()
    assert len(rows) == 100000
    assert rows[0] == [1, "row 1"] and rows[-1] == [100000, "row 100000"]
    assert [r[0] for r in rows] == list(range(1, 100001))


def test_pages_are_bounded(server):
    docs, _ = run_raw(server, BIG)
    sizes = [len(d["data"]) for d in docs if d.get("data")]
    assert sum(sizes) == 100000
    assert len(sizes) > 5
    assert max(sizes) <= 8192


def test_retry_same_token_returns_same_page(server):
    status, _, body = post(server, BIG)
    doc = json.loads(body)
    uri = doc["nextUri"]
    while True:
        s1, _, b1 = http("GET", uri)
        assert s1 == 200
        d1 = json.loads(b1)
        if d1.get("data"):
            break
        uri = d1["nextUri"]
    s2, _, b2 = http("GET", uri)  # the same token again: a client retry
    assert (s2, b2) == (200, b1)
    # an older token is gone
    older = uri.rsplit("/", 1)[0] + "/" + str(int(uri.rsplit("/", 1)[1]) - 1)
    assert http("GET", older)[0] == 410
    # a token far ahead is refused too
    ahead = uri.rsplit("/", 1)[0] + "/999"
    assert http("GET", ahead)[0] == 410
    assert http("DELETE", d1["nextUri"])[0] == 204


def test_wrong_slug_is_404(server):
    status, _, body = post(server, "SELECT 1")
    doc = json.loads(body)
    parts = doc["nextUri"].split("/")
    parts[-2] = "wrongslug"
    assert http("GET", "/".join(parts))[0] == 404
    assert http("DELETE", "/".join(parts))[0] == 404
    assert http("DELETE", doc["nextUri"])[0] == 204


# --- errors ------------------------------------------------------------------------------------

def expect_error(server, sql, **kw):
    with pytest.raises(trino.exceptions.TrinoQueryError) as info:
        query(server, sql, **kw)
    return info.value


def test_syntax_error(server):
    e = expect_error(server, "SELECT 1 +\n  FROM")
    assert e.error_name == "SYNTAX_ERROR"
    assert e.error_code == 1
    assert e.error_type == "USER_ERROR"
    assert e.error_location == (2, 3)
    assert isinstance(e, trino.exceptions.TrinoUserError)
    assert e.query_id


def test_semantic_errors(server):
    e = expect_error(server, "SELECT x FROM no_such_table")
    assert (e.error_name, e.error_code, e.error_type) == ("TABLE_NOT_FOUND", 46, "USER_ERROR")
    assert e.error_location == (1, 15)
    e = expect_error(server, "SELECT no_such_column FROM (VALUES 1) t(x)")
    assert e.error_name == "COLUMN_NOT_FOUND"
    e = expect_error(server, "SELECT 1 / 0")
    assert (e.error_name, e.error_code) == ("DIVISION_BY_ZERO", 8)
    e = expect_error(server, "SELECT no_such_function(1)")
    assert e.error_name == "FUNCTION_NOT_FOUND"


def test_error_json_shape(server):
    docs, _ = run_raw(server, "SELEC 1")
    err = docs[-1]["error"]
    assert docs[-1]["stats"]["state"] == "FAILED"
    assert "nextUri" not in docs[-1]
    assert err["errorName"] == "SYNTAX_ERROR" and err["errorType"] == "USER_ERROR"
    assert err["errorLocation"] == {"lineNumber": 1, "columnNumber": 1}
    assert err["failureInfo"]["type"] == "io.trino.sql.parser.ParsingException"
    assert err["failureInfo"]["message"] == err["message"]
    assert err["sqlState"] == "42601"


# --- DDL and DML -------------------------------------------------------------------------------

def test_ddl_and_dml_update_counts(server):
    conn = server.connect()
    cur = conn.cursor()
    cur.execute("CREATE SCHEMA dml_s")
    assert cur.fetchall() == [[True]]
    cur.execute("CREATE TABLE dml_s.t AS SELECT x, CAST(x AS VARCHAR) AS s "
                "FROM UNNEST(sequence(1, 250)) u(x)")
    assert cur.fetchall() == [[250]]
    assert cur.rowcount == 250
    cur.execute("INSERT INTO dml_s.t VALUES (1000, 'a'), (1001, 'b')")
    assert cur.fetchall() == [[2]]
    assert cur.rowcount == 2
    cur.execute("DELETE FROM dml_s.t WHERE x <= 10")
    cur.fetchall()
    assert cur.rowcount == 10
    cur.execute("SELECT count(*), max(x) FROM dml_s.t")
    assert cur.fetchall() == [[242, 1001]]
    cur.execute("CREATE TABLE dml_s.empty (a BIGINT, b VARCHAR)")
    assert cur.fetchall() == [[True]]
    cur.execute("DROP TABLE dml_s.empty")
    assert cur.fetchall() == [[True]]


def test_update_type_in_results(server):
    docs, _ = run_raw(server, "CREATE TABLE ut_t AS SELECT 1 AS a")
    assert (docs[-1]["updateType"], docs[-1]["updateCount"]) == ("CREATE TABLE", 1)
    docs, _ = run_raw(server, "INSERT INTO ut_t VALUES 2, 3")
    assert (docs[-1]["updateType"], docs[-1]["updateCount"]) == ("INSERT", 2)
    docs, _ = run_raw(server, "DROP TABLE ut_t")
    assert docs[-1]["updateType"] == "DROP TABLE"
    docs, _ = run_raw(server, "SELECT 1")
    assert "updateType" not in docs[-1]


# --- sessions ----------------------------------------------------------------------------------

def test_use_round_trip(server):
    conn = server.connect()
    cur = conn.cursor()
    cur.execute("CREATE SCHEMA IF NOT EXISTS use_s")
    cur.fetchall()
    cur.execute("CREATE TABLE use_s.only_here AS SELECT 42 AS v")
    cur.fetchall()
    cur.execute("USE memory.use_s")
    assert cur.fetchall() == [[True]]
    assert conn._client_session.catalog == "memory"
    assert conn._client_session.schema == "use_s"
    cur = conn.cursor()  # a new cursor keeps the session
    cur.execute("SELECT v, current_schema, current_catalog FROM only_here")
    assert cur.fetchall() == [[42, "use_s", "memory"]]
    # catalog and schema given at connect time travel in X-Trino-Catalog / -Schema
    assert one(server, "SELECT v FROM only_here", catalog="memory", schema="use_s") == [42]
    # a schema that does not exist fails the statement that uses it, not the request
    e = expect_error(server, "SELECT 1 FROM only_here", catalog="memory", schema="nope")
    assert e.error_name in ("SCHEMA_NOT_FOUND", "TABLE_NOT_FOUND")


def test_use_headers(server):
    docs, headers = run_raw(server, "USE memory.default")
    assert headers[-1]["X-Trino-Set-Catalog"] == "memory"
    assert headers[-1]["X-Trino-Set-Schema"] == "default"
    assert docs[-1]["updateType"] == "USE"


def test_set_and_reset_session(server):
    # values below the server's limits ([query] memory_limit 256MiB): a session can only lower them
    conn = server.connect()
    cur = conn.cursor()
    cur.execute("SET SESSION query_max_memory = '128MB'")
    cur.fetchall()
    assert conn._client_session.properties == {"query_max_memory": "128MB"}
    cur.execute("SET SESSION threads = 1")
    cur.fetchall()
    assert conn._client_session.properties == {"query_max_memory": "128MB", "threads": "1"}
    cur.execute("SELECT 1")  # the server restores both from X-Trino-Session
    assert cur.fetchall() == [[1]]
    cur.execute("RESET SESSION threads")
    cur.fetchall()
    assert conn._client_session.properties == {"query_max_memory": "128MB"}
    _, headers = run_raw(server, "SET SESSION query_max_memory = '64MB'")
    assert headers[-1]["X-Trino-Set-Session"] == "query_max_memory=64MB"
    _, headers = run_raw(server, "RESET SESSION query_max_memory")
    assert headers[-1]["X-Trino-Clear-Session"] == "query_max_memory"
    e = expect_error(server, "SET SESSION no_such_property = 1")
    assert e.error_name == "INVALID_SESSION_PROPERTY"


def test_session_properties_from_client(server):
    # the client sends session_properties in X-Trino-Session: a tiny memory limit must bite
    e = expect_error(server, "SELECT array_agg(x) FROM UNNEST(sequence(1, 10000)) t(x)",
                     session_properties={"query_max_memory": "1kB"})
    assert e.error_type == "INSUFFICIENT_RESOURCES"
    e = expect_error(server, "SELECT 1", session_properties={"bogus": "1"})
    assert e.error_name == "INVALID_SESSION_PROPERTY"
    assert e.error_location is None
    # comma-joined (python) and repeated (JDBC) X-Trino-Session headers both work
    docs, _ = run_raw(server, "SELECT 1",
                      headers={"X-Trino-Session": "threads=1,query_max_memory=128MB"})
    assert "error" not in docs[-1]
    docs, _ = run_raw(server, "SELECT 1", headers={"X-Trino-Session": "threads=1,=x"})
    assert docs[-1]["error"]["errorName"] == "GENERIC_USER_ERROR"


def test_repeated_session_headers(server):
    # urllib cannot repeat a header; speak HTTP/1.1 by hand
    body = b"SELECT 1"
    req = (b"POST /v1/statement HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Trino-User: raw\r\n"
           b"X-Trino-Session: threads=1\r\nX-Trino-Session: bogus=2\r\n"
           b"Content-Length: %d\r\nConnection: close\r\n\r\n%s"
           % (server.port, len(body), body))
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(req)
        resp = b""
        while chunk := s.recv(65536):
            resp += chunk
    doc = json.loads(resp.split(b"\r\n\r\n", 1)[1])
    docs = [doc]
    while "nextUri" in docs[-1]:
        docs.append(json.loads(http("GET", docs[-1]["nextUri"])[2]))
    # the second header was read too: its unknown property fails the query
    assert docs[-1]["error"]["errorName"] == "INVALID_SESSION_PROPERTY"
    assert "bogus" in docs[-1]["error"]["message"]


def test_time_zone_header(server):
    assert one(server, "SELECT current_timezone()", timezone="America/New_York") == [
        "America/New_York"]
    docs, _ = run_raw(server, "SELECT 1", headers={"X-Trino-Time-Zone": "Not/AZone"})
    assert docs[-1]["error"]["errorName"] == "INVALID_SESSION_PROPERTY"
    docs, _ = run_raw(server, "SELECT current_timezone()", headers={"X-Trino-Time-Zone": "+02:00"})
    assert [r for d in docs for r in d.get("data", [])] == [["+02:00"]]


def test_user_header(server):
    assert one(server, "SELECT current_user", user="alice") == ["alice"]


# --- prepared statements -----------------------------------------------------------------------

PARAMS = [7, "it's", 2.5, Decimal("12.34"), None, True, b"\x00\x01",
          datetime.date(2024, 3, 1), datetime.datetime(2024, 3, 1, 12, 30, 15, 250000)]


@pytest.mark.parametrize("legacy", [True, False], ids=["prepare-execute", "execute-immediate"])
def test_parameter_binding(server, legacy):
    conn = server.connect(legacy_prepared_statements=legacy)
    cur = conn.cursor()
    cur.execute("SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?", PARAMS)
    assert cur.fetchall() == [PARAMS]
    cur.execute("SELECT x + ? FROM (VALUES 1, 2) t(x) ORDER BY 1", [10])
    assert cur.fetchall() == [[11], [12]]
    # the legacy path deallocates: nothing stays in the client's session
    assert conn._client_session.prepared_statements == {}


def test_parameter_binding_dml(server):
    conn = server.connect(legacy_prepared_statements=True)
    cur = conn.cursor()
    cur.execute("CREATE TABLE pb_t (a BIGINT, b VARCHAR)")
    cur.fetchall()
    cur.execute("INSERT INTO pb_t VALUES (?, ?)", [1, "one"])
    assert cur.fetchall() == [[1]]
    cur.execute("SELECT b FROM pb_t WHERE a = ?", [1])
    assert cur.fetchall() == [["one"]]


def test_prepare_headers(server):
    conn = server.connect()
    cur = conn.cursor()
    cur.execute("PREPARE my_stmt FROM SELECT ? * 2, 'a b,c'")
    cur.fetchall()
    assert conn._client_session.prepared_statements == {"my_stmt": "SELECT ? * 2, 'a b,c'"}
    cur.execute("EXECUTE my_stmt USING 21")
    assert cur.fetchall() == [[42, "a b,c"]]
    cur.execute("DEALLOCATE PREPARE my_stmt")
    cur.fetchall()
    assert conn._client_session.prepared_statements == {}
    e = expect_error(server, "EXECUTE my_stmt USING 1")
    assert e.error_name == "NOT_FOUND"
    _, headers = run_raw(server, "PREPARE p2 FROM SELECT 1")
    assert headers[-1]["X-Trino-Added-Prepare"] == "p2=SELECT%201"
    _, headers = run_raw(server, "DEALLOCATE PREPARE p2",
                         headers={"X-Trino-Prepared-Statement": "p2=SELECT+1"})
    assert headers[-1]["X-Trino-Deallocated-Prepare"] == "p2"


def test_bad_prepared_statement_header(server):
    docs, _ = run_raw(server, "EXECUTE p USING 1",
                      headers={"X-Trino-Prepared-Statement": "p=SELECT%ZZ"})
    assert docs[-1]["error"]["errorName"] == "GENERIC_USER_ERROR"


# --- cancel ------------------------------------------------------------------------------------

def test_cancel_while_paging(server):
    conn = server.connect()
    cur = conn.cursor()
    cur.execute(BIG)
    assert cur.fetchone() is not None
    next_uri = cur._query._next_uri
    assert next_uri
    cur.cancel()
    assert cur._query.cancelled
    status, _, body = http("GET", next_uri)
    if status == 200:
        assert json.loads(body)["error"]["errorName"] == "USER_CANCELED"
    else:
        assert status == 410
    assert one(server, "SELECT 2") == [2]


def test_cancel_running_query(server):
    status, _, body = post(server, "SELECT count(*) FROM UNNEST(sequence(1, 10000)) a(x) "
                                   "CROSS JOIN UNNEST(sequence(1, 2000)) b(y) WHERE x + y > 7")
    doc = json.loads(body)
    start = time.time()
    status, _, _ = http("DELETE", doc["nextUri"])
    assert status == 204
    assert time.time() - start < 2
    status, _, body = http("GET", doc["nextUri"])
    assert status == 200
    final = json.loads(body)
    assert final["error"]["errorName"] == "USER_CANCELED"
    assert final["stats"]["state"] == "FAILED"
    assert "nextUri" not in final


def test_cancel_from_client_thread(server):
    conn = server.connect()
    cur = conn.cursor()
    errors = []

    def run():
        try:
            cur.execute("SELECT count(*) FROM UNNEST(sequence(1, 10000)) a(x) "
                        "CROSS JOIN UNNEST(sequence(1, 3000)) b(y) WHERE x * y > 7")
            cur.fetchall()
        except Exception as e:  # the in-flight GET may report the cancel
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    deadline = time.time() + 10
    while (cur._query is None or cur._query._next_uri is None) and time.time() < deadline:
        time.sleep(0.01)
    cur.cancel()
    t.join(60)
    assert not t.is_alive()
    for e in errors:
        assert getattr(e, "error_name", None) == "USER_CANCELED", e


# --- concurrency -------------------------------------------------------------------------------

def test_concurrent_clients(server):
    failures = []

    def client(n):
        try:
            conn = server.connect(user=f"user{n}")
            cur = conn.cursor()
            for i in range(8):
                m = n * 100 + i
                cur.execute(f"SELECT sum(x), count(*), current_user "
                            f"FROM UNNEST(sequence(1, {m})) t(x)")
                assert cur.fetchall() == [[m * (m + 1) // 2, m, f"user{n}"]]
            cur.execute(f"SELECT x FROM UNNEST(sequence(1, 9000)) t(x) WHERE x % {n + 1} = 0")
            assert len(cur.fetchall()) == 9000 // (n + 1)
        except Exception as e:
            failures.append((n, e))

    threads = [threading.Thread(target=client, args=(n,)) for n in range(1, 13)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not failures, failures


# --- shutdown ----------------------------------------------------------------------------------

def test_graceful_shutdown():
    srv = Server("--drain-timeout", "20")
    try:
        status, _, body = post(srv, BIG)
        assert status == 200
        doc = json.loads(body)
        # fetch the first page so the query is running
        while True:
            d = json.loads(http("GET", doc["nextUri"])[2])
            doc = d
            if d.get("data") or "nextUri" not in d:
                break
        rows = len(d.get("data", []))
        srv.proc.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        # new statements are refused while draining
        status, _, _ = post(srv, "SELECT 1")
        assert status == 503
        # the running query keeps serving its pages to the end
        while "nextUri" in doc:
            doc = json.loads(http("GET", doc["nextUri"])[2])
            rows += len(doc.get("data", []))
        assert rows == 100000
        assert doc["stats"]["state"] == "FINISHED"
        rc = srv.proc.wait(timeout=30)
    finally:
        rc, out = srv.stop()
    for marker in SANITIZER_MARKERS:
        assert marker not in out, out
    assert rc == 0, out
    assert "draining" in out
