#!/usr/bin/env python3
"""TPC-H from S3 vs local disk: the 22 queries over views on read_parquet of the tpchgen
Parquet files, once on local disk and once on a loopback S3 server (moto with signature checks,
tests/s3/s3_server.py) holding the same files; the same thread count; the total time ratio
S3/local; and the S3 requests (by kind) and bytes each query costs.

Timing: two long-lived `sqe sql --format json` processes (one per side, footer caches warm
after the warm-up run), runs interleaved by query, medians. Requests: fresh processes with
SQE_S3_STATS=1 (src/io/s3_client.h): a process that creates the views and runs the query once,
minus one that only creates the views (binding a view already reads every footer, so the
query's count is what a query costs with the footers cached).

moto is a Python server (every ranged GET copies the object in Python, and it closes the
connection after each response), so the S3 times are an upper bound on what a real store on
the same machine would give; the request counts do not depend on the server.

Usage: .cache/venv/bin/python bench/s3_vs_local.py [--sf 1] [--runs 3] [--threads 2]
                                                   [--sqe build/sqe] [--queries 1,3]
Writes bench/results/<date>-s3-vs-local-sf<SF>.md (and prints it).
Data: .cache/bench-data/tpch/sf<SF>/zstd/*.parquet (made by `make bench` / bench/run_bench.py).
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import boto3
from boto3.s3.transfer import TransferConfig

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "tpch"))
import run_tpch  # noqa: E402  (query texts)

TABLES = run_tpch.TABLES
KINDS = ["get", "head", "put", "list", "delete"]


class Session:
    """One `sqe sql --format json` process fed statements on stdin (see iceberg_overhead.py)."""

    def __init__(self, sqe, threads, env):
        args = [str(sqe), "sql", "--memory", "--format", "json", "--threads", str(threads)]
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, bufsize=1, env=env)

    def run(self, sql):
        start = time.monotonic()
        self.p.stdin.write(sql.strip().rstrip(";") + ";\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"sqe exited: {self.p.stderr.read()[-2000:]}")
        if '"error"' in line[:200].lower():
            raise RuntimeError(f"{sql[:80]}...: {line[:500]}")
        return time.monotonic() - start, line

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=120)


def start_moto():
    """tests/s3/s3_server.py in its own process (its own GIL); returns (process, info)."""
    p = subprocess.Popen([sys.executable, str(ROOT / "tests" / "s3" / "s3_server.py")],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()
    if not line:
        sys.exit("s3_server.py did not start")
    return p, json.loads(line)


def s3_env(info):
    env = dict(os.environ, SQE_S3_ENDPOINT=info["endpoint"], SQE_S3_ACCESS_KEY_ID=info["access_key"],
               SQE_S3_SECRET_ACCESS_KEY=info["secret_key"], SQE_S3_REGION="us-east-1",
               SQE_S3_PATH_STYLE="1")
    env.pop("SQE_S3_SESSION_TOKEN", None)
    return env


def views(where):
    return [f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{where}/{t}.parquet')" for t in TABLES]


def counted(sqe, env, threads, stmts):
    """Runs stmts in one fresh process with SQE_S3_STATS=1; returns its counters."""
    r = subprocess.run([str(sqe), "sql", "--memory", "--format", "json", "--threads", str(threads),
                        "--bail", "-e", ";\n".join(s.strip().rstrip(";") for s in stmts) + ";"],
                       env=dict(env, SQE_S3_STATS="1"), capture_output=True, text=True, timeout=3600)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-2000:])
    line = [x for x in r.stderr.splitlines() if x.startswith("sqe-s3-stats: ")][-1]
    return {k: int(v) for k, v in (f.split("=") for f in line.split()[1:])}


def minus(a, b):
    return {k: a[k] - b[k] for k in a}


def fmt_req(st):
    kinds = " ".join(f"{st[k]}{k[0].upper()}" for k in KINDS if st[k])
    return f"{st['requests']} ({kinds})" if kinds else "0"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sf", default="1")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sqe", default=str(ROOT / "build" / "sqe"))
    ap.add_argument("--queries", default=",".join(str(q) for q in range(1, 23)))
    args = ap.parse_args()
    queries = [int(q) for q in args.queries.split(",")]
    data = ROOT / ".cache" / "bench-data" / "tpch" / f"sf{args.sf}" / "zstd"
    if not all((data / f"{t}.parquet").exists() for t in TABLES):
        sys.exit(f"{data}: run `make bench SF={args.sf}` first to generate the Parquet files")

    moto, info = start_moto()
    try:
        env = s3_env(info)
        c = boto3.client("s3", endpoint_url=info["endpoint"], aws_access_key_id=info["access_key"],
                         aws_secret_access_key=info["secret_key"], region_name="us-east-1")
        start = time.monotonic()
        total_bytes = 0
        for t in TABLES:
            c.upload_file(str(data / f"{t}.parquet"), info["bucket"], f"tpch/{t}.parquet",
                          Config=TransferConfig(multipart_threshold=64 << 20, max_concurrency=2))
            total_bytes += (data / f"{t}.parquet").stat().st_size
        upload_s = time.monotonic() - start
        s3_where = f"s3://{info['bucket']}/tpch"

        # requests per query, in fresh processes
        base = counted(args.sqe, env, args.threads, views(s3_where))
        reqs = {}
        for q in queries:
            text = run_tpch.query_text(q, args.sf, "sqe")
            reqs[q] = minus(counted(args.sqe, env, args.threads, views(s3_where) + [text]), base)
            print(f"q{q:02d} requests {fmt_req(reqs[q])}", flush=True)

        # timing, interleaved
        local = Session(args.sqe, args.threads, dict(os.environ))
        remote = Session(args.sqe, args.threads, env)
        for v in views(str(data)):
            local.run(v)
        for v in views(s3_where):
            remote.run(v)
        times = {q: {"local": [], "s3": []} for q in queries}
        for q in queries:
            text = run_tpch.query_text(q, args.sf, "sqe")
            _, a = local.run(text)  # warm-up (and the answers must agree)
            _, b = remote.run(text)
            if a != b:
                raise RuntimeError(f"q{q}: S3 and local answers differ")
            for _ in range(args.runs):
                times[q]["local"].append(local.run(text)[0])
                times[q]["s3"].append(remote.run(text)[0])
            print(f"q{q:02d} local {statistics.median(times[q]['local']):.3f}s "
                  f"s3 {statistics.median(times[q]['s3']):.3f}s", flush=True)
        local.close()
        remote.close()
    finally:
        moto.stdin.close()
        moto.wait(timeout=60)

    today = datetime.date.today()
    lines = [f"# TPC-H SF{args.sf}: S3 (moto on loopback) vs local disk ({today})", "",
             f"Command: `.cache/venv/bin/python bench/s3_vs_local.py --sf {args.sf} --runs "
             f"{args.runs} --threads {args.threads} --sqe {os.path.relpath(args.sqe, ROOT)}`. "
             f"The 22 queries over views on read_parquet of the tpchgen zstd files "
             f"({total_bytes / 1e6:.0f} MB; uploaded to moto in {upload_s:.0f} s), on local disk "
             f"and on `s3://` (moto 5 with IAM signature checks, tests/s3/s3_server.py, in its own "
             f"process on the same 2-core machine); {args.threads} threads each; medians of "
             f"{args.runs} interleaved runs after a warm-up run (footers cached). Default S3 "
             f"settings: reads over 8 MiB are split into parallel 8 MiB GETs, ranges closer than "
             f"256 KiB are merged, at most 8 connections per parallel read.", "",
             "Requests: counted by SQE's client (SQE_S3_STATS=1, retries included; there were "
             "none) in a fresh process that creates the 8 views and runs the query once, minus "
             f"a process that only creates the views ({fmt_req(base)}: binding a view opens its "
             "file and reads the footer, so the footers are cached before the query). "
             "G = GET, H = HEAD; MB = response bytes.", "",
             "| query | local s | S3 s | S3/local | S3 requests | MB read |",
             "|---|---|---|---|---|---|"]
    tot_l = tot_s = 0.0
    tot_req = 0
    tot_mb = 0.0
    for q in queries:
        lt = statistics.median(times[q]["local"])
        st = statistics.median(times[q]["s3"])
        tot_l += lt
        tot_s += st
        tot_req += reqs[q]["requests"]
        tot_mb += reqs[q]["bytes_in"] / 1e6
        lines.append(f"| q{q:02d} | {lt:.3f} | {st:.3f} | {st / lt:.2f} | {fmt_req(reqs[q])} | "
                     f"{reqs[q]['bytes_in'] / 1e6:.1f} |")
    lines.append(f"| **total** | **{tot_l:.3f}** | **{tot_s:.3f}** | **{tot_s / tot_l:.2f}** | "
                 f"**{tot_req}** | **{tot_mb:.0f}** |")
    lines += ["", f"Total time S3/local: **{tot_s / tot_l:.2f}x**; {tot_req / len(queries):.1f} "
              f"requests and {tot_mb / len(queries):.1f} MB per query on average."]
    out = ROOT / "bench" / "results" / f"{today}-s3-vs-local-sf{args.sf}.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"\nwritten to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
