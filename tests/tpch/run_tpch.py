#!/usr/bin/env python3
"""TPC-H oracle harness: runs the 22 TPC-H queries on SQE and on DuckDB and compares the answers.

Steps:
  1. Generate the data once with `tpchgen-cli csv` into .cache/tpch/sf<SF>/ (kept; regenerated
     only when incomplete).
  2. Load the CSV files into an in-memory DuckDB with the same types (tests/tpch/schema.sql) and
     compute the expected answers (tests/tpch/queries/qNN.sql, or tests/tpch/duckdb/qNN.sql where
     DuckDB needs other syntax).
  3. Run ONE `sqe sql --format json -f <script>` process whose script loads the tables and runs
     the selected queries; it prints one JSON line per statement.
  4. Compare value by value and print one line per query, then "N passed, N failed".

Comparison rules (see README.md): integers, decimals, strings and dates exactly; doubles with a
1e-9 relative tolerance; where DuckDB returns a double and SQE a decimal (avg and division of
decimals, which Trino keeps as decimals), within half a unit of SQE's last decimal place. Row
order is checked between rows whose ORDER BY keys differ; rows with equal keys (and the rows of
queries without ORDER BY) are compared as multisets, and when a LIMIT cuts through a group of
tied rows, only the key columns of that last group are compared.

Usage: .cache/venv/bin/python tests/tpch/run_tpch.py [--sf 0.1] [--sqe build/sqe]
           [--queries 1,3,5] [--threads N] [--duckdb-only] [--timeout SEC]
"""

import argparse
import datetime
import json
import math
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from decimal import Decimal, InvalidOperation
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
TABLES = ["region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"]

# Result columns (0-based) holding each query's ORDER BY keys, in ORDER BY order; [] = no ORDER BY.
ORDER_KEYS = {
    1: [0, 1], 2: [0, 2, 1, 3], 3: [1, 2], 4: [0], 5: [1], 6: [], 7: [0, 1, 2], 8: [0],
    9: [0, 1], 10: [2], 11: [1], 12: [0], 13: [1, 0], 14: [], 15: [0], 16: [3, 0, 1, 2],
    17: [], 18: [4, 3], 19: [], 20: [0], 21: [1, 0], 22: [0],
}
# The LIMIT of each query that has one.
LIMITS = {2: 100, 3: 10, 10: 20, 18: 100, 21: 100}

REL_TOL = 1e-9


# ---- data ---------------------------------------------------------------------------------------

def sf_name(sf):
    """'0.1' -> '0.1', '1.0' -> '1', '10' -> '10'."""
    return format(Decimal(sf).normalize(), "f")


def tpchgen_path():
    local = REPO / ".cache" / "venv" / "bin" / "tpchgen-cli"
    if local.exists():
        return str(local)
    found = shutil.which("tpchgen-cli")
    if not found:
        sys.exit("run_tpch: tpchgen-cli not found (run `bash scripts/setup.sh`)")
    return found


def ensure_data(sf, fmt="csv"):
    """Generates the files (fmt 'csv' or 'parquet') into .cache/tpch/sf<SF>/ (CSV) or
    .cache/tpch/sf<SF>-parquet/ unless they are there and complete."""
    suffix = "" if fmt == "csv" else f"-{fmt}"
    data_dir = REPO / ".cache" / "tpch" / f"sf{sf_name(sf)}{suffix}"
    marker = data_dir / ".complete"
    if marker.exists() and all((data_dir / f"{t}.{fmt}").exists() for t in TABLES):
        return data_dir
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"sf{sf_name(sf)}.", dir=data_dir.parent))
    print(f"generating TPC-H SF {sf_name(sf)} into {data_dir} ...", flush=True)
    start = time.monotonic()
    subprocess.run([tpchgen_path(), fmt, "-s", sf_name(sf), "-o", str(tmp), "--quiet"],
                   check=True)
    for t in TABLES:
        if not (tmp / f"{t}.{fmt}").exists():
            sys.exit(f"run_tpch: tpchgen-cli did not write {t}.{fmt}")
    (tmp / ".complete").write_text(f"tpchgen-cli {fmt} -s {sf_name(sf)}\n")
    if data_dir.exists():
        shutil.rmtree(data_dir)
    tmp.rename(data_dir)
    print(f"generated in {time.monotonic() - start:.1f}s", flush=True)
    return data_dir


