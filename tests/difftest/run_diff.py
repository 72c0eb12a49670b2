#!/usr/bin/env python3
"""Differential tester: random queries (gen.py) on SQE and DuckDB, plus metamorphic checks on SQE.

ROLE
  The `diff` stage of scripts/run_tests.sh (a short seeded run) and `make fuzz-diff` (a long one).
  Each batch draws fresh tables and a few hundred cases from random.Random(seed + batch); the
  batch runs in ONE `sqe sql --memory --format json -f` process (one JSON line per statement, as
  tests/tpch/run_tpch.py drives it) and in an in-process DuckDB.

INTERFACE
  .cache/venv/bin/python tests/difftest/run_diff.py [--seed S] [--batches N | --duration SEC]
      [--cases-per-batch N] [--sqe build/sqe] [--out DIR] [--no-reduce]
  Prints the seed range, the counts, each mismatch (shrunk by reduce.py, written to DIR as a
  runnable .sql reproducer) and a closing "N passed, N failed" line (cases); exit 1 on mismatch.

NOTES: comparison rules (those of the oracle tests, tests/tpch/run_tpch.py and the slt runner):
  - rows are compared as multisets unless the query's ORDER BY names every output column (then
    in order); doubles within a 1e-9 relative tolerance, integers of any width by value,
    booleans only with booleans.
  - an error on both sides agrees (the SQLSTATEs of the two engines are not comparable); an
    error on one side only is a mismatch unless it matches KNOWN_SQE_ERRORS / KNOWN_DUCKDB_ERRORS
    below (each entry with its reason).
  - metamorphic relations are checked on SQE's answers alone (gen.py, meta_*): ternary logic
    partitioning of WHERE and HAVING, count(*) WHERE p against sum(CASE WHEN p ...), per group.
  - a statement that kills SQE (no JSON line) or runs past --timeout is a mismatch; the batch
    goes on in a new process after it.
"""

import argparse
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))

import gen  # noqa: E402

REL_TOL = 1e-9

# Errors of one engine that are not a mismatch: (regex on the message, reason).
# --trino URL runs each SQE refusal on Trino as well; one that Trino answers is printed as a GAP
# (a clear 0A000 where Trino has an answer: a missing feature, not a wrong answer; so far each
# was Trino folding the correlation away first, as coalesce(2, x.a) -> 2, or pruning a branch
# under a constant-false WHERE) and written to --out, but not counted as a failure.
KNOWN_SQE_ERRORS = [
    (r"Given correlated subquery is not supported",
     "0A000 correlated subquery shape, refused by Trino 476 with the same message (a correlated "
     "column in a subquery's select list, two levels out, or under an outer join made by "
     "decorrelation); DuckDB decorrelates any shape"),
]
KNOWN_DUCKDB_ERRORS = [
    (r"^(InternalException|FatalException)",
     "DuckDB 2.0.1's own internal error (a DuckDB bug, e.g. 'Vector::Reference used on vector "
     "of different type' with a NOT EXISTS in a nested FULL JOIN's ON); SQE's answer to such "
     "a query is checked by the metamorphic relations only"),
    (r"Correlated subquery in a non-inner join condition cannot reference both sides",
     "DuckDB refuses some correlated subqueries in an outer join's ON that read one side only "
     "(under a nested FULL JOIN); SQE plans them on that side, Trino 476 refuses the outer "
     "reference (tests/sql/difftest/join_on_subquery.test)"),
]


# ---- running SQE --------------------------------------------------------------------------------

class JsonObject(list):
    """A JSON object as its (key, value) pairs, in order (column names may repeat)."""


def parse_line(line):
    try:
        value = json.loads(line, object_pairs_hook=JsonObject)
    except ValueError:
        return ("bad", line)
    if isinstance(value, list) and not isinstance(value, JsonObject):
        return ("rows", [[v for _, v in row] for row in value])
    fields = dict(value)
    if isinstance(fields.get("error"), JsonObject):
        e = dict(fields["error"])
        return ("error", f"{e.get('message')} (SQLSTATE {e.get('sqlstate')})")
    if isinstance(fields.get("rows"), int):
        return ("count", fields["rows"])
    if fields.get("ok") is True:
        return ("ok", None)
    return ("bad", line)


# An ASan/UBSan build (--sqe build-asan/sqe) stops at the statement that trips a sanitizer, so
# the report is attributed to that statement as a crash; leaks are not looked for.
SQE_ENV = dict(os.environ,
               UBSAN_OPTIONS=os.environ.get("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1"),
               ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "detect_leaks=0"))


