"""What a logged-in user can reach of the server's files and object stores, and the limits a
session cannot raise (issue 14 items 1, 2 and 7; issue 13 item 1: fail-closed identity).

Servers ($SQE_BIN, default build/sqe; the `serve` stage uses the ASan build), each started once:
- plain:  defaults for [storage.tvf] (no local files), [query] memory_limit = 64MiB and
          max_result_rows = 1000;
- rooted: [storage.tvf] allow_local_paths with allowed_local_roots = [<tree>/root], and
          [query] per_user_memory = 32MiB;
- etc:    allowed_local_roots = ["/etc"] (only read from: a root is writable too);
- s3_bare: moto S3 (signature checks, a record of the key that signed each request); the server's
          environment holds valid keys (SQE_S3_* and AWS_*) and the prefix is allowed, but
          [storage] has no keys: its sessions have no credentials;
- s3_keys: [storage] keys and allowed_object_store_prefixes = ["s3://sec/users/{user}/"].

The file tree: root/ (data.csv, more.csv, t.parquet, sub/nested.csv, escape.csv -> the outside
secret, escape_dir -> outside/, victim.csv -> outside/victim.csv) next to outside/ (secret.csv,
victim.csv, keep.parquet). Every read and write case runs over both protocols: Trino HTTP with
the trino client and Flight SQL with adbc_driver_flightsql.

Run: .cache/venv/bin/python -m pytest -q tests/hostile/test_file_access.py
"""
import os
import sys
import threading
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "load"))
from sql_clients import QueryError, run  # noqa: E402
from sqe_serve import SqeServe, default_binary, free_port  # noqa: E402

trino = pytest.importorskip("trino", reason="the trino client is not in .cache/venv "
                            "(scripts/setup.sh installs it)")
fs = pytest.importorskip("adbc_driver_flightsql.dbapi", reason="adbc_driver_flightsql is not in "
                         ".cache/venv (scripts/setup.sh installs it)")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

PROTOCOLS = ["trino", "flight"]
SECRET = "s3cr3t-value-42"


def refused(srv, sql, proto, name="PERMISSION_DENIED", text="Access denied"):
    with pytest.raises(QueryError) as ei:
        run(srv, sql, proto)
    if proto == "trino" and name:
        assert ei.value.name == name, ei.value
    assert text in ei.value.message, ei.value.message
    assert SECRET not in ei.value.message and "42\n" not in ei.value.message
    return ei.value.message


# --- the file tree and the servers --------------------------------------------------------------

@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    base = tmp_path_factory.mktemp("files")
    root, outside = base / "root", base / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (root / "data.csv").write_text("a,b\n1,x\n2,y\n")
    (root / "more.csv").write_text("a,b\n3,z\n")
    (root / "sub" / "nested.csv").write_text("a,b\n4,w\n")
    pq.write_table(pa.table({"v": [10, 20, 30]}), root / "t.parquet")
    (outside / "secret.csv").write_text(f"secret\n{SECRET}\n")
    (outside / "victim.csv").write_text(f"victim\n{SECRET}\n")
    pq.write_table(pa.table({"keep": [1]}), outside / "keep.parquet")
    os.symlink(outside / "secret.csv", root / "escape.csv")
    os.symlink(outside, root / "escape_dir")
    os.symlink(outside / "victim.csv", root / "victim.csv")
    return {"root": root, "outside": outside}


def start(tmp_path_factory, name, toml, env=None):
    return SqeServe(default_binary(), tmp_path_factory.mktemp(name), toml, env=env)


def stop(srv):
    status, out = srv.stop()
    assert status == 0, out[-3000:]
    assert SqeServe.sanitizer_report(out) is None, out[-6000:]


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    srv = start(tmp_path_factory, "plain",
                "[query]\nmemory_limit = \"64MiB\"\nmax_result_rows = 1000\n")
    yield srv
    stop(srv)


