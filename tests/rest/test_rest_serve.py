"""test_rest_serve.py: `sqe serve` with REST catalogs in its configuration (issue 7).

The REST catalog is the test server of rest_server.py (Iceberg's CatalogHandlers over a
JdbcCatalog, bearer tokens per user, request log). `sqe serve` (SQE_SERVE, default
$SQE_BUILD_DIR/sqe) gets a config file with a REST [catalog] "lake", a second REST catalog
[catalogs.lake2] (same server, auth = "static" with the service token) and an embedded SQLite
[catalogs.local]; clients speak the Trino protocol (trino python client) with their own bearer
token (JWTAuthentication), which SQE checks with the catalog and forwards on every catalog call.

Covers: create/insert/select through serve; a join across the REST catalog and the SQLite
catalog in one query; the same table through a second REST catalog entry with a static token;
two users' tokens each reach the catalog on each of their calls (request log); a token the
catalog refuses is rejected (401) and a forbidden one fails with PERMISSION_DENIED, no rows.
"""
import os
import sys
import shutil
import tempfile

import pytest
import trino
from trino.auth import JWTAuthentication
from trino.exceptions import TrinoUserError

from rest_server import RestServer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "load"))
from sqe_serve import SqeServe  # noqa: E402
BUILD = os.environ.get("SQE_BUILD_DIR", os.path.join(ROOT, "build-asan"))
SQE = os.environ.get("SQE_SERVE", os.path.join(BUILD, "sqe"))

TOKENS = {"tok-alice": "alice", "tok-bob": "bob", "tok-svc": "service", "tok-denied": "-denied-"}



@pytest.fixture(scope="module")
def env():
    tmp = tempfile.mkdtemp(prefix="sqe-rest-serve-")
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

[catalogs.lake2]
type = "rest"
uri = "{uri}"
warehouse = "{wh}"
auth = "static"
token = "tok-svc"

[catalogs.local]
type = "sqlite"
""".format(uri=srv.uri, wh=srv.warehouse))
    except Exception as e:
        srv.stop()
        pytest.fail("sqe serve did not start: %s" % e)
    port = serve.trino_port
    yield {"port": port, "rest": srv, "log": serve.log_path}
    serve.stop()
    srv.stop()
    with open(serve.log_path) as f:
        text = f.read()
    # credentials never reach the server log
    assert "tok-alice" not in text and "tok-bob" not in text and "tok-svc" not in text, text
    shutil.rmtree(tmp, ignore_errors=True)


def run(env, sql, token="tok-alice", user="alice", catalog="lake", schema="default"):
    conn = trino.dbapi.connect(host="127.0.0.1", port=env["port"], user=user, catalog=catalog,
                               schema=schema, http_scheme="http",
                               auth=JWTAuthentication(token) if token else None,
                               allow_insecure_auth=True)  # loopback
    cur = conn.cursor()
    cur.execute(sql)
    rows = cur.fetchall()
    conn.close()
    return rows


def user_lines(env, user, needle):
    return [l for l in env["rest"].log_lines() if l.startswith("user=%s " % user) and needle in l]


def test_create_insert_select(env):
    run(env, "CREATE SCHEMA lake.sales")
    run(env, "CREATE TABLE lake.sales.orders (id bigint, cust varchar, amount double)")
    run(env, "INSERT INTO lake.sales.orders VALUES (1, 'a', 10.5), (2, 'b', 20), (3, 'a', 1)")
    rows = run(env, "SELECT cust, sum(amount) FROM lake.sales.orders GROUP BY cust ORDER BY cust")
    assert rows == [["a", 11.5], ["b", 20.0]]
    schemas = [r[0] for r in run(env, "SHOW SCHEMAS FROM lake")]
    assert "sales" in schemas
    # every catalog call of alice's statements carried alice's token, none went without one
    assert user_lines(env, "alice", "POST /v1/sqe/namespaces/sales/tables/orders")
    assert not [l for l in env["rest"].log_lines() if l.startswith("user=- ") and "sales" in l]


def test_join_rest_and_sqlite_catalogs(env):
    run(env, "CREATE TABLE local.default.customers (cust varchar, name varchar)")
    run(env, "INSERT INTO local.default.customers VALUES ('a', 'Ann'), ('b', 'Bo')")
    rows = run(env, "SELECT c.name, count(*), sum(o.amount) FROM lake.sales.orders o "
                    "JOIN local.default.customers c ON o.cust = c.cust GROUP BY c.name "
                    "ORDER BY c.name")
    assert rows == [["Ann", 2, 11.5], ["Bo", 1, 20.0]]
    catalogs = sorted(r[0] for r in run(env, "SHOW CATALOGS"))
    assert {"lake", "lake2", "local", "memory"} <= set(catalogs)


def test_static_token_catalog(env):
    before = len(user_lines(env, "service", "/namespaces/sales/tables/orders"))
    rows = run(env, "SELECT count(*) FROM lake2.sales.orders", token="tok-bob", user="bob")
    assert rows == [[3]]
    # lake2 is configured with the service token: it, not bob's, went to the catalog
    assert len(user_lines(env, "service", "/namespaces/sales/tables/orders")) > before


def test_two_users_tokens_forwarded(env):
    run(env, "CREATE TABLE lake.sales.t2 (x int)", token="tok-alice")
    a0 = len(user_lines(env, "alice", "/namespaces/sales/tables/t2"))
    b0 = len(user_lines(env, "bob", "/namespaces/sales/tables/t2"))
    run(env, "INSERT INTO lake.sales.t2 VALUES (1)", token="tok-bob", user="bob")
    assert run(env, "SELECT x FROM lake.sales.t2", token="tok-alice") == [[1]]
    run(env, "INSERT INTO lake.sales.t2 VALUES (2)", token="tok-alice")
    assert run(env, "SELECT sum(x) FROM lake.sales.t2", token="tok-bob", user="bob") == [[3]]
    a = user_lines(env, "alice", "/namespaces/sales/tables/t2")[a0:]
    b = user_lines(env, "bob", "/namespaces/sales/tables/t2")[b0:]
    assert any(" GET " in " " + l for l in a) and any("POST" in l for l in a), a
    assert any(" GET " in " " + l for l in b) and any("POST" in l for l in b), b
    # each user's commit went out with that user's token: two commits, one each
    assert len([l for l in a if "POST" in l]) == 1 and len([l for l in b if "POST" in l]) == 1


def test_refused_and_forbidden_tokens(env):
    with pytest.raises(Exception) as ei:
        run(env, "SELECT * FROM lake.sales.orders", token="tok-wrong", user="mallory")
    assert "401" in str(ei.value) or "refused" in str(ei.value), str(ei.value)
    with pytest.raises(TrinoUserError) as ei:
        run(env, "SELECT * FROM lake.sales.orders", token="tok-denied", user="eve")
    assert ei.value.error_name == "PERMISSION_DENIED", ei.value
    assert "Forbidden" in ei.value.message