def run_sqe(sqe, segments, timeout):
    """segments: [(setup statements, queries)]. Runs them in as few sqe processes as possible;
    returns, per segment, the (kind, payload) of each query. A statement after which sqe died
    or hung gets ("crash", detail) and the rest runs in a fresh process."""
    out = [[None] * len(qs) for _, qs in segments]
    pos = (0, 0)  # (segment, first query to run)
    while pos[0] < len(segments):
        seg0, q0 = pos
        stmts, where = [], []  # where[i] = (segment, query index), query index None for setup
        for s in range(seg0, len(segments)):
            setup, qs = segments[s]
            for st in setup:
                stmts.append(st)
                where.append((s, None))
            for qi in range(q0 if s == seg0 else 0, len(qs)):
                stmts.append(qs[qi])
                where.append((s, qi))
        with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
            for st in stmts:
                f.write(st + ";\n")
            path = f.name
        try:
            proc = subprocess.run([str(sqe), "sql", "--memory", "--threads", "1", "--format",
                                   "json", "-f", path], capture_output=True, text=True,
                                  timeout=timeout, env=SQE_ENV)
            lines, err, status = proc.stdout.splitlines(), proc.stderr, proc.returncode
        except subprocess.TimeoutExpired as e:
            so = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            lines, err, status = so.splitlines(), "timeout", "timeout"
        finally:
            os.unlink(path)
        for line, w in zip(lines, where):
            if w[1] is not None:
                out[w[0]][w[1]] = parse_line(line)
        if len(lines) >= len(stmts):
            break
        # the statement at len(lines) killed or hung sqe
        w = where[len(lines)]
        first = next((ln for ln in err.splitlines()
                      if "runtime error" in ln or "ERROR: AddressSanitizer" in ln), "")
        detail = f"sqe exited ({status}) at this statement: {first}\n" + err.strip()[-600:]
        if w[1] is None:
            # a setup statement: every query of that segment is lost
            for qi in range(len(out[w[0]])):
                if out[w[0]][qi] is None:
                    out[w[0]][qi] = ("crash", "during setup: " + detail)
            pos = (w[0] + 1, 0)
            continue
        out[w[0]][w[1]] = ("crash", detail)
        pos = (w[0], w[1] + 1) if w[1] + 1 < len(segments[w[0]][1]) else (w[0] + 1, 0)
    return out


# ---- running DuckDB -----------------------------------------------------------------------------

def run_duckdb(segments):
    import duckdb
    out = []
    def connect(setup):
        con = duckdb.connect(config={"threads": 1})
        for st in setup:
            con.execute(st)
        return con
    for setup, qs in segments:
        con = connect(setup)
        res = []
        for q in qs:
            try:
                res.append(("rows", [list(r) for r in con.execute(q).fetchall()]))
            except duckdb.Error as e:
                res.append(("error", f"{type(e).__name__}: {e}"))
                if isinstance(e, (duckdb.FatalException, duckdb.InternalException)):
                    con.close()  # the database is invalidated: start again
                    con = connect(setup)
        con.close()
        out.append(res)
    return out


# ---- comparison ---------------------------------------------------------------------------------

def value_eq(e, g):
    if e is None or g is None:
        return e is None and g is None
    if isinstance(e, bool) or isinstance(g, bool):
        return isinstance(e, bool) and isinstance(g, bool) and e == g
    if isinstance(e, (int, float, Decimal)) and isinstance(g, (int, float, Decimal)):
        if isinstance(e, float) or isinstance(g, float):
            fe, fg = float(e), float(g)
            if math.isnan(fe) or math.isnan(fg):
                return math.isnan(fe) and math.isnan(fg)
            return math.isclose(fe, fg, rel_tol=REL_TOL, abs_tol=1e-12)
        return Decimal(e) == Decimal(g)
    return type(e) is type(g) and e == g


def sort_key(row):
    key = []
    for v in row:
        if v is None:
            key.append((0, 0.0, ""))
        elif isinstance(v, bool):
            key.append((1, float(v), ""))
        elif isinstance(v, (int, float, Decimal)):
            f = float(v)
            key.append((2, float(f"{f:.6g}") if math.isfinite(f) else f, ""))
        else:
            key.append((3, 0.0, str(v)))
    return key


