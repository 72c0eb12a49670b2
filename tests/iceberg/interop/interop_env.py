"""Paths and helpers shared by the Iceberg interop tests (see run_interop_tests.sh).

The generated warehouses live under $ICEBERG_INTEROP_DIR (default .cache/iceberg-interop):
java-warehouse/ (IcebergInteropGen.java, namespace "java") and py-warehouse/ (gen_pyiceberg.py,
namespace "py"), each with expected/<ns>.<table>.json. run_interop_tests.sh builds them; a
missing one is a failure that says so. $ICEBERG_INTEROP_JAVA_CP is the class path of the Java
program (its classes + the jars), used to read tables with Iceberg Java.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
ROOT = HERE.parents[2]
CACHE = Path(os.environ.get("ICEBERG_INTEROP_DIR", ROOT / ".cache" / "iceberg-interop"))
WAREHOUSES = {"java": CACHE / "java-warehouse", "py": CACHE / "py-warehouse"}


def expected_tables(ns):
    d = WAREHOUSES[ns] / "expected"
    return sorted(p.name[:-len(".json")] for p in d.glob(f"{ns}.*.json")) if d.is_dir() else []


def load_expected(table):
    ns = table.split(".", 1)[0]
    path = WAREHOUSES[ns] / "expected" / f"{table}.json"
    if not path.exists():
        pytest.fail(f"{path} missing: run tests/iceberg/interop/run_interop_tests.sh "
                    "(it generates the warehouses)")
    return json.loads(path.read_text())


def warehouse_of(table):
    wh = WAREHOUSES[table.split(".", 1)[0]]
    if not (wh / "catalog.db").exists():
        pytest.fail(f"{wh} not generated: run tests/iceberg/interop/run_interop_tests.sh")
    return wh


def java_dump(warehouse, tables):
    """Iceberg Java's view of tables (IcebergInteropGen dump, one JVM for all of them): a dict
    table -> the expected-JSON layout, or {"error": text} for a table Java could not read."""
    cp = os.environ.get("ICEBERG_INTEROP_JAVA_CP")
    if not cp:
        pytest.fail("ICEBERG_INTEROP_JAVA_CP is not set: run via run_interop_tests.sh")
    proc = subprocess.run(["java", "-Duser.timezone=UTC", "-cp", cp, "IcebergInteropGen", "dump",
                           str(warehouse), *tables], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        pytest.fail(f"IcebergInteropGen dump failed:\n{proc.stderr[-3000:]}")
    out = {}
    for line in proc.stdout.splitlines():
        doc = json.loads(line)
        out[doc["table"]] = doc
    return out
