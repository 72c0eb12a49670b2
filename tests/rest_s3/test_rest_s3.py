"""test_rest_s3.py: SQE on an Iceberg REST catalog whose tables live on S3, each user with the
storage credentials the catalog vends to that user (issue 7).

Peers, all real and on loopback: moto's S3 server checking every SigV4 signature, with a
server-side record of the access key that signed each request (s3_peer.py); the Java REST
catalog of tests/rest (Iceberg's CatalogHandlers over JdbcCatalog) keeping its warehouse at
s3://lake/wh through Iceberg's S3FileIO with a service key and vending alice's and bob's own IAM
keys on loadTable; pyiceberg as an independent writer and reader; `sqe serve` with the REST
catalog, reached with the Trino protocol and each user's own bearer token. `sqe serve` has no
SQE_S3_* environment: any request it signed with anything but a vended key would be refused.
"""
import os
import shutil
import sys
import tempfile
import time

import pyarrow as pa
import pytest
import trino
from trino.auth import JWTAuthentication
from trino.exceptions import TrinoQueryError, TrinoUserError

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "rest"))
from rest_server import RestServer  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tests", "load"))
from sqe_serve import SqeServe  # noqa: E402
from s3_peer import S3Peer  # noqa: E402

BUILD = os.environ.get("SQE_BUILD_DIR", os.path.join(ROOT, "build-asan"))
SQE = os.environ.get("SQE_SERVE", os.path.join(BUILD, "sqe"))
TOKENS = {"tok-alice": "alice", "tok-bob": "bob", "tok-carol": "carol"}



@pytest.fixture(scope="module")
def env():
    tmp = tempfile.mkdtemp(prefix="sqe-rest-s3-")
    s3 = S3Peer("lake").start()
    keys = {u: s3.add_user(u) for u in ("service", "alice", "bob")}
    vend = {u: "%s:%s" % keys[u] for u in ("alice", "bob")}  # carol gets no real keys
    rest = RestServer(os.path.join(tmp, "catalog"), TOKENS, {}, prefix="sqe",
                      s3={"location": "s3://lake/wh", "endpoint": s3.endpoint,
                          "service_key": "%s:%s" % keys["service"], "vend": vend}).start()
    stage = os.path.join(tmp, "stage")  # where writers stage files for S3
    os.makedirs(stage)
    try:
        serve = SqeServe(SQE, os.path.join(tmp, "serve"), """
[coordinator]
threads = 2

[catalog]
name = "lake"
type = "rest"
uri = "{uri}"
warehouse = "s3://lake/wh"
s3_endpoint = "{ep}"
s3_path_style = true
""".format(uri=rest.uri, ep=s3.endpoint), env={"TMPDIR": stage})
    except Exception as e:
        rest.stop()
        s3.stop()
        pytest.fail("sqe serve did not start: %s" % e)
    port = serve.trino_port
    yield {"port": port, "rest": rest, "s3": s3, "keys": keys, "log": serve.log_path, "tmp": tmp}
    serve.stop()
    rest.stop()
    s3.stop()
    with open(serve.log_path) as f:
        text = f.read()
    for u in ("alice", "bob", "service"):  # secrets never reach the server log
        assert keys[u][1] not in text, text
    shutil.rmtree(tmp, ignore_errors=True)


def run(env, sql, token="tok-alice", user="alice"):
    conn = trino.dbapi.connect(host="127.0.0.1", port=env["port"], user=user, catalog="lake",
                               schema="default", http_scheme="http",
                               auth=JWTAuthentication(token), allow_insecure_auth=True)
    cur = conn.cursor()
    cur.execute(sql)
    rows = cur.fetchall()
    conn.close()
    return rows


def pyiceberg_catalog(env, user="alice"):
    from pyiceberg.catalog.rest import RestCatalog
    key, secret = env["keys"][user]
    return RestCatalog("lake", **{
        "uri": env["rest"].uri, "token": "tok-" + user,
        "s3.endpoint": env["s3"].endpoint, "s3.access-key-id": key,
        "s3.secret-access-key": secret, "s3.region": "us-east-1",
        "s3.path-style-access": "true"})


def table_requests(env, prefix):
    """S3 requests for the table files under prefix, except the catalog's own reads and writes
    of metadata files (loadTable and commits: the REST server uses its service key)."""
    svc = env["keys"]["service"][0]
    reqs = [r for r in env["s3"].requests() if r[2].startswith("/lake/" + prefix)]
    others = [r for r in reqs if r[0] == svc]
    assert all(r[1] in ("GET", "PUT", "HEAD") and r[2].endswith(".metadata.json")
               for r in others), others
    return [r for r in reqs if r[0] != svc]


