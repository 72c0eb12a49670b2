"""test_s3_io.py: SQE's S3 storage (src/io/io_s3.c, s3_client.c, sigv4.c) against a
signature-checking S3 server (moto with IAM auth, tests/s3/s3_server.py), through the engine
(`sqe sql --memory -e`) and through tests/s3/s3_driver.c.

Environment: SQE_BUILD_DIR (default build-asan/) holds sqe and s3_driver.
"""
import http.client
import http.server
import os
import subprocess
import sys
import threading
from pathlib import Path

import boto3
import botocore
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from s3_server import S3Server  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("SQE_BUILD_DIR", ROOT / "build-asan"))
SQE = BUILD / "sqe"
DRIVER = BUILD / "s3_driver"


@pytest.fixture(scope="module")
def server():
    with S3Server() as s:
        yield s


def s3_env(server, **over):
    env = dict(os.environ, SQE_S3_ENDPOINT=server.endpoint, SQE_S3_ACCESS_KEY_ID=server.access_key,
               SQE_S3_SECRET_ACCESS_KEY=server.secret_key, SQE_S3_REGION="us-east-1",
               SQE_S3_PATH_STYLE="1", SQE_S3_PART_SIZE=str(5 << 20))
    env.pop("SQE_S3_SESSION_TOKEN", None)
    env.update(over)
    return env


def sql(env, text):
    return subprocess.run([str(SQE), "sql", "--memory", "-e", text], env=env, capture_output=True,
                          text=True, timeout=300)


def driver(env, *args):
    return subprocess.run([str(DRIVER), *args], env=env, capture_output=True, timeout=300)


def boto(server, secret=None):
    return boto3.client("s3", endpoint_url=server.endpoint, aws_access_key_id=server.access_key,
                        aws_secret_access_key=secret or server.secret_key, region_name="us-east-1")


def local_parquet(tmp_path, name, query):
    """A Parquet file written by SQE's COPY to local disk."""
    path = tmp_path / name
    r = sql(os.environ.copy(), f"COPY ({query}) TO '{path}'")
    assert r.returncode == 0, r.stderr
    return path


# ---- the server really checks signatures -------------------------------------------------------

def test_server_refuses_wrong_secret(server):
    boto(server).put_object(Bucket=server.bucket, Key="sig/x", Body=b"x")
    assert boto(server).get_object(Bucket=server.bucket, Key="sig/x")["Body"].read() == b"x"
    with pytest.raises(botocore.exceptions.ClientError) as e:
        boto(server, secret=server.secret_key + "x").get_object(Bucket=server.bucket, Key="sig/x")
    assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 403
    assert e.value.response["Error"]["Code"] == "SignatureDoesNotMatch"


# ---- the client through s3_driver --------------------------------------------------------------

def test_multipart_upload_list_get_delete(server, tmp_path):
    env = s3_env(server)
    data = os.urandom((12 << 20) + 12345)
    src = tmp_path / "big.bin"
    src.write_bytes(data)
    r = driver(env, "upload", str(src), f"s3://{server.bucket}/mp/big.bin")
    assert r.returncode == 0, r.stderr
    assert b"requests 5" in r.stderr  # create, 3 parts, complete
    got = boto(server).get_object(Bucket=server.bucket, Key="mp/big.bin")["Body"].read()
    assert got == data
    assert "-3" in boto(server).head_object(Bucket=server.bucket, Key="mp/big.bin")["ETag"]
    off = (7 << 20) - 10
    r = driver(env, "get", f"s3://{server.bucket}/mp/big.bin", str(off), "100000")
    assert r.returncode == 0 and r.stdout == data[off:off + 100000]
    r = driver(env, "ls", f"s3://{server.bucket}/mp/")
    assert r.stdout.decode() == f"mp/big.bin\t{len(data)}\n"
    r = driver(env, "rm", f"s3://{server.bucket}/mp/big.bin")
    assert r.returncode == 0, r.stderr
    assert "Contents" not in boto(server).list_objects_v2(Bucket=server.bucket, Prefix="mp/")


def test_listing_follows_continuation_tokens(server, tmp_path):
    c = boto(server)
    keys = [f"many/k{i:04d}.txt" for i in range(1100)]  # more than one 1000-key page
    for k in keys:
        c.put_object(Bucket=server.bucket, Key=k, Body=b"")
    r = driver(s3_env(server), "ls", f"s3://{server.bucket}/many/")
    assert r.returncode == 0, r.stderr
    assert [line.split("\t")[0] for line in r.stdout.decode().splitlines()] == keys
    assert b"requests 2" in r.stderr
    r = driver(s3_env(server), "rm", *[f"s3://{server.bucket}/{k}" for k in keys])
    assert r.returncode == 0, r.stderr
    assert b"requests 2" in r.stderr  # DeleteObjects in batches of 1000
    assert c.list_objects_v2(Bucket=server.bucket, Prefix="many/")["KeyCount"] == 0


