#!/usr/bin/env python3
"""`make bench`: TPC-H on Parquet files, SQE side by side with DuckDB and DataFusion (issue 4).

What it does:
  1. Generates the data once with `tpchgen-cli parquet` into
     .cache/bench-data/tpch/sf<SF>/<codec>/<table>.parquet, one file per table, in a zstd and a
     snappy variant (a `.complete` marker says a set is whole).
  2. Starts every engine with the same thread count, reading the same files of one codec:
       sqe         one `sqe sql --format json --threads N` process fed statements on stdin;
                   the tables are `CREATE VIEW t AS SELECT * FROM read_parquet('<file>')`
       duckdb      a worker process; the same views over DuckDB's read_parquet; SET threads
       datafusion  a worker process; SessionContext.register_parquet; target_partitions = N
     Each engine lives in its own process, so its peak RSS (VmHWM) is its own.
  3. Per query: one warm-up, then --runs timed runs, interleaved across engines (A B C A B C) so
     machine drift hits all alike. Every answer of every run (warm-up included) is checked value
     by value against DuckDB's warm-up answer with the oracle rules of tests/tpch/run_tpch.py.
     Verdicts: OK; WRONG (differs: not counted as a win); ERROR (the engine failed: message
     kept, the run goes on); TIMEOUT (killed after --timeout s, restarted for the next query);
     VACUOUS (empty, and DuckDB's answer is empty too: the data did not exercise the query).
  4. Writes bench/results/<date>-tpch-sf<SF>.json (machine, versions, settings, every run),
     .md (medians and minimums, ratios, totals, geometric means, peak RSS, SQE's EXPLAIN ANALYZE
     of its three worst queries) and .png (per-query ratio bars, log scale).

Timing: wall clock measured as close to each engine as its client allows. SQE: from writing the
statement to its shell until the end of its JSON result arrives (parse, plan, run and result
encoding; SQE's own `.timer` value is kept too, at 1 ms resolution). DuckDB: execute() plus
fetchall() inside its worker. DataFusion: sql() plus collect() (Arrow batches) inside its
worker. Converting answers for the checks happens outside the timed part.

Adding an engine (SQE through Flight SQL, for one): subclass Engine, give it query/run/close,
and list it in ENGINES; see SqeFlightSql below.

Usage: .cache/venv/bin/python bench/run_bench.py [--suite tpch] [--sf 1] [--runs 5]
           [--threads 2] [--codec zstd|snappy] [--engines sqe,duckdb,datafusion]
           [--queries 1,3] [--timeout SEC] [--sqe build/sqe] [--out-dir bench/results]
"""

import argparse
import contextlib
import datetime
import importlib.metadata
import json
import math
import multiprocessing
import os
import platform
import re
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from decimal import Decimal, InvalidOperation
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests" / "tpch"))
sys.path.insert(0, str(HERE))

import run_tpch  # noqa: E402  (the oracle: query texts, comparison rules)
from tpch_memory import peak_rss_kb  # noqa: E402  (VmHWM of a process)

TABLES = run_tpch.TABLES
# tpchgen-cli --compression value per codec variant. Level 3 is parquet-java's zstd default,
# which is what Spark and Iceberg writers produce.
CODECS = {"zstd": "ZSTD(3)", "snappy": "SNAPPY"}
DEFAULT_CODEC = "zstd"
DATA_ROOT = ROOT / ".cache" / "bench-data"
# Verdicts whose times count (in totals, ratios and geometric means).
COUNTED = ("OK",)
# Verdicts of an answer that was produced (timed runs continue after them).
ANSWERED = ("OK", "WRONG", "VACUOUS", "UNCHECKED")


# ---- data ---------------------------------------------------------------------------------------

def tpchgen_version():
    try:
        out = subprocess.run([run_tpch.tpchgen_path(), "--version"], capture_output=True,
                             text=True, timeout=30).stdout.strip()
        return out.split()[-1] if out else None
    except (OSError, SystemExit, subprocess.SubprocessError):
        return None


def ensure_parquet(sf, codec):
    """Generates .cache/bench-data/tpch/sf<SF>/<codec>/<table>.parquet unless the set is whole.
    Returns the directory."""
    name = run_tpch.sf_name(sf)
    data_dir = DATA_ROOT / "tpch" / f"sf{name}" / codec
    marker = data_dir / ".complete"
    if marker.exists() and all((data_dir / f"{t}.parquet").exists() for t in TABLES):
        return data_dir
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{codec}.", dir=data_dir.parent))
    cmd = [run_tpch.tpchgen_path(), "parquet", "-s", name, "-c", CODECS[codec], "-o", str(tmp),
           "--quiet"]
    print(f"generating TPC-H SF {name} ({codec}) into {data_dir} ...", flush=True)
    start = time.monotonic()
    subprocess.run(cmd, check=True)
    for t in TABLES:
        if not (tmp / f"{t}.parquet").exists():
            sys.exit(f"run_bench: tpchgen-cli did not write {t}.parquet")
    shown = " ".join(["tpchgen-cli"] + cmd[1:-3] + ["-o", "DIR"])
    (tmp / ".complete").write_text(f"{shown}\ntpchgen-cli {tpchgen_version()}\n")
    if data_dir.exists():
        shutil.rmtree(data_dir)
    tmp.rename(data_dir)
    print(f"generated in {time.monotonic() - start:.1f}s", flush=True)
    return data_dir