def rows_eq(exp, got):
    return len(exp) == len(got) and all(value_eq(a, b) for a, b in zip(exp, got))


def multiset_diff(exp, got):
    """None when exp and got hold the same rows (any order), else a description."""
    if len(exp) != len(got):
        return f"{len(exp)} rows expected, {len(got)} rows"
    se, sg = sorted(exp, key=sort_key), sorted(got, key=sort_key)
    if all(rows_eq(a, b) for a, b in zip(se, sg)):
        return None
    left = list(sg)  # tolerance near a sort boundary: match greedily
    for row in se:
        for i, cand in enumerate(left):
            if rows_eq(row, cand):
                del left[i]
                break
        else:
            return f"row {show(row)} expected, not in the answer"
    return None


def show(row):
    return "(" + ", ".join("NULL" if v is None else repr(v) for v in row) + ")"


def show_result(r, limit=12):
    kind, payload = r
    if kind != "rows":
        return f"{kind}: {payload}"
    rows = payload
    s = "; ".join(show(x) for x in sorted(rows, key=sort_key)[:limit])
    return f"{len(rows)} rows: {s}{' ...' if len(rows) > limit else ''}"


def known(msg, table):
    return next((reason for rx, reason in table if re.search(rx, msg)), None)


def compare(ordered, exp, got):
    """(signature, description) of a difference between DuckDB's exp and SQE's got, or None.
    Also returns ("known", reason) for a listed error class."""
    if got[0] == "crash":
        return ("crash", got[1])
    if got[0] == "bad":
        return ("bad", f"unparsable sqe output: {got[1][:200]}")
    if exp[0] == "error" and got[0] == "error":
        return None
    if got[0] == "error":
        reason = known(got[1], KNOWN_SQE_ERRORS)
        if reason:
            return ("known", reason)
        state = re.search(r"SQLSTATE (\w+)", got[1])
        return (f"sqe-error:{state.group(1) if state else '?'}", f"SQE failed: {got[1]}")
    if exp[0] == "error":
        reason = known(exp[1], KNOWN_DUCKDB_ERRORS)
        if reason:
            return ("known", reason)
        return ("duckdb-error", f"DuckDB failed ({exp[1][:300]}), SQE answered")
    e, g = exp[1], got[1]
    if e and g and len(e[0]) != len(g[0]):
        return ("rows", f"{len(e[0])} columns expected, {len(g[0])}")
    if ordered:
        if len(e) != len(g):
            return ("rows", f"{len(e)} rows expected, {len(g)} rows")
        for i, (a, b) in enumerate(zip(e, g)):
            if not rows_eq(a, b):
                return ("rows", f"row {i + 1}: {show(a)} expected, {show(b)}")
        return None
    d = multiset_diff(e, g)
    return ("rows", d) if d else None


def meta_check(kind, res):
    """A metamorphic relation over SQE's answers; returns a description when it fails."""
    if any(r[0] != "rows" for r in res):
        return None  # errors are judged by the differential comparison
    rows = [r[1] for r in res]
    def cnt(i):
        return rows[i][0][0]
    if kind == "meta:tlp":
        parts = rows[1] + rows[2] + rows[3]
        d = multiset_diff(rows[0], parts)
        if d:
            return f"WHERE p / NOT p / p IS NULL do not partition the rows: {d}"
        if cnt(4) != cnt(5) + cnt(6) + cnt(7) or cnt(4) != len(rows[0]):
            return (f"count(*) {cnt(4)} != {cnt(5)} + {cnt(6)} + {cnt(7)} "
                    f"(and {len(rows[0])} rows)")
        d = multiset_diff(rows[0], rows[8])
        if d:
            return f"the UNION ALL of the three partitions differs from the table: {d}"
    elif kind == "meta:countsum":
        if not value_eq(cnt(0), cnt(1)):
            return f"count(*) WHERE p = {cnt(0)} but sum(CASE WHEN p THEN 1 ELSE 0 END) = {cnt(1)}"
        if not value_eq(cnt(2), cnt(3)):
            return f"count(*) WHERE NOT p = {cnt(2)} but count(CASE WHEN NOT p ...) = {cnt(3)}"
    elif kind == "meta:group":
        d = multiset_diff(rows[0], rows[1])
        if d:
            return f"per-group count(*) WHERE p differs from sum(CASE WHEN p ...): {d}"
    elif kind == "meta:onwhere":
        d = multiset_diff(rows[0], rows[1])
        if d:
            return f"JOIN ON p differs from CROSS JOIN WHERE p: {d}"
    elif kind == "meta:inexists":
        for i, name in ((1, "EXISTS (... AND c = e)"), (2, "e = ANY (...)")):
            d = multiset_diff(rows[0], rows[i])
            if d:
                return f"WHERE e IN (subquery) differs from WHERE {name}: {d}"
    elif kind == "meta:having":
        d = multiset_diff(rows[0], rows[1] + rows[2] + rows[3])
        if d:
            return f"HAVING hp / NOT hp / hp IS NULL do not partition the groups: {d}"
    return None


