"""test_rest.py: SQE against a real Iceberg REST catalog (issue 7, item 1).

The catalog is Apache Iceberg's own REST request handling (CatalogHandlers) wrapped by
server/RestCatalogServer.java (bearer tokens, per-request user log, vended credentials, ETags,
fault hooks), over a JdbcCatalog with a local warehouse. SQE runs through rest_driver (REST_DRIVER),
one process per statement list; pyiceberg's RestCatalog points at the same server.

Covers: CREATE SCHEMA / CREATE TABLE / INSERT / SELECT / DELETE / time travel; pyiceberg reads
what SQE wrote and SQE reads what pyiceberg wrote; two users' tokens each reach the catalog on
every call; a refused token (401) and a forbidden principal (403) give clear errors and no data;
the catalog down gives a clear error; a real concurrent commit (409) is retried; a 5xx on commit
is "commit state unknown" and the table is unchanged; a transient 503 on a load is retried;
OAuth2 client credentials; ETag revalidation (304); vended credentials per user.
"""
import os
import shutil
import socket
import subprocess
import tempfile

import pyarrow as pa
import pytest

from rest_server import RestServer

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.environ.get("REST_DRIVER", os.path.join(HERE, "..", "..", "build-asan", "rest_driver"))

TOKENS = {"tok-alice": "alice", "tok-bob": "bob", "tok-svc": "service", "tok-denied": "-denied-"}
CLIENTS = {"svc:s3cret": "tok-svc"}


@pytest.fixture(scope="module")
def server():
    wh = tempfile.mkdtemp(prefix="sqe-rest-")
    srv = RestServer(wh, TOKENS, CLIENTS, prefix="sqe").start()
    yield srv
    srv.stop()
    shutil.rmtree(wh, ignore_errors=True)