def parquet_files(data_dir):
    return {t: str((data_dir / f"{t}.parquet").resolve()) for t in TABLES}


def sql_string(text):
    return "'" + text.replace("'", "''") + "'"


def view_statements(files):
    """CREATE VIEW <table> AS SELECT * FROM read_parquet('<file>'), one per table."""
    return [f"CREATE VIEW {t} AS SELECT * FROM read_parquet({sql_string(p)});"
            for t, p in files.items()]


# ---- answers --------------------------------------------------------------------------------------

def as_sqe_json(v):
    """A Python value in the form SQE's JSON output has (what run_tpch.compare expects as `got`):
    decimals as strings (their scale kept), dates as ISO strings."""
    if isinstance(v, Decimal):
        return format(v, "f")
    if isinstance(v, datetime.datetime):
        return v.isoformat(" ")
    if isinstance(v, datetime.date):
        return v.isoformat()
    return v


def value_error_truncating(exp, got):
    """run_tpch's rule, except that where DuckDB has a double and the engine a decimal, the
    decimal may be off by less than one unit of its last place (truncated) instead of half a unit
    (rounded). DataFusion's avg of a decimal truncates to scale 6; Trino and SQE round half up."""
    err = ORIGINAL_VALUE_ERROR(exp, got)
    if err and isinstance(exp, float) and isinstance(got, str):
        d = run_tpch.to_decimal(got)
        if d is not None and d.is_finite():
            unit = 10.0 ** d.as_tuple().exponent
            if abs(float(d) - exp) < unit + run_tpch.REL_TOL * abs(exp):
                return None
    return err


ORIGINAL_VALUE_ERROR = run_tpch.value_error


@contextlib.contextmanager
def value_rule(rule):
    """Runs run_tpch.compare with another per-value rule (compare looks value_error up in its
    module at call time)."""
    saved = run_tpch.value_error
    run_tpch.value_error = rule
    try:
        yield
    finally:
        run_tpch.value_error = saved


def verdict(q, expected, got, rule=None):
    """(status, detail) of an answer `got` (SQE JSON form) against DuckDB's `expected`."""
    if expected is None:
        return "UNCHECKED", "no DuckDB answer to check against"
    if not got and not expected:
        return "VACUOUS", "empty, and DuckDB's answer is empty too"
    if not got:
        return "WRONG", f"empty result, DuckDB has {len(expected)} rows"
    with value_rule(rule or ORIGINAL_VALUE_ERROR):
        diff = run_tpch.compare(q, expected, got)
    return ("WRONG", diff) if diff else ("OK", None)


# ---- engines ------------------------------------------------------------------------------------

class Outcome:
    """One execution: kind is "ok" (rows set), "error", "timeout" or "crash" (message set)."""

    def __init__(self, kind, seconds=None, rows=None, message=None, engine_seconds=None):
        self.kind, self.seconds, self.rows, self.message = kind, seconds, rows, message
        self.engine_seconds = engine_seconds  # the engine's own timer, where it has one


class EngineUnavailable(Exception):
    pass


class Engine:
    """The plug-in interface. An engine runs in its own process (so that its peak RSS is its
    own), is started lazily and restarted after a crash or timeout.

    name        short id used in options, JSON and file names (bench/queries/<name>/ overrides)
    label       column title
    oracle      True only for DuckDB: the reference every other answer is checked against
    rule        per-value comparison rule (None: run_tpch's)
    """

    name = label = "?"
    oracle = False
    rule = None
    dialect = "sqe"  # which text of tests/tpch to use when bench/queries/<name>/ has none

    def __init__(self, cfg):
        self.cfg = cfg
        self.setup_seconds = None
        self.setup_errors = []
        self.peak_kb = None
        self.baseline_kb = None
        self.restarts = 0

    def query(self, q):
        """The query text for this engine: bench/queries/<name>/qNN.sql when it exists (only
        where the engine cannot run the common text), else tests/tpch's text."""
        variant = HERE / "queries" / self.name / f"q{q:02d}.sql"
        if variant.exists():
            fraction = format((Decimal("0.0001") / Decimal(self.cfg.sf)).normalize(), "f")
            text = variant.read_text().replace("{q11_fraction}", fraction).strip()
            return text if text.endswith(";") else text + ";"
        return run_tpch.query_text(q, self.cfg.sf, self.dialect)

    def run(self, sql, timeout):
        """Runs one statement; returns an Outcome (rows in SQE's JSON form, DuckDB's in its own
        Python form). Never raises for an engine failure."""
        raise NotImplementedError

    def note_rss(self, pid):
        kb = peak_rss_kb(pid) if pid else None
        if kb is not None:
            self.peak_kb = max(self.peak_kb or 0, kb)

    def info(self):
        """Versions and settings for the JSON."""
        return {}

    def close(self):
        pass


def current_rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class LineReader:
    """Lines from a pipe with a deadline (select + os.read; no Python buffering in between)."""

    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray()
        self.scanned = 0

    def readline(self, deadline):
        while True:
            i = self.buf.find(b"\n", self.scanned)
            if i >= 0:
                line = bytes(self.buf[:i])
                del self.buf[:i + 1]
                self.scanned = 0
                return line.decode("utf-8", "replace")
            self.scanned = len(self.buf)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if not ready:
                raise TimeoutError
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                raise EOFError
            self.buf += chunk


