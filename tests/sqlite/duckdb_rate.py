#!/usr/bin/env python3
# tests/sqlite/duckdb_rate.py: DuckDB's pass rate on SQLite's sqllogictest corpus, on the same
# records and with the same mapping as the `sqlite` stage of scripts/run_tests.sh.
#
# The records come from slt_runner itself (`--sqlite-corpus --skip-list ... --list-records`): the
# SQL exactly as SQE receives it (SQLite DDL mapped), the expected lines, and why a record is
# skipped. This script only executes them on DuckDB (a fresh in-memory database per file) and
# checks the results the way SQLite's runner does: values rendered by the type letters (I, R as
# %.3f, T), sorted by the sort mode, compared one by one or as `N values hashing to <md5>`.
#
# Records skipped for SQE by skipif/onlyif, the mapping, or the skip list's semantic differences
# are skipped here too. Records on the skip list under a "pending engine fixes" heading are run
# (SQE skips them only until the engine is fixed) and counted separately, so the gap is visible.
#
# DuckDB settings: `SET integer_division = true` (DuckDB's `/` is float division by default;
# SQLite and Trino both divide integers as integers). Nothing else is changed.
#
# Usage: .cache/venv/bin/python tests/sqlite/duckdb_rate.py [--runner build/slt_runner]
#          [--corpus DIR] [--skip-list tests/sqlite/skip.list] [--failures] [--sqe-log LOG]
#   --failures     print every record DuckDB fails (file:line, reason)
#   --sqe-log LOG  the output of `slt_runner --verbose --sqlite-corpus ...` on the same corpus:
#                  lists the records DuckDB passes and SQE fails (the target: none)
# Prints a table per file and the totals. Exit status 1 when --sqe-log finds such records, else 0.
import argparse
import collections
import hashlib
import json
import math
import os
import re
import subprocess
import sys
from decimal import Decimal

import duckdb

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HASH_LINE = re.compile(r"^(\d+) values hashing to ([0-9a-fA-F]{32})$")
PENDING = "pending engine fixes"


def default_corpus():
    for candidate in (os.environ.get("SQE_SQLITE_CORPUS"),
                      os.path.join(REPO, "..", "shared", "corpus", "sqllogictest"),
                      os.path.join(REPO, "..", "..", "shared", "corpus", "sqllogictest")):
        if candidate and os.path.isdir(candidate):
            return os.path.normpath(candidate)
    return None


def default_runner():
    for candidate in ("build/slt_runner", "build-asan/slt_runner"):
        path = os.path.join(REPO, candidate)
        if os.path.exists(path):
            return path
    return None


# ---- SQLite's value rendering (as slt_sqlite.c) ---------------------------------------------

def leading_integer(text):
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else 0


def leading_real(text):
    m = re.match(r"\s*([+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf(inity)?|nan))",
                 text, re.I)
    return float(m.group(1)) if m else 0.0


def real_text(value):
    """SQLite's %!.15g: %.15g that always shows a decimal point."""
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    text = "%.15g" % value
    if "." in text:
        return text
    mantissa, e, exponent = text.partition("e")
    return mantissa + ".0" + (e + exponent if e else "")


def render(value, letter):
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        value = int(value)
    if letter == "I":
        if isinstance(value, int):
            return str(value)
        if isinstance(value, (float, Decimal)):
            d = float(value)
            return "0" if math.isnan(d) else str(int(d)) if math.isfinite(d) else str(
                (2 ** 63 - 1) if d > 0 else -2 ** 63)
        return str(leading_integer(str(value)))
    if letter == "R":
        if isinstance(value, (int, float, Decimal)):
            d = float(value)
        else:
            d = leading_real(str(value))
        if d == 0:
            d = 0.0
        return "%.3f" % d
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (float, Decimal)):
        return real_text(float(value))
    text = str(value)
    if text == "":
        return "(empty)"
    return "".join(c if " " <= c <= "~" else "@" for c in text)


# ---- checking --------------------------------------------------------------------------------

def sort_values(values, n_cols, sort):
    if sort == "valuesort":
        return sorted(values)
    if sort == "rowsort" and n_cols > 0:
        rows = [values[i:i + n_cols] for i in range(0, len(values), n_cols)]
        rows.sort()
        return [v for row in rows for v in row]
    return values


def check_query(con, rec, labels):
    """Returns None when the query passes, else the reason."""
    try:
        cur = con.execute(rec["sql"])
        rows = cur.fetchall()
    except duckdb.Error as e:
        return "query failed: %s" % str(e).splitlines()[0]
    types = rec["types"]
    n_cols = len(cur.description or [])
    if n_cols != len(types):
        return "expected %d columns, got %d" % (len(types), n_cols)
    actual = [render(v, types[c]) for row in rows for c, v in enumerate(row)]
    actual = sort_values(actual, n_cols, rec["sort"])
    expected = rec["expected"]
    m = HASH_LINE.match(expected[0]) if len(expected) == 1 else None
    if m:
        digest = hashlib.md5("".join(v + "\n" for v in actual).encode()).hexdigest()
        if int(m.group(1)) != len(actual) or digest != m.group(2).lower():
            return "expected %s, got %d values hashing to %s" % (expected[0], len(actual), digest)
    elif expected or not rec["label"]:
        want = sort_values([v for line in expected for v in line.split("\t")], n_cols,
                           rec["sort"])
        if want != actual:
            return "expected %s, got %s" % (want[:8], actual[:8])
    label = rec["label"]
    if label:
        if label in labels and labels[label] != actual:
            return "differs from the earlier query labelled %s" % label
        labels.setdefault(label, actual)
    return None