# ---- SQL text -----------------------------------------------------------------------------------

def split_statements(text):
    """Splits SQL text at top-level ';' (outside quotes and comments); drops empty statements."""
    statements, start, i, n = [], 0, 0, len(text)
    while i < n:
        c = text[i]
        if c in "'\"":
            i += 1
            while i < n:
                if text[i] == c:
                    if i + 1 < n and text[i + 1] == c:
                        i += 2
                        continue
                    break
                i += 1
        elif text.startswith("--", i):
            i = text.find("\n", i)
            if i < 0:
                i = n
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2)
            i = n if i < 0 else i + 1
        elif c == ";":
            statements.append(text[start:i + 1])
            start = i + 1
        i += 1
    statements.append(text[start:])
    return [s.strip() for s in statements if strip_comments(s).strip(" \t\r\n;")]


def strip_comments(sql):
    return re.sub(r"--[^\n]*", "", sql)


def schema_statements(data_dir, fmt="csv"):
    """The statements that make the tables: schema.sql over CSV files, or one view per table
    over the Parquet files (the same statement text for both engines)."""
    if fmt == "parquet":
        return [f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{data_dir / (t + '.parquet')}');"
                for t in TABLES]
    if fmt == "iceberg":
        return [f"CREATE TABLE {t} AS SELECT * FROM read_parquet('{data_dir / (t + '.parquet')}');"
                for t in TABLES]
    text = (HERE / "schema.sql").read_text()
    return split_statements(text.replace("{dir}", str(data_dir)))


def query_text(q, sf, engine):
    """The text of query q for engine ('sqe' or 'duckdb'), parameters substituted."""
    path = HERE / "queries" / f"q{q:02d}.sql"
    if engine == "duckdb" and (HERE / "duckdb" / f"q{q:02d}.sql").exists():
        path = HERE / "duckdb" / f"q{q:02d}.sql"
    fraction = format((Decimal("0.0001") / Decimal(sf)).normalize(), "f")
    text = path.read_text().replace("{q11_fraction}", fraction).strip()
    return text if text.endswith(";") else text + ";"


# ---- DuckDB -------------------------------------------------------------------------------------

CREATE_RE = re.compile(r"CREATE TABLE (\w+)\s*\((.*)\)\s*;?\s*$", re.S | re.I)
CTAS_RE = re.compile(r"CREATE TABLE (\w+) AS SELECT", re.I)
LOAD_RE = re.compile(
    r"INSERT INTO (\w+)\s+SELECT \* FROM read_csv\('([^']*)'.*columns => '([^']*)'", re.S | re.I)


def columns_of_create(body):
    return [" ".join(part.split()) for part in re.split(r",\s*(?![^()]*\))", body.strip())]


def duckdb_load(con, statements):
    """Creates and loads the tables in DuckDB; checks that read_csv's columns match the tables.
    Returns {table: row count}."""
    created, counts = {}, {}
    for stmt in statements:
        sql = strip_comments(stmt).strip()
        m = CREATE_RE.match(sql)
        if m:
            created[m.group(1)] = columns_of_create(m.group(2))
            con.execute(sql)
            continue
        m = LOAD_RE.match(sql)
        if not m:
            sys.exit(f"run_tpch: schema.sql statement not understood:\n{stmt}")
        table, path, columns = m.groups()
        listed = [" ".join(c.split()) for c in re.split(r",\s*(?![^()]*\))", columns)]
        if listed != created.get(table):
            sys.exit(f"run_tpch: schema.sql: the read_csv columns of {table} "
                     "differ from its CREATE TABLE")
        con.execute(f"COPY {table} FROM '{path}' "
                    "(FORMAT csv, HEADER true, DELIMITER ',', QUOTE '\"')")
        counts[table] = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    return counts


