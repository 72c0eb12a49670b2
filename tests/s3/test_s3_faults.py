"""test_s3_faults.py: TPC-H queries over read_parquet('s3://...') (SF 0.01, tpchgen Parquet
files uploaded to the signature-checking moto server) give the same answers as over the same
local files, also when a fault proxy (tests/s3/fault_proxy.py) fails 30% of the requests with
503; a data file that S3 answers 404 for is named in the error; connections are kept alive.

Environment: SQE_BUILD_DIR (default build-asan/) holds sqe.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import boto3
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tpch"))
import run_tpch  # noqa: E402
from fault_proxy import FaultProxy  # noqa: E402
from s3_server import S3Server  # noqa: E402

ROOT = HERE.parents[1]
BUILD = Path(os.environ.get("SQE_BUILD_DIR", ROOT / "build-asan"))
SQE = BUILD / "sqe"
SF = "0.01"
QUERIES = [1, 3, 5, 6, 10, 12, 14, 18]  # scans, joins, aggregates, a subquery


@pytest.fixture(scope="module")
def tpch():
    """(server, local data dir) with the tables uploaded under tpch/<table>.parquet."""
    data = run_tpch.ensure_data(SF, "parquet")
    # moto's backends are per process: another user and bucket than test_s3_io.py's server
    with S3Server(bucket="sqe-tpch", user="sqe-faults") as s:
        c = boto3.client("s3", endpoint_url=s.endpoint, aws_access_key_id=s.access_key,
                         aws_secret_access_key=s.secret_key, region_name="us-east-1")
        for t in run_tpch.TABLES:
            c.upload_file(str(data / f"{t}.parquet"), s.bucket, f"tpch/{t}.parquet")
        yield s, data


def env_for(server, endpoint=None, **over):
    env = dict(os.environ, SQE_S3_ENDPOINT=endpoint or server.endpoint,
               SQE_S3_ACCESS_KEY_ID=server.access_key, SQE_S3_SECRET_ACCESS_KEY=server.secret_key,
               SQE_S3_REGION="us-east-1", SQE_S3_PATH_STYLE="1", SQE_S3_STATS="1")
    env.update(over)
    return env


def run_queries(env, where, queries):
    """One `sqe sql --format json` process: views over `where` ('s3://b/tpch' or a directory),
    then the queries; returns (list of result lines, stderr)."""
    stmts = [f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{where}/{t}.parquet');"
             for t in run_tpch.TABLES]
    stmts += [run_tpch.query_text(q, SF, "sqe") for q in queries]
    r = subprocess.run([str(SQE), "sql", "--memory", "--format", "json", "--threads", "2",
                        "--bail", "-e", "\n".join(stmts)], env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    lines = [ln for ln in r.stdout.splitlines() if ln.strip()]
    return [json.loads(ln) for ln in lines[-len(queries):]], r.stderr


def stats(stderr):
    line = [x for x in stderr.splitlines() if x.startswith("sqe-s3-stats: ")][-1]
    return {k: int(v) for k, v in (f.split("=") for f in line.split()[1:])}


def test_tpch_over_s3_matches_local(tpch):
    server, data = tpch
    local, _ = run_queries(dict(os.environ), str(data), QUERIES)
    remote, err = run_queries(env_for(server), f"s3://{server.bucket}/tpch", QUERIES)
    assert remote == local
    st = stats(err)
    assert st["retries"] == 0 and st["get"] > 0 and st["put"] == 0


def test_tpch_over_s3_with_30_percent_503s(tpch):
    server, data = tpch
    local, _ = run_queries(dict(os.environ), str(data), QUERIES)
    with FaultProxy(server.port, fail_ratio=0.3) as proxy:
        remote, err = run_queries(env_for(server, proxy.endpoint, SQE_S3_MAX_ATTEMPTS="12"),
                                  f"s3://{server.bucket}/tpch", QUERIES)
    assert remote == local
    st = stats(err)
    assert proxy.failed >= 10 and proxy.failed / proxy.count > 0.2
    assert st["requests"] == proxy.count  # every request the proxy saw, counted by the client
    assert st["retries"] == proxy.failed  # each 503 was retried once more


def test_404_for_a_data_file_names_it(tpch):
    server, data = tpch
    c = boto3.client("s3", endpoint_url=server.endpoint, aws_access_key_id=server.access_key,
                     aws_secret_access_key=server.secret_key, region_name="us-east-1")
    for i in range(3):
        c.upload_file(str(data / "orders.parquet"), server.bucket, f"gone/part-{i}.parquet")
    missing = f"/{server.bucket}/gone/part-1.parquet"
    with FaultProxy(server.port, missing=[missing]) as proxy:
        r = subprocess.run([str(SQE), "sql", "--memory", "-e",
                            f"SELECT count(*) FROM read_parquet('s3://{server.bucket}/gone/*.parquet')"],
                           env=env_for(server, proxy.endpoint), capture_output=True, text=True,
                           timeout=300)
    assert r.returncode != 0
    assert f"s3://{server.bucket}/gone/part-1.parquet" in r.stderr
    assert "SQLSTATE" in r.stderr and "not found" in r.stderr.lower()


def test_connections_are_reused(tpch):
    """Through a keep-alive proxy (moto itself closes every connection), a query's requests
    share a few connections instead of opening one each."""
    server, data = tpch
    with FaultProxy(server.port) as proxy:
        _, err = run_queries(env_for(server, proxy.endpoint), f"s3://{server.bucket}/tpch", [1, 3])
    st = stats(err)
    assert st["requests"] == proxy.count and st["requests"] >= 20
    assert st["connections"] == proxy.connections
    assert st["connections"] <= 2 + 8 * 2  # at most a parallel read's worth per thread
    assert st["connections"] * 3 <= st["requests"]
