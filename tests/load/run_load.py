#!/usr/bin/env python3
"""Load test for `sqe serve`: many concurrent Flight SQL and Trino HTTP clients, results checked.

One `sqe serve` (the release build: $SQE_BIN or build/sqe) with high limits serves CLIENTS
clients at once, half over Arrow Flight SQL (the ADBC Flight SQL driver, dbapi) and half over the
Trino HTTP protocol (the trino Python client). Each client runs QUERIES queries drawn (seeded)
from a mix whose every answer is known from the data the run created:
  point     SELECT ... FROM ld.items WHERE id = K
  scan      COUNT/SUM over ld.items with a filter
  agg       GROUP BY over a slice of ld.items
  join      ld.items JOIN ld.groups, grouped
  prepared  a statement with a parameter (ADBC binds it through a prepared statement and DoPut;
            the trino client sends EXECUTE ... USING / X-Trino-Prepared-Statement)
  insert    INSERT of one row into the client's own table ld.c_<proto><n>
  check     COUNT/SUM of the client's own table (what it inserted so far)
  error     a statement that must fail (unknown table, division by zero, syntax error), with
            the expected message
ld.items holds ITEMS rows: id, grp = id % 97, val = id * 0.5, name = 'n' || id; ld.groups holds
grp 0..96 with label 'g' || grp. Each client creates its table first and drops it at the end.

The whole run happens ROUNDS times in a row (default 2) against the same server. The server's
resident set (VmRSS from /proc) is sampled every 0.2 s; after each round it is read again once
the clients have disconnected and the server had SETTLE seconds. The run fails when any query
gave a wrong answer or an unexpected error, an expected error did not come, the server died, or
the RSS after the last round exceeds the RSS after the first by more than --rss-growth-pct
percent (and --rss-growth-mib MiB; both must be exceeded, so tiny servers do not fail on noise).

With --burst SECONDS (default 10; 0 = none), a Trino burst runs between the first and the second
round: BURST_PROCESSES x BURST_THREADS raw-HTTP clients (keep-alive, no client library) send
"SELECT <n>" as fast as the server answers for that long, each answer checked. It drives the
statement rate far above what the mixed rounds reach (thousands per second on the release
build), so an admission limit that counts finished queries (the old registry refused anything
beyond 1000 statements per 5 s with 503) fails the run; the second round's RSS check then covers
what the burst left behind (the bounded retry list).

Latency is measured per query (execute + fetch all) in the client; p50/p95/p99 per protocol.
Clients run as threads inside worker processes (16 clients per process) so the GIL of one
Python process does not dominate the numbers.

  .cache/venv/bin/python tests/load/run_load.py                   # 64 clients x 200, 2 rounds
  .cache/venv/bin/python tests/load/run_load.py --clients 8 --queries 20 --report out.md

Prints a summary (and writes it as Markdown with --report) and "N passed, N failed" (queries
answered right; failures of any kind); exits 1 on any failure. The `load` stage of
scripts/run_tests.sh runs a smaller version (16 clients x 100 queries, 2 rounds, --burst 5,
about a minute).
"""
import argparse
import http.client
import json
import multiprocessing as mp
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sqe_serve import SqeServe, default_binary  # noqa: E402

ITEMS_A, ITEMS_B = 100, 200          # ld.items has ITEMS_A * ITEMS_B rows: id = a * ITEMS_B + b
ITEMS = ITEMS_A * ITEMS_B
GROUPS = 97
CLIENTS_PER_PROCESS = 16
BURST_PROCESSES, BURST_THREADS = 4, 8
SERVER_TOML = """
[auth]
mode = "anonymous"
users_file = "{users}"
[query]
max_concurrent = 1000
max_concurrent_per_user = 1000
timeout = "600s"
[session]
max_sessions = 100000
"""
SETUP_SQL = [
    "CREATE SCHEMA IF NOT EXISTS ld",
    "DROP TABLE IF EXISTS ld.items",
    "DROP TABLE IF EXISTS ld.groups",
    f"CREATE TABLE ld.items AS SELECT a * {ITEMS_B} + b AS id, (a * {ITEMS_B} + b) % {GROUPS} AS grp, "
    f"CAST(a * {ITEMS_B} + b AS double) * 0.5 AS val, 'n' || CAST(a * {ITEMS_B} + b AS varchar) AS name "
    f"FROM UNNEST(sequence(0, {ITEMS_A - 1})) x(a) CROSS JOIN UNNEST(sequence(0, {ITEMS_B - 1})) y(b)",
    f"CREATE TABLE ld.groups AS SELECT g AS grp, 'g' || CAST(g AS varchar) AS label "
    f"FROM UNNEST(sequence(0, {GROUPS - 1})) t(g)",
]
MIX = [("point", 20), ("scan", 14), ("agg", 12), ("join", 10), ("prepared", 16), ("insert", 12),
       ("check", 8), ("error", 8)]


