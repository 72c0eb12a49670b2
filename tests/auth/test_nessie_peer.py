"""Nessie as a second real REST catalog: each user's own Keycloak token on their own calls (issue 16).

Role: first the Nessie peer itself (nessie_peer.py): /iceberg/v1/config answers 200 with a
Keycloak token and 401 without one or with a token of another realm; a namespace and a table
are created through its Iceberg REST API, their metadata written to the S3 peer with Nessie's
own key; its access log names the user of each call. Then `sqe serve` (the ASan build, or
$SQE_BIN) with `[catalogs.nessie]` (type "rest", auth "session_bearer"), reached over the Trino
protocol as alice and as bob, each with their own Keycloak access token: CREATE SCHEMA / TABLE,
INSERT, SELECT, CREATE TABLE AS; every Nessie call made while a user's statements ran carries
that user's token (Nessie's access log), and no token reaches a log.
NOTES: Nessie does not vend storage credentials here (request signing off, no STS): SQE reads
and writes the table files with a static key of its own ([catalogs.nessie] s3_* keys), Nessie
its metadata files with its key; the S3 peer's record tells the two apart.
"""
import json
import os
import shutil
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import trino
from trino.auth import JWTAuthentication

from keycloak_peer import USERS

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "load"))
from sqe_serve import SqeServe  # noqa: E402

SQE = Path(os.environ.get("SQE_BIN", ROOT / "build-asan" / "sqe"))


def token(keycloak, user, realm="sqe"):
    return keycloak.password_token(realm, user, USERS[user])["access_token"]


def call(url, tok=None, method="GET", body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    if tok:
        req.add_header("Authorization", "Bearer " + tok)
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            raw = r.read()
            return r.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            return e.code, json.loads(raw)
        except ValueError:
            return e.code, raw


def entries_after(nessie, mark, n_min=1, timeout=10):
    """The access log entries after the first `mark` ones (waits until at least n_min)."""
    deadline = time.monotonic() + timeout
    while True:
        got = nessie.access_log()[mark:]
        if len(got) >= n_min or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def test_config_needs_a_token(nessie, keycloak):
    mark = len(nessie.access_log())
    status, _ = call(nessie.iceberg_uri + "/v1/config")
    assert status == 401
    status, body = call(nessie.iceberg_uri + "/v1/config", token(keycloak, "alice"))
    assert status == 200, body
    assert body["defaults"]["prefix"] == "main"
    assert body["defaults"]["warehouse"] == "s3://lake/nessie"
    status, body = call(nessie.iceberg_uri + "/v1/config?warehouse=" + nessie.warehouse,
                        token(keycloak, "bob"))
    assert status == 200 and body["defaults"]["prefix"] == "main%7Cwarehouse", body
    # another realm's alice: another issuer and other keys
    status, _ = call(nessie.iceberg_uri + "/v1/config", token(keycloak, "alice", "other"))
    assert status == 401
    status, _ = call(nessie.iceberg_uri + "/v1/config", "not-a-jwt")
    assert status == 401
    got = [(e.user, e.status) for e in entries_after(nessie, mark, 5)]
    assert got == [("-", 401), ("alice", 200), ("bob", 200), ("-", 401), ("-", 401)], got


def test_namespace_and_table_through_rest(nessie, keycloak, s3_peer):
    alice, bob = token(keycloak, "alice"), token(keycloak, "bob")
    base = nessie.iceberg_uri + "/v1/main"
    mark = len(nessie.access_log())
    status, body = call(base + "/namespaces", alice, "POST", {"namespace": ["rest_ns"]})
    assert status == 200, body
    schema = {"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": False, "type": "long"},
        {"id": 2, "name": "name", "required": False, "type": "string"}]}
    # Nessie 0.99 requires stage-create, which the REST spec makes optional
    status, body = call(base + "/namespaces/rest_ns/tables", bob, "POST",
                        {"name": "events", "schema": schema, "stage-create": False})
    assert status == 200, body
    loc = body["metadata-location"]
    assert loc.startswith("s3://lake/nessie/rest_ns/events"), loc
    status, body = call(base + "/namespaces/rest_ns/tables/events", alice)
    assert status == 200 and body["metadata-location"] == loc, body
    got = [(e.user, e.method, e.status) for e in entries_after(nessie, mark, 3)]
    assert got == [("alice", "POST", 200), ("bob", "POST", 200), ("alice", "GET", 200)], got
    # Nessie wrote the metadata file to the S3 peer, signed with its own key
    key = loc[len("s3://lake/"):]
    assert key in s3_peer.list_keys("nessie/rest_ns/")
    puts = [r for r in s3_peer.requests() if r[1] == "PUT" and r[2] == "/lake/" + key]
    assert puts and all(r[0] == nessie.s3_key[0] and r[3] == 200 for r in puts), puts