class SqeShell(Engine):
    """SQE's shell (`sqe sql --format json --threads N`), one statement at a time on stdin."""

    name, label = "sqe", "SQE"

    def __init__(self, cfg):
        super().__init__(cfg)
        self.proc = None
        self.reader = None
        self.stderr = None

    def setup_statements(self):
        if self.cfg.sqe_load == "csv":
            # Hidden test mode (--sqe-load=csv): the oracle's CSV files loaded into memory tables.
            return run_tpch.schema_statements(run_tpch.ensure_data(self.cfg.sf))
        return view_statements(self.cfg.files)

    def start(self):
        binary = Path(self.cfg.sqe)
        if not binary.exists():
            raise EngineUnavailable(f"{binary} not found (build it with `make release`)")
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [str(binary), "sql", "--memory", "--format", "json", "--threads", str(self.cfg.threads)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr)
        self.reader = LineReader(self.proc.stdout.fileno())
        self.send(".timer on\n")
        first = self.setup_seconds is None
        start = time.monotonic()
        for stmt in self.setup_statements():
            out = self.execute(stmt, self.cfg.timeout)
            if out.kind != "ok" and first:
                shown = " ".join(run_tpch.strip_comments(stmt).split())
                self.setup_errors.append(f"`{shown[:60]}...`: {out.message}")
            if out.kind in ("timeout", "crash"):
                break
        if first:
            self.setup_seconds = time.monotonic() - start
            self.baseline_kb = current_rss_kb(self.proc.pid)

    def send(self, text):
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def stderr_tail(self):
        if not self.stderr:
            return ""
        self.stderr.seek(0)
        lines = [ln for ln in self.stderr.read().splitlines() if not ln.startswith("Error: ")]
        self.stderr.seek(0, 2)
        return " | ".join(lines[-5:])

    def stop(self, kill):
        if not self.proc:
            return
        self.note_rss(self.proc.pid)
        if kill:
            self.proc.kill()
        else:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.proc = None

    def execute(self, sql, timeout):
        text = sql.strip()
        if not text.endswith(";"):
            text += ";"
        start = time.perf_counter()
        deadline = time.monotonic() + timeout
        lines = []
        try:
            self.send(text + "\n")
            while True:
                line = self.reader.readline(deadline)
                if line.startswith("Run Time:"):
                    seconds = time.perf_counter() - start
                    break
                lines.append(line)
        except TimeoutError:
            self.stop(kill=True)
            self.restarts += 1
            return Outcome("timeout", message=f"no answer within {timeout:g} s (killed)")
        except (EOFError, BrokenPipeError, OSError):
            try:
                status = self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                status = None
            tail = self.stderr_tail()
            self.stop(kill=True)
            self.restarts += 1
            return Outcome("crash", message=f"sqe exited (status {status})"
                           + (f": {tail}" if tail else ""))
        try:
            engine_seconds = float(line.split()[2])
        except (IndexError, ValueError):
            engine_seconds = None
        if not lines:
            return Outcome("error", seconds, message="no output before Run Time")
        kind, payload = run_tpch.parse_line(lines[-1])
        if kind == "rows":
            return Outcome("ok", seconds, rows=payload, engine_seconds=engine_seconds)
        if kind in ("ok", "count"):
            return Outcome("ok", seconds, rows=[], engine_seconds=engine_seconds)
        if kind == "error":
            return Outcome("error", seconds, message=payload)
        return Outcome("error", seconds, message=f"unexpected output: {lines[-1][:200]}")

    def run(self, sql, timeout):
        if self.proc is None:
            try:
                self.start()
            except EngineUnavailable as e:
                return Outcome("error", message=str(e))
            if self.proc is None:  # setup crashed or timed out
                return Outcome("crash", message="sqe died during setup: "
                               + "; ".join(self.setup_errors[-1:]))
        return self.execute(sql, timeout)

    def info(self):
        version = None
        if Path(self.cfg.sqe).exists():
            version = subprocess.run([self.cfg.sqe, "version"], capture_output=True,
                                     text=True).stdout.strip()
        describe = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty",
                                   "--tags"], capture_output=True, text=True).stdout.strip()
        return {"version": version, "git": describe, "binary": str(self.cfg.sqe),
                "load": self.cfg.sqe_load, "threads": self.cfg.threads}

    def close(self):
        self.stop(kill=False)


def worker_main(conn, kind, threads, files):
    """The body of a DuckDB or DataFusion worker process: answers ("run", sql) messages with
    ("ok", seconds, rows) or ("error", message) until ("exit",)."""
    try:
        if kind == "duckdb":
            import duckdb
            con = duckdb.connect()
            con.execute(f"SET threads = {int(threads)}")
        else:
            from datafusion import SessionConfig, SessionContext
            ctx = SessionContext(SessionConfig().with_target_partitions(int(threads)))
        baseline = current_rss_kb(os.getpid())
        start = time.perf_counter()
        if kind == "duckdb":
            for stmt in view_statements(files):
                con.execute(stmt)
        else:
            for t, path in files.items():
                ctx.register_parquet(t, path)
        conn.send(("ready", time.perf_counter() - start, baseline))
    except Exception as e:  # noqa: BLE001  (reported to the driver, not raised)
        conn.send(("failed", f"{type(e).__name__}: {e}"))
        return
    while True:
        msg = conn.recv()
        if msg[0] == "exit":
            return
        sql = msg[1]
        try:
            if kind == "duckdb":
                start = time.perf_counter()
                rows = con.execute(sql).fetchall()
                seconds = time.perf_counter() - start
                rows = [list(r) for r in rows]
            else:
                start = time.perf_counter()
                batches = ctx.sql(sql).collect()
                seconds = time.perf_counter() - start
                rows = []
                for b in batches:
                    columns = [c.to_pylist() for c in b.columns]
                    rows.extend([as_sqe_json(v) for v in r] for r in zip(*columns))
            conn.send(("ok", seconds, rows))
        except Exception as e:  # noqa: BLE001
            conn.send(("error", f"{type(e).__name__}: {str(e).strip()[:2000]}"))


