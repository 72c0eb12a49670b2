"""Damaged Iceberg tables: every kind of broken file gives a clear error naming the file, never a
crash, and a failed write leaves the table as it was (issue 6, "Bad input").

Each test builds a small table with `sqe sql --warehouse`, damages one file on disk, and checks
what SQE says. SQE_BIN selects the binary (the ASan build in make test, so a memory error would
show up as a sanitizer report and a non-1 exit status).
"""
import glob
import json
import os
import random
import shutil
import sqlite3
import subprocess
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SQE = os.environ.get("SQE_BIN", os.path.join(ROOT, "build-asan", "sqe"))


def sqe(warehouse, sql):
    """Runs sql; returns (exit status, stdout, stderr)."""
    p = subprocess.run([SQE, "sql", "--warehouse", warehouse, "--format", "json", "-e", sql],
                       capture_output=True, text=True, timeout=120)
    assert "Sanitizer" not in p.stderr and "runtime error" not in p.stderr, p.stderr
    assert p.returncode in (0, 1), f"exit status {p.returncode}: {p.stderr}"
    return p.returncode, p.stdout, p.stderr


def ok(warehouse, sql):
    """Runs sql, which must succeed; returns the rows of the last query (--format json prints
    one JSON array of row objects per query)."""
    rc, out, err = sqe(warehouse, sql)
    assert rc == 0, err
    results = [json.loads(line) for line in out.splitlines() if line.startswith("[")]
    return results[-1] if results else []


@pytest.fixture
def table():
    """A warehouse with table t (two snapshots, two data files); yields (warehouse, location)."""
    wh = tempfile.mkdtemp(prefix="sqe-bad-")
    ok(wh, "CREATE TABLE t (id bigint, s varchar); "
           "INSERT INTO t VALUES (1, 'a'), (2, 'b'); INSERT INTO t VALUES (3, 'c')")
    yield wh, os.path.join(wh, "default", "t")
    shutil.rmtree(wh, ignore_errors=True)


def current_metadata(wh):
    con = sqlite3.connect(os.path.join(wh, "catalog.db"))
    (loc,) = con.execute("SELECT metadata_location FROM iceberg_tables WHERE table_name = 't'").fetchone()
    con.close()
    return loc[len("file:"):] if loc.startswith("file:") else loc


def metadata_json(wh):
    with open(current_metadata(wh)) as f:
        return json.load(f)


def expect_error(wh, sql, path):
    rc, _, err = sqe(wh, sql)
    assert rc == 1, f"expected an error for {sql}"
    assert path in err, f"the error does not name {path}: {err}"
    return err


def test_corrupt_metadata_json(table):
    wh, _ = table
    meta = current_metadata(wh)
    with open(meta, "w") as f:
        f.write('{"format-version": 2, "table-uuid": ')
    err = expect_error(wh, "SELECT * FROM t", meta)
    assert "Invalid Iceberg metadata" in err or "metadata" in err


def test_metadata_with_wrong_types(table):
    wh, _ = table
    meta = current_metadata(wh)
    doc = metadata_json(wh)
    doc["current-snapshot-id"] = "not a number"
    with open(meta, "w") as f:
        json.dump(doc, f)
    expect_error(wh, "SELECT count(*) FROM t", meta)


def test_truncated_manifest_list(table):
    wh, _ = table
    doc = metadata_json(wh)
    snap = [s for s in doc["snapshots"] if s["snapshot-id"] == doc["current-snapshot-id"]][0]
    path = snap["manifest-list"].replace("file:", "", 1)
    data = open(path, "rb").read()
    for cut in (0, 3, len(data) // 2, len(data) - 1):
        with open(path, "wb") as f:
            f.write(data[:cut])
        expect_error(wh, "SELECT * FROM t", path)


def test_bit_flipped_manifests(table):
    """Random bit flips in a manifest: either an error naming the manifest or correct-looking
    rows (a flip in a value SQE does not use), never a crash."""
    wh, loc = table
    manifests = [m for m in glob.glob(os.path.join(loc, "metadata", "*-m*.avro"))]
    assert manifests
    rng = random.Random(7)
    errors = 0
    for m in manifests:
        original = open(m, "rb").read()
        for _ in range(15):
            data = bytearray(original)
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(len(data))
                data[i] ^= 1 << rng.randrange(8)
            with open(m, "wb") as f:
                f.write(data)
            rc, _, err = sqe(wh, "SELECT count(*) FROM t")
            if rc == 1:
                errors += 1
                assert m in err or "Invalid" in err, err
        with open(m, "wb") as f:
            f.write(original)
    assert errors > 0, "no bit flip was detected at all"
    assert ok(wh, "SELECT count(*) AS n FROM t") == [{"n": 3}]


def test_missing_data_file(table):
    wh, loc = table
    files = sorted(glob.glob(os.path.join(loc, "data", "*.parquet")))
    assert len(files) == 2
    os.remove(files[0])
    expect_error(wh, "SELECT * FROM t", os.path.basename(files[0]))


def test_corrupt_data_file(table):
    wh, loc = table
    files = sorted(glob.glob(os.path.join(loc, "data", "*.parquet")))
    with open(files[0], "r+b") as f:
        f.seek(0)
        f.write(b"garbage!")
    expect_error(wh, "SELECT * FROM t", os.path.basename(files[0]))


def test_failed_write_leaves_table_unchanged(table):
    """An INSERT that cannot write its data file (the data directory is replaced by a plain
    file) fails, commits nothing and leaves no new metadata behind; the table reads as before."""
    wh, loc = table
    before = ok(wh, "SELECT count(*) AS n FROM t")
    meta_before = sorted(os.listdir(os.path.join(loc, "metadata")))
    data_dir = os.path.join(loc, "data")
    os.rename(data_dir, data_dir + ".away")
    with open(data_dir, "w") as f:
        f.write("not a directory")
    try:
        rc, _, err = sqe(wh, "INSERT INTO t VALUES (4, 'd')")
        assert rc == 1 and "data" in err, err
    finally:
        os.remove(data_dir)
        os.rename(data_dir + ".away", data_dir)
    assert sorted(os.listdir(os.path.join(loc, "metadata"))) == meta_before
    assert ok(wh, "SELECT count(*) AS n FROM t") == before


def test_missing_manifest_is_named(table):
    wh, loc = table
    manifests = glob.glob(os.path.join(loc, "metadata", "*-m*.avro"))
    victim = manifests[0]
    os.remove(victim)
    expect_error(wh, "SELECT * FROM t", os.path.basename(victim))
