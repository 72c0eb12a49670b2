"""Flight SQL server tests with real clients: the ADBC Flight SQL driver (dbapi) and
pyarrow.flight. The server is flight_test_server; its address comes from SQE_FLIGHT_URI
(run_flight_tests.sh starts it) and its pid from SQE_FLIGHT_PID (for the RSS check)."""
import os
import struct
import threading
import time
import decimal
import datetime

import pyarrow as pa
import pyarrow.flight as fl
import pytest
import adbc_driver_flightsql.dbapi as flight_sql
import adbc_driver_manager

URI = os.environ.get("SQE_FLIGHT_URI")
if not URI:  # no fixed fallback port: whatever listens there would be tested instead
    pytest.exit("SQE_FLIGHT_URI is not set: run tests/flight/run_flight_tests.sh, which starts "
                "flight_test_server on a free port", returncode=2)
PID = int(os.environ.get("SQE_FLIGHT_PID", "0"))
AUTH_URI = os.environ.get("SQE_FLIGHT_AUTH_URI")
SERVER = os.environ.get("SQE_FLIGHT_SERVER")   # the flight_test_server binary, for own instances


def connect(**kw):
    return flight_sql.connect(URI, **kw)


def any_cmd(name, payload=b""):
    """google.protobuf.Any(type_url, value) for a Flight SQL message, encoded by hand."""
    url = ("type.googleapis.com/arrow.flight.protocol.sql." + name).encode()
    def ld(tag, b):
        return bytes([tag]) + varint(len(b)) + b
    return ld(0x0A, url) + ld(0x12, payload)


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def statement_query(sql):
    return any_cmd("CommandStatementQuery", b"\x0a" + varint(len(sql.encode())) + sql.encode())


@pytest.fixture(scope="module")
def conn():
    c = connect()
    yield c
    c.close()


def test_simple_query(conn):
    cur = conn.cursor()
    cur.execute("SELECT 1 AS a, 'x' AS b")
    assert cur.fetchall() == [(1, "x")]
    t = None
    cur.execute("SELECT 41 + 1 AS v")
    t = cur.fetch_arrow_table()
    assert t.column_names == ["v"] and t.column(0).to_pylist() == [42]
    cur.close()


def test_types(conn):
    cur = conn.cursor()
    cur.execute("""SELECT true AS bo, CAST(1 AS tinyint) AS ti, CAST(2 AS smallint) AS si,
        CAST(3 AS integer) AS i, CAST(4 AS bigint) AS bi, CAST(1.5 AS real) AS r,
        CAST(2.25 AS double) AS d, CAST('12.34' AS decimal(10,2)) AS de, 'héllo' AS v,
        X'0102' AS vb, DATE '2024-02-29' AS dt, TIMESTAMP '2024-01-02 03:04:05.123456' AS ts,
        CAST('2020-01-01 10:00:00 UTC' AS timestamp(6) with time zone) AS tz,
        CAST(NULL AS integer) AS n""")
    t = cur.fetch_arrow_table()
    row = t.to_pylist()[0]
    assert t.schema.field("bo").type == pa.bool_() and row["bo"] is True
    assert t.schema.field("ti").type == pa.int8() and row["ti"] == 1
    assert t.schema.field("si").type == pa.int16() and row["si"] == 2
    assert t.schema.field("i").type == pa.int32() and row["i"] == 3
    assert t.schema.field("bi").type == pa.int64() and row["bi"] == 4
    assert t.schema.field("r").type == pa.float32() and row["r"] == 1.5
    assert row["d"] == 2.25
    assert t.schema.field("de").type == pa.decimal128(10, 2) and row["de"] == decimal.Decimal("12.34")
    assert row["v"] == "héllo"
    assert row["vb"] == b"\x01\x02"
    assert row["dt"] == datetime.date(2024, 2, 29)
    assert row["ts"] == datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)
    assert t.schema.field("tz").type == pa.timestamp("us", tz="UTC")
    assert row["tz"] == datetime.datetime(2020, 1, 1, 10, 0, tzinfo=datetime.timezone.utc)
    assert row["n"] is None
    cur.close()