class WorkerEngine(Engine):
    """An engine with a Python client, run in a worker process (multiprocessing, spawn)."""

    kind = None
    package = None

    def __init__(self, cfg):
        super().__init__(cfg)
        self.proc = None
        self.conn = None

    def start(self):
        mp = multiprocessing.get_context("spawn")
        self.conn, child = mp.Pipe()
        self.proc = mp.Process(target=worker_main, daemon=True, name=f"bench-{self.name}",
                               args=(child, self.kind, self.cfg.threads, self.cfg.files))
        self.proc.start()
        child.close()
        if not self.conn.poll(max(self.cfg.timeout, 300)):
            self.stop(kill=True)
            raise EngineUnavailable("worker did not start")
        try:
            msg = self.conn.recv()
        except EOFError:
            self.stop(kill=True)
            raise EngineUnavailable("worker died while starting")
        if msg[0] != "ready":
            if self.setup_seconds is None:
                self.setup_errors.append(msg[1])
            self.stop(kill=True)
            raise EngineUnavailable(msg[1])
        if self.setup_seconds is None:
            self.setup_seconds, self.baseline_kb = msg[1], msg[2]

    def stop(self, kill):
        if not self.proc:
            return
        self.note_rss(self.proc.pid)
        if kill:
            self.proc.kill()
        else:
            try:
                self.conn.send(("exit",))
            except OSError:
                pass
        self.proc.join(30)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()
        self.proc = None

    def run(self, sql, timeout):
        if self.proc is None:
            try:
                self.start()
            except EngineUnavailable as e:
                return Outcome("error", message=str(e))
        try:
            self.conn.send(("run", sql))
            if not self.conn.poll(timeout):
                self.stop(kill=True)
                self.restarts += 1
                return Outcome("timeout", message=f"no answer within {timeout:g} s (killed)")
            msg = self.conn.recv()
        except (EOFError, OSError) as e:
            code = self.proc.exitcode if self.proc else None
            self.stop(kill=True)
            self.restarts += 1
            return Outcome("crash", message=f"worker died (exit code {code}): {e}")
        if msg[0] == "ok":
            return Outcome("ok", msg[1], rows=msg[2])
        return Outcome("error", message=msg[1])

    def info(self):
        try:
            version = importlib.metadata.version(self.package)
        except importlib.metadata.PackageNotFoundError:
            version = None
        return {"version": version, "threads": self.cfg.threads}

    def close(self):
        self.stop(kill=False)


class DuckDBWorker(WorkerEngine):
    name, label, kind, package = "duckdb", "DuckDB", "duckdb", "duckdb"
    oracle = True
    dialect = "duckdb"


class DataFusionWorker(WorkerEngine):
    name, label, kind, package = "datafusion", "DataFusion", "datafusion", "datafusion"
    rule = staticmethod(value_error_truncating)

    def info(self):
        d = super().info()
        d["settings"] = {"target_partitions": self.cfg.threads}
        return d


class SqeFlightSql(Engine):
    """SQE through its Flight SQL server, with the ADBC Flight SQL client: the same queries as
    `sqe`, to show the protocol overhead. HOOK, not implemented until the server exists. To
    implement: start() launches the server on a free port with --threads N over the same
    views, and connects with adbc_driver_flightsql.dbapi.connect(uri); run() times
    cursor.execute(sql) + fetch_arrow_table() and returns rows converted with as_sqe_json;
    note_rss() reads the server's pid. Then select it with --engines sqe,sqe-flight,duckdb,...
    (the Markdown table gains a column and the ratio SQE Flight SQL / SQE)."""

    name, label = "sqe-flight", "SQE Flight SQL"

    def run(self, sql, timeout):
        return Outcome("error", message="SQE has no Flight SQL server yet (engine hook only)")


ENGINES = {e.name: e for e in (SqeShell, DuckDBWorker, DataFusionWorker, SqeFlightSql)}
DEFAULT_ENGINES = ["sqe", "duckdb", "datafusion"]
# Ratios reported: (numerator, denominator), when both engines ran.
RATIOS = [("sqe", "duckdb"), ("sqe", "datafusion"), ("sqe-flight", "sqe"),
          ("datafusion", "duckdb")]


# ---- the run ------------------------------------------------------------------------------------

class Config:
    pass


