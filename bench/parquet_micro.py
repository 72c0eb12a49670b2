#!/usr/bin/env python3
"""Parquet reader and writer micro-benchmarks, SQE side by side with DuckDB (issue 3).

Same files, same thread count, interleaved runs (one warm-up, then --runs timed runs A B A B):
  scan-snappy   every lineitem column read and reduced (sums of the numbers, max of the dates
                and strings), from the snappy file
  scan-zstd     the same from the zstd file
  pushdown      SELECT sum(l_extendedprice) ... WHERE l_shipdate < DATE '1993-01-01'
  write-zstd    lineitem (from the zstd file) written to Parquet with zstd
The scans carry a filter no statistic can decide (l_linenumber > 0 is true for every row but
not provable from metadata alone for every engine), so nothing is answered from the footer.
Answers are compared between the engines (the writes by row count and a checksum of the file
read back by DuckDB). Data: the files of `make bench` (.cache/bench-data/tpch/sf<SF>/<codec>).

Usage: .cache/venv/bin/python bench/parquet_micro.py [--sf 1] [--runs 5] [--threads 2]
Writes bench/results/<date>-parquet-micro-sf<SF>.{json,md}.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import run_bench  # noqa: E402  (data generation)

SCAN = ("SELECT sum(l_orderkey), sum(l_partkey), sum(l_suppkey), sum(l_linenumber), "
        "sum(l_quantity), sum(l_extendedprice), sum(l_discount), sum(l_tax), max(l_returnflag), "
        "max(l_linestatus), max(l_shipdate), max(l_commitdate), max(l_receiptdate), "
        "max(l_shipinstruct), max(l_shipmode), max(l_comment) FROM '{f}' WHERE l_linenumber > 0")
PUSHDOWN = "SELECT sum(l_extendedprice) FROM '{f}' WHERE l_shipdate < DATE '1993-01-01'"
# each run rewrites the same file: COPY replaces a file only when asked
WRITE_SQE = "COPY (SELECT * FROM '{f}') TO '{out}' WITH (compression = 'zstd', overwrite = true)"
WRITE_DUCK = "COPY (SELECT * FROM '{f}') TO '{out}' (FORMAT parquet, COMPRESSION zstd)"


class Sqe:
    """One `sqe sql` process, statements on stdin, `.timer on` for in-process timing."""

    def __init__(self, binary, threads):
        self.p = subprocess.Popen([binary, "sql", "--memory", "--format", "csv", "--threads", str(threads)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.p.stdin.write(".timer on\n")

    def run(self, sql):
        self.p.stdin.write(sql + ";\n")
        self.p.stdin.flush()
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("sqe exited: " + "".join(lines[-5:]))
            if line.startswith("Run Time:"):
                return float(line.split()[2]), lines
            if line.startswith("Error"):
                raise RuntimeError(line.strip())
            lines.append(line.rstrip("\n"))

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sf", default="1")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sqe", default=str(ROOT / "build" / "sqe"))
    ap.add_argument("--out-dir", default=str(ROOT / "bench" / "results"))
    args = ap.parse_args()
    import duckdb

    files = {c: run_bench.ensure_parquet(args.sf, c) / "lineitem.parquet" for c in ("snappy", "zstd")}
    tmp = Path(tempfile.mkdtemp(prefix="pqmicro-"))
    cases = [
        ("scan-snappy", SCAN.format(f=files["snappy"]), SCAN.format(f=files["snappy"])),
        ("scan-zstd", SCAN.format(f=files["zstd"]), SCAN.format(f=files["zstd"])),
        ("pushdown", PUSHDOWN.format(f=files["zstd"]), PUSHDOWN.format(f=files["zstd"])),
        ("write-zstd", WRITE_SQE.format(f=files["zstd"], out=tmp / "sqe.parquet"),
         WRITE_DUCK.format(f=files["zstd"], out=tmp / "duck.parquet")),
    ]
    con = duckdb.connect()
    con.execute(f"SET threads = {args.threads}")
    sqe = Sqe(args.sqe, args.threads)
    results = []
    try:
        for name, sqe_sql, duck_sql in cases:
            times = {"sqe": [], "duckdb": []}
            answers = {}
            for i in range(args.runs + 1):
                t, rows = sqe.run(sqe_sql)
                if i:
                    times["sqe"].append(t)
                answers["sqe"] = rows[1:] if rows else rows
                start = time.perf_counter()
                got = con.execute(duck_sql).fetchall()
                d = time.perf_counter() - start
                if i:
                    times["duckdb"].append(d)
                answers["duckdb"] = got
            check = "n/a"
            if name.startswith("write"):
                a = con.execute(f"SELECT count(*), sum(l_orderkey), sum(hash(l_comment)) FROM '{tmp / 'sqe.parquet'}'").fetchall()
                b = con.execute(f"SELECT count(*), sum(l_orderkey), sum(hash(l_comment)) FROM '{tmp / 'duck.parquet'}'").fetchall()
                check = "OK" if a == b else f"DIFFERENT {a} vs {b}"
                sizes = {"sqe": os.path.getsize(tmp / "sqe.parquet"), "duckdb": os.path.getsize(tmp / "duck.parquet")}
            else:
                sizes = None
                s = answers["sqe"][0].split(",") if answers["sqe"] else []
                d = [str(v) for v in answers["duckdb"][0]]
                check = "OK" if len(s) == len(d) and all(x.rstrip("0").rstrip(".") == y.rstrip("0").rstrip(".") or x == y for x, y in zip(s, d)) else f"CHECK {s} vs {d}"
            med = {k: statistics.median(v) for k, v in times.items()}
            rec = {"case": name, "median_s": med, "min_s": {k: min(v) for k, v in times.items()},
                   "runs": times, "ratio_sqe_duckdb": med["sqe"] / med["duckdb"], "check": check}
            if sizes:
                rec["file_bytes"] = sizes
            results.append(rec)
            print(f"{name:12s} sqe {med['sqe']:.3f}s  duckdb {med['duckdb']:.3f}s  "
                  f"ratio {rec['ratio_sqe_duckdb']:.2f}  {check}", flush=True)
    finally:
        sqe.close()
    date = datetime.date.today().isoformat()
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    base = out_dir / f"{date}-parquet-micro-sf{args.sf}"
    meta = {"date": date, "sf": args.sf, "threads": args.threads, "runs": args.runs,
            "machine": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                        "load_before": os.getloadavg()},
            "duckdb": duckdb.__version__,
            "sqe": subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                                  capture_output=True, text=True).stdout.strip(),
            "results": results}
    base.with_suffix(".json").write_text(json.dumps(meta, indent=2) + "\n")
    with open(base.with_suffix(".md"), "w") as f:
        f.write(f"# Parquet micro-benchmarks, SF {args.sf}, {args.threads} threads, {date}\n\n")
        f.write("Command: `.cache/venv/bin/python bench/parquet_micro.py "
                f"--sf {args.sf} --runs {args.runs} --threads {args.threads}`\n\n")
        f.write("| case | SQE median | DuckDB median | SQE/DuckDB | check |\n|---|---|---|---|---|\n")
        for r in results:
            f.write(f"| {r['case']} | {r['median_s']['sqe']:.3f} s | {r['median_s']['duckdb']:.3f} s | "
                    f"{r['ratio_sqe_duckdb']:.2f} | {r['check']} |\n")
        f.write("\nSQE is timed by its shell (`.timer on`, in process); DuckDB around execute + "
                "fetchall in this process. See bench/README.md.\n")
    print(f"wrote {base}.json and .md")


if __name__ == "__main__":
    main()
