"""Driving `sqe sql --warehouse DIR -e ... --format json` from the interop tests.

The binary is $SQE_BIN (default build/sqe). Each -e statement prints one JSON line: an array of
row objects for a query, {"ok": true} / {"rows": N} for other statements, {"error": {...}} for a
failure (src/cli/output.c). A missing binary or a missing --warehouse option is a test failure
with a message naming what SQE lacks, never a skip.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SQE = Path(os.environ.get("SQE_BIN", ROOT / "build" / "sqe"))
CATALOG = "iceberg"


class SqeError(Exception):
    def __init__(self, sql, error, stderr=""):
        self.sql = sql
        self.error = error
        self.stderr = stderr
        super().__init__(f"SQE failed on: {sql}\n  error: {error}\n  stderr: {stderr[-2000:]}")


def base_args(warehouse):
    if not SQE.exists():
        pytest.fail(f"{SQE} is not built (run `make` in {ROOT}, or set SQE_BIN)")
    return [str(SQE), "sql", "--warehouse", str(warehouse), "--format", "json"]


def _lacks_warehouse(proc):
    text = (proc.stderr or "") + (proc.stdout or "")
    return proc.returncode != 0 and ("--warehouse" in text or "unknown option" in text.lower()
                                     or "unrecognized option" in text.lower()) and \
        '"error"' not in (proc.stdout or "")


def run(warehouse, *statements, timeout=120, check=True):
    """Runs the statements (one -e each) in one `sqe sql` process. Returns one parsed JSON value
    per statement. With check, the first {"error": ...} raises SqeError."""
    args = base_args(warehouse)
    for s in statements:
        args += ["-e", s]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    if _lacks_warehouse(proc):
        pytest.fail("SQE lacks `sqe sql --warehouse DIR` (Iceberg warehouse support): "
                    + (proc.stderr or proc.stdout).strip()[:500])
    out = []
    for line in proc.stdout.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            raise SqeError(statements, f"unparsable output line {line[:300]!r}", proc.stderr)
    if check:
        for stmt, res in zip(statements, out):
            if isinstance(res, dict) and "error" in res:
                raise SqeError(stmt, res["error"], proc.stderr)
        if proc.returncode != 0 or len(out) != len(statements):
            raise SqeError(statements, f"exit {proc.returncode}, {len(out)} results for "
                           f"{len(statements)} statements", proc.stderr)
    return out


def query(warehouse, sql, timeout=120):
    """Rows (list of dicts) of one query."""
    (res,) = run(warehouse, sql, timeout=timeout)
    if not isinstance(res, list):
        raise SqeError(sql, f"expected rows, got {res!r}")
    return res


def popen(warehouse, *statements, **kw):
    args = base_args(warehouse)
    for s in statements:
        args += ["-e", s]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **kw)


def qualified(table):
    """"ns.t" -> iceberg.ns.t with each part quoted."""
    return ".".join(f'"{p}"' for p in [CATALOG] + table.split("."))


def meta_table(table, kind):
    """"ns.t", "snapshots" -> iceberg."ns"."t$snapshots"."""
    ns, name = table.rsplit(".", 1)
    return f'"{CATALOG}"."{ns}"."{name}${kind}"'