def sqe(server, statements, token="tok-alice", extra=(), uri=None):
    """Runs statements through rest_driver; returns one entry per statement: (rows, status)."""
    args = [DRIVER, "--uri", uri or server.uri, "--warehouse", server.warehouse]
    if token:
        args += ["--token", token]
    args += list(extra)
    p = subprocess.run(args, input="\n".join(statements) + "\n", capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    out, rows = [], []
    for line in p.stdout.splitlines():
        if line.startswith("OK ") or line.startswith("ERROR "):
            out.append((rows, line))
            rows = []
        else:
            rows.append(line)
    assert len(out) == len(statements), p.stdout + p.stderr
    return out


def ok(results):
    for rows, status in results:
        assert status.startswith("OK"), status
    return results


def pycat(server, token="tok-alice"):
    from pyiceberg.catalog.rest import RestCatalog
    return RestCatalog("rest", uri=server.uri, token=token)


def user_requests(server, user, needle):
    return [l for l in server.log_lines() if l.startswith("user=%s " % user) and needle in l]


def test_sql_round_trip_and_pyiceberg_reads(server):
    ok(sqe(server, [
        "CREATE SCHEMA rest.s1",
        "CREATE TABLE rest.s1.t (id bigint, name varchar)",
        "INSERT INTO rest.s1.t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    ]))
    res = ok(sqe(server, [
        "SELECT id, name FROM rest.s1.t ORDER BY id",
        "DELETE FROM rest.s1.t WHERE id = 2",
        "SELECT id, name FROM rest.s1.t ORDER BY id",
    ]))
    assert res[0][0] == ["1|a", "2|b", "3|c"]
    assert res[1][1] == "OK 1"
    assert res[2][0] == ["1|a", "3|c"]
    # pyiceberg through the same catalog sees SQE's two snapshots and the current rows
    tbl = pycat(server).load_table("s1.t")
    rows = sorted(tbl.scan().to_arrow().to_pylist(), key=lambda r: r["id"])
    assert rows == [{"id": 1, "name": "a"}, {"id": 3, "name": "c"}]
    snaps = tbl.metadata.snapshots
    assert len(snaps) >= 2
    first = snaps[0].snapshot_id
    # time travel to SQE's first snapshot
    res = ok(sqe(server, ["SELECT id FROM rest.s1.t FOR VERSION AS OF %d ORDER BY id" % first]))
    assert res[0][0] == ["1", "2", "3"]
    # the namespace and table are listed
    res = ok(sqe(server, ["SHOW SCHEMAS FROM rest", "SHOW TABLES FROM rest.s1"]))
    assert "s1" in res[0][0]
    assert res[1][0] == ["t"]


def test_sqe_reads_pyiceberg(server):
    cat = pycat(server)
    try:
        cat.create_namespace("py")
    except Exception:
        pass
    schema = pa.schema([pa.field("k", pa.int64()), pa.field("v", pa.string())])
    tbl = cat.create_table("py.events", schema=schema)
    tbl.append(pa.table({"k": [10, 20], "v": ["x", "y"]}, schema=schema))
    res = ok(sqe(server, ["SELECT k, v FROM rest.py.events ORDER BY k",
                          "INSERT INTO rest.py.events VALUES (30, 'z')"]))
    assert res[0][0] == ["10|x", "20|y"]
    tbl = cat.load_table("py.events")
    assert sorted(r["k"] for r in tbl.scan().to_arrow().to_pylist()) == [10, 20, 30]


def test_two_users_tokens_forwarded(server):
    ok(sqe(server, ["CREATE SCHEMA IF NOT EXISTS rest.u",
                    "CREATE TABLE rest.u.t (x int)",
                    "INSERT INTO rest.u.t VALUES (7)"], token="tok-alice"))
    before_a = len(user_requests(server, "alice", "/namespaces/u/tables/t"))
    before_b = len(user_requests(server, "bob", "/namespaces/u/tables/t"))
    # one driver, the session token switches per statement; no default token at all
    res = ok(sqe(server, ["\\token tok-bob", "SELECT x FROM rest.u.t",
                          "\\token tok-alice", "SELECT x FROM rest.u.t",
                          "\\token tok-bob", "INSERT INTO rest.u.t VALUES (8)"],
                 token=None, extra=["--vended"]))
    assert res[1][0] == ["7"] and res[3][0] == ["7"]
    a = user_requests(server, "alice", "/namespaces/u/tables/t")[before_a:]
    b = user_requests(server, "bob", "/namespaces/u/tables/t")[before_b:]
    assert any(l.startswith("user=alice GET") for l in a), a
    assert any(l.startswith("user=bob GET") for l in b), b
    assert any(l.startswith("user=bob POST") for l in b), b  # bob's commit carried bob's token
    assert not any(l.startswith("user=alice POST") for l in a)
    assert not [l for l in server.log_lines() if l.startswith("user=- ") and "/u/" in l]
    vended = [l for l in server.log_lines() if "vended credentials for u.t" in l]
    assert any(l.startswith("user=alice") for l in vended)
    assert any(l.startswith("user=bob") for l in vended)


def test_refused_and_forbidden_tokens(server):
    res = sqe(server, ["SELECT * FROM rest.s1.t"], token="tok-wrong")
    rows, status = res[0]
    assert rows == []
    assert status.startswith("ERROR UNAUTHENTICATED"), status
    assert "NotAuthorizedException" in status and "refused the credentials" in status
    res = sqe(server, ["SELECT * FROM rest.s1.t"], token="tok-denied")
    rows, status = res[0]
    assert rows == []
    assert status.startswith("ERROR PERMISSION_DENIED"), status


def test_catalog_down(server):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    res = sqe(server, ["SELECT * FROM rest.s1.t"], uri="http://127.0.0.1:%d" % port)
    status = res[0][1]
    assert status.startswith("ERROR IO_ERROR"), status
    assert "unreachable" in status and str(port) in status


def test_conflict_is_retried(server):
    ok(sqe(server, ["CREATE SCHEMA IF NOT EXISTS rest.c",
                    "CREATE TABLE rest.c.t (x int)",
                    "INSERT INTO rest.c.t VALUES (1)"]))
    n0 = len(pycat(server).load_table("c.t").metadata.snapshots)
    server.conflict("c", "t")
    res = ok(sqe(server, ["INSERT INTO rest.c.t VALUES (2)", "SELECT x FROM rest.c.t ORDER BY x"]))
    assert res[1][0] == ["1", "2"]
    assert any("concurrent commit to c.t" in l for l in server.log_lines())
    # the concurrent (empty) append and SQE's re-applied append are both there
    assert len(pycat(server).load_table("c.t").metadata.snapshots) == n0 + 2
    posts = [l for l in server.log_lines() if "POST /v1/sqe/namespaces/c/tables/t" in l]
    assert len(posts) >= 2


def test_commit_5xx_is_state_unknown(server):
    ok(sqe(server, ["CREATE SCHEMA IF NOT EXISTS rest.f",
                    "CREATE TABLE rest.f.t (x int)",
                    "INSERT INTO rest.f.t VALUES (1)"]))
    server.fail(503, 1, "POST /v1/sqe/namespaces/f/tables/t")
    res = sqe(server, ["INSERT INTO rest.f.t VALUES (2)", "SELECT x FROM rest.f.t"])
    assert res[0][1].startswith("ERROR") and "Commit state unknown" in res[0][1], res[0][1]
    assert res[1][0] == ["1"]


def test_transient_503_on_load_is_retried(server):
    ok(sqe(server, ["CREATE SCHEMA IF NOT EXISTS rest.r",
                    "CREATE TABLE rest.r.t (x int)",
                    "INSERT INTO rest.r.t VALUES (5)"]))
    server.fail(503, 1, "GET /v1/sqe/namespaces/r/tables/t")
    res = ok(sqe(server, ["SELECT x FROM rest.r.t"]))
    assert res[0][0] == ["5"]
    assert any("GET /v1/sqe/namespaces/r/tables/t -> injected 503" in l for l in server.log_lines())


def test_oauth2_client_credentials(server):
    res = ok(sqe(server, ["SELECT count(*) FROM rest.s1.t"], token=None,
                 extra=["--client", "svc:s3cret"]))
    assert res[0][0] == ["2"]
    assert any("oauth/tokens client=svc ok" in l for l in server.log_lines())
    assert user_requests(server, "service", "/namespaces/s1/tables/t")
    res = sqe(server, ["SELECT 1 FROM rest.s1.t"], token=None, extra=["--client", "svc:wrong"])
    assert res[0][1].startswith("ERROR UNAUTHENTICATED"), res[0][1]


def test_etag_revalidation(server):
    res = ok(sqe(server, ["SELECT count(*) FROM rest.s1.t", "SELECT count(*) FROM rest.s1.t"]))
    assert res[0][0] == res[1][0] == ["2"]
    assert any(l.startswith("user=alice 304 not modified s1.t") for l in server.log_lines())