def duckdb_answers(sf, data_dir, queries, threads, fmt="csv"):
    import duckdb

    con = duckdb.connect()
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    start = time.monotonic()
    if fmt in ("parquet", "iceberg"):
        counts = {}
        for stmt, t in zip(schema_statements(data_dir, "parquet"), TABLES):
            con.execute(stmt)
            counts[t] = con.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
    else:
        counts = duckdb_load(con, schema_statements(data_dir))
    print(f"duckdb: loaded {sum(counts.values())} rows in {time.monotonic() - start:.1f}s",
          flush=True)
    answers = {}
    for q in queries:
        start = time.monotonic()
        rows = con.execute(query_text(q, sf, "duckdb")).fetchall()
        answers[q] = (rows, time.monotonic() - start)
    con.close()
    return counts, answers


# ---- SQE ----------------------------------------------------------------------------------------

def run_sqe(sqe, script_path, threads, timeout, warehouse=None):
    """Runs sqe on the script (on the in-memory catalog, or on a fresh Iceberg warehouse);
    returns ([(line, arrival time)], start time, exit status, stderr)."""
    where = ["--warehouse", str(warehouse)] if warehouse else ["--memory"]
    cmd = [str(sqe), "sql", *where, "--format", "json", "-f", str(script_path)]
    if threads:
        cmd += ["--threads", str(threads)]
    stderr_file = tempfile.TemporaryFile(mode="w+")
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=stderr_file, text=True)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    lines = []
    try:
        for line in proc.stdout:
            lines.append((line.rstrip("\n"), time.monotonic()))
        status = proc.wait()
    finally:
        timer.cancel()
    stderr_file.seek(0)
    err = stderr_file.read()
    stderr_file.close()
    return lines, start, status, err


class JsonObject(list):
    """A JSON object as its (key, value) pairs, in order (keys may repeat)."""


def parse_line(line):
    """Parses one JSON line of sqe; returns (kind, payload): ("rows", [[values]]),
    ("count", n), ("ok", None), ("error", message) or ("bad", line)."""
    try:
        value = json.loads(line, object_pairs_hook=JsonObject)
    except ValueError:
        return "bad", line
    if not isinstance(value, JsonObject):
        if isinstance(value, list) and all(isinstance(r, JsonObject) for r in value):
            return "rows", [[v for _, v in row] for row in value]
        return "bad", line
    fields = dict(value)
    if isinstance(fields.get("error"), JsonObject):
        e = dict(fields["error"])
        where = f" at line {e['line']}, column {e['column']}" if e.get("line") else ""
        return "error", f"{e.get('message')} (SQLSTATE {e.get('sqlstate')}){where}"
    if isinstance(fields.get("rows"), int):
        return "count", fields["rows"]
    if fields.get("ok") is True:
        return "ok", None
    return "bad", line


# ---- comparison ---------------------------------------------------------------------------------

def show(v):
    if isinstance(v, Decimal):
        return format(v, "f")
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    return "NULL" if v is None else str(v)


def to_decimal(v):
    if isinstance(v, bool):
        return None
    try:
        return Decimal(str(v))
    except (InvalidOperation, ValueError):
        return None


def value_error(exp, got):
    """None when got (from SQE's JSON) matches exp (from DuckDB), else a description."""
    bad = f"expected {show(exp)} got {show(got)}"
    if exp is None or got is None:
        return None if exp is None and got is None else bad
    if isinstance(exp, bool):
        return None if got is exp else bad
    if isinstance(exp, datetime.datetime):
        return None if isinstance(got, str) and got.startswith(exp.isoformat(" ")[:19]) else bad
    if isinstance(exp, datetime.date):
        return None if got == exp.isoformat() else bad
    if isinstance(exp, str):
        return None if got == exp else bad
    if isinstance(exp, float):
        if isinstance(got, str):
            # SQE kept a decimal where DuckDB computed a double: agree to SQE's last digit.
            d = to_decimal(got)
            if d is None or not d.is_finite():
                return bad
            half_unit = 0.5 * 10.0 ** d.as_tuple().exponent
            ok = abs(float(d) - exp) <= half_unit + REL_TOL * abs(exp)
            return None if ok else bad
        if isinstance(got, (int, float)):
            return None if math.isclose(exp, float(got), rel_tol=REL_TOL, abs_tol=1e-12) else bad
        return bad
    if isinstance(exp, (int, Decimal)):
        if isinstance(got, float):
            return None if math.isclose(float(exp), got, rel_tol=REL_TOL) else bad
        d = to_decimal(got)
        return None if d is not None and d == exp else bad
    return None if show(got) == show(exp) else bad