# --- the query mix: (kind, sql, params, expected rows or the expected error text) -----------------

def make_query(kind, rng, state):
    """Returns (sql, params, expected, error_text). expected is a list of tuples."""
    if kind == "point":
        k = rng.randrange(ITEMS)
        return (f"SELECT id, grp, val, name FROM ld.items WHERE id = {k}", None,
                [(k, k % GROUPS, k * 0.5, f"n{k}")], None)
    if kind == "scan":
        g, lim = rng.randrange(GROUPS), rng.randrange(1, ITEMS + 1)
        ids = [i for i in range(g, lim, GROUPS)]
        return (f"SELECT count(*), sum(id) FROM ld.items WHERE grp = {g} AND id < {lim}", None,
                [(len(ids), sum(ids) if ids else None)], None)
    if kind == "agg":
        lo = rng.randrange(ITEMS - 400)
        hi = lo + rng.randrange(1, 400)
        per = {}
        for i in range(lo, hi + 1):
            c = per.setdefault(i % GROUPS, [0, i, i])
            c[0] += 1
            c[2] = i
        return (f"SELECT grp, count(*), min(id), max(id) FROM ld.items "
                f"WHERE id BETWEEN {lo} AND {hi} GROUP BY grp ORDER BY grp", None,
                [(g, *per[g]) for g in sorted(per)], None)
    if kind == "join":
        lim, gmax = rng.randrange(1, 3000), rng.randrange(1, GROUPS)
        per = {}
        for i in range(lim):
            if i % GROUPS < gmax:
                c = per.setdefault(f"g{i % GROUPS}", [0, 0])
                c[0] += 1
                c[1] += i
        return (f"SELECT g.label, count(*), sum(i.id) FROM ld.items i JOIN ld.groups g "
                f"ON i.grp = g.grp WHERE i.id < {lim} AND g.grp < {gmax} "
                f"GROUP BY g.label ORDER BY g.label", None,
                [(lab, *per[lab]) for lab in sorted(per)], None)
    if kind == "prepared":
        k = rng.randrange(ITEMS)
        return ("SELECT name, val FROM ld.items WHERE id = ?", (k,), [(f"n{k}", k * 0.5)], None)
    if kind == "insert":
        state["next"] += 1
        k = state["next"]
        state["rows"].append(k)
        return (f"INSERT INTO {state['table']} VALUES ({k}, 'r{k}')", None, None, None)
    if kind == "check":
        rows = state["rows"]
        return (f"SELECT count(*), sum(k), max(v) FROM {state['table']}", None,
                [(len(rows), sum(rows) if rows else None,
                  max((f"r{k}" for k in rows), default=None))], None)
    if kind == "error":
        which = rng.randrange(3)
        if which == 0:
            return (f"SELECT * FROM ld.no_such_table_{rng.randrange(1000)}", None, None,
                    "does not exist")
        if which == 1:
            k = rng.randrange(ITEMS)
            return (f"SELECT id / (id - {k}) FROM ld.items WHERE id = {k}", None, None,
                    "Division by zero")
        return ("SELEC 1", None, None, "mismatched input")
    raise ValueError(kind)


def password_of(name):
    return f"pw-{name}-load"


def write_users(binary, path, names):
    """A users file for `names` (sqe passwd, few KDF iterations: this is a load test)."""
    lines = []
    for n in names:
        r = subprocess.run([str(binary), "passwd", "--iterations", "1000", n],
                           input=password_of(n) + "\n", capture_output=True, text=True, check=True)
        lines.append(r.stdout.strip())
    Path(path).write_text("\n".join(lines) + "\n")


def norm(rows):
    return [tuple(r) for r in rows]