def test_upload_failure_leaves_no_upload(server, tmp_path):
    env = s3_env(server, SQE_S3_SECRET_ACCESS_KEY="wrong")
    src = tmp_path / "small.bin"
    src.write_bytes(b"abc")
    r = driver(env, "upload", str(src), f"s3://{server.bucket}/denied/small.bin")
    assert r.returncode == 1
    assert b"SignatureDoesNotMatch" in r.stderr
    assert "Contents" not in boto(server).list_objects_v2(Bucket=server.bucket, Prefix="denied/")


# ---- the engine --------------------------------------------------------------------------------

def test_read_parquet_from_s3(server, tmp_path):
    p = local_parquet(tmp_path, "x.parquet", "SELECT x AS id, x * 2 AS twice FROM unnest(sequence(1, 1000)) AS t(x)")
    boto(server).upload_file(str(p), server.bucket, "rp/x.parquet")
    r = sql(s3_env(server), f"SELECT count(*), sum(twice) FROM read_parquet('s3://{server.bucket}/rp/x.parquet')")
    assert r.returncode == 0, r.stderr
    assert "1000" in r.stdout and "1001000" in r.stdout


def test_glob_over_s3_prefix(server, tmp_path):
    for i in range(3):
        p = local_parquet(tmp_path, f"g{i}.parquet", f"SELECT {i + 1} AS part, x FROM unnest(sequence(1, 10)) AS t(x)")
        boto(server).upload_file(str(p), server.bucket, f"glob/dir/g{i}.parquet")
    boto(server).put_object(Bucket=server.bucket, Key="glob/dir/sub/other.parquet", Body=b"not parquet")
    boto(server).put_object(Bucket=server.bucket, Key="glob/dir/readme.txt", Body=b"x")
    r = sql(s3_env(server), f"SELECT count(*), sum(part) FROM read_parquet('s3://{server.bucket}/glob/dir/*.parquet')")
    assert r.returncode == 0, r.stderr
    assert "│     30 │     60 │" in r.stdout  # 3 files x 10 rows; parts 1+2+3, 10 rows each


def test_missing_key_names_it(server):
    r = sql(s3_env(server), f"SELECT * FROM read_parquet('s3://{server.bucket}/nope/missing.parquet')")
    assert r.returncode != 0
    assert f"s3://{server.bucket}/nope/missing.parquet" in r.stderr + r.stdout


def test_wrong_secret_is_a_permission_error(server, tmp_path):
    p = local_parquet(tmp_path, "w.parquet", "SELECT 1 AS a")
    boto(server).upload_file(str(p), server.bucket, "ws/w.parquet")
    r = sql(s3_env(server, SQE_S3_SECRET_ACCESS_KEY="not-the-secret"),
            f"SELECT * FROM read_parquet('s3://{server.bucket}/ws/w.parquet')")
    assert r.returncode != 0
    out = r.stderr + r.stdout
    assert "SignatureDoesNotMatch" in out and "denied" in out


def test_copy_to_s3(server, tmp_path):
    staging = tmp_path / "staging"
    staging.mkdir()
    env = s3_env(server, TMPDIR=str(staging))
    r = sql(env, f"COPY (SELECT x FROM unnest(sequence(1, 100)) AS t(x)) TO 's3://{server.bucket}/copy/x.parquet'")
    assert r.returncode == 0, r.stderr
    assert "100" in r.stdout  # the rows written
    head = boto(server).get_object(Bucket=server.bucket, Key="copy/x.parquet")["Body"].read(4)
    assert head == b"PAR1"
    r = sql(env, f"SELECT sum(x) FROM read_parquet('s3://{server.bucket}/copy/x.parquet')")
    assert "5050" in r.stdout, r.stderr
    assert list(staging.iterdir()) == []  # the staging file and directory are gone


def test_copy_to_s3_multipart(server, tmp_path):
    """An output above SQE_S3_PART_SIZE (5 MiB here) goes up as a multipart upload."""
    env = s3_env(server, SQE_S3_STATS="1")
    rows = ("SELECT a + 10000 * b AS x FROM unnest(sequence(1, 10000)) AS t(a) "
            "CROSS JOIN unnest(sequence(0, 29)) AS u(b)")  # 1 .. 300000
    q = f"SELECT x, to_hex(md5(to_utf8(CAST(x AS VARCHAR)))) AS h FROM ({rows})"
    r = sql(env, f"COPY ({q}) TO 's3://{server.bucket}/copy/big.parquet' WITH (compression 'none', dictionary false)")
    assert r.returncode == 0, r.stderr
    head = boto(server).head_object(Bucket=server.bucket, Key="copy/big.parquet")
    assert head["ContentLength"] > 5 << 20
    assert "-" in head["ETag"]  # a multipart ETag ("<md5>-<parts>")
    r = sql(env, f"SELECT count(*), count(DISTINCT h), sum(x) FROM read_parquet('s3://{server.bucket}/copy/big.parquet')")
    assert r.returncode == 0, r.stderr
    assert "300000" in r.stdout and "45000150000" in r.stdout