def sort_key(row):
    """A total order over rows of mixed values, the same for DuckDB's and SQE's forms."""
    key = []
    for v in row:
        if v is None:
            key.append((0, 0.0, ""))
        elif isinstance(v, (datetime.date, datetime.datetime)):
            key.append((2, 0.0, v.isoformat()))
        elif isinstance(v, bool):
            key.append((1, float(v), ""))
        elif isinstance(v, (int, float, Decimal)):
            key.append((1, float(v), ""))
        else:
            d = to_decimal(v) if re.fullmatch(r"-?\d+(\.\d+)?", str(v)) else None
            key.append((1, float(d), "") if d is not None else (3, 0.0, str(v)))
    return key


def compare(q, expected, got):
    """None when got matches expected, else the first difference."""
    if len(got) != len(expected):
        return f"expected {len(expected)} rows, got {len(got)}"
    keys = ORDER_KEYS.get(q, [])
    # Runs of rows with equal ORDER BY keys (one run for a query without ORDER BY).
    runs = []
    if keys:
        start = 0
        for i in range(1, len(expected) + 1):
            key = [expected[i][k] for k in keys] if i < len(expected) else None
            if key != [expected[start][k] for k in keys]:
                runs.append((start, i))
                start = i
    elif expected:
        runs = [(0, len(expected))]
    cut = q in LIMITS and len(expected) == LIMITS[q]
    for n, (a, b) in enumerate(runs):
        exp_run, got_run = expected[a:b], got[a:b]
        if any(len(r) != len(exp_run[0]) for r in got_run):
            return f"row {a + 1}: expected {len(exp_run[0])} columns, got {len(got_run[0])}"
        columns = range(len(exp_run[0]))
        if cut and n == len(runs) - 1 and b - a > 1:
            columns = keys  # ties cut by LIMIT: the chosen rows may legitimately differ
        if b - a > 1:
            exp_run = sorted(exp_run, key=lambda r: sort_key([r[c] for c in columns]))
            got_run = sorted(got_run, key=lambda r: sort_key([r[c] for c in columns]))
        for i, (e, g) in enumerate(zip(exp_run, got_run)):
            for c in columns:
                err = value_error(e[c], g[c])
                if err:
                    where = f"row {a + i + 1} col {c + 1}"
                    if b - a > 1:
                        where += f" (rows {a + 1}-{b} compared as a set)"
                    return f"{where}: {err}"
    return None


# ---- main ---------------------------------------------------------------------------------------

def parse_queries(text):
    try:
        qs = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        sys.exit(f"run_tpch: bad --queries '{text}'")
    if not qs or any(q < 1 or q > 22 for q in qs):
        sys.exit("run_tpch: --queries wants numbers from 1 to 22")
    return qs