class FlightClient:
    """ADBC over Flight SQL, logged in with Basic credentials (so each client gets its own
    bearer-token session; see flight_anonymous_sessions in test_load_short.py for why)."""
    proto = "flight"

    def __init__(self, uri, name):
        import warnings
        import adbc_driver_flightsql.dbapi as fs
        warnings.simplefilter("ignore")
        # 16 clients log in at once: past [auth] max_concurrent_password_checks the server says
        # UNAVAILABLE "busy checking passwords; retry in a moment" (its documented contract, what
        # the Trino clients do for the 503 by themselves); ADBC does not retry, so the client does
        for attempt in range(40):
            try:
                self.conn = fs.connect(uri, db_kwargs={"username": name,
                                                       "password": password_of(name)})
                self.cur = self.conn.cursor()
                break
            except Exception as e:  # adbc_driver_manager.OperationalError
                if "busy checking passwords" not in str(e) or attempt == 39:
                    raise
                time.sleep(0.05 * (attempt + 1))

    def run(self, sql, params):
        if params is None:
            self.cur.execute(sql)
        else:
            self.cur.execute(sql, parameters=params)
        return norm(self.cur.fetchall()) if self.cur.description else []

    def close(self):
        self.cur.close()
        self.conn.close()


class TrinoClient:
    proto = "trino"

    def __init__(self, port, name):
        import trino
        self.conn = trino.dbapi.connect(host="127.0.0.1", port=port, user=name,
                                        catalog="iceberg", schema="default")
        self.cur = self.conn.cursor()

    def run(self, sql, params):
        self.cur.execute(sql, params) if params is not None else self.cur.execute(sql)
        return norm(self.cur.fetchall())

    def close(self):
        self.cur.close()
        self.conn.close()


def client_main(proto, idx, endpoint, queries, seed, out):
    """One client: its own table, QUERIES queries of the mix, then drop. Appends a result dict."""
    name = f"{proto[0]}{idx}"
    res = {"proto": proto, "client": name, "lat": [], "failures": [], "queries": 0}
    rng = random.Random(seed)
    state = {"table": f"ld.c_{name}", "rows": [], "next": 0}
    kinds = [k for k, w in MIX for _ in range(w)]
    try:
        c = FlightClient(endpoint, name) if proto == "flight" else TrinoClient(endpoint, name)
    except Exception as e:  # noqa: BLE001 - any connect failure is a load-test failure
        res["failures"].append(f"connect: {type(e).__name__}: {e}")
        out.append(res)
        return
    try:
        c.run(f"DROP TABLE IF EXISTS {state['table']}", None)
        c.run(f"CREATE TABLE {state['table']} (k bigint, v varchar)", None)
        for _ in range(queries):
            kind = rng.choice(kinds)
            sql, params, expected, err_text = make_query(kind, rng, state)
            t0 = time.perf_counter()
            try:
                got = c.run(sql, params)
                dt = time.perf_counter() - t0
                if err_text is not None:
                    res["failures"].append(f"{kind}: expected an error ({err_text}) for {sql!r}, "
                                           f"got {got!r}")
                elif expected is not None and got != expected:
                    res["failures"].append(f"{kind}: {sql!r} {params!r}: got {got!r}, "
                                           f"expected {expected!r}")
            except Exception as e:  # noqa: BLE001 - classified below
                dt = time.perf_counter() - t0
                if err_text is None or err_text not in str(e):
                    res["failures"].append(f"{kind}: {sql!r} {params!r}: "
                                           f"{type(e).__name__}: {str(e)[:300]}")
            res["lat"].append(dt)
            res["queries"] += 1
        c.run(f"DROP TABLE {state['table']}", None)
    except Exception as e:  # noqa: BLE001 - setup/teardown of the client's table
        res["failures"].append(f"client table: {type(e).__name__}: {str(e)[:300]}")
    finally:
        try:
            c.close()
        except Exception as e:  # noqa: BLE001
            res["failures"].append(f"close: {type(e).__name__}: {e}")
    out.append(res)