@pytest.fixture(scope="module")
def pyi_table(env):
    """s3ns.events written by pyiceberg (as alice) into s3://lake/wh/s3ns/events."""
    cat = pyiceberg_catalog(env)
    cat.create_namespace("s3ns")
    schema = pa.schema([("id", pa.int64()), ("name", pa.string()), ("v", pa.float64())])
    t = cat.create_table("s3ns.events", schema=schema)
    t.append(pa.table({"id": [1, 2, 3], "name": ["a", "b", "c"], "v": [1.5, 2.5, 3.5]},
                      schema=schema))
    assert t.metadata_location.startswith("s3://lake/wh/"), t.metadata_location
    return "wh/s3ns"


def test_catalog_writes_metadata_on_s3_with_service_key(env, pyi_table):
    keys = env["s3"].list_keys("wh/s3ns/events/")
    assert any(k.endswith(".metadata.json") for k in keys), keys
    assert any(k.endswith(".parquet") for k in keys), keys
    puts = [r for r in env["s3"].requests() if r[1] == "PUT"
            and r[2].startswith("/lake/" + pyi_table) and r[2].endswith(".metadata.json")]
    assert puts and all(r[0] == env["keys"]["service"][0] for r in puts), puts


def test_each_user_reads_with_own_vended_key(env, pyi_table):
    for user in ("alice", "bob"):
        env["s3"].clear()
        rows = run(env, "SELECT id, name, v FROM lake.s3ns.events ORDER BY id",
                   token="tok-" + user, user=user)
        assert rows == [[1, "a", 1.5], [2, "b", 2.5], [3, "c", 3.5]]
        reqs = table_requests(env, pyi_table)
        assert any(r[2].endswith(".parquet") and r[1] == "GET" for r in reqs), reqs
        assert any(r[2].endswith(".avro") and r[1] == "GET" for r in reqs), reqs
        # every one of them signed with this user's own key, and accepted
        assert {r[0] for r in reqs} == {env["keys"][user][0]}, reqs
        assert all(r[3] in (200, 206) for r in reqs), reqs


def test_user_without_usable_keys_gets_no_data(env, pyi_table):
    # carol is known to the catalog, but what it vends her is no key moto knows
    env["s3"].clear()
    with pytest.raises(TrinoUserError) as ei:
        run(env, "SELECT * FROM lake.s3ns.events", token="tok-carol", user="carol")
    assert ei.value.error_name in ("PERMISSION_DENIED", "GENERIC_INTERNAL_ERROR"), ei.value
    reqs = table_requests(env, pyi_table)
    assert reqs and all(r[3] == 403 for r in reqs), reqs
    assert not {r[0] for r in reqs} & {env["keys"][u][0] for u in env["keys"]}


def test_missing_data_file_is_named(env, pyi_table):
    cat = pyiceberg_catalog(env)
    schema = pa.schema([("x", pa.int64())])
    t = cat.create_table("s3ns.gone", schema=schema)
    t.append(pa.table({"x": [1, 2]}, schema=schema))
    data = [k for k in env["s3"].list_keys("wh/s3ns/gone/") if k.endswith(".parquet")]
    assert len(data) == 1
    env["s3"].delete_object(data[0])
    with pytest.raises(TrinoUserError) as ei:
        run(env, "SELECT * FROM lake.s3ns.gone")
    assert "s3://lake/" + data[0] in ei.value.message, ei.value.message


def test_typed_paths_never_use_table_credentials(env, pyi_table):
    # alice's scan leaves the data file's footer in the cache under her identity; the same file
    # named in read_parquet by bob is opened with the server's own (environment) context, never
    # with a key some catalog vended, and never served from alice's cache entry
    run(env, "SELECT count(*) FROM lake.s3ns.events", token="tok-alice", user="alice")
    data = [k for k in env["s3"].list_keys("wh/s3ns/events/") if k.endswith(".parquet")]
    assert data
    env["s3"].clear()
    with pytest.raises(TrinoUserError):
        run(env, "SELECT * FROM read_parquet('s3://lake/%s')" % data[0], token="tok-bob",
            user="bob")
    reqs = [r for r in env["s3"].requests() if r[0] != "-"]
    vended = {env["keys"][u][0] for u in env["keys"] if u != "service"}
    assert not {r[0] for r in reqs} & vended, reqs


# ---- writes (SQE writes s3:// tables as the session's user) ---------------------------------

