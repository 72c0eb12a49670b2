#!/usr/bin/env python3
"""TPC-H in memory, SQE against DuckDB, side by side (issue: engine core performance).

Both engines load the same CSV files (tpchgen-cli) into in-memory tables with the same types,
then every query runs alternately on SQE and DuckDB (one warm-up each, then --runs timed runs,
interleaved A B A B so machine drift hits both alike) with the same thread count. Reports the
median and minimum per query and engine, the ratio SQE/DuckDB, and totals; checks that both
engines return the same number of rows. Results go to bench/results/<date>-tpch-memory-sf<N>.json
and .md.

Usage: .cache/venv/bin/python bench/tpch_memory.py [--sf 1] [--threads 2] [--runs 5]
                                                  [--sqe build/sqe] [--queries 1,3]
SQE is timed by its own shell (`.timer on`: the time from sending the statement to the end of
its result, inside the process); DuckDB by wall clock around execute+fetchall in this process.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "tpch"))


def generate(sf, out_dir):
    marker = os.path.join(out_dir, ".complete")
    if os.path.exists(marker):
        return
    os.makedirs(out_dir, exist_ok=True)
    tool = os.path.join(ROOT, ".cache", "venv", "bin", "tpchgen-cli")
    subprocess.run([tool, "csv", "-s", str(sf), f"--output-dir={out_dir}"], check=True)
    open(marker, "w").close()


import run_tpch  # noqa: E402  (the oracle harness: schema, loading, query texts)


class Sqe:
    """An `sqe sql` process fed one statement at a time on stdin (JSON output, timer on)."""

    def __init__(self, binary, threads):
        self.p = subprocess.Popen([binary, "sql", "--memory", "--format", "json", "--threads", str(threads)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, bufsize=1)

    def run(self, sql):
        self.p.stdin.write(sql.strip().rstrip(";") + ";\n")
        self.p.stdin.flush()
        rows = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("sqe exited")
            if line.startswith("Run Time:"):
                return float(line.split()[2]), rows
            if line.startswith("["):
                rows = len(json.loads(line))
            elif line.startswith("{\"error\"") or line.startswith("Error:"):
                rows = line.strip()

    def command(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def peak_rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", type=float, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sqe", default=os.path.join(ROOT, "build", "sqe"))
    ap.add_argument("--queries", default=",".join(str(i) for i in range(1, 23)))
    args = ap.parse_args()
    import duckdb

    sf_name = f"{args.sf:g}"
    data_dir = os.path.join(ROOT, ".cache", "tpch", f"sf{sf_name}")
    generate(args.sf, data_dir)
    queries = [int(x) for x in args.queries.split(",")]

    print(f"loading SF{sf_name} into SQE and DuckDB ({args.threads} threads)...", flush=True)
    statements = run_tpch.schema_statements(data_dir)
    sqe = Sqe(args.sqe, args.threads)
    t0 = time.time()
    sqe.command(".timer on")
    for stmt in statements:
        sqe.run(stmt)
    sqe_load = time.time() - t0

    con = duckdb.connect()
    con.execute(f"SET threads={args.threads}")
    t0 = time.time()
    run_tpch.duckdb_load(con, statements)
    duck_load = time.time() - t0
    print(f"load: sqe {sqe_load:.1f} s, duckdb {duck_load:.1f} s", flush=True)

    results = []
    for n in queries:
        q = run_tpch.query_text(n, args.sf, "sqe")
        dq = run_tpch.query_text(n, args.sf, "duckdb")
        s_times, d_times = [], []
        s_rows = d_rows = None
        for run in range(args.runs + 1):
            st, s_rows = sqe.run(q)
            t = time.time()
            d_rows = len(con.execute(dq).fetchall())
            dt = time.time() - t
            if run > 0:
                s_times.append(st)
                d_times.append(dt)
        r = {"query": n, "sqe_median": statistics.median(s_times), "sqe_min": min(s_times),
             "duckdb_median": statistics.median(d_times), "duckdb_min": min(d_times),
             "sqe_rows": s_rows, "duckdb_rows": d_rows}
        r["ratio"] = r["sqe_median"] / r["duckdb_median"] if r["duckdb_median"] > 0 else None
        r["status"] = "OK" if s_rows == d_rows else "ROWS DIFFER"
        results.append(r)
        print(f"q{n:02d}  sqe {r['sqe_median']*1000:9.1f} ms  duckdb {r['duckdb_median']*1000:9.1f} ms  "
              f"ratio {r['ratio']:.2f}  {r['status']}", flush=True)
    sqe_rss = peak_rss_kb(sqe.p.pid)
    sqe.close()

    tot_s = sum(r["sqe_median"] for r in results)
    tot_d = sum(r["duckdb_median"] for r in results)
    print(f"total  sqe {tot_s:.3f} s  duckdb {tot_d:.3f} s  ratio {tot_s / tot_d:.2f}")
    date = datetime.date.today().isoformat()
    out = {"date": date, "sf": args.sf, "threads": args.threads, "runs": args.runs,
           "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
           "versions": {"duckdb": duckdb.__version__,
                        "sqe": subprocess.run([args.sqe, "version"], capture_output=True, text=True).stdout.strip()},
           "load_seconds": {"sqe": sqe_load, "duckdb": duck_load},
           "sqe_peak_rss_kb": sqe_rss, "queries": results,
           "total": {"sqe": tot_s, "duckdb": tot_d, "ratio": tot_s / tot_d}}
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    base = os.path.join(ROOT, "bench", "results", f"{date}-tpch-memory-sf{sf_name}")
    with open(base + ".json", "w") as f:
        json.dump(out, f, indent=1)
    with open(base + ".md", "w") as f:
        f.write(f"# TPC-H SF{sf_name} in memory, {args.threads} threads, median of {args.runs} runs ({date})\n\n")
        f.write("| query | SQE ms | DuckDB ms | SQE/DuckDB | rows |\n|---|---:|---:|---:|---|\n")
        for r in results:
            f.write(f"| q{r['query']:02d} | {r['sqe_median']*1000:.1f} | {r['duckdb_median']*1000:.1f} | "
                    f"{r['ratio']:.2f} | {r['status']} |\n")
        f.write(f"| total | {tot_s*1000:.1f} | {tot_d*1000:.1f} | {tot_s/tot_d:.2f} | |\n")
    print(f"written {base}.json and .md")


if __name__ == "__main__":
    main()