def test_copy_to_s3_failure_leaves_nothing(server, tmp_path):
    staging = tmp_path / "staging"
    staging.mkdir()
    key = "copyfail/x.parquet"
    # the query fails after rows were written to the staging file
    r = sql(s3_env(server, TMPDIR=str(staging)),
            f"COPY (SELECT 10 / (a + 10000 * b - 50000) AS y FROM unnest(sequence(1, 10000)) AS t(a) "
            f"CROSS JOIN unnest(sequence(0, 9)) AS u(b)) "
            f"TO 's3://{server.bucket}/{key}'")
    assert r.returncode != 0
    assert "Division by zero" in r.stderr + r.stdout or "division by zero" in (r.stderr + r.stdout).lower()
    # the upload is refused (wrong secret): the error says so and nothing is at the key
    r = sql(s3_env(server, TMPDIR=str(staging), SQE_S3_SECRET_ACCESS_KEY="wrong"),
            f"COPY (SELECT 1 AS a) TO 's3://{server.bucket}/{key}'")
    assert r.returncode != 0
    assert "SignatureDoesNotMatch" in r.stderr + r.stdout
    assert "Contents" not in boto(server).list_objects_v2(Bucket=server.bucket, Prefix="copyfail/")
    uploads = boto(server).list_multipart_uploads(Bucket=server.bucket).get("Uploads", [])
    assert not [u for u in uploads if u["Key"].startswith("copyfail/")]
    assert list(staging.iterdir()) == []
    r = sql(s3_env(server), "COPY (SELECT 1 AS a) TO 's3://bucket-only' WITH (format 'parquet')")
    assert r.returncode != 0 and "no key" in r.stderr + r.stdout


# ---- parallel, coalesced range reads and the request counters -----------------------------------

def stats_of(stderr):
    """The counters of the driver's "stats ..." line or sqe's "sqe-s3-stats: ..." line."""
    text = stderr.decode() if isinstance(stderr, bytes) else stderr
    line = [x for x in text.splitlines() if x.startswith(("stats ", "sqe-s3-stats: "))][-1]
    return {k: int(v) for k, v in (f.split("=") for f in line.split(" ") if "=" in f)}


def test_read_many_coalesces_splits_and_counts(server, tmp_path):
    data = os.urandom(20 << 20)
    boto(server).put_object(Bucket=server.bucket, Key="many/obj.bin", Body=data)
    uri = f"s3://{server.bucket}/many/obj.bin"
    env = s3_env(server)
    # three ranges within 256 KiB of each other (one overlapping) make one GET; one far away
    # makes a second; a HEAD opens the object
    ranges = [(1000, 5000), (100, 2000), (10000, 100), (200000, 50), (15 << 20, 777)]
    r = driver(env, "many", uri, *[f"{o}:{n}" for o, n in ranges])
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"".join(data[o:o + n] for o, n in ranges)
    st = stats_of(r.stderr)
    assert (st["get"], st["head"], st["requests"]) == (2, 1, 3)
    assert st["bytes_in"] == (200050 - 100) + 777
    # without coalescing each range is its own GET, sent in parallel
    r = driver(s3_env(server, SQE_S3_COALESCE_BYTES="0"), "many", uri, *[f"{o}:{n}" for o, n in ranges])
    assert r.returncode == 0 and r.stdout == b"".join(data[o:o + n] for o, n in ranges)
    assert stats_of(r.stderr)["get"] == 4  # the overlapping pair still merges
    # a 20 MiB read is split into 8 MiB parts fetched at once
    r = driver(env, "many", uri, f"0:{20 << 20}")
    assert r.returncode == 0 and r.stdout == data
    assert stats_of(r.stderr)["get"] == 3
    r = driver(env, "many-known", uri, "5:10", "50:10")  # size known: no HEAD
    assert r.stdout == data[5:15] + data[50:60]
    assert (stats_of(r.stderr)["get"], stats_of(r.stderr)["head"]) == (1, 0)
    r = driver(env, "many-known", f"s3://{server.bucket}/many/gone.bin", "5:10")
    assert r.returncode == 1 and b"s3://sqe-test/many/gone.bin" in r.stderr  # NOT_FOUND on read
    r = driver(env, "get", uri, "0", str(20 << 20))  # s3_get_range itself never splits
    assert r.stdout == data and stats_of(r.stderr)["get"] == 1