def pyi_rows(env, name, cols, user="bob"):
    """The rows pyiceberg (as user) reads from table name, sorted."""
    t = pyiceberg_catalog(env, user).load_table(name)
    data = t.scan().to_arrow().to_pylist()
    return sorted([[r[c] for c in cols] for r in data])


def assert_signed_by(env, prefix, user, methods=("PUT", "POST")):
    """Every write request under prefix was signed with user's key and accepted."""
    reqs = [r for r in table_requests(env, prefix) if r[1] in methods]
    assert reqs, env["s3"].requests()
    assert {r[0] for r in reqs} == {env["keys"][user][0]}, reqs
    assert all(r[3] in (200, 204) for r in reqs), reqs
    return reqs


def data_keys(env, prefix):
    return sorted(k for k in env["s3"].list_keys(prefix) if "/data/" in k)


@pytest.fixture(scope="module")
def wns(env, pyi_table):
    """Namespace w, made by SQE, for the tables SQE writes."""
    run(env, "CREATE SCHEMA lake.w")
    return "w"


def test_sqe_writes_pyiceberg_reads(env, wns):
    run(env, "CREATE TABLE lake.w.t (id bigint, name varchar, v double)")
    env["s3"].clear()
    assert run(env, "INSERT INTO lake.w.t VALUES (1, 'a', 1.5), (2, 'b', 2.5), (3, NULL, 3.5)") \
        == [[3]]
    puts = assert_signed_by(env, "wh/w/t/", "alice")
    assert any(r[2].endswith(".parquet") and "/data/" in r[2] for r in puts), puts
    expect = [[1, "a", 1.5], [2, "b", 2.5], [3, None, 3.5]]
    assert pyi_rows(env, "w.t", ["id", "name", "v"]) == expect
    assert run(env, "SELECT id, name, v FROM lake.w.t ORDER BY id", token="tok-bob",
               user="bob") == expect
    # nothing was left in the staging directory
    assert os.listdir(os.path.join(env["tmp"], "stage")) == []


def test_ctas_delete_update_merge_truncate(env, wns):
    run(env, "CREATE TABLE lake.w.c AS SELECT id, name, v FROM lake.s3ns.events", token="tok-bob",
        user="bob")
    cols = ["id", "name", "v"]
    assert pyi_rows(env, "w.c", cols) == [[1, "a", 1.5], [2, "b", 2.5], [3, "c", 3.5]]
    env["s3"].clear()
    run(env, "DELETE FROM lake.w.c WHERE id = 2", token="tok-bob", user="bob")
    assert_signed_by(env, "wh/w/c/", "bob")
    assert pyi_rows(env, "w.c", cols, user="alice") == [[1, "a", 1.5], [3, "c", 3.5]]
    env["s3"].clear()
    run(env, "UPDATE lake.w.c SET v = v * 10 WHERE id = 3")
    assert_signed_by(env, "wh/w/c/", "alice")
    assert pyi_rows(env, "w.c", cols) == [[1, "a", 1.5], [3, "c", 35.0]]
    run(env, "MERGE INTO lake.w.c t USING (VALUES (1, 'x'), (4, 'd')) s(id, name) ON t.id = s.id "
             "WHEN MATCHED THEN UPDATE SET name = s.name "
             "WHEN NOT MATCHED THEN INSERT (id, name, v) VALUES (s.id, s.name, 0.5)")
    expect = [[1, "x", 1.5], [3, "c", 35.0], [4, "d", 0.5]]
    assert pyi_rows(env, "w.c", cols) == expect
    assert run(env, "SELECT id, name, v FROM lake.w.c ORDER BY id", token="tok-bob",
               user="bob") == expect
    run(env, "TRUNCATE TABLE lake.w.c")
    assert pyi_rows(env, "w.c", cols) == []
    assert run(env, "SELECT count(*) FROM lake.w.c") == [[0]]


