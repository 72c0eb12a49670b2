#!/usr/bin/env python3
"""What reading through Iceberg costs: TPC-H over the same Parquet files, once as Iceberg tables
of a warehouse (loaded with CTAS from the tpchgen files) and once through views over
read_parquet of exactly those tables' data files, so the difference is the Iceberg layer alone
(planning, field-id mapping), not the file layout; one `sqe sql` process each, runs interleaved
by query; plus the Iceberg scan planning time per query (manifest list, manifests, footers),
taken from EXPLAIN ANALYZE ("planning: X ms" of each Iceberg scan).

Usage: .cache/venv/bin/python bench/iceberg_overhead.py [--sf 1] [--runs 5] [--threads 2]
Writes bench/results/<date>-iceberg-overhead-sf<SF>.md (and prints the table).
Data: .cache/bench-data/tpch/sf<SF>/zstd/*.parquet (made by `make bench` / bench/run_bench.py);
the warehouse is kept in .cache/bench-data/tpch/sf<SF>/iceberg (rebuilt when missing).
"""
import argparse
import datetime
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "tpch"))
import run_tpch  # noqa: E402  (query texts)

TABLES = run_tpch.TABLES


class Session:
    """One `sqe sql --format json` process fed statements on stdin; each statement's output is
    one line, so a statement's time is the gap between sending it and reading its line."""

    def __init__(self, sqe, where, threads):
        args = [str(sqe), "sql", *where, "--format", "json", "--threads", str(threads)]
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, bufsize=1)

    def run(self, sql):
        start = time.monotonic()
        self.p.stdin.write(sql.strip().rstrip(";") + ";\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"sqe exited: {self.p.stderr.read()[-2000:]}")
        return time.monotonic() - start, line

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sf", default="1")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--sqe", default=str(ROOT / "build" / "sqe"))
    args = ap.parse_args()
    data = ROOT / ".cache" / "bench-data" / "tpch" / f"sf{args.sf}" / "zstd"
    if not all((data / f"{t}.parquet").exists() for t in TABLES):
        sys.exit(f"{data}: run `make bench SF={args.sf}` first to generate the Parquet files")
    warehouse = data.parent / "iceberg"
    ice = Session(args.sqe, ["--warehouse", str(warehouse)], args.threads)
    load = 0.0
    for t in TABLES:
        seconds, line = ice.run(f"CREATE TABLE IF NOT EXISTS {t} AS SELECT * FROM "
                                f"read_parquet('{data / (t + '.parquet')}')")
        if "error" in line.lower():
            sys.exit(f"loading {t}: {line}")
        load += seconds
    # the Parquet side reads the Iceberg tables' own data files
    views = [f"CREATE VIEW {t} AS SELECT * FROM "
             f"read_parquet('{warehouse / 'default' / t / 'data' / '*.parquet'}')" for t in TABLES]
    pq = Session(args.sqe, ["--memory"], args.threads)
    for v in views:
        _, line = pq.run(v)
        if "error" in line.lower():
            sys.exit(f"{v}: {line}")
    queries = list(range(1, 23))
    times = {q: {"parquet": [], "iceberg": []} for q in queries}
    planning = {}
    for q in queries:
        text = run_tpch.query_text(q, args.sf, "sqe")
        pq.run(text)  # warm-up
        ice.run(text)
        for _ in range(args.runs):
            times[q]["parquet"].append(pq.run(text)[0])
            times[q]["iceberg"].append(ice.run(text)[0])
        _, plan = ice.run("EXPLAIN ANALYZE " + text)
        planning[q] = sum(float(ms) for ms in re.findall(r"planning: ([0-9.]+) ms", plan))
    pq.close()
    ice.close()

    lines = [f"# Iceberg read overhead, TPC-H SF{args.sf} ({datetime.date.today()})", "",
             f"Command: `.cache/venv/bin/python bench/iceberg_overhead.py --sf {args.sf} "
             f"--runs {args.runs} --threads {args.threads}`; medians of {args.runs} interleaved "
             f"runs after a warm-up; the same data files read as Iceberg tables (loaded by CTAS "
             f"from the tpchgen zstd files) and through views over read_parquet of those "
             f"tables' data files (warehouse load {load:.1f} s; 0 when it already existed).", "",
             "| query | Parquet s | Iceberg s | Iceberg/Parquet | Iceberg planning ms |",
             "|---|---|---|---|---|"]
    tot_p = tot_i = tot_plan = 0.0
    for q in queries:
        p = statistics.median(times[q]["parquet"])
        i = statistics.median(times[q]["iceberg"])
        tot_p += p
        tot_i += i
        tot_plan += planning[q]
        lines.append(f"| q{q:02d} | {p:.3f} | {i:.3f} | {i / p:.3f} | {planning[q]:.2f} |")
    lines.append(f"| **total** | **{tot_p:.3f}** | **{tot_i:.3f}** | **{tot_i / tot_p:.3f}** | "
                 f"**{tot_plan:.1f}** |")
    lines += ["", f"Overhead: {100 * (tot_i / tot_p - 1):+.1f}% of total time; planning is "
              f"{100 * tot_plan / 1000 / tot_i:.2f}% of the Iceberg total."]
    out = ROOT / "bench" / "results" / f"{datetime.date.today()}-iceberg-overhead-sf{args.sf}.md"
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    print(f"\nwritten to {out.relative_to(ROOT)}")
    json.dumps(times)  # keep the raw numbers serializable for later use


if __name__ == "__main__":
    main()
