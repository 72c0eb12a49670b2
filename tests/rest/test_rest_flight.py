"""test_rest_flight.py: Flight SQL clients of `sqe serve` with their own REST catalog tokens
(issue 7, identity).

The REST catalog is the test server of rest_server.py (Iceberg's CatalogHandlers over a
JdbcCatalog, bearer tokens per user, request log "user=<user> <METHOD> <path>"). `sqe serve`
(SQE_SERVE, default $SQE_BUILD_DIR/sqe) gets a config with a REST [catalog] "lake" (auth =
"session_bearer", the default) and a Flight SQL port. Clients are the ADBC Flight SQL driver and
pyarrow.flight, sending `authorization: Bearer <catalog token>` on every call (no Handshake, no
SQE session): SQE checks the token with the catalog and forwards it on every catalog call of
the user's statements, prepared statements, DoGet and DoPut.

Covers: two users over ADBC (DDL, inserts, queries, prepared statements with bound
parameters, ingest) each reach the catalog with their own token only; a ticket made for one
user cannot be fetched by another; a token the catalog refuses gets UNAUTHENTICATED (gRPC 16)
and no data; a forbidden one gets PERMISSION_DENIED (gRPC 7) and no data; no token reaches the
server log.
"""
import os
import sys
import shutil
import tempfile

import adbc_driver_flightsql.dbapi as flight_sql
import adbc_driver_manager
import pyarrow as pa
import pyarrow.flight as fl
import pytest

from rest_server import RestServer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "load"))
from sqe_serve import SqeServe  # noqa: E402
BUILD = os.environ.get("SQE_BUILD_DIR", os.path.join(ROOT, "build-asan"))
SQE = os.environ.get("SQE_SERVE", os.path.join(BUILD, "sqe"))

TOKENS = {"tok-alice": "alice", "tok-bob": "bob", "tok-denied": "-denied-"}



@pytest.fixture(scope="module")
def env():
    tmp = tempfile.mkdtemp(prefix="sqe-rest-flight-")
    srv = RestServer(os.path.join(tmp, "warehouse"), TOKENS, {}, prefix="sqe").start()
    try:
        serve = SqeServe(SQE, os.path.join(tmp, "serve"), """
[coordinator]
threads = 2

[catalog]
name = "lake"
type = "rest"
uri = "{uri}"
warehouse = "{wh}"
""".format(uri=srv.uri, wh=srv.warehouse))
    except Exception as e:
        srv.stop()
        pytest.fail("sqe serve did not start: %s" % e)
    port = serve.flight_port
    yield {"uri": "grpc://127.0.0.1:%d" % port, "rest": srv, "log": serve.log_path}
    serve.stop()
    srv.stop()
    with open(serve.log_path) as f:
        text = f.read()
    assert "tok-alice" not in text and "tok-bob" not in text and "tok-denied" not in text, text
    assert "ERROR: AddressSanitizer" not in text and "runtime error" not in text, text
    shutil.rmtree(tmp, ignore_errors=True)


def connect(env, token, user=None):
    kw = {"adbc.flight.sql.authorization_header": "Bearer " + token}
    if user:
        kw["adbc.flight.sql.rpc.call_header.x-sqe-user"] = user
    return flight_sql.connect(env["uri"], db_kwargs=kw)


def run(env, sql, token, user=None, params=None):
    with connect(env, token, user) as conn, conn.cursor() as cur:
        cur.execute(sql, params)
        try:
            return cur.fetchall()
        except adbc_driver_manager.Error:
            return None  # statements without a result set


def log_since(env, mark):
    return env["rest"].log_lines()[mark:]


def any_cmd(name, payload=b""):
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
    return fl.FlightDescriptor.for_command(
        any_cmd("CommandStatementQuery", b"\x0a" + varint(len(sql.encode())) + sql.encode()))


def bearer(token):
    return fl.FlightCallOptions(headers=[(b"authorization", b"Bearer " + token.encode())])