@pytest.fixture(scope="module")
def rooted(tmp_path_factory, tree):
    srv = start(tmp_path_factory, "rooted",
                "[storage.tvf]\nallow_local_paths = true\n"
                f"allowed_local_roots = [\"{tree['root']}\"]\n"
                "[query]\nper_user_memory = \"32MiB\"\n")
    yield srv
    stop(srv)


# --- local files: off by default -----------------------------------------------------------------

def default_reads(tree):
    r = tree["root"]
    return [
        "SELECT * FROM read_csv('/etc/passwd')",
        "SELECT * FROM read_csv('/etc/shadow', delim => ':', header => false)",
        "SELECT * FROM '/etc/passwd'",
        "SELECT * FROM read_csv('/etc/*')",
        f"SELECT * FROM read_csv('{r}/data.csv')",
        f"SELECT * FROM read_csv('{r}/../outside/secret.csv')",
        f"SELECT * FROM read_parquet('{r}/t.parquet')",
        f"SELECT * FROM parquet_metadata('{r}/t.parquet')",
        f"SELECT * FROM parquet_schema('{r}/t.parquet')",
        f"SELECT * FROM '{r}/t.parquet'",
        f"SELECT * FROM read_csv('file://{r}/data.csv')",
    ]


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_no_local_file_by_default(plain, tree, proto):
    for sql in default_reads(tree):
        msg = refused(plain, sql, proto)
        assert "allow_local_paths" in msg, msg


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_default_refusals_do_not_tell_existence(plain, proto):
    a = refused(plain, "SELECT * FROM read_csv('/etc/passwd')", proto)
    b = refused(plain, "SELECT * FROM read_csv('/etc/no-such-file-at-all')", proto)
    assert a.replace("/etc/passwd", "P") == b.replace("/etc/no-such-file-at-all", "P")


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_no_copy_by_default(plain, tree, proto):
    target = tree["root"] / f"new_{proto}.parquet"
    refused(plain, f"COPY (SELECT 1 AS a) TO '{target}'", proto)
    assert not target.exists()
    keep = tree["outside"] / "keep.parquet"
    before = keep.read_bytes()
    refused(plain, f"COPY (SELECT 2 AS a) TO '{keep}' WITH (overwrite = true)", proto)
    assert keep.read_bytes() == before


def test_no_table_location_by_default(plain, tree):
    loc = tree["outside"] / "tbl"
    refused(plain, f"CREATE TABLE located (x integer) WITH (location = '{loc}')", "trino")
    refused(plain, "CREATE TABLE located2 (x integer) WITH "
                   f"(extra_properties = MAP(ARRAY['write.data.path'], ARRAY['{loc}']))", "trino")
    assert not loc.exists()


# --- local files: on, under roots ---------------------------------------------------------------