def run_queries(cfg, engines, queries):
    """Warm-up and timed runs, interleaved; returns the per-query records."""
    oracle = next(e for e in engines if e.oracle)
    records = []
    for q in queries:
        texts = {e.name: e.query(q) for e in engines}
        rec = {"query": q, "engines": {}}
        for e in engines:
            rec["engines"][e.name] = {"status": None, "detail": None, "rows": None,
                                      "warmup_s": None, "runs_s": [], "engine_runs_s": []}
        expected = None
        for rep in range(cfg.runs + 1):
            outs = {}
            for e in engines:  # the round: A B C
                if rec["engines"][e.name]["status"] in (None,) + ANSWERED:
                    outs[e.name] = e.run(texts[e.name], cfg.timeout)
            # Checks after the round, the oracle first (its warm-up answer is the reference).
            for e in sorted(engines, key=lambda x: not x.oracle):
                if e.name not in outs:
                    continue  # ERROR or TIMEOUT earlier: no more runs of this query here
                out, r = outs[e.name], rec["engines"][e.name]
                if out.kind != "ok":
                    r["status"] = "TIMEOUT" if out.kind == "timeout" else "ERROR"
                    r["detail"] = out.message
                    continue
                if e.oracle:
                    if rep == 0:
                        expected = out.rows
                        status = ("OK", None) if out.rows else ("VACUOUS", "empty answer")
                    elif len(out.rows) != len(expected or []):
                        status = ("WRONG", f"run {rep}: {len(out.rows)} rows, warm-up had "
                                  f"{len(expected or [])}")
                    else:
                        status = (r["status"], r["detail"])
                else:
                    status = verdict(q, expected if oracle_ok(rec, oracle) else None,
                                     out.rows, e.rule)
                    if rep > 0 and status[0] == "WRONG":
                        status = ("WRONG", f"timed run {rep}: {status[1]}")
                if r["status"] != "WRONG":  # the first wrong answer sticks
                    r["status"], r["detail"] = status
                r["rows"] = len(out.rows)
                if rep == 0:
                    r["warmup_s"] = out.seconds
                else:
                    r["runs_s"].append(out.seconds)
                    if out.engine_seconds is not None:
                        r["engine_runs_s"].append(out.engine_seconds)
        for e in engines:
            r = rec["engines"][e.name]
            if r["runs_s"]:
                r["median_s"] = statistics.median(r["runs_s"])
                r["min_s"] = min(r["runs_s"])
            else:
                r["median_s"] = r["min_s"] = None
            if not r["engine_runs_s"]:
                del r["engine_runs_s"]
        rec["ratios"] = {}
        for a, b in RATIOS:
            ra, rb = rec["engines"].get(a), rec["engines"].get(b)
            if ra and rb:
                ok = ra["status"] in COUNTED and rb["status"] in COUNTED
                rec["ratios"][f"{a}/{b}"] = ra["median_s"] / rb["median_s"] if ok and \
                    rb["median_s"] else None
        records.append(rec)
        print(progress_line(rec, engines), flush=True)
    return records


def oracle_ok(rec, oracle):
    return rec["engines"][oracle.name]["status"] in ("OK", "VACUOUS")


def progress_line(rec, engines):
    parts = [f"q{rec['query']:02d}"]
    for e in engines:
        r = rec["engines"][e.name]
        t = f"{r['median_s'] * 1000:9.1f} ms" if r["median_s"] is not None else " " * 12
        parts.append(f"{e.name} {t} {r['status']:<8}")
    for key, v in rec["ratios"].items():
        if key.startswith("sqe"):
            parts.append(f"{key} {v:.2f}" if v else f"{key}   -")
    line = "  ".join(parts)
    for e in engines:
        r = rec["engines"][e.name]
        if r["status"] not in ("OK",) and r["detail"]:
            line += f"\n     {e.name}: {r['status']}: {r['detail'][:300]}"
    return line


def summarize(records, engines):
    names = [e.name for e in engines]
    s = {"engines": {}, "pairs": {}}
    for n in names:
        times = [r["engines"][n]["median_s"] for r in records if r["engines"][n]["status"] in COUNTED]
        counts = {}
        for r in records:
            st = r["engines"][n]["status"]
            counts[st] = counts.get(st, 0) + 1
        s["engines"][n] = {"total_median_s": sum(times), "queries_counted": len(times),
                           "statuses": counts}
    for a, b in RATIOS:
        if a not in names or b not in names:
            continue
        key = f"{a}/{b}"
        both = [r for r in records if r["ratios"].get(key)]
        ta = sum(r["engines"][a]["median_s"] for r in both)
        tb = sum(r["engines"][b]["median_s"] for r in both)
        ratios = [r["ratios"][key] for r in both]
        worst = sorted(both, key=lambda r: -r["ratios"][key])[:3]
        s["pairs"][key] = {
            "queries": len(both), "total_a_s": ta, "total_b_s": tb,
            "total_ratio": ta / tb if tb else None,
            "geomean_ratio": math.exp(sum(math.log(x) for x in ratios) / len(ratios))
            if ratios else None,
            "worst": [{"query": r["query"], "ratio": r["ratios"][key]} for r in worst]}
    return s


def explain_worst(cfg, engines, records, summary):
    """EXPLAIN ANALYZE on SQE of its three worst queries against DuckDB (plan text lines)."""
    sqe = next((e for e in engines if e.name == "sqe"), None)
    pair = summary["pairs"].get("sqe/duckdb")
    if not sqe or not pair or not pair["worst"]:
        return {}
    plans = {}
    for w in pair["worst"]:
        q = w["query"]
        out = sqe.run("EXPLAIN ANALYZE\n" + sqe.query(q), cfg.timeout)
        if out.kind == "ok":
            plans[q] = [str(row[0]) if row else "" for row in out.rows]
        else:
            plans[q] = [f"({out.kind}: {out.message})"]
    return plans