def test_merge_on_read_deletes(env, wns):
    # position delete files (v2) and deletion vectors (v3), uploaded as the writing user
    for version in (2, 3):
        name = "mor%d" % version
        run(env, "CREATE TABLE lake.w.%s (id bigint, s varchar) WITH (format_version = %d, "
                 "extra_properties = MAP(ARRAY['write.delete.mode', 'write.update.mode'], "
                 "ARRAY['merge-on-read', 'merge-on-read']))" % (name, version))
        run(env, "INSERT INTO lake.w.%s SELECT x, 's' || CAST(x AS varchar) "
                 "FROM unnest(sequence(1, 100)) t(x)" % name)
        env["s3"].clear()
        run(env, "DELETE FROM lake.w.%s WHERE id %% 10 = 0" % name, token="tok-bob", user="bob")
        puts = assert_signed_by(env, "wh/w/%s/" % name, "bob")
        suffix = ".puffin" if version == 3 else "-deletes.parquet"
        assert any(r[2].endswith(suffix) for r in puts), puts
        run(env, "UPDATE lake.w.%s SET s = 'u' WHERE id = 5" % name)
        expect = sorted([[x, "u" if x == 5 else "s%d" % x] for x in range(1, 101) if x % 10])
        if version == 2:  # pyiceberg 0.12 reads positional deletes, not deletion vectors
            assert pyi_rows(env, "w." + name, ["id", "s"]) == expect
        assert run(env, "SELECT id, s FROM lake.w.%s ORDER BY id" % name, token="tok-bob",
                   user="bob") == expect


def test_procedures_on_s3(env, wns):
    run(env, "CREATE TABLE lake.w.p (x bigint)")
    for i in range(3):
        run(env, "INSERT INTO lake.w.p VALUES (%d), (%d)" % (2 * i, 2 * i + 1))
    assert len(data_keys(env, "wh/w/p/")) == 3
    env["s3"].clear()
    rows = run(env, "CALL lake.system.rewrite_data_files(table => 'w.p', options => "
                    "map(ARRAY['min-input-files'], ARRAY['2']))", token="tok-bob", user="bob")
    assert rows[0][0] == 3 and rows[0][1] == 1, rows
    assert_signed_by(env, "wh/w/p/", "bob")
    assert pyi_rows(env, "w.p", ["x"]) == [[x] for x in range(6)]
    env["s3"].clear()
    run(env, "CALL lake.system.expire_snapshots(table => 'w.p', older_than => "
             "current_timestamp, retain_last => 1)")
    dels = [r for r in table_requests(env, "wh/w/p/") if r[1] == "DELETE"]
    assert dels and {r[0] for r in dels} == {env["keys"]["alice"][0]}, dels
    assert len(data_keys(env, "wh/w/p/")) == 1
    assert run(env, "SELECT sum(x) FROM lake.w.p") == [[15]]


def test_sqe_reads_what_pyiceberg_appends_to_sqe_table(env, wns):
    cat = pyiceberg_catalog(env, "bob")
    t = cat.load_table("w.t")
    t.append(pa.table({"id": [10], "name": ["z"], "v": [9.0]},
                      schema=t.schema().as_arrow()))
    assert run(env, "SELECT id, name FROM lake.w.t WHERE id >= 3 ORDER BY id") == \
        [[3, None], [10, "z"]]


def test_failed_write_leaves_nothing(env, wns):
    # carol's vended keys are unknown to moto: her INSERT fails before anything is committed
    before = env["s3"].list_keys("wh/w/t/")
    with pytest.raises(TrinoUserError):
        run(env, "INSERT INTO lake.w.t VALUES (99, 'c', 0)", token="tok-carol", user="carol")
    assert env["s3"].list_keys("wh/w/t/") == before
    assert os.listdir(os.path.join(env["tmp"], "stage")) == []
    assert run(env, "SELECT count(*) FROM lake.w.t WHERE id = 99") == [[0]]


# ---- faults -----------------------------------------------------------------------------------

def run_async(env, sql, **kw):
    """Runs sql in a thread; returns (thread, box) where box gets "rows" or "error"."""
    import threading
    box = {}

    def go():
        try:
            box["rows"] = run(env, sql, **kw)
        except Exception as e:  # noqa: BLE001 - the test inspects it
            box["error"] = e
    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t, box


def restart_catalog(env, port):
    env["rest"].start(port)


def wait_query(env, sql, timeout=40, **kw):
    """sql's rows once the catalog answers again (SQE's circuit breaker may still be open)."""
    deadline = time.time() + timeout
    while True:
        try:
            return run(env, sql, **kw)
        except TrinoQueryError:
            if time.time() > deadline:
                raise
            time.sleep(0.5)