def setup_of(tables):
    out = []
    for t in tables:
        out.append(t.create_sql())
        if t.insert_sql():
            out.append(t.insert_sql())
    return out


def judge(case, sqe_res, duck_res):
    """[(signature, description)] of what is wrong with one case, known classes apart."""
    problems = []
    known_hits = []
    for qi, (q, got, exp) in enumerate(zip(case.queries(), sqe_res, duck_res)):
        if qi in case.duck_skip and got[0] == "rows":
            continue
        c = compare(case.ordered, exp, got)
        if exp[0] == "error" and got[0] == "error":
            known_hits.append(("both engines raised an error (agreement; "
                               "DuckDB: " + exp[1].split(":")[0] + ")", None))
        if c is None:
            continue
        if c[0] == "known":
            known_hits.append((c[1], q))
            continue
        problems.append((c[0], f"{c[1]}\n  query: {q}\n  DuckDB: {show_result(exp)}\n"
                               f"  SQE:    {show_result(got)}"))
    if case.kind.startswith("meta:") and not problems:
        d = meta_check(case.kind, sqe_res)
        if d:
            problems.append((case.kind, d))
    return problems, known_hits


def check_segments(sqe, pairs, timeout):
    """pairs: [(tables, [cases])], each over its own tables (dropped and created again in the
    same sqe process). Returns, per pair, per case, (problems, known hits, n queries)."""
    segments, spans = [], []
    for tables, cases in pairs:
        qs, sp = [], []
        for c in cases:
            cq = c.queries()
            sp.append((len(qs), len(qs) + len(cq)))
            qs += cq
        setup = setup_of(tables)
        drops = [f"DROP TABLE IF EXISTS t{i}" for i in range(4)] if len(pairs) > 1 else []
        segments.append((drops + setup, qs))
        spans.append(sp)
    sres = run_sqe(sqe, segments, timeout)
    dres = run_duckdb([(setup, qs) for (setup, qs) in
                       ((setup_of(t), [q for c in cs for q in c.queries()]) for t, cs in pairs)])
    out = []
    for (tables, cases), sp, sr, dr in zip(pairs, spans, sres, dres):
        out.append([judge(c, sr[a:b], dr[a:b]) + (b - a,) for c, (a, b) in zip(cases, sp)])
    return out


def check_cases(sqe, tables, cases, timeout):
    """Runs cases over one set of tables; returns, per case, (problems, known hits, n queries)."""
    return check_segments(sqe, [(tables, cases)], timeout)[0]


SQE_REASONS = {reason for _, reason in KNOWN_SQE_ERRORS}


def trino_refuses(url, tables, query, ready):
    """None when Trino refuses query too, else a description (Trino answers it). ready: a list,
    empty until this batch's tables are in Trino."""
    import trino_check
    if not ready:
        for st in setup_of(tables):
            if st.startswith("CREATE TABLE "):
                trino_check.run(url, "DROP TABLE IF EXISTS " + st.split()[2])
            trino_check.run(url, st)
        ready.append(True)
    res = trino_check.run(url, query)
    if isinstance(res, str):
        return None
    return (f"SQE refuses a query that Trino 476 answers ({len(res)} rows)\n  query: {query}")


# ---- main ---------------------------------------------------------------------------------------