@pytest.mark.parametrize("proto", PROTOCOLS)
def test_reads_inside_the_roots(rooted, tree, proto):
    r = tree["root"]
    assert run(rooted, f"SELECT a, b FROM read_csv('{r}/data.csv') ORDER BY a", proto) == \
        [[1, "x"], [2, "y"]]
    assert run(rooted, f"SELECT count(*) FROM read_csv('{r}/[dm]*.csv')", proto) == [[3]]
    assert run(rooted, f"SELECT a FROM read_csv('{r}/sub/../sub/nested.csv')", proto) == [[4]]
    assert run(rooted, f"SELECT sum(v) FROM read_parquet('{r}/t.parquet')", proto) == [[60]]
    assert run(rooted, f"SELECT sum(v) FROM '{r}/t.parquet'", proto) == [[60]]
    assert run(rooted, f"SELECT count(*) FROM parquet_metadata('{r}/t.parquet')", proto) == [[1]]
    assert run(rooted, f"SELECT count(*) FROM parquet_schema('{r}/t.parquet')", proto) == [[2]]


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_reads_outside_the_roots_are_refused(rooted, tree, proto):
    r, o = tree["root"], tree["outside"]
    for sql in [
        f"SELECT * FROM read_csv('{o}/secret.csv')",               # absolute
        f"SELECT * FROM read_csv('{r}/../outside/secret.csv')",    # ..
        f"SELECT * FROM read_csv('{r}/sub/../../outside/secret.csv')",
        f"SELECT * FROM read_csv('{r}/escape.csv')",               # symlink to a file outside
        f"SELECT * FROM read_csv('{r}/escape_dir/secret.csv')",    # symlinked directory
        f"SELECT * FROM read_csv('{r}/*.csv')",                    # glob matching escape.csv
        f"SELECT * FROM read_csv('{r}/escape_dir/*.csv')",
        f"SELECT * FROM read_csv('{r}/../outside/*.csv')",         # glob prefix outside
        f"SELECT * FROM read_csv('{r}/..*/outside/secret.csv')",   # '..*' matches '..'
        f"SELECT * FROM '{o}/secret.csv'",
        f"SELECT * FROM read_parquet('{o}/keep.parquet')",
        f"SELECT * FROM read_csv('file://{o}/secret.csv')",
    ]:
        refused(rooted, sql, proto, text="allowed_local_roots")


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_refusals_inside_roots_do_not_tell_existence_outside(rooted, tree, proto):
    o = tree["outside"]
    a = refused(rooted, f"SELECT * FROM read_csv('{o}/secret.csv')", proto)
    b = refused(rooted, f"SELECT * FROM read_csv('{o}/nothing-here.csv')", proto)
    assert a.replace("secret.csv", "F") == b.replace("nothing-here.csv", "F")
    c = refused(rooted, f"SELECT * FROM read_csv('{tree['root']}/escape_dir/nothing.csv')", proto)
    d = refused(rooted, f"SELECT * FROM read_csv('{tree['root']}/escape_dir/secret.csv')", proto)
    assert c.replace("nothing.csv", "F") == d.replace("secret.csv", "F")


def test_etc_passwd_only_with_a_root(plain, rooted, tmp_path_factory):
    sql = "SELECT * FROM read_csv('/etc/passwd', delim => ':', header => false)"
    refused(plain, sql, "trino", text="allow_local_paths")
    refused(rooted, sql, "trino", text="allowed_local_roots")
    srv = start(tmp_path_factory, "etc", "[storage.tvf]\nallow_local_paths = true\n"
                                         "allowed_local_roots = [\"/etc\"]\n")
    try:
        rows = run(srv, sql)
        assert any(r[0] == "root" for r in rows), rows[:3]
    finally:
        stop(srv)


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_copy_inside_roots_never_overwrites_unless_asked(rooted, tree, proto):
    target = tree["root"] / f"out_{proto}.parquet"
    run(rooted, f"COPY (SELECT 1 AS a) TO '{target}'", proto)
    assert pq.read_table(target).to_pylist() == [{"a": 1}]
    before = target.read_bytes()
    refused(rooted, f"COPY (SELECT 2 AS a) TO '{target}'", proto, name="ALREADY_EXISTS",
            text="overwrite = true")
    assert target.read_bytes() == before
    run(rooted, f"COPY (SELECT 3 AS a) TO '{target}' WITH (overwrite = true)", proto)
    assert pq.read_table(target).to_pylist() == [{"a": 3}]
    assert run(rooted, f"SELECT a FROM read_parquet('{target}')", proto) == [[3]]


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_copy_outside_roots_is_refused(rooted, tree, proto):
    r, o = tree["root"], tree["outside"]
    keep = o / "keep.parquet"
    before = keep.read_bytes()
    for target in [keep, f"{r}/../outside/keep.parquet", f"{r}/escape_dir/keep.parquet",
                   f"{r}/escape_dir/fresh_{proto}.parquet", f"{o}/fresh_{proto}.parquet"]:
        refused(rooted, f"COPY (SELECT 1 AS a) TO '{target}' WITH (overwrite = true)", proto,
                text="allowed_local_roots")
    assert keep.read_bytes() == before
    assert not (o / f"fresh_{proto}.parquet").exists()