def test_nested_types(conn):
    cur = conn.cursor()
    cur.execute("SELECT ARRAY[1, 2, NULL] AS a, MAP(ARRAY['k'], ARRAY[1]) AS m, "
                "CAST(ROW(1, 'x') AS ROW(f1 integer, f2 varchar)) AS r")
    t = cur.fetch_arrow_table()
    row = t.to_pylist()[0]
    assert row["a"] == [1, 2, None]
    assert row["m"] == [("k", 1)]
    assert row["r"] == {"f1": 1, "f2": "x"}
    cur.close()


def test_empty_result(conn):
    cur = conn.cursor()
    cur.execute("SELECT 1 AS a WHERE false")
    t = cur.fetch_arrow_table()
    assert t.num_rows == 0 and t.column_names == ["a"]
    cur.close()


def test_error_carries_sqlstate(conn):
    cur = conn.cursor()
    with pytest.raises(Exception) as ei:
        cur.execute("SELECT * FROM no_such_table_xyz")
    assert "42P01" in str(ei.value) or "does not exist" in str(ei.value)
    assert "SQLSTATE" in str(ei.value)
    with pytest.raises(Exception) as ei:
        cur.execute("SELEC 1")
    assert "42601" in str(ei.value)
    cur.close()


def test_ddl_dml_and_parameters(conn):
    cur = conn.cursor()
    cur.execute("CREATE TABLE memory.default.fp (a bigint, b varchar)")
    cur.execute("INSERT INTO memory.default.fp VALUES (1, 'one'), (2, 'two')")
    cur.execute("INSERT INTO memory.default.fp VALUES (?, ?)", (3, "three"))
    cur.execute("SELECT b FROM memory.default.fp WHERE a = ?", (3,))
    assert cur.fetchall() == [("three",)]
    cur.execute("SELECT count(*) FROM memory.default.fp")
    assert cur.fetchone()[0] == 3
    cur.close()


def test_without_prepare(conn):
    cur = conn.cursor()
    stmt = cur.adbc_statement
    stmt.set_sql_query("SELECT 7 AS seven")
    stream, _ = stmt.execute_query()
    rd = pa.RecordBatchReader._import_from_c(stream.address)
    assert rd.read_all().column(0).to_pylist() == [7]
    stmt.set_sql_query("CREATE TABLE memory.default.np (x integer)")
    stmt.execute_update()
    stmt.set_sql_query("INSERT INTO memory.default.np VALUES (1), (2)")
    assert stmt.execute_update() == 2
    cur.close()


def test_ingest(conn):
    cur = conn.cursor()
    data = pa.table({"id": pa.array([1, 2, 3], pa.int64()), "name": ["a", "b'q", None],
                     "d": pa.array([1.5, None, 3.0])})
    n = cur.adbc_ingest("ing", data, mode="create", catalog_name="memory", db_schema_name="default")
    assert n in (3, -1)
    n = cur.adbc_ingest("ing", data, mode="append", catalog_name="memory", db_schema_name="default")
    cur.execute("SELECT id, name, d FROM memory.default.ing ORDER BY id, name")
    rows = cur.fetchall()
    assert len(rows) == 6 and rows[0] == (1, "a", 1.5) and rows[2] == (2, "b'q", None)
    with pytest.raises(Exception):
        cur.adbc_ingest("ing", data, mode="create", catalog_name="memory", db_schema_name="default")
    cur.close()


def test_metadata(conn):
    cur = conn.cursor()
    cur.execute("CREATE TABLE memory.default.meta_t (k bigint, s varchar)")
    objs = conn.adbc_get_objects(depth="tables").read_all().to_pylist()
    cats = {o["catalog_name"] for o in objs}
    assert "memory" in cats
    mem = [o for o in objs if o["catalog_name"] == "memory"][0]
    tables = [t["table_name"] for s in mem["catalog_db_schemas"] for t in s["db_schema_tables"]]
    assert "meta_t" in tables
    schema = conn.adbc_get_table_schema("meta_t", catalog_filter="memory", db_schema_filter="default")
    assert schema.names == ["k", "s"] and schema.field("k").type == pa.int64()
    types = conn.adbc_get_table_types()
    assert "TABLE" in types
    info = conn.adbc_get_info()
    assert info.get("vendor_name") == "SQE" or "SQE" in str(info)
    cur.close()