# ---- machine ------------------------------------------------------------------------------------

def machine_info():
    cpu = None
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem_kb = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem_kb = int(line.split()[1])
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {"cpu": cpu, "cores": os.cpu_count(), "cores_usable": usable,
            "memory_gib": round(mem_kb / 1048576, 1) if mem_kb else None,
            "platform": platform.platform(), "python": platform.python_version(),
            "loadavg_start": [round(x, 2) for x in os.getloadavg()]}


def package_version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


# ---- output -------------------------------------------------------------------------------------

def ms(v):
    return "" if v is None else f"{v * 1000:.1f}"


def ratio_cell(v):
    return "–" if v is None else f"{v:.2f}"


def write_markdown(path, out, engines):
    labels = {e.name: e.label for e in engines}
    names = [e.name for e in engines]
    ratio_keys = [f"{a}/{b}" for a, b in RATIOS if a in names and b in names]
    rl = {k: f"{labels[k.split('/')[0]]}/{labels[k.split('/')[1]]}" for k in ratio_keys}
    lines = []
    w = lines.append
    m, v = out["machine"], out["versions"]
    w(f"# TPC-H SF{out['sf']} on Parquet ({out['codec']}), {out['threads']} threads, "
      f"median of {out['runs']} runs ({out['date']})")
    if out["sqe_load"] != "parquet":
        w("")
        w(f"**Test mode: SQE reads in-memory tables loaded from {out['sqe_load']} files, not the "
          "Parquet files; its times are not comparable.**")
    w("")
    w(f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB; {m['platform']}; "
      f"load average {m['loadavg_start'][0]} at start, {m['loadavg_end'][0]} at end.  ")
    w(f"Versions: SQE {v['sqe'].get('git')} ({v['sqe'].get('version')}), DuckDB {v['duckdb']}, "
      f"DataFusion {v['datafusion']}, pyarrow {v['pyarrow']}, tpchgen-cli {v['tpchgen-cli']}.  ")
    w(f"Method: one warm-up, then {out['runs']} timed runs per query per engine, interleaved; "
      f"times in ms as median (min). Every answer checked against DuckDB's, value by value. "
      f"Data: `{out['data']['generator']}`, {out['data']['total_mib']} MiB. "
      f"Reading guide: bench/README.md.")
    w("")
    head = ["query"] + [f"{labels[n]} ms" for n in names] + [rl[k] for k in ratio_keys] + ["check"]
    w("| " + " | ".join(head) + " |")
    w("|" + "|".join(["---"] + ["---:"] * (len(names) + len(ratio_keys)) + ["---"]) + "|")
    notes = {}
    for rec in out["queries"]:
        cells = [f"q{rec['query']:02d}"]
        checks = []
        for n in names:
            r = rec["engines"][n]
            if r["median_s"] is not None and r["status"] in ANSWERED:
                c = f"{ms(r['median_s'])} ({ms(r['min_s'])})"
                if r["status"] != "OK":
                    c += f" {r['status']}"
            else:
                c = r["status"] or ""
            cells.append(c)
            if r["status"] != "OK":
                key = (n, r["status"], re.sub(r" at line \d+, column \d+$", "", r["detail"] or ""))
                notes.setdefault(key, []).append(rec["query"])
                checks.append(f"{labels[n]} {r['status']}")
        cells += [ratio_cell(rec["ratios"].get(k)) for k in ratio_keys]
        cells.append(", ".join(checks) if checks else "OK")
        w("| " + " | ".join(cells) + " |")
    s = out["summary"]
    cells = ["total"]
    for n in names:
        e = s["engines"][n]
        cells.append(f"{ms(e['total_median_s'])} ({e['queries_counted']} q)"
                     if e["queries_counted"] else "–")
    for k in ratio_keys:
        p = s["pairs"].get(k)
        cells.append(ratio_cell(p["total_ratio"]) if p else "–")
    w("| " + " | ".join(cells + [""]) + " |")
    cells = ["geomean"] + [""] * len(names)
    for k in ratio_keys:
        p = s["pairs"].get(k)
        cells.append(ratio_cell(p["geomean_ratio"]) if p else "–")
    w("| " + " | ".join(cells + [""]) + " |")
    w("")
    w("Engine totals are sums of medians over the queries that engine answered correctly (q = how "
      "many). Ratio totals are over the queries both engines answered correctly: ")
    for k in ratio_keys:
        p = s["pairs"].get(k)
        if p and p["queries"]:
            worst = ", ".join(f"q{x['query']:02d} {x['ratio']:.2f}" for x in p["worst"])
            w(f"- {rl[k]}: {p['queries']} queries, {ms(p['total_a_s'])} ms vs "
              f"{ms(p['total_b_s'])} ms, total ratio {p['total_ratio']:.2f}, geometric mean "
              f"{p['geomean_ratio']:.2f}; worst: {worst}")
        else:
            w(f"- {rl[k]}: no query answered correctly by both")
    w("")
    w("| engine | peak RSS MiB | after start MiB | setup s | restarts |")
    w("|---|---:|---:|---:|---:|")
    for n in names:
        e = out["engines"][n]
        mib = (lambda kb: "" if kb is None else f"{kb / 1024:.0f}")
        setup = "" if e["setup_s"] is None else f"{e['setup_s']:.2f}"
        w(f"| {labels[n]} | {mib(e['peak_rss_kb'])} | {mib(e['baseline_rss_kb'])} | {setup} | "
          f"{e['restarts']} |")
    w("")
    w("Peak RSS is the VmHWM of the engine's own process; DuckDB's and DataFusion's include their "
      "Python worker (the 'after start' column is that process before any query).")
    problems = [(n, e["setup_errors"]) for n, e in out["engines"].items() if e["setup_errors"]]
    if problems or notes:
        w("")
        w("## Failures")
        w("")
        for n, errs in problems:
            for err in errs:
                w(f"- {labels[n]} setup: {err}")
        for (n, status, detail), qs in notes.items():
            where = ", ".join(f"q{q:02d}" for q in qs)
            w(f"- {labels[n]} {status} {where}: {detail or ''}")
    if out.get("explain"):
        w("")
        w("## EXPLAIN ANALYZE of SQE's three worst queries (against DuckDB)")
        for q, plan in out["explain"].items():
            w("")
            w(f"q{int(q):02d}:")
            w("```")
            lines.extend(plan)
            w("```")
    Path(path).write_text("\n".join(lines) + "\n")