def test_copy_replaces_a_symlink_never_its_target(rooted, tree):
    link = tree["root"] / "victim.csv"
    victim = tree["outside"] / "victim.csv"
    refused(rooted, f"COPY (SELECT 1 AS a) TO '{link}' WITH (format = 'parquet')", "trino",
            name="ALREADY_EXISTS", text="overwrite")
    run(rooted, f"COPY (SELECT 1 AS a) TO '{link}' WITH (format = 'parquet', overwrite = true)")
    assert not link.is_symlink()                       # the link itself was replaced
    assert victim.read_text() == f"victim\n{SECRET}\n"  # what it pointed at is untouched


def test_table_location_inside_roots_only(rooted, tree):
    refused(rooted, "CREATE TABLE t_out (x integer) WITH (location = "
                    f"'{tree['outside']}/t_out')", "trino", text="allowed_local_roots")
    run(rooted, f"CREATE TABLE t_in (x integer) WITH (location = '{tree['root']}/t_in')")
    run(rooted, "INSERT INTO t_in VALUES (1), (2)")
    assert run(rooted, "SELECT sum(x) FROM t_in") == [[3]]
    assert (tree["root"] / "t_in" / "metadata").is_dir()


# --- limits ----------------------------------------------------------------------------------

@pytest.mark.parametrize("proto", PROTOCOLS)
def test_session_cannot_raise_limits(plain, proto):
    msg = refused(plain, "SET SESSION query_max_memory = '100GB'", proto,
                  name="INVALID_SESSION_PROPERTY", text="[query] memory_limit")
    assert "64MiB" in msg, msg
    refused(plain, "SET SESSION threads = 1024", proto, name="INVALID_SESSION_PROPERTY",
            text="[coordinator] threads")
    run(plain, "SET SESSION query_max_memory = '16MB'", proto)  # lowering is fine


def test_session_header_cannot_raise_limits(plain):
    cur = trino.dbapi.connect(host="127.0.0.1", port=plain.trino_port, user="alice",
                              session_properties={"query_max_memory": "100GB"}).cursor()
    with pytest.raises(trino.exceptions.TrinoUserError) as ei:
        cur.execute("SELECT 1")
        cur.fetchall()
    assert ei.value.error_name == "INVALID_SESSION_PROPERTY"


HUNGRY = ("SELECT count(*) FROM (SELECT DISTINCT a.x * 100000 + b.x AS k "
          "FROM UNNEST(sequence(1, 10000)) a(x) CROSS JOIN UNNEST(sequence(1, 3000)) b(x))")


def run_with_peak_rss(srv, sql, proto="trino"):
    """Runs sql (expecting an error); returns (error, RSS before in KiB, peak RSS in KiB)."""
    run(srv, "SELECT 1", proto)
    base = srv.rss_kib()
    peak = [base]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], srv.rss_kib())
            time.sleep(0.02)

    t = threading.Thread(target=sample)
    t.start()
    try:
        with pytest.raises(QueryError) as ei:
            run(srv, sql, proto)
    finally:
        done.set()
        t.join()
    return ei.value, base, peak[0]


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_memory_limit_holds(plain, proto):
    # 30 M distinct keys need over 1 GiB of hash table: the 64 MiB limit must stop it early
    e, base, peak = run_with_peak_rss(plain, HUNGRY, proto)
    if proto == "trino":
        assert e.name == "EXCEEDED_MEMORY_LIMIT", e
    assert "memory limit of 67108864 bytes" in e.message, e.message
    assert peak - base < 320 * 1024, (base, peak)  # KiB; unlimited it grows past 1 GiB
    assert run(plain, "SELECT 1", proto) == [[1]]