@pytest.fixture(scope="module")
def sqe(nessie, s3_peer, tmp_path_factory):
    if not SQE.exists():
        pytest.fail(f"{SQE} is not built (ninja -C build-asan sqe)")
    work = tmp_path_factory.mktemp("sqe-nessie")
    key_id, secret = s3_peer.add_user("sqe-storage")
    stage = work / "stage"
    stage.mkdir()
    toml = f"""
[coordinator]
threads = 2

[catalogs.nessie]
type = "rest"
uri = "{nessie.iceberg_uri}"
auth = "session_bearer"
warehouse = "{nessie.warehouse}"
s3_endpoint = "{s3_peer.endpoint}"
s3_region = "us-east-1"
s3_path_style = true
s3_access_key_id = "{key_id}"
s3_secret_access_key = "{secret}"
"""
    serve = SqeServe(SQE, work / "serve", toml, env={"TMPDIR": str(stage)})
    serve.storage_key = key_id
    try:
        yield serve
    finally:
        rc, out = serve.stop()
        assert SqeServe.sanitizer_report(out) is None, out[-4000:]
        assert secret not in out
        shutil.rmtree(work, ignore_errors=True)


def run(sqe, tok, user, sql):
    conn = trino.dbapi.connect(host="127.0.0.1", port=sqe.trino_port, user=user,
                               catalog="nessie", schema="default", http_scheme="http",
                               auth=JWTAuthentication(tok), allow_insecure_auth=True)
    try:
        cur = conn.cursor()
        cur.execute(sql)
        return cur.fetchall()
    finally:
        conn.close()


def test_sqe_as_each_user_on_nessie(sqe, nessie, keycloak, s3_peer):
    toks = {u: token(keycloak, u) for u in ("alice", "bob")}
    work = {
        "alice": [("CREATE SCHEMA nessie.alice_s", [[True]]),
                  ("CREATE TABLE nessie.alice_s.t (id bigint, name varchar)", [[True]]),
                  ("INSERT INTO nessie.alice_s.t VALUES (1, 'one'), (2, 'two')", [[2]]),
                  ("SELECT id, name FROM nessie.alice_s.t ORDER BY id", [[1, "one"], [2, "two"]])],
        "bob": [("CREATE SCHEMA nessie.bob_s", [[True]]),
                ("CREATE TABLE nessie.bob_s.t AS SELECT CAST(7 AS bigint) AS id, 'seven' AS name", [[1]]),
                ("INSERT INTO nessie.bob_s.t SELECT id + 1, name FROM nessie.alice_s.t", [[2]]),
                ("SELECT id, name FROM nessie.bob_s.t ORDER BY id",
                 [[2, "one"], [3, "two"], [7, "seven"]])],
    }
    for user in ("alice", "bob"):
        mark = len(nessie.access_log())
        s3_mark = len(s3_peer.requests())
        for sql, want in work[user]:
            assert run(sqe, toks[user], user, sql) == want, sql
        calls = entries_after(nessie, mark, 6)
        # every Nessie call made while this user's statements ran carried this user's token
        assert calls and {e.user for e in calls} == {user}, calls
        assert all(e.status < 400 or e.method == "GET" and e.status == 404 for e in calls), calls
        paths = [(e.method, e.path) for e in calls]
        assert ("POST", "/iceberg/v1/main%7Cwarehouse/namespaces") in paths, paths
        assert any(m == "POST" and p.startswith(
            f"/iceberg/v1/main%7Cwarehouse/namespaces/{user}_s/tables") for m, p in paths), paths
        # the table's data files went to S3 with SQE's key, its metadata with Nessie's
        s3 = [r for r in s3_peer.requests()[s3_mark:] if r[2].startswith(f"/lake/nessie/{user}_s/")]
        data = [r for r in s3 if r[1] == "PUT" and "/data/" in r[2]]
        assert data and all(r[0] == sqe.storage_key and r[3] == 200 for r in data), s3
        meta = [r for r in s3 if r[1] == "PUT" and r[2].endswith(".metadata.json")]
        assert meta and all(r[0] == nessie.s3_key[0] for r in meta), s3
    # a token Nessie refuses is refused by SQE too (it asks the catalog)
    mark = len(nessie.access_log())
    with pytest.raises(trino.exceptions.HttpError, match="401"):
        run(sqe, token(keycloak, "alice", "other"), "alice", "SELECT 1")
    refused = entries_after(nessie, mark, 1)
    assert [(e.user, e.path, e.status) for e in refused] == [
        ("-", "/iceberg/v1/config?warehouse=" + nessie.warehouse, 401)], refused
    # no token in any log
    logs = nessie.log_path.read_text(errors="replace") + \
        nessie.access_log_path.read_text(errors="replace") + sqe.log_text()
    for t in toks.values():
        assert t not in logs and t.split(".")[2] not in logs