def write_chart(path, out, engines):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [e.name for e in engines]
    labels = {e.name: e.label for e in engines}
    series = [(f"{a}/{b}", f"{labels[a]} / {labels[b]}", color) for (a, b), color in
              zip(RATIOS, ["#1f77b4", "#ff7f0e", "#2ca02c", "#b0b0b0"]) if a in names and b in names]
    qs = [rec["query"] for rec in out["queries"]]
    fig, ax = plt.subplots(figsize=(max(8, 0.75 * len(qs) + 3), 6), dpi=120)
    width = 0.8 / max(1, len(series))
    values = [v for rec in out["queries"] for v in rec["ratios"].values() if v]
    lo = min(values + [0.5]) / 1.5
    hi = max(values + [2.0]) * 1.5
    for i, (key, label, color) in enumerate(series):
        xs = [j + (i - (len(series) - 1) / 2) * width for j in range(len(qs))]
        ys = [rec["ratios"].get(key) for rec in out["queries"]]
        ax.bar([x for x, y in zip(xs, ys) if y], [y for y in ys if y], width, label=label,
               color=color, edgecolor="black", linewidth=0.3)
        for x, y, rec in zip(xs, ys, out["queries"]):
            if not y:
                a, b = key.split("/")
                bad = [f"{labels[n]} {rec['engines'][n]['status']}" for n in (a, b)
                       if rec["engines"][n]["status"] != "OK"]
                ax.text(x, lo * 1.08, "; ".join(bad) or "n/a", rotation=90, ha="center",
                        va="bottom", fontsize=8, color=color, fontweight="bold")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylim(lo, hi)
    ax.set_xticks(range(len(qs)))
    ax.set_xticklabels([f"q{q:02d}" for q in qs], fontsize=9)
    ax.set_ylabel("ratio of median times (log scale; < 1: numerator engine faster)")
    ax.set_title(f"TPC-H SF{out['sf']}, Parquet ({out['codec']}), {out['threads']} threads, "
                 f"median of {out['runs']} runs, {out['date']}")
    ax.grid(axis="y", which="both", linewidth=0.3, alpha=0.6)
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.06), ncol=len(series), fontsize=9,
              frameon=False)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# ---- main ---------------------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(description="TPC-H on Parquet: SQE, DuckDB and DataFusion.")
    ap.add_argument("--suite", default="tpch", help="benchmark suite (only tpch; see README)")
    ap.add_argument("--sf", default="1", help="scale factor (default 1)")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per query and engine")
    ap.add_argument("--threads", type=int, default=2, help="threads for every engine")
    ap.add_argument("--codec", default=DEFAULT_CODEC, choices=sorted(CODECS),
                    help=f"which Parquet variant to read (default {DEFAULT_CODEC})")
    ap.add_argument("--engines", default=",".join(DEFAULT_ENGINES),
                    help=f"comma-separated, from {', '.join(ENGINES)} (duckdb is required: "
                    "it is the oracle)")
    ap.add_argument("--queries", default=",".join(str(q) for q in range(1, 23)))
    ap.add_argument("--timeout", type=float, default=1800,
                    help="seconds per statement before an engine is killed (default 1800)")
    ap.add_argument("--sqe", default=str(ROOT / "build" / "sqe"), help="the sqe binary")
    ap.add_argument("--out-dir", default=str(HERE / "results"), help="where results go")
    ap.add_argument("--no-explain", action="store_true",
                    help="skip SQE's EXPLAIN ANALYZE of its three worst queries")
    ap.add_argument("--generate-only", action="store_true", help="only generate the data")
    ap.add_argument("--render", metavar="JSON",
                    help="only rewrite the .md and .png of an earlier result from its .json")
    ap.add_argument("--sqe-load", default="parquet", choices=["parquet", "csv"],
                    help=argparse.SUPPRESS)  # csv: test the SQE plumbing without Parquet
    args = ap.parse_args(argv)
    try:
        if Decimal(args.sf) <= 0:
            raise InvalidOperation
    except InvalidOperation:
        ap.error(f"bad --sf '{args.sf}'")
    if args.runs < 1 or args.threads < 1:
        ap.error("--runs and --threads must be at least 1")
    return args