def write_reproducer(out_dir, name, tables, case, sig, desc):
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.sql"
    with open(path, "w") as f:
        f.write(f"-- difftest mismatch {name}: {sig} ({case.kind})\n")
        for line in desc.splitlines():
            f.write(f"-- {line}\n")
        for st in setup_of(tables):
            f.write(st + ";\n")
        for q in case.queries():
            f.write(q + ";\n")
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=None, help="first batch seed (default: random)")
    ap.add_argument("--batches", type=int, default=None, help="number of batches")
    ap.add_argument("--duration", type=float, default=None, help="seconds to run (default 60)")
    ap.add_argument("--cases-per-batch", type=int, default=150)
    ap.add_argument("--sqe", default=str(REPO / "build/sqe"))
    ap.add_argument("--timeout", type=float, default=120, help="seconds per sqe process")
    ap.add_argument("--out", default=str(REPO / ".cache/difftest"), help="reproducers go here")
    ap.add_argument("--no-reduce", action="store_true", help="do not shrink mismatches")
    ap.add_argument("--trino", default=None, help="a running Trino (tests/trino_oracle/"
                    "trino_server.py run): SQE's known-class refusals are checked on it")
    ap.add_argument("--max-mismatches", type=int, default=20, help="stop after this many")
    args = ap.parse_args()
    sqe = Path(args.sqe)
    if not sqe.exists():
        sys.exit(f"run_diff: {sqe} not found (make release)")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**9)
    duration = args.duration if args.duration is not None else (None if args.batches else 60)
    out_dir = Path(args.out)
    import reduce as reducer

    start = time.monotonic()
    n_batches = n_cases = n_queries = n_failed = n_trino = n_gaps = 0
    n_known = {}
    kinds = {}
    seen_sigs = {}
    batch = 0
    print(f"difftest: seed {seed}, {args.cases_per_batch} cases per batch, "
          f"{'%d batches' % args.batches if args.batches else '%d s' % duration}", flush=True)
    while True:
        if args.batches is not None and batch >= args.batches:
            break
        if duration is not None and time.monotonic() - start >= duration:
            break
        bseed = seed + batch
        g = gen.Gen(random.Random(bseed))
        tables = g.tables()
        trino_ready = []
        cases = [g.case() for _ in range(args.cases_per_batch)]
        results = check_cases(sqe, tables, cases, args.timeout)
        for i, (case, (problems, known_hits, nq)) in enumerate(zip(cases, results)):
            n_cases += 1
            n_queries += nq
            kinds[case.kind] = kinds.get(case.kind, 0) + 1
            for k, q in known_hits:
                n_known[k] = n_known.get(k, 0) + 1
                if args.trino and q and k in SQE_REASONS:
                    n_trino += 1
                    d = trino_refuses(args.trino, tables, q, trino_ready)
                    if d:
                        n_gaps += 1
                        gap = write_reproducer(out_dir, f"gap-seed{bseed}-case{i}", tables,
                                               gen.Case("diff", gen.lit(q)), "sqe-refuses", d)
                        print(f"GAP (not counted as a failure) {gap}: {d}", flush=True)
            if not problems:
                continue
            n_failed += 1
            sig, desc = problems[0]
            name = f"seed{bseed}-case{i}"
            small_tables, small_case = tables, case
            if not args.no_reduce:
                small_tables, small_case, desc = reducer.reduce(
                    lambda pairs: check_segments(sqe, pairs, args.timeout), tables, case, sig,
                    desc)
            path = write_reproducer(out_dir, name, small_tables, small_case, sig, desc)
            seen_sigs[sig] = seen_sigs.get(sig, 0) + 1
            print(f"MISMATCH {name} [{sig}] {case.kind}: reproducer {path}\n"
                  + "\n".join("  " + line for line in desc.splitlines()), flush=True)
            if n_failed >= args.max_mismatches:
                break
        batch += 1
        n_batches += 1
        if n_failed >= args.max_mismatches:
            print(f"stopping after {n_failed} mismatches")
            break
    took = time.monotonic() - start
    print(f"difftest: seeds {seed}..{seed + max(n_batches - 1, 0)} ({n_batches} batches), "
          f"{n_cases} cases, {n_queries} queries on each engine in {took:.0f} s")
    print("  cases by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    for k, v in sorted(n_known.items()):
        print(f"  known class ({v}x): {k}")
    if args.trino:
        print(f"  SQE's refusals run on Trino: {n_trino}, Trino refused {n_trino - n_gaps}, "
              f"answered {n_gaps} (gaps, listed above)")
    print(f"  mismatches: {n_failed}" + (" (" + ", ".join(f"{k} {v}" for k, v in seen_sigs.items())
                                          + ")" if seen_sigs else ""))
    print(f"{n_cases - n_failed} passed, {n_failed} failed")
    return 1 if n_failed else 0


if __name__ == "__main__":
    sys.exit(main())