def test_per_user_memory_holds(rooted):
    e, base, peak = run_with_peak_rss(rooted, HUNGRY)
    assert e.name == "EXCEEDED_MEMORY_LIMIT", e
    assert "per_user_memory" in e.message and "33554432" in e.message, e.message
    assert peak - base < 320 * 1024, (base, peak)


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_max_result_rows(plain, proto):
    q = "SELECT a.x FROM UNNEST(sequence(1, 1000)) a(x)"
    assert len(run(plain, q, proto)) == 1000
    with pytest.raises(QueryError) as ei:
        run(plain, q + " CROSS JOIN UNNEST(sequence(1, 5)) b(y)", proto)
    if proto == "trino":
        assert ei.value.name == "EXCEEDED_RESULT_ROWS_LIMIT", ei.value
    assert "max_result_rows" in ei.value.message and "1000 rows" in ei.value.message
    assert run(plain, "SELECT count(*) FROM UNNEST(sequence(1, 5000)) t(x)", proto) == [[5000]]


# --- object stores: the caller's credentials only -----------------------------------------------

@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    boto3 = pytest.importorskip("boto3")
    sys.path.insert(0, str(HERE.parent / "rest_s3"))
    from s3_peer import S3Peer
    peer = S3Peer(bucket="sec").start()
    proc_key = peer.add_user("process")     # the server process's own (environment) keys
    tvf_key = peer.add_user("tvf")          # [storage] keys for table functions
    c = boto3.client("s3", endpoint_url=peer.endpoint, aws_access_key_id=proc_key[0],
                     aws_secret_access_key=proc_key[1], region_name="us-east-1")
    local = tmp_path_factory.mktemp("s3data") / "t.parquet"
    pq.write_table(pa.table({"v": [1, 2, 3]}), local)
    for key in ["data/t.parquet", "users/alice/a.parquet", "users/bob/b.parquet"]:
        c.upload_file(str(local), "sec", key)
    env = {"SQE_S3_ENDPOINT": peer.endpoint, "SQE_S3_ACCESS_KEY_ID": proc_key[0],
           "SQE_S3_SECRET_ACCESS_KEY": proc_key[1], "SQE_S3_PATH_STYLE": "1",
           "SQE_S3_REGION": "us-east-1", "AWS_ACCESS_KEY_ID": proc_key[0],
           "AWS_SECRET_ACCESS_KEY": proc_key[1], "AWS_ENDPOINT_URL": peer.endpoint}
    yield {"peer": peer, "proc": proc_key, "tvf": tvf_key, "env": env}
    peer.stop()


@pytest.fixture(scope="module")
def s3_bare(tmp_path_factory, s3):
    srv = start(tmp_path_factory, "s3bare",
                "[storage.tvf]\nallowed_object_store_prefixes = [\"s3://sec/\"]\n", env=s3["env"])
    yield srv
    stop(srv)


@pytest.fixture(scope="module")
def s3_keys(tmp_path_factory, s3):
    toml = (f"[storage]\ns3_endpoint = \"{s3['peer'].endpoint}\"\ns3_allow_http = true\n"
            f"s3_path_style = true\ns3_access_key_id = \"{s3['tvf'][0]}\"\n"
            f"s3_secret_access_key = \"{s3['tvf'][1]}\"\n"
            "[storage.tvf]\nallowed_object_store_prefixes = [\"s3://sec/users/{user}/\"]\n")
    srv = start(tmp_path_factory, "s3keys", toml)
    yield srv
    stop(srv)


def embedded_rows(env, sql):
    """The same query in `sqe sql` (the user's own process: environment credentials apply)."""
    import json
    import subprocess
    full = dict(os.environ, **env)
    r = subprocess.run([str(default_binary()), "sql", "--memory", "--format", "json", "-e", sql],
                       env=full, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout)  # one array of row objects


@pytest.mark.parametrize("proto", PROTOCOLS)
def test_session_without_credentials_gets_no_s3_data(s3, s3_bare, proto):
    sql = "SELECT sum(v) FROM read_parquet('s3://sec/data/t.parquet')"
    # the keys in the environment work (the embedded shell uses them) ...
    assert [list(r.values()) for r in embedded_rows(s3["env"], sql)] == [[6]]
    s3["peer"].clear()
    # ... but a server session has no credentials: refused before any request is signed
    msg = refused(s3_bare, sql, proto, text="No S3 credentials")
    assert s3["proc"][1] not in msg
    signed = [r for r in s3["peer"].requests() if r[0] == s3["proc"][0]]
    assert signed == [], signed
    # outside the allowed prefixes it is refused by the policy
    refused(s3_bare, "SELECT * FROM read_parquet('s3://other/x.parquet')", proto,
            text="allowed_object_store_prefixes")


