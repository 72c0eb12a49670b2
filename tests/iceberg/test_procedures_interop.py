"""Iceberg maintenance procedures (src/engine/ice_procedures.c, ice_refs.c,
src/iceberg/reachable.c) checked with pyiceberg: after each CALL, pyiceberg's SqlCatalog on the
same warehouse reads the same rows as SQE, files the procedure deleted are gone from disk, and
every file the table still references (per pyiceberg's own walk of the metadata) exists.

Run: SQE_BIN=<build>/sqe .cache/venv/bin/python -m pytest tests/iceberg/test_procedures_interop.py
"""
import os
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "interop"))
import sqe_cli  # noqa: E402

TABLE = "default.t"


@pytest.fixture
def wh(tmp_path):
    return tmp_path / "wh"


def catalog(wh):
    from pyiceberg.catalog.sql import SqlCatalog
    return SqlCatalog("iceberg", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")


def local(p):
    for prefix in ("file://localhost", "file://", "file:"):
        if p.startswith(prefix):
            return p[len(prefix):]
    return p


def referenced(tbl, live_only=False):
    """Every file pyiceberg finds the table referencing: metadata files, manifest lists,
    manifests, data and delete files of every snapshot (with live_only, only the files of
    ADDED and EXISTING entries: a DELETED entry records a file some expired snapshot had)."""
    meta = tbl.metadata
    files = {local(tbl.metadata_location)}
    files |= {local(e.metadata_file) for e in meta.metadata_log}
    for snap in meta.snapshots:
        files.add(local(snap.manifest_list))
        for mf in snap.manifests(tbl.io):
            files.add(local(mf.manifest_path))
            for entry in mf.fetch_manifest_entry(tbl.io, discard_deleted=live_only):
                files.add(local(entry.data_file.file_path))
    return files


def all_files(wh):
    return {str(p) for p in Path(wh).rglob("*")
            if p.is_file() and not p.name.startswith("catalog.db")}


def sqe_rows(wh, sql):
    return sorted(tuple(r.values()) for r in sqe_cli.query(wh, sql))


def py_rows(wh, cols=("a", "b")):
    tbl = catalog(wh).load_table(TABLE)
    arrow = tbl.scan().to_arrow()
    return sorted(zip(*(arrow.column(c).to_pylist() for c in cols)))


def check_consistent(wh):
    """Same rows both ways; every referenced file exists."""
    assert sqe_rows(wh, "SELECT a, b FROM t") == py_rows(wh)
    tbl = catalog(wh).load_table(TABLE)
    missing = [f for f in referenced(tbl, live_only=True) if not os.path.exists(f)]
    assert not missing, missing
    return tbl


def snapshot_ids(wh):
    rows = sqe_cli.query(wh, 'SELECT snapshot_id FROM "t$snapshots" ORDER BY committed_at')
    return [r["snapshot_id"] for r in rows]


def setup_table(wh, n=3):
    stmts = ["CREATE TABLE t (a bigint, b varchar)"]
    stmts += [f"INSERT INTO t VALUES ({i}, 'v{i}')" for i in range(1, n + 1)]
    sqe_cli.run(wh, *stmts)
    time.sleep(0.01)


def test_rollback_and_set_current(wh):
    setup_table(wh)
    ids = snapshot_ids(wh)
    assert len(ids) == 3
    # Spark style, named
    (res,) = sqe_cli.run(wh, f"CALL system.rollback_to_snapshot(table => 'default.t', "
                             f"snapshot_id => {ids[0]})")
    assert res == [{"previous_snapshot_id": ids[2], "current_snapshot_id": ids[0]}]
    assert py_rows(wh) == [(1, "v1")]
    tbl = check_consistent(wh)
    assert tbl.metadata.current_snapshot_id == ids[0]
    assert tbl.metadata.snapshot_log[-1].snapshot_id == ids[0]
    assert tbl.metadata.refs["main"].snapshot_id == ids[0]
    # the later snapshots are no ancestors now: rollback refuses, set_current_snapshot goes
    with pytest.raises(sqe_cli.SqeError, match=f"not an ancestor of the current state: {ids[2]}"):
        sqe_cli.run(wh, f"CALL system.rollback_to_snapshot('default.t', {ids[2]})")
    sqe_cli.run(wh, f"CALL system.set_current_snapshot('t', {ids[2]})")
    assert py_rows(wh) == [(1, "v1"), (2, "v2"), (3, "v3")]
    # Trino style positional (schema, table, snapshot_id)
    sqe_cli.run(wh, f"CALL iceberg.system.rollback_to_snapshot('default', 't', {ids[1]})")
    assert py_rows(wh) == [(1, "v1"), (2, "v2")]
    check_consistent(wh)
    # and pyiceberg can append on top of the rolled-back table; SQE reads it
    import pyarrow as pa
    tbl = catalog(wh).load_table(TABLE)
    tbl.append(pa.table({"a": pa.array([9], pa.int64()), "b": pa.array(["py"])}))
    assert sqe_rows(wh, "SELECT a, b FROM t") == [(1, "v1"), (2, "v2"), (9, "py")]


def test_expire_snapshots_deletes_unreferenced_files(wh):
    setup_table(wh)
    # copy-on-write delete: the file of a = 1 leaves the table in the 4th snapshot
    sqe_cli.run(wh, "DELETE FROM t WHERE a = 1")
    before = catalog(wh).load_table(TABLE)
    old_refs = referenced(before)
    first = before.metadata.snapshots[0].snapshot_id
    file_of_1 = [local(t.file.file_path) for t in before.scan(snapshot_id=first).plan_files()]
    assert len(file_of_1) == 1 and os.path.exists(file_of_1[0])
    time.sleep(0.05)
    (res,) = sqe_cli.run(wh, "CALL system.expire_snapshots(table => 't', older_than => "
                             "current_timestamp, retain_last => 1)")
    assert res[0]["deleted_data_files_count"] == 1
    assert res[0]["deleted_manifest_lists_count"] == 3
    tbl = check_consistent(wh)
    assert len(tbl.metadata.snapshots) == 1
    assert py_rows(wh) == [(2, "v2"), (3, "v3")]
    now_refs = referenced(tbl, live_only=True)
    gone = old_refs - now_refs - {local(e.metadata_file) for e in tbl.metadata.metadata_log}
    assert gone, "expire_snapshots dropped no file"
    for f in gone:
        assert not os.path.exists(f), f
    assert not os.path.exists(file_of_1[0])
    counted = sum(res[0][k] for k in res[0])
    assert counted == len(gone)


def test_expire_keeps_tags_and_retain_last(wh):
    setup_table(wh, n=4)
    ids = snapshot_ids(wh)
    sqe_cli.run(wh, f"ALTER TABLE t CREATE TAG first AS OF VERSION {ids[0]}")
    time.sleep(0.05)
    sqe_cli.run(wh, "CALL system.expire_snapshots(table => 't', older_than => current_timestamp, "
                    "retain_last => 2)")
    tbl = check_consistent(wh)
    kept = {s.snapshot_id for s in tbl.metadata.snapshots}
    assert kept == {ids[0], ids[2], ids[3]}
    assert sqe_rows(wh, "SELECT a, b FROM t FOR VERSION AS OF 'first'") == [(1, "v1")]
    # pyiceberg reads the tag too
    arrow = tbl.scan(snapshot_id=tbl.metadata.refs["first"].snapshot_id).to_arrow()
    assert arrow.column("a").to_pylist() == [1]


def test_remove_orphan_files(wh):
    setup_table(wh)
    tbl = catalog(wh).load_table(TABLE)
    loc = Path(local(tbl.metadata.location))
    data_dir = loc / "data"
    orphans = [data_dir / "orphan-1.parquet", loc / "metadata" / "orphan-2.avro",
               data_dir / "sub" / "orphan-3.txt"]
    for o in orphans:
        o.parent.mkdir(parents=True, exist_ok=True)
        o.write_bytes(b"junk")
    old = time.time() - 10 * 24 * 3600
    for o in orphans:
        os.utime(o, (old, old))
    fresh = data_dir / "in-flight.parquet"
    fresh.write_bytes(b"being written")
    before = all_files(wh)
    # dry run lists them, deletes nothing
    (res,) = sqe_cli.run(wh, "CALL system.remove_orphan_files(table => 't', dry_run => true)")
    assert sorted(r["orphan_file_location"] for r in res) == sorted(str(o) for o in orphans)
    assert all_files(wh) == before
    # default cut-off (3 days): the old orphans go, the fresh file stays
    (res,) = sqe_cli.run(wh, "CALL system.remove_orphan_files(table => 't')")
    assert sorted(r["orphan_file_location"] for r in res) == sorted(str(o) for o in orphans)
    for o in orphans:
        assert not o.exists()
    assert fresh.exists()
    check_consistent(wh)
    # with the cut-off now, the fresh one goes too, and nothing the table references
    time.sleep(0.05)
    (res,) = sqe_cli.run(wh, "CALL system.remove_orphan_files(table => 't', "
                             "older_than => current_timestamp)")
    assert [r["orphan_file_location"] for r in res] == [str(fresh)]
    tbl = check_consistent(wh)
    assert all_files(wh) == referenced(tbl)


def test_rewrite_data_files(wh):
    sqe_cli.run(wh, "CREATE TABLE t (a bigint, b varchar) WITH (partitioning = ARRAY['b'], "
                    "format_version = 2, extra_properties = MAP(ARRAY['write.delete.mode'], "
                    "ARRAY['merge-on-read']))",
                *[f"INSERT INTO t VALUES ({i}, 'p{i % 2}')" for i in range(6)],
                "DELETE FROM t WHERE a = 4")
    files_before = sqe_cli.query(wh, 'SELECT content, file_path FROM "t$files"')
    assert sum(1 for f in files_before if f["content"] == 0) == 6
    assert sum(1 for f in files_before if f["content"] == 1) == 1
    (res,) = sqe_cli.run(wh, "CALL system.rewrite_data_files(table => 't', options => "
                             "map(ARRAY['min-input-files'], ARRAY['2']))")
    assert res[0]["rewritten_data_files_count"] == 6
    assert res[0]["added_data_files_count"] == 2  # one per partition
    after = sqe_cli.query(wh, 'SELECT content, partition FROM "t$files"')
    assert [f["content"] for f in after] == [0, 0]
    tbl = check_consistent(wh)
    assert tbl.metadata.current_snapshot().summary.operation.value == "replace"
    assert py_rows(wh) == [(0, "p0"), (1, "p1"), (2, "p0"), (3, "p1"), (5, "p1")]
    # the old files are still referenced by older snapshots until expired
    time.sleep(0.05)
    sqe_cli.run(wh, "CALL system.expire_snapshots(table => 't', older_than => current_timestamp)")
    for f in files_before:
        assert not os.path.exists(local(f["file_path"])), f
    tbl = check_consistent(wh)
    assert all_files(wh) <= referenced(tbl)