def test_read_many_from_threads_shares_connections(server):
    data = os.urandom(3 << 20)
    boto(server).put_object(Bucket=server.bucket, Key="many/threads.bin", Body=data)
    ranges = [(i * 300000, 1000 + i) for i in range(10)]
    r = driver(s3_env(server, SQE_S3_COALESCE_BYTES="0"), "threads", "8",
               f"s3://{server.bucket}/many/threads.bin", *[f"{o}:{n}" for o, n in ranges])
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"".join(data[o:o + n] for o, n in ranges)
    st = stats_of(r.stderr)
    assert st["get"] == 8 * 5 * 10 and st["head"] == 8 * 5


def test_read_many_missing_and_denied(server):
    r = driver(s3_env(server), "many", f"s3://{server.bucket}/many/none.bin", "0:10", "100:10")
    assert r.returncode == 1 and f"s3://{server.bucket}/many/none.bin".encode() in r.stderr
    boto(server).put_object(Bucket=server.bucket, Key="many/short.bin", Body=b"x" * 1000)
    r = driver(s3_env(server, SQE_S3_COALESCE_BYTES="0"), "many",
               f"s3://{server.bucket}/many/short.bin", "0:10", "900:200")
    assert r.returncode == 1 and b"short.bin" in r.stderr


def test_stats_line_of_a_query(server, tmp_path):
    p = local_parquet(tmp_path, "st.parquet", "SELECT x, x * 3 AS y FROM unnest(sequence(1, 10000)) AS t(x)")
    boto(server).upload_file(str(p), server.bucket, "stats/st.parquet")
    r = sql(s3_env(server, SQE_S3_STATS="1"), f"SELECT sum(y) FROM read_parquet('s3://{server.bucket}/stats/st.parquet')")
    assert r.returncode == 0, r.stderr
    assert "150015000" in r.stdout
    st = stats_of(r.stderr)
    assert st["head"] >= 1 and st["get"] >= 2 and st["put"] == st["list"] == st["delete"] == 0
    assert st["requests"] == st["get"] + st["head"]
    assert 0 < st["bytes_in"] <= 3 * p.stat().st_size
    r = sql(s3_env(server), "SELECT 1")
    assert "sqe-s3-stats" not in r.stderr  # off unless asked for


# ---- retries behind a proxy that fails every third request ------------------------------------

class FlakyProxy(http.server.ThreadingHTTPServer):
    def __init__(self, upstream_port):
        self.upstream_port = upstream_port
        self.count = 0
        self.failed = 0
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), FlakyHandler)


class FlakyHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def _any(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with self.server.lock:
            self.server.count += 1
            fail = self.server.count % 3 == 0
            self.server.failed += fail
        if fail:
            msg = b"<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>"
            self.send_response(503)
            self.send_header("Content-Length", str(len(msg)))
            self.end_headers()
            self.wfile.write(msg)
            return
        conn = http.client.HTTPConnection("127.0.0.1", self.server.upstream_port, timeout=60)
        conn.request(self.command, self.path, body=body, headers=dict(self.headers.items()))
        resp = conn.getresponse()
        data = resp.read()
        self.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in ("transfer-encoding", "connection", "content-length", "server", "date"):
                self.send_header(k, v)
        length = resp.getheader("Content-Length") if self.command == "HEAD" else None
        self.send_header("Content-Length", length or str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        conn.close()

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _any


def test_retries_through_503s(server, tmp_path):
    p = local_parquet(tmp_path, "r.parquet", "SELECT x FROM unnest(sequence(1, 5000)) AS t(x)")
    boto(server).upload_file(str(p), server.bucket, "retry/r.parquet")
    proxy = FlakyProxy(server.port)
    t = threading.Thread(target=proxy.serve_forever, daemon=True)
    t.start()
    try:
        env = s3_env(server, SQE_S3_ENDPOINT=f"http://127.0.0.1:{proxy.server_address[1]}")
        r = sql(env, f"SELECT count(*), sum(x) FROM read_parquet('s3://{server.bucket}/retry/r.parquet')")
        assert r.returncode == 0, r.stderr
        assert "12502500" in r.stdout
        data = os.urandom(11 << 20)
        src = tmp_path / "retry.bin"
        src.write_bytes(data)
        r = driver(env, "upload", str(src), f"s3://{server.bucket}/retry/big.bin")
        assert r.returncode == 0, r.stderr
        assert boto(server).get_object(Bucket=server.bucket, Key="retry/big.bin")["Body"].read() == data
        assert proxy.failed >= 2  # the proxy really failed requests, and they were retried
    finally:
        proxy.shutdown()