def main():
    ap = argparse.ArgumentParser(description="Compare SQE's TPC-H answers with DuckDB's.")
    ap.add_argument("--sf", default="0.1", help="scale factor (default 0.1)")
    ap.add_argument("--sqe", default="build/sqe", help="the sqe binary (default build/sqe)")
    ap.add_argument("--queries", default=",".join(str(q) for q in range(1, 23)),
                    help="comma-separated query numbers (default: all 22)")
    ap.add_argument("--threads", type=int, default=0, help="threads for SQE and DuckDB")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds before sqe is killed")
    ap.add_argument("--format", choices=["csv", "parquet", "iceberg"], default="csv",
                    help="csv: load tpchgen CSV files into tables; parquet: query tpchgen "
                         "Parquet files through views over read_parquet; iceberg: load the "
                         "Parquet files into Iceberg tables of a fresh warehouse (CTAS)")
    ap.add_argument("--duckdb-only", action="store_true",
                    help="only run the queries on DuckDB and print their row counts")
    args = ap.parse_args()
    try:
        if Decimal(args.sf) <= 0:
            raise InvalidOperation
    except InvalidOperation:
        sys.exit(f"run_tpch: bad --sf '{args.sf}'")
    queries = parse_queries(args.queries)

    sqe = Path(args.sqe)
    if not args.duckdb_only:
        if not sqe.exists() and (REPO / args.sqe).exists():
            sqe = REPO / args.sqe
        if not sqe.exists():
            print(f"run_tpch: {args.sqe} not found (build it with `make release`)")
            print(f"0 passed, {len(queries)} failed")
            return 1

    data_dir = ensure_data(args.sf, "parquet" if args.format == "iceberg" else args.format)
    counts, answers = duckdb_answers(args.sf, data_dir, queries, args.threads, args.format)

    if args.duckdb_only:
        empty = 0
        for q in queries:
            rows, seconds = answers[q]
            empty += not rows
            print(f"q{q:02d} duckdb {len(rows)} rows {seconds:.3f}s" + ("" if rows else " EMPTY"))
        print(f"{len(queries) - empty} passed, {empty} failed")
        return 1 if empty else 0

    load = schema_statements(data_dir, args.format)
    script = data_dir / "sqe_tpch.sql"
    with open(script, "w") as f:
        for stmt in load:
            f.write(stmt + "\n\n")
        for q in queries:
            f.write(f"-- q{q:02d}\n{query_text(q, args.sf, 'sqe')}\n\n")

    warehouse = tempfile.mkdtemp(prefix="sqe-tpch-warehouse-") if args.format == "iceberg" else None
    try:
        lines, start, status, err = run_sqe(sqe, script, args.threads, args.timeout, warehouse)
    finally:
        if warehouse:
            shutil.rmtree(warehouse, ignore_errors=True)
    failed_loads = 0
    previous = start
    for i, stmt in enumerate(load):
        if i >= len(lines):
            break
        line, arrived = lines[i]
        elapsed, previous = arrived - previous, arrived
        kind, payload = parse_line(line)
        m = LOAD_RE.match(strip_comments(stmt).strip()) or CTAS_RE.match(strip_comments(stmt).strip())
        if not m:
            if kind != "ok":
                failed_loads += 1
                created = CREATE_RE.match(strip_comments(stmt).strip())
                what = f"create {created.group(1)}" if created else f"schema statement {i + 1}"
                print(f"{what} FAILED: {payload if kind == 'error' else line[:200]}")
            continue
        table = m.group(1)
        if kind == "count" and payload == counts[table]:
            print(f"load {table} OK {payload} rows {elapsed:.3f}s")
        else:
            failed_loads += 1
            detail = payload if kind == "error" else \
                f"expected {counts[table]} rows, got {line[:200]}"
            print(f"load {table} FAILED: {detail}")

    passed = failed = 0
    for n, q in enumerate(queries):
        i = len(load) + n
        name = f"q{q:02d}"
        expected, _ = answers[q]
        if i >= len(lines):
            failed += 1
            print(f"{name} MISSING: no output (sqe exited with status {status})")
            continue
        line, arrived = lines[i]
        elapsed, previous = arrived - previous, arrived
        kind, payload = parse_line(line)
        if kind == "error":
            verdict = f"ERROR: {payload}"
        elif kind != "rows":
            verdict = f"ERROR: unexpected output: {line[:200]}"
        elif not payload and expected:
            verdict = f"VACUOUS: empty result, DuckDB has {len(expected)} rows"
        else:
            diff = compare(q, expected, payload)
            verdict = f"WRONG: {diff}" if diff else None
        if verdict:
            failed += 1
            print(f"{name} {verdict}")
        else:
            passed += 1
            note = " (VACUOUS: DuckDB is empty too)" if not expected else ""
            print(f"{name} OK {len(payload)} rows {elapsed:.3f}s{note}")

    extra = len(lines) - len(load) - len(queries)
    if status != 0 or extra > 0 or failed or failed_loads:
        print(f"sqe exited with status {status}; script: {script}")
        if extra > 0:
            print(f"sqe printed {extra} more line(s) than there are statements")
        tail = err.strip().splitlines()[-20:]
        if tail:
            print("sqe stderr (last lines):")
            for line in tail:
                print(f"  {line}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or failed_loads else 0


if __name__ == "__main__":
    sys.exit(main())