def test_large_stream_bounded_rss(conn):
    def rss_kb():
        if not PID:
            return 0
        with open(f"/proc/{PID}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0
    cur = conn.cursor()
    cur.execute("SELECT a * 1000 + b AS x, CAST(b AS varchar) AS s FROM UNNEST(sequence(0, 999)) AS t(a) "
                "CROSS JOIN UNNEST(sequence(1, 1000)) AS u(b)")
    before = rss_kb()
    total = 0
    peak = before
    rdr = cur.fetch_record_batch()
    for b in rdr:
        total += b.num_rows
        peak = max(peak, rss_kb())
    assert total == 1000000
    if PID:
        # the whole result as Arrow is ~ 30 MB; streaming must stay well below holding it twice
        assert peak - before < 200 * 1024, f"RSS grew by {peak - before} kB"
    cur.close()


# ---- pyarrow.flight ------------------------------------------------------------------------

def test_pyarrow_flight_statement():
    client = fl.FlightClient(URI)
    desc = fl.FlightDescriptor.for_command(statement_query("SELECT 5 AS five, 'z' AS zed"))
    info = client.get_flight_info(desc)
    assert info.schema.names == ["five", "zed"]
    t = client.do_get(info.endpoints[0].ticket).read_all()
    assert t.to_pylist() == [{"five": 5, "zed": "z"}]
    sr = client.get_schema(desc)
    assert sr.schema.names == ["five", "zed"]
    actions = [a.type for a in client.list_actions()]
    assert "CreatePreparedStatement" in actions
    client.close()


def test_pyarrow_malformed_commands():
    client = fl.FlightClient(URI)
    with pytest.raises(pa.ArrowInvalid) as ei:
        client.get_flight_info(fl.FlightDescriptor.for_command(b"\xff\xff\xff garbage"))
    assert "malformed" in str(ei.value)
    with pytest.raises(pa.ArrowNotImplementedError) as ei:
        client.get_flight_info(fl.FlightDescriptor.for_command(any_cmd("CommandNoSuchThing")))
    assert "CommandNoSuchThing" in str(ei.value)
    with pytest.raises(pa.ArrowInvalid):
        # a known type URL whose payload is not that message
        client.get_flight_info(fl.FlightDescriptor.for_command(any_cmd("CommandStatementQuery", b"\x0a\xff")))
    with pytest.raises(pa.ArrowNotImplementedError):
        client.get_flight_info(fl.FlightDescriptor.for_path("a", "b"))
    with pytest.raises(pa.ArrowInvalid):
        client.do_get(fl.Ticket(b"not a ticket")).read_all()
    with pytest.raises(pa.ArrowNotImplementedError):
        list(client.do_action(fl.Action("NoSuchAction", b"")))
    with pytest.raises(pa.ArrowNotImplementedError):
        list(client.list_flights())
    # DoPut of an ingest without a table name
    desc = fl.FlightDescriptor.for_command(any_cmd("CommandStatementIngest", b""))
    with pytest.raises(pa.ArrowInvalid) as ei:
        writer, reader = client.do_put(desc, pa.schema([("a", pa.int64())]))
        writer.write_batch(pa.record_batch([pa.array([1])], names=["a"]))
        writer.close()
    assert "table name" in str(ei.value)
    # the server still serves
    info = client.get_flight_info(fl.FlightDescriptor.for_command(statement_query("SELECT 1 AS one")))
    assert client.do_get(info.endpoints[0].ticket).read_all().to_pylist() == [{"one": 1}]
    client.close()


def test_pyarrow_handshake_basic():
    client = fl.FlightClient(URI)
    hdr = client.authenticate_basic_token("alice", "secret")
    assert hdr[0].lower() == b"authorization" and hdr[1].startswith(b"Bearer ")
    opts = fl.FlightCallOptions(headers=[hdr])
    info = client.get_flight_info(fl.FlightDescriptor.for_command(statement_query("SELECT current_user AS u")), opts)
    t = client.do_get(info.endpoints[0].ticket, opts).read_all()
    assert t.to_pylist() == [{"u": "alice"}]
    client.close()


@pytest.mark.skipif(not AUTH_URI, reason="no server with authentication started (SQE_FLIGHT_AUTH_URI)")
def test_authentication_required():
    client = fl.FlightClient(AUTH_URI)
    with pytest.raises(fl.FlightUnauthenticatedError):
        client.authenticate_basic_token("alice", "wrong")
    with pytest.raises(fl.FlightUnauthenticatedError):
        client.get_flight_info(fl.FlightDescriptor.for_command(statement_query("SELECT 1")))
    hdr = client.authenticate_basic_token("alice", "secret")
    opts = fl.FlightCallOptions(headers=[hdr])
    info = client.get_flight_info(fl.FlightDescriptor.for_command(statement_query("SELECT 1 AS x")), opts)
    assert client.do_get(info.endpoints[0].ticket, opts).read_all().num_rows == 1
    bad = fl.FlightCallOptions(headers=[(b"authorization", b"Bearer not-a-token")])
    with pytest.raises(fl.FlightUnauthenticatedError):
        client.get_flight_info(fl.FlightDescriptor.for_command(statement_query("SELECT 1")), bad)
    conn2 = flight_sql.connect(AUTH_URI, db_kwargs={"username": "alice", "password": "secret"})
    cur = conn2.cursor()
    cur.execute("SELECT 3 AS t")
    assert cur.fetchall() == [(3,)]
    cur.close()
    conn2.close()
    client.close()


def test_cancel_disconnect_keeps_serving():
    client = fl.FlightClient(URI)
    info = client.get_flight_info(fl.FlightDescriptor.for_command(
        statement_query("SELECT a * 10000 + b AS x FROM UNNEST(sequence(0, 9999)) AS t(a) "
                        "CROSS JOIN UNNEST(sequence(1, 10000)) AS u(b)")))
    reader = client.do_get(info.endpoints[0].ticket)
    reader.read_chunk()
    reader.cancel()
    client.close()
    # a new client works right away
    c2 = fl.FlightClient(URI)
    info = c2.get_flight_info(fl.FlightDescriptor.for_command(statement_query("SELECT 2 AS two")))
    assert c2.do_get(info.endpoints[0].ticket).read_all().to_pylist() == [{"two": 2}]
    # CancelFlightInfo on a result never fetched
    info = c2.get_flight_info(fl.FlightDescriptor.for_command(statement_query("SELECT 3 AS three")))
    body = b"\x0a" + varint(len(info.serialize())) + info.serialize()  # CancelFlightInfoRequest
    res = list(c2.do_action(fl.Action("CancelFlightInfo", body)))
    assert res[0].body.to_pybytes() == b"\x08\x01"  # CancelFlightInfoResult{CANCELLED}
    with pytest.raises(pa.ArrowKeyError) as ei:
        c2.do_get(info.endpoints[0].ticket).read_all()
    assert "unknown or expired ticket" in str(ei.value)
    c2.close()


def test_session_options(conn):
    client = fl.FlightClient(URI)
    hdr = client.authenticate_basic_token("bob", "x")
    opts = fl.FlightCallOptions(headers=[hdr])
    def ld(tag, b):
        return bytes([tag]) + varint(len(b)) + b
    def entry(k, v):  # map entry {key = 1, value = SessionOptionValue{string_value = 1}}
        return ld(0x0A, ld(0x0A, k.encode()) + ld(0x12, ld(0x0A, v.encode())))
    body = entry("schema", "other") + entry("bogus", "1")
    res = list(client.do_action(fl.Action("SetSessionOptions", body), opts))
    assert len(res) == 1 and b"bogus" in res[0].body.to_pybytes()
    got = list(client.do_action(fl.Action("GetSessionOptions", b""), opts))
    assert b"other" in got[0].body.to_pybytes() and b"catalog" in got[0].body.to_pybytes()
    # the session's schema is used by later statements
    info = client.get_flight_info(fl.FlightDescriptor.for_command(
        statement_query("SELECT current_schema AS s")), opts)
    assert client.do_get(info.endpoints[0].ticket, opts).read_all().to_pylist() == [{"s": "other"}]
    closed = list(client.do_action(fl.Action("CloseSession", b""), opts))
    assert closed[0].body.to_pybytes() == b"\x08\x01"  # CloseSessionResult{status = CLOSED}
    client.close()


def test_session_state_across_statements():
    """USE, SET SESSION and SQL PREPARE/EXECUTE/DEALLOCATE live in the server's session: each
    statement runs on a new engine connection given that state."""
    c = flight_sql.connect(URI, db_kwargs={"username": "carol", "password": "x"})
    cur = c.cursor()
    cur.execute("SET SESSION time_zone = 'Asia/Kolkata'")
    cur.execute("SELECT current_timezone() AS z")
    assert cur.fetchall() == [("Asia/Kolkata",)]
    cur.execute("PREPARE pq FROM SELECT ? + 1 AS v")
    cur.execute("EXECUTE pq USING 41")
    assert cur.fetchall() == [(42,)]
    cur.execute("DEALLOCATE PREPARE pq")
    with pytest.raises(Exception) as ei:
        cur.execute("EXECUTE pq USING 1")
    assert "not found" in str(ei.value)
    cur.execute("RESET SESSION time_zone")
    cur.execute("SELECT current_timezone() AS z")
    assert cur.fetchall() == [("UTC",)]
    cur.close()
    c.close()
    # another session does not see carol's state
    with connect(db_kwargs={"username": "dave", "password": "x"}) as c2, c2.cursor() as cur2:
        cur2.execute("SELECT current_timezone() AS z")
        assert cur2.fetchall() == [("UTC",)]


def test_session_options_properties():
    """SetSessionOptions takes session properties as SET SESSION does; GetSessionOptions lists
    them; bad names and values come back as per-option errors."""
    client = fl.FlightClient(URI)
    opts = fl.FlightCallOptions(headers=[client.authenticate_basic_token("erin", "x")])
    def ld(tag, b):
        return bytes([tag]) + varint(len(b)) + b
    def entry(k, v):  # {key = 1, value = SessionOptionValue{string_value = 1 | int64_value = 3}}
        val = ld(0x0A, v.encode()) if isinstance(v, str) else b"\x19" + struct.pack("<q", v)
        return ld(0x0A, ld(0x0A, k.encode()) + ld(0x12, val))
    body = entry("time_zone", "Europe/Berlin") + entry("threads", 2) + entry("nosuch", "1") \
        + entry("query_max_memory", "lots")
    res = list(client.do_action(fl.Action("SetSessionOptions", body), opts))
    errs = res[0].body.to_pybytes()
    assert b"nosuch" in errs and b"query_max_memory" in errs and b"time_zone" not in errs
    got = list(client.do_action(fl.Action("GetSessionOptions", b""), opts))[0].body.to_pybytes()
    assert b"Europe/Berlin" in got and b"threads" in got
    info = client.get_flight_info(fl.FlightDescriptor.for_command(
        statement_query("SELECT current_timezone() AS z")), opts)
    assert client.do_get(info.endpoints[0].ticket, opts).read_all().to_pylist() == [{"z": "Europe/Berlin"}]
    client.close()


def test_time_precision_units(conn):
    """time(p)/timestamp(p) travel in the unit of p; precisions 1, 2, 4, 5 also carry sqe:type."""
    cur = conn.cursor()
    cur.execute("SELECT TIMESTAMP '2024-01-01 10:00:00' AS t0, TIMESTAMP '2024-01-01 10:00:00.12' AS t2,"
                " TIMESTAMP '2024-01-01 10:00:00.123' AS t3, TIME '10:00:00.1234' AS m4,"
                " TIMESTAMP '2024-01-01 10:00:00.123 UTC' AS z3")
    t = cur.fetch_arrow_table()
    types = [f.type for f in t.schema]
    assert types == [pa.timestamp("s"), pa.timestamp("ms"), pa.timestamp("ms"), pa.time64("us"),
                     pa.timestamp("ms", tz="UTC")]
    assert t.schema.field("t2").metadata == {b"sqe:type": b"timestamp(2)"}
    assert t.schema.field("t3").metadata is None
    row = t.to_pylist()[0]
    assert row["t2"] == datetime.datetime(2024, 1, 1, 10, 0, 0, 120000)
    assert row["m4"] == datetime.time(10, 0, 0, 123400)
    cur.close()


# ---- prepared statement parameter types ----------------------------------------------------

def test_parameter_schema_has_inferred_types(conn):
    cur = conn.cursor()
    cur.execute("CREATE TABLE memory.default.ptypes (id bigint, name varchar, score double, d date)")
    schema = cur.adbc_prepare("SELECT name FROM memory.default.ptypes WHERE id = ? AND score < ? "
                              "AND d >= ?")
    assert [f.type for f in schema] == [pa.int64(), pa.float64(), pa.date32()], schema
    schema = cur.adbc_prepare("INSERT INTO memory.default.ptypes (score, id, name) VALUES (?, ?, ?)")
    assert [f.type for f in schema] == [pa.float64(), pa.int64(), pa.string()], schema
    schema = cur.adbc_prepare("SELECT ? AS anything")   # nothing fixes its type
    assert [f.type for f in schema] == [pa.null()], schema
    # values of other types still bind (coerced the way a literal would be)
    cur.execute("INSERT INTO memory.default.ptypes (score, id, name) VALUES (?, ?, ?)",
                (7, 1, "x"))
    cur.execute("SELECT name, score FROM memory.default.ptypes WHERE id = ? AND score < ?", (1.0, 8))
    assert cur.fetchall() == [("x", 7.0)]
    cur.execute("SELECT ? AS anything", ("free",))
    assert cur.fetchall() == [("free",)]
    cur.close()


# ---- GetXdbcTypeInfo -------------------------------------------------------------------------

XDBC_COLUMNS = [
    ("type_name", pa.string(), False), ("data_type", pa.int32(), False),
    ("column_size", pa.int32(), True), ("literal_prefix", pa.string(), True),
    ("literal_suffix", pa.string(), True), ("create_params", None, True),
    ("nullable", pa.int32(), False), ("case_sensitive", pa.bool_(), False),
    ("searchable", pa.int32(), False), ("unsigned_attribute", pa.bool_(), True),
    ("fixed_prec_scale", pa.bool_(), False), ("auto_increment", pa.bool_(), True),
    ("local_type_name", pa.string(), True), ("minimum_scale", pa.int32(), True),
    ("maximum_scale", pa.int32(), True), ("sql_data_type", pa.int32(), False),
    ("datetime_subcode", pa.int32(), True), ("num_prec_radix", pa.int32(), True),
    ("interval_precision", pa.int32(), True)]


def xdbc_type_info(data_type=None):
    client = fl.FlightClient(URI)
    try:
        payload = b"" if data_type is None else b"\x08" + varint(data_type & 0xFFFFFFFFFFFFFFFF)
        desc = fl.FlightDescriptor.for_command(any_cmd("CommandGetXdbcTypeInfo", payload))
        info = client.get_flight_info(desc)
        table = client.do_get(info.endpoints[0].ticket).read_all()
        assert client.get_schema(desc).schema.equals(info.schema)
        return info.schema, table
    finally:
        client.close()


def test_xdbc_type_info():
    schema, table = xdbc_type_info()
    assert [(f.name, f.nullable) for f in schema] == [(n, nl) for n, _, nl in XDBC_COLUMNS]
    for f, (_, t, _) in zip(schema, XDBC_COLUMNS):
        if t is not None:
            assert f.type == t, f
    assert pa.types.is_list(schema.field("create_params").type)
    rows = table.to_pylist()
    by_name = {r["type_name"]: r for r in rows}
    for name in ("boolean", "tinyint", "smallint", "integer", "bigint", "real", "double",
                 "decimal", "varchar", "char", "varbinary", "date", "time", "timestamp",
                 "timestamp with time zone", "interval day to second", "interval year to month",
                 "array", "map", "row", "json", "uuid"):
        assert name in by_name, name
    assert [r["data_type"] for r in rows] == sorted(r["data_type"] for r in rows)
    assert by_name["bigint"]["data_type"] == -5 and by_name["bigint"]["column_size"] == 19
    assert by_name["varchar"]["data_type"] == 12 and by_name["varchar"]["create_params"] == ["length"]
    assert by_name["varchar"]["literal_prefix"] == "'" and by_name["varchar"]["case_sensitive"]
    assert by_name["decimal"]["create_params"] == ["precision", "scale"]
    assert by_name["decimal"]["maximum_scale"] == 38
    assert by_name["date"]["data_type"] == 91 and by_name["date"]["sql_data_type"] == 9
    assert by_name["date"]["datetime_subcode"] == 1
    assert by_name["boolean"]["create_params"] is None
    assert all(r["nullable"] == 1 for r in rows)
    # every type the engine can name exists: a CAST to each scalar type name parses
    cur = connect().cursor()
    for name in ("boolean", "tinyint", "smallint", "integer", "bigint", "real", "double",
                 "decimal", "varchar", "char", "varbinary", "date", "time", "timestamp",
                 "timestamp with time zone", "json", "uuid"):
        cur.execute(f"SELECT CAST(NULL AS {name})")
        assert cur.fetchall() == [(None,)]
    cur.close()


def test_xdbc_type_info_filter():
    _, table = xdbc_type_info(-5)
    assert table.column("type_name").to_pylist() == ["bigint"]
    _, table = xdbc_type_info(93)
    assert sorted(table.column("type_name").to_pylist()) == ["timestamp", "timestamp with time zone"]
    _, table = xdbc_type_info(12345)
    assert table.num_rows == 0


# ---- slow clients ----------------------------------------------------------------------------

def test_trickling_client_is_cut_by_the_idle_limit(tmp_path):
    """A client that completes the HTTP/2 preface, then trickles a HEADERS frame one byte every
    0.3 s (so keepalive sees it alive) is closed by the connection idle limit; a normal client
    on the same server works meanwhile."""
    import socket
    import subprocess
    if not SERVER:
        pytest.skip("SQE_FLIGHT_SERVER is not set (run_flight_tests.sh sets it)")
    out = open(tmp_path / "port", "w+")
    proc = subprocess.Popen([SERVER, "--port", "0", "--request-timeout-ms", "2000",
                             "--max-idle-ms", "4000"], stdout=out, stderr=subprocess.DEVNULL)
    try:
        port = None
        for _ in range(100):
            out.seek(0)
            text = out.read()
            if "PORT" in text:
                port = int(text.split()[1])
                break
            time.sleep(0.1)
        assert port, "flight_test_server did not start"
        pre = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
        headers = b"\x00\x01\x90\x01\x04\x00\x00\x00\x01" + b"\x00" * 400
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(pre)
        s.settimeout(0.3)
        t0 = time.time()
        closed = None
        i = 0
        with flight_sql.connect(f"grpc://127.0.0.1:{port}") as c2, c2.cursor() as cur:
            while time.time() - t0 < 20:
                try:
                    s.sendall(headers[i:i + 1])
                    i += 1
                    if s.recv(4096) == b"":
                        closed = time.time() - t0
                        break
                except socket.timeout:
                    pass
                except OSError:
                    closed = time.time() - t0
                    break
            cur.execute("SELECT 1")
            assert cur.fetchall() == [(1,)]
        s.close()
        assert closed is not None, "the trickling client was never disconnected"
        assert closed >= 3, f"cut after {closed:.1f} s, before the 4 s idle limit"
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        out.close()