def run_record(con, rec, labels):
    kind = rec["kind"]
    if kind == "query":
        return check_query(con, rec, labels)
    try:
        con.execute(rec["sql"])
        return "statement succeeded, but an error was expected" if kind == "error" else None
    except duckdb.Error as e:
        return None if kind == "error" else "statement failed: %s" % str(e).splitlines()[0]


# ---- main ------------------------------------------------------------------------------------

def list_records(runner, corpus, skip_list):
    cmd = [runner, "--sqlite-corpus", "--list-records", "--jobs", "2", corpus]
    if skip_list:
        cmd[1:1] = ["--skip-list", skip_list]
    out = subprocess.run(cmd, capture_output=True, text=True)
    records = []
    for line in out.stdout.splitlines():
        if line.startswith("{"):
            records.append(json.loads(line))
        elif line.strip():
            sys.exit("slt_runner --list-records: %s\n%s" % (line, out.stderr))
    if out.returncode != 0:
        sys.exit("slt_runner --list-records failed (%d): %s" % (out.returncode, out.stderr))
    return records


def read_sqe_log(path):
    outcome = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        m = re.match(r"^(ok|skip|FAIL)\s+(\S+):(\d+)", line)
        if m and m.group(3) != "0":
            key = (os.path.realpath(m.group(2)), int(m.group(3)))
            if m.group(1) == "FAIL" or key not in outcome:
                outcome[key] = m.group(1)
    return outcome


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runner", default=default_runner())
    ap.add_argument("--corpus", default=default_corpus())
    ap.add_argument("--skip-list", default=os.path.join(REPO, "tests", "sqlite", "skip.list"))
    ap.add_argument("--failures", action="store_true")
    ap.add_argument("--sqe-log")
    args = ap.parse_args()
    if not args.runner or not args.corpus:
        sys.exit("need --runner (build slt_runner) and --corpus")

    records = list_records(args.runner, args.corpus, args.skip_list)
    by_file = collections.OrderedDict()
    for rec in records:
        by_file.setdefault(rec["file"], []).append(rec)

    stats = collections.OrderedDict()
    skipped_by = collections.Counter()
    duck_outcome = {}
    failures = []
    for path, recs in by_file.items():
        name = os.path.relpath(path, args.corpus)
        st = stats[name] = collections.Counter()
        con = duckdb.connect()
        con.execute("SET integer_division = true")
        labels = {}
        for rec in recs:
            skip = rec["skip"]
            pending = skip is not None and rec["listed"] and PENDING in skip
            if skip is not None and not pending:
                st["skipped"] += 1
                skipped_by[skip] += 1
                continue
            reason = run_record(con, rec, labels)
            key = (os.path.realpath(rec["file"]), rec["line"])
            duck_outcome[key] = "ok" if reason is None else "FAIL"
            prefix = "pending_" if pending else ""
            st[prefix + "run"] += 1
            st[prefix + ("passed" if reason is None else "failed")] += 1
            if reason is not None:
                failures.append("%s:%d %s" % (name, rec["line"], reason))
        con.close()

    print("%-36s %7s %7s %7s %8s | %s" % ("DuckDB " + duckdb.__version__, "run", "passed",
                                          "failed", "skipped", "pending fixes: run/passed"))
    total = collections.Counter()
    for name, st in stats.items():
        total.update(st)
        print("%-36s %7d %7d %7d %8d | %d/%d" % (name, st["run"], st["passed"], st["failed"],
                                                 st["skipped"], st["pending_run"],
                                                 st["pending_passed"]))
    print("%-36s %7d %7d %7d %8d | %d/%d" % ("total", total["run"], total["passed"],
                                             total["failed"], total["skipped"],
                                             total["pending_run"], total["pending_passed"]))
    run = total["run"] + total["pending_run"]
    passed = total["passed"] + total["pending_passed"]
    if run:
        print("DuckDB passes %d of %d records run (%.2f%%), %d of them pending SQE engine fixes"
              % (passed, run, 100.0 * passed / run, total["pending_passed"]))
    print("skipped (same records as SQE's stage):")
    for group, n in skipped_by.most_common():
        print("  %d %s" % (n, group))
    if args.failures:
        print("DuckDB failures:")
        for line in failures:
            print("  " + line)
    if args.sqe_log:
        sqe = read_sqe_log(args.sqe_log)
        gap = [k for k, v in duck_outcome.items() if v == "ok" and sqe.get(k) == "FAIL"]
        print("records DuckDB passes and SQE fails: %d" % len(gap))
        for path, line in sorted(gap):
            print("  %s:%d" % (os.path.relpath(path, args.corpus), line))
        return 1 if gap else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