def test_two_users_over_adbc(env):
    mark = len(env["rest"].log_lines())
    run(env, "CREATE SCHEMA lake.fl", "tok-alice", "alice")
    run(env, "CREATE TABLE lake.fl.t (id bigint, who varchar)", "tok-alice", "alice")
    run(env, "INSERT INTO lake.fl.t VALUES (1, 'alice')", "tok-alice", "alice")
    a_lines = [l for l in log_since(env, mark) if "/namespaces/fl" in l]
    assert a_lines and all(l.startswith("user=alice ") for l in a_lines), a_lines
    assert any(" POST " in l and l.endswith("/namespaces/fl/tables/t") for l in a_lines), a_lines

    mark = len(env["rest"].log_lines())
    # bob: a prepared statement with a bound parameter (CreatePreparedStatement + DoPut +
    # DoPut update), then a parameterised query (DoPut bind + GetFlightInfo + DoGet)
    run(env, "INSERT INTO lake.fl.t VALUES (?, ?)", "tok-bob", "bob", params=(2, "bob"))
    rows = run(env, "SELECT who, current_user FROM lake.fl.t WHERE id = ?", "tok-bob", "bob",
               params=(2,))
    assert rows == [("bob", "bob")]
    b_lines = [l for l in log_since(env, mark) if "/namespaces/fl" in l]
    assert b_lines and all(l.startswith("user=bob ") for l in b_lines), b_lines
    assert any(" POST " in l for l in b_lines) and any(" GET " in l for l in b_lines), b_lines

    mark = len(env["rest"].log_lines())
    assert run(env, "SELECT id, who FROM lake.fl.t ORDER BY id", "tok-alice", "alice") == \
        [(1, "alice"), (2, "bob")]
    a_lines = [l for l in log_since(env, mark) if "/namespaces/fl" in l]
    assert a_lines and all(l.startswith("user=alice ") for l in a_lines), a_lines
    # no catalog call of these statements went out without a token
    assert not [l for l in env["rest"].log_lines() if l.startswith("user=- ") and "/fl" in l]


def test_ingest_and_metadata_carry_the_token(env):
    mark = len(env["rest"].log_lines())
    with connect(env, "tok-bob", "bob") as conn, conn.cursor() as cur:
        cur.adbc_ingest("ing", pa.table({"k": [1, 2, 3]}), mode="create",
                        catalog_name="lake", db_schema_name="fl")
        cur.execute("SELECT sum(k) FROM lake.fl.ing")
        assert cur.fetchall() == [(6,)]
        objs = conn.adbc_get_objects(catalog_filter="lake", db_schema_filter="fl").read_all()
        assert "ing" in str(objs.to_pylist())
    lines = [l for l in log_since(env, mark) if "/namespaces/fl" in l]
    assert any(l.startswith("user=bob POST ") and "/tables" in l for l in lines), lines
    assert all(l.startswith("user=bob ") for l in lines), lines


def test_ticket_bound_to_its_user(env):
    client = fl.FlightClient(env["uri"])
    mark = len(env["rest"].log_lines())
    info = client.get_flight_info(statement_query("SELECT count(*) AS n FROM lake.fl.t"),
                                  bearer("tok-alice"))
    assert [l for l in log_since(env, mark) if "/namespaces/fl/tables/t" in l][0] \
        .startswith("user=alice ")
    # bob cannot fetch alice's result, alice can (on whichever worker serves the DoGet)
    with pytest.raises(pa.ArrowKeyError) as ei:  # gRPC NOT_FOUND
        client.do_get(info.endpoints[0].ticket, bearer("tok-bob")).read_all()
    assert "unknown or expired ticket" in str(ei.value)
    assert client.do_get(info.endpoints[0].ticket, bearer("tok-alice")).read_all() \
        .to_pylist() == [{"n": 2}]
    client.close()


def test_refused_token_unauthenticated(env):
    client = fl.FlightClient(env["uri"])
    mark = len(env["rest"].log_lines())
    with pytest.raises(fl.FlightUnauthenticatedError) as ei:
        client.get_flight_info(statement_query("SELECT * FROM lake.fl.t"), bearer("tok-wrong"))
    assert "refused" in str(ei.value) and "tok-wrong" not in str(ei.value), str(ei.value)
    # the only catalog call was the token check, refused; no table was loaded
    assert not [l for l in log_since(env, mark) if "/tables" in l]
    with pytest.raises(adbc_driver_manager.Error) as ei:
        run(env, "SELECT * FROM lake.fl.t", "tok-wrong", "mallory")
    assert ei.value.status_code == adbc_driver_manager.AdbcStatusCode.UNAUTHENTICATED, ei.value
    client.close()


def test_forbidden_token_permission_denied(env):
    client = fl.FlightClient(env["uri"])
    with pytest.raises(fl.FlightUnauthorizedError) as ei:  # gRPC PERMISSION_DENIED
        client.get_flight_info(statement_query("SELECT * FROM lake.fl.t"), bearer("tok-denied"))
    assert "42501" in str(ei.value), str(ei.value)
    with pytest.raises(adbc_driver_manager.Error) as ei:
        run(env, "SELECT * FROM lake.fl.t", "tok-denied", "eve")
    assert ei.value.status_code == adbc_driver_manager.AdbcStatusCode.UNAUTHORIZED, ei.value
    client.close()