def worker_main(jobs, queries, round_no, conn):
    """A worker process: one thread per (proto, idx, endpoint); sends the results back."""
    out = []
    threads = [threading.Thread(target=client_main,
                                args=(p, i, ep, queries, 1000003 * round_no + i * 7 + (p == "trino"),
                                      out))
               for p, i, ep in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    conn.send(out)
    conn.close()


def run_round(server, clients, queries, round_no):
    jobs = [("flight" if i % 2 == 0 else "trino", i // 2,
             server.flight_uri if i % 2 == 0 else server.trino_port) for i in range(clients)]
    ctx = mp.get_context("spawn")
    procs = []
    for start in range(0, clients, CLIENTS_PER_PROCESS):
        parent, child = ctx.Pipe(duplex=False)
        p = ctx.Process(target=worker_main,
                        args=(jobs[start:start + CLIENTS_PER_PROCESS], queries, round_no, child))
        p.start()
        child.close()
        procs.append((p, parent))
    results = []
    for p, parent in procs:
        try:
            results += parent.recv()
        except EOFError:
            results.append({"proto": "?", "client": f"worker {p.pid}", "lat": [], "queries": 0,
                            "failures": ["worker process died"]})
        p.join()
    return results


def burst_main(port, seconds, proc_no, conn):
    """A burst worker process: BURST_THREADS keep-alive HTTP clients running SELECT <n> over the
    Trino protocol (POST, then GET nextUri to the end) until `seconds` passed; sends back
    (statements, failed, the first failures' messages)."""
    lock = threading.Lock()
    totals = {"statements": 0, "failed": 0, "failures": []}

    def one(tid):
        user = f"burst{proc_no}_{tid}"
        hdrs = {"X-Trino-User": user}
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        n, failed, fails, end = 0, 0, [], time.time() + seconds
        k = (proc_no * BURST_THREADS + tid) * 10_000_000
        while time.time() < end:
            k += 1
            n += 1
            why = None
            try:
                c.request("POST", "/v1/statement", body=f"SELECT {k}", headers=hdrs)
                r = c.getresponse()
                body = r.read()
                if r.status != 200:
                    why = f"HTTP {r.status} {body[:200]!r}"
                else:
                    doc, rows = json.loads(body), []
                    while "nextUri" in doc:
                        c.request("GET", doc["nextUri"].split(f":{port}", 1)[1], headers=hdrs)
                        r = c.getresponse()
                        doc = json.loads(r.read())
                        rows += doc.get("data", [])
                    if doc.get("error"):
                        e = doc["error"]
                        why = f"{e.get('errorName')}: {e.get('message', '')[:200]}"
                    elif rows != [[k]]:
                        why = f"got {rows!r}"
            except (OSError, ValueError, http.client.HTTPException) as e:
                why = f"{type(e).__name__}: {e}"
                c.close()
                c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            if why:
                failed += 1
                if len(fails) < 20:  # the count stays exact; a few messages say what went wrong
                    fails.append(f"burst: SELECT {k}: {why}")
        c.close()
        with lock:
            totals["statements"] += n
            totals["failed"] += failed
            totals["failures"] += fails

    threads = [threading.Thread(target=one, args=(t,)) for t in range(BURST_THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    conn.send((totals["statements"], totals["failed"], totals["failures"][:50]))
    conn.close()


def run_burst(server, seconds):
    """The Trino burst; returns {'statements', 'wall_s', 'rate', 'failures'}."""
    ctx = mp.get_context("spawn")
    procs = []
    t0 = time.time()
    for i in range(BURST_PROCESSES):
        parent, child = ctx.Pipe(duplex=False)
        p = ctx.Process(target=burst_main, args=(server.trino_port, seconds, i, child))
        p.start()
        child.close()
        procs.append((p, parent))
    statements, failed, failures = 0, 0, []
    for p, parent in procs:
        try:
            n, nf, f = parent.recv()
            statements += n
            failed += nf
            failures += f
        except EOFError:
            failed += 1
            failures.append(f"burst: worker {p.pid} died")
        p.join()
    wall = time.time() - t0
    if failed > len(failures):
        failures.append(f"burst: {failed} failures in all ({len(failures)} shown)")
    return {"statements": statements, "wall_s": wall, "failed": failed,
            "rate": statements / wall if wall > 0 else 0.0, "failures": failures}


def pct(sorted_vals, q):
    if not sorted_vals:
        return float("nan")
    i = min(len(sorted_vals) - 1, max(0, int(round(q / 100.0 * len(sorted_vals) + 0.5)) - 1))
    return sorted_vals[i]


def setup_data(server):
    import trino
    cur = trino.dbapi.connect(host="127.0.0.1", port=server.trino_port, user="setup",
                              catalog="iceberg", schema="default").cursor()
    for sql in SETUP_SQL:
        cur.execute(sql)
        cur.fetchall()
    cur.execute("SELECT count(*), sum(id) FROM ld.items")
    got = norm(cur.fetchall())
    want = [(ITEMS, ITEMS * (ITEMS - 1) // 2)]
    if got != want:
        raise RuntimeError(f"ld.items has {got}, expected {want}")


def run_load(binary, clients, queries, rounds, workdir, rss_growth_pct=10.0, rss_growth_mib=32.0,
             settle=2.0, log=print, burst=0.0):
    """Runs the load; returns a summary dict with 'ok', 'failures', 'rounds', 'rss_kib', ..."""
    users = Path(workdir) / "users"
    write_users(binary, users, [f"f{i}" for i in range((clients + 1) // 2)])
    server = SqeServe(binary, workdir, SERVER_TOML.format(users=users))
    summary = {"binary": str(binary), "clients": clients, "queries": queries, "rounds": [],
               "failures": [], "ok": False}
    samples = []
    stop = threading.Event()

    def sampler():
        while not stop.is_set():
            try:
                samples.append((time.time(), server.rss_kib()))
            except OSError:
                return
            stop.wait(0.2)

    th = threading.Thread(target=sampler, daemon=True)
    try:
        setup_data(server)
        summary["rss_after_setup_kib"] = server.rss_kib()
        th.start()
        for r in range(1, rounds + 1):
            if burst > 0 and r == min(2, rounds):
                b = run_burst(server, burst)
                summary["burst"] = {k: v for k, v in b.items() if k != "failures"}
                summary["burst"]["listed"] = len(b["failures"])
                summary["failures"] += b["failures"]
                log(f"burst: {b['statements']} Trino statements in {b['wall_s']:.1f} s "
                    f"({b['rate']:.0f}/s), {b['failed']} failures")
                for f in b["failures"][:20]:
                    log("  FAIL " + f)
            n0 = len(samples)
            t0 = time.time()
            results = run_round(server, clients, queries, r)
            wall = time.time() - t0
            time.sleep(settle)
            peak = max((s for _, s in samples[n0:]), default=0)
            rnd = {"round": r, "wall_s": wall, "rss_end_kib": server.rss_kib(),
                   "rss_peak_kib": peak, "alive": server.alive(), "protos": {}}
            for proto in ("flight", "trino"):
                mine = [x for x in results if x["proto"] == proto]
                lat = sorted(v for x in mine for v in x["lat"])
                rnd["protos"][proto] = {
                    "clients": len(mine), "queries": sum(x["queries"] for x in mine),
                    "p50_ms": pct(lat, 50) * 1e3, "p95_ms": pct(lat, 95) * 1e3,
                    "p99_ms": pct(lat, 99) * 1e3, "max_ms": (lat[-1] if lat else 0) * 1e3,
                    "qps": len(lat) / wall if wall > 0 else 0.0}
            fails = [f"round {r} {x['client']}: {f}" for x in results for f in x["failures"]]
            rnd["failures"] = len(fails)
            summary["failures"] += fails
            summary["rounds"].append(rnd)
            log(f"round {r}: {wall:.1f} s, {sum(x['queries'] for x in results)} queries, "
                f"{len(fails)} failures, RSS end {rnd['rss_end_kib'] / 1024:.1f} MiB "
                f"(peak {peak / 1024:.1f} MiB)")
            for proto, p in rnd["protos"].items():
                log(f"  {proto:6s} {p['clients']} clients {p['queries']} queries "
                    f"p50 {p['p50_ms']:.1f} ms  p95 {p['p95_ms']:.1f} ms  "
                    f"p99 {p['p99_ms']:.1f} ms  max {p['max_ms']:.1f} ms  {p['qps']:.0f} q/s")
            for f in fails[:20]:
                log("  FAIL " + f)
            if not server.alive():
                summary["failures"].append(f"round {r}: the server died")
                break
            expected = clients * queries
            got = sum(x["queries"] for x in results)
            if got != expected:
                summary["failures"].append(f"round {r}: {got} queries ran, expected {expected}")
    except Exception as e:  # noqa: BLE001 - reported as a failure of the run
        summary["failures"].append(f"{type(e).__name__}: {e}")
    finally:
        stop.set()
        if th.is_alive():
            th.join()
        status, out = server.stop()
        summary["exit_status"] = status
        report = SqeServe.sanitizer_report(out)
        if report:
            summary["failures"].append("sanitizer report in the server log: " + report)
        if status != 0:
            summary["failures"].append(f"sqe serve exited with {status}:\n{out[-2000:]}")
    rs = summary["rounds"]
    if len(rs) >= 2:
        first, last = rs[0]["rss_end_kib"], rs[-1]["rss_end_kib"]
        growth = last - first
        summary["rss_growth_kib"] = growth
        if growth > first * rss_growth_pct / 100.0 and growth > rss_growth_mib * 1024:
            summary["failures"].append(
                f"RSS grew from {first / 1024:.1f} MiB after round 1 to {last / 1024:.1f} MiB "
                f"after round {len(rs)} (more than {rss_growth_pct}% and {rss_growth_mib} MiB)")
    summary["ok"] = not summary["failures"]
    return summary


def markdown(summary, command):
    lines = [f"Command: `{command}`", "",
             f"Server: `{summary['binary']}`; {summary['clients']} clients (half Flight SQL via "
             f"ADBC, half Trino HTTP via the trino client) x {summary['queries']} queries, "
             f"{len(summary['rounds'])} rounds.", "",
             "| round | protocol | clients | queries | p50 ms | p95 ms | p99 ms | max ms | q/s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in summary["rounds"]:
        for proto, p in r["protos"].items():
            lines.append(f"| {r['round']} | {proto} | {p['clients']} | {p['queries']} | "
                         f"{p['p50_ms']:.1f} | {p['p95_ms']:.1f} | {p['p99_ms']:.1f} | "
                         f"{p['max_ms']:.1f} | {p['qps']:.0f} |")
    if "burst" in summary:
        b = summary["burst"]
        lines += ["", f"Trino burst before round {min(2, len(summary['rounds']))}: "
                      f"{b['statements']} statements (SELECT n, each answer checked) in "
                      f"{b['wall_s']:.1f} s, {b['rate']:.0f} statements/s, {b['failed']} failures."]
    lines += ["", "| round | wall s | failures | server RSS after (MiB) | peak RSS (MiB) |",
              "|---|---|---|---|---|"]
    for r in summary["rounds"]:
        lines.append(f"| {r['round']} | {r['wall_s']:.1f} | {r['failures']} | "
                     f"{r['rss_end_kib'] / 1024:.1f} | {r['rss_peak_kib'] / 1024:.1f} |")
    if "rss_after_setup_kib" in summary:
        lines += ["", f"RSS after loading the data, before round 1: "
                      f"{summary['rss_after_setup_kib'] / 1024:.1f} MiB."]
    lines += ["", "Result: " + ("PASS" if summary["ok"] else
                                "FAIL\n\n" + "\n".join("- " + f for f in summary["failures"][:50]))]
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sqe", default=str(default_binary()), help="sqe binary (default build/sqe)")
    ap.add_argument("--clients", type=int, default=64)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--burst", type=float, default=10.0,
                    help="seconds of the Trino statement burst before round 2 (0 = none)")
    ap.add_argument("--rss-growth-pct", type=float, default=10.0)
    ap.add_argument("--rss-growth-mib", type=float, default=32.0)
    ap.add_argument("--report", help="write the summary as Markdown to this file")
    ap.add_argument("--json", help="write the summary as JSON to this file")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sqe-load-") as tmp:
        s = run_load(a.sqe, a.clients, a.queries, a.rounds, tmp, a.rss_growth_pct,
                     a.rss_growth_mib, burst=a.burst)
    cmd = "tests/load/run_load.py " + " ".join(argv if argv is not None else sys.argv[1:])
    md = markdown(s, cmd.strip())
    print(md)
    if a.report:
        Path(a.report).write_text(md)
    if a.json:
        Path(a.json).write_text(json.dumps(s, indent=1))
    # the closing line scripts/run_tests.sh counts: checked queries answered right, and every
    # failure (wrong answers, unexpected errors, a dead server, RSS growth, sanitizer reports)
    ran = sum(p["queries"] for r in s["rounds"] for p in r["protos"].values())
    wrong = sum(r["failures"] for r in s["rounds"])
    if "burst" in s:
        ran += s["burst"]["statements"]
        wrong += s["burst"]["failed"]
    failed = len(s["failures"])
    if "burst" in s:  # count each failed burst statement, not only the messages kept
        failed += s["burst"]["failed"] - s["burst"]["listed"]
    print("%d passed, %d failed" % (max(ran - wrong, 0), max(failed, 0)))
    return 0 if s["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