def test_s3_copy_without_credentials_writes_nothing(s3, s3_bare):
    s3["peer"].clear()
    refused(s3_bare, "COPY (SELECT 1 AS a) TO 's3://sec/data/new.parquet'", "trino",
            text="No S3 credentials")
    assert "data/new.parquet" not in s3["peer"].list_keys("data/")
    assert [r for r in s3["peer"].requests() if r[0] == s3["proc"][0]] == []


def test_s3_prefix_per_user(s3, s3_keys):
    peer = s3["peer"]
    peer.clear()
    assert run(s3_keys, "SELECT sum(v) FROM read_parquet('s3://sec/users/alice/a.parquet')",
               user="alice") == [[6]]
    keys = {r[0] for r in peer.requests()}
    assert keys == {s3["tvf"][0]}, peer.requests()  # signed with [storage] keys, never the process's
    peer.clear()
    refused(s3_keys, "SELECT * FROM read_parquet('s3://sec/users/bob/b.parquet')", "trino")
    refused(s3_keys, "SELECT * FROM read_parquet('s3://sec/users/*/a.parquet')", "trino")
    refused(s3_keys, "SELECT * FROM read_parquet('s3://sec/users/alice/../bob/b.parquet')",
            "trino")
    assert peer.requests() == []  # refused before anything was asked of S3
    assert run(s3_keys, "SELECT sum(v) FROM read_parquet('s3://sec/users/bob/b.parquet')",
               user="bob") == [[6]]
    run(s3_keys, "COPY (SELECT 7 AS v) TO 's3://sec/users/alice/out.parquet'", user="alice")
    refused(s3_keys, "COPY (SELECT 8 AS v) TO 's3://sec/users/alice/out.parquet'", "trino",
            name="ALREADY_EXISTS", text="overwrite")
    run(s3_keys, "COPY (SELECT 9 AS v) TO 's3://sec/users/alice/out.parquet' "
                 "WITH (overwrite = true)", user="alice")
    assert run(s3_keys, "SELECT v FROM read_parquet('s3://sec/users/alice/out.parquet')",
               user="alice") == [[9]]


# --- identity is passed, never kept per thread ------------------------------------------------

def test_no_identity_in_thread_locals():
    # the principal travels explicitly (common/principal.h); a per-thread token or user would
    # follow whatever thread runs a statement, not the caller
    src = HERE.parents[1] / "src"
    words = ("token", "user", "principal", "identity", "cred", "auth", "secret", "session")
    found = []
    for f in src.rglob("*.[ch]"):
        for i, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            if "_Thread_local" in line and any(w in line.lower() for w in words):
                found.append(f"{f.relative_to(src)}:{i}: {line.strip()}")
    assert found == [], found


# --- running as root ------------------------------------------------------------------------

@pytest.mark.skipif(os.geteuid() != 0, reason="needs to run as root: the check is on the "
                    "server's own user id")
def test_root_is_refused_in_production_mode(tmp_path_factory):
    import subprocess
    d = tmp_path_factory.mktemp("prod")
    users = d / "users"
    users.write_text("")
    cfg = d / "sqe.toml"
    cfg.write_text("[coordinator]\nproduction_mode = true\n[auth]\nmode = \"password\"\n"
                   f"users_file = \"{users}\"\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQE_")}
    env["SQE_COORDINATOR__DATA_DIR"] = str(d / "data")
    r = subprocess.run([str(default_binary()), "serve", "--config", str(cfg), "--trino-port",
                        str(free_port()), "--flight-port", "0", "--health-port", "0"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert "refusing to run as root in production mode" in r.stderr, r.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="needs to run as root: the check is on the "
                    "server's own user id")
def test_root_warning(plain):
    assert "WARNING: running as root" in plain.log_text()