def test_catalog_down_before_commit(env, wns):
    # the catalog goes away after the table was loaded and while the data file is uploaded:
    # the commit cannot be sent, the statement fails naming the catalog, the file is removed
    run(env, "CREATE TABLE lake.w.f1 (x bigint)")
    run(env, "INSERT INTO lake.w.f1 VALUES (1)")
    before = env["s3"].list_keys("wh/w/f1/")
    port = env["rest"].port
    env["s3"].hold("PUT", r"/wh/w/f1/data/.*\.parquet$")
    th, box = run_async(env, "INSERT INTO lake.w.f1 VALUES (2)")
    try:
        assert env["s3"].held.wait(30)
        env["rest"].stop()
    finally:
        env["s3"].release()
    th.join(120)
    restart_catalog(env, port)
    err = box.get("error")
    assert isinstance(err, TrinoQueryError), box
    assert "Commit to table w.f1 failed (nothing was committed)" in err.message, err.message
    assert "REST catalog http://127.0.0.1:%d unreachable" % port in err.message, err.message
    assert env["s3"].list_keys("wh/w/f1/") == before
    assert wait_query(env, "SELECT x FROM lake.w.f1") == [[1]]
    assert pyi_rows(env, "w.f1", ["x"]) == [[1]]
    assert os.listdir(os.path.join(env["tmp"], "stage")) == []


def test_catalog_killed_mid_commit(env, wns):
    # kill -9 of the catalog while it writes the new metadata file of a commit: after the
    # restart the table is at its old snapshot, whole and readable; SQE kept its data files
    # (the commit's outcome was unknown to it) and the next write works
    run(env, "CREATE TABLE lake.w.f2 (x bigint)")
    run(env, "INSERT INTO lake.w.f2 VALUES (1), (2)")
    port = env["rest"].port
    env["s3"].hold("PUT", r"/wh/w/f2/metadata/[^/]*\.metadata\.json$")
    th, box = run_async(env, "INSERT INTO lake.w.f2 VALUES (3)")
    try:
        assert env["s3"].held.wait(30)
        env["rest"].kill()
    finally:
        env["s3"].release()
    th.join(120)
    restart_catalog(env, port)
    err = box.get("error")
    assert isinstance(err, TrinoQueryError), box
    assert err.error_name == "COMMIT_STATE_UNKNOWN", err
    assert "Commit state unknown for table w.f2" in err.message, err.message
    assert wait_query(env, "SELECT x FROM lake.w.f2 ORDER BY x") == [[1], [2]]
    assert pyi_rows(env, "w.f2", ["x"]) == [[1], [2]]
    run(env, "INSERT INTO lake.w.f2 VALUES (4)")
    assert run(env, "SELECT x FROM lake.w.f2 ORDER BY x") == [[1], [2], [4]]


def test_remove_orphan_files_on_s3(env, wns):
    # what the commit of unknown outcome above left (its data file and manifests, the metadata
    # file the killed catalog was writing) is not referenced: remove_orphan_files deletes it,
    # listing and deleting with the caller's key
    before = env["s3"].list_keys("wh/w/f2/")
    # S3 listings carry no age yet: with older_than before the call nothing goes
    assert run(env, "CALL lake.system.remove_orphan_files(table => 'w.f2', "
                    "older_than => current_timestamp)") == []
    env["s3"].clear()
    rows = run(env, "CALL lake.system.remove_orphan_files(table => 'w.f2', "
                    "older_than => current_timestamp + INTERVAL '1' DAY)", token="tok-bob",
               user="bob")
    gone = sorted(r[0] for r in rows)
    assert any(g.endswith(".parquet") and "/data/" in g for g in gone), gone
    assert all(g.startswith("s3://lake/wh/w/f2/") for g in gone), gone
    after = env["s3"].list_keys("wh/w/f2/")
    assert sorted(set(before) - set(after)) == sorted(g[len("s3://lake/"):] for g in gone)
    reqs = table_requests(env, "wh/w/f2/")
    dels = [r for r in reqs if r[1] == "DELETE"]
    assert len(dels) == len(gone) and {r[0] for r in reqs} == {env["keys"]["bob"][0]}, reqs
    assert run(env, "SELECT x FROM lake.w.f2 ORDER BY x") == [[1], [2], [4]]
    assert pyi_rows(env, "w.f2", ["x"]) == [[1], [2], [4]]


def test_s3_503_share_is_retried(env, wns):
    run(env, "CREATE TABLE lake.w.f3 (x bigint, s varchar)")
    env["s3"].fail_share(env["keys"]["alice"][0], 0.3)
    try:
        run(env, "INSERT INTO lake.w.f3 SELECT x, 'v' || CAST(x AS varchar) "
                 "FROM unnest(sequence(1, 1000)) t(x)")
        rows = run(env, "SELECT count(*), sum(x), max(s) FROM lake.w.f3")
        failed = env["s3"].failed
    finally:
        env["s3"].fail_share(None, 0)
    assert rows == [[1000, 500500, "v999"]]
    assert failed > 0
    assert pyi_rows(env, "w.f3", ["x"])[-1] == [1000]