def render(json_path):
    """Rewrites <base>.md and <base>.png from <base>.json."""
    out = json.loads(Path(json_path).read_text())
    engines = []
    for name, e in out["engines"].items():
        engine = Engine.__new__(ENGINES.get(name, Engine))
        engine.name, engine.label = name, e["label"]
        engines.append(engine)
    base = str(json_path)[:-len(".json")]
    write_markdown(f"{base}.md", out, engines)
    write_chart(f"{base}.png", out, engines)
    print(f"written {base}.md and .png")
    return 0


def main(argv=None):
    args = parse_args(argv)
    if args.render:
        return render(args.render)
    if args.suite != "tpch":
        print(f"run_bench: suite '{args.suite}' is not available, only tpch: DuckDB's TPC-DS "
              "generator is an extension downloaded on INSTALL (no network here), tpcgen-cli "
              "(PyPI) generates TPC-DS offline but its queries are not in the tree yet, and no "
              "SSB generator is packaged; see bench/README.md", file=sys.stderr)
        return 2
    names = [n.strip() for n in args.engines.split(",") if n.strip()]
    unknown = [n for n in names if n not in ENGINES]
    if unknown or "duckdb" not in names:
        print(f"run_bench: --engines wants names from {', '.join(ENGINES)}, duckdb included",
              file=sys.stderr)
        return 2
    queries = run_tpch.parse_queries(args.queries)

    sf = run_tpch.sf_name(args.sf)
    dirs = {codec: ensure_parquet(args.sf, codec) for codec in CODECS}
    if args.generate_only:
        return 0
    data_dir = dirs[args.codec]

    cfg = Config()
    cfg.sf, cfg.runs, cfg.threads, cfg.timeout = args.sf, args.runs, args.threads, args.timeout
    cfg.sqe, cfg.sqe_load = args.sqe, args.sqe_load
    cfg.files = parquet_files(data_dir)
    engines = [ENGINES[n](cfg) for n in names]

    print(f"TPC-H SF {sf}, {args.codec}, {args.threads} threads, {args.runs} runs; engines: "
          f"{', '.join(names)}" + (" (SQE loads CSV)" if args.sqe_load == "csv" else ""),
          flush=True)
    date = datetime.date.today().isoformat()
    machine = machine_info()
    started = time.monotonic()
    try:
        records = run_queries(cfg, engines, queries)
        summary = summarize(records, engines)
        explain = {} if args.no_explain else explain_worst(cfg, engines, records, summary)
    finally:
        for e in engines:
            e.close()
    machine["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]

    sizes = {t: os.path.getsize(p) for t, p in cfg.files.items()}
    marker = (data_dir / ".complete").read_text().splitlines()
    sqe_info = next((e.info() for e in engines if e.name == "sqe"), {})
    out = {
        "suite": "tpch", "date": date, "sf": sf, "codec": args.codec, "threads": args.threads,
        "runs": args.runs, "warmups": 1, "timeout_s": args.timeout, "sqe_load": args.sqe_load,
        "wall_s": round(time.monotonic() - started, 1),
        "machine": machine,
        "versions": {"sqe": sqe_info, "duckdb": package_version("duckdb"),
                     "datafusion": package_version("datafusion"),
                     "pyarrow": package_version("pyarrow"),
                     "tpchgen-cli": tpchgen_version(),
                     "matplotlib": package_version("matplotlib")},
        "data": {"dir": str(data_dir), "generator": marker[0] if marker else None,
                 "files_bytes": sizes, "total_mib": round(sum(sizes.values()) / 1048576, 1)},
        "engines": {e.name: {"label": e.label, "info": e.info(), "setup_s": e.setup_seconds,
                             "setup_errors": e.setup_errors, "peak_rss_kb": e.peak_kb,
                             "baseline_rss_kb": e.baseline_kb, "restarts": e.restarts}
                    for e in engines},
        "queries": records, "summary": summary, "explain": {str(k): v for k, v in explain.items()},
    }
    out_dir = Path(args.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    suffix = "" if args.codec == DEFAULT_CODEC else f"-{args.codec}"
    if args.sqe_load != "parquet":
        suffix += f"-sqe{args.sqe_load}"
    base = out_dir / f"{date}-tpch-sf{sf}{suffix}"
    with open(f"{base}.json", "w") as f:
        json.dump(out, f, indent=1)
    write_markdown(f"{base}.md", out, engines)
    write_chart(f"{base}.png", out, engines)

    for key, p in summary["pairs"].items():
        if p["queries"]:
            print(f"{key}: {p['queries']} queries, total {p['total_a_s']:.3f} s vs "
                  f"{p['total_b_s']:.3f} s (ratio {p['total_ratio']:.2f}), geometric mean "
                  f"{p['geomean_ratio']:.2f}")
        else:
            print(f"{key}: no query answered correctly by both")
    for e in engines:
        st = summary["engines"][e.name]
        print(f"{e.name}: total {st['total_median_s']:.3f} s over {st['queries_counted']} "
              f"queries; {st['statuses']}; peak RSS "
              f"{'?' if e.peak_kb is None else f'{e.peak_kb / 1024:.0f} MiB'}")
    print(f"written {base}.json, .md and .png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
