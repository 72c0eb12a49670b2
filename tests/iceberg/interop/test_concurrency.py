"""Concurrent commits: 8 `sqe sql --warehouse W` processes each run 50 single-row INSERTs into
one table at the same time. Afterwards (checked with pyiceberg and with SQE): every row is there
exactly once, the history is linear (one chain of 400 snapshots, each the parent of the next,
sequence numbers 1..400, every snapshot adding one record) and no commit was lost.
"""
import time

import pytest

import sqe_cli
from iceberg_disk import snapshot_chain

WRITERS = 8
COMMITS = 50


def test_concurrent_inserts(tmp_path):
    from pyiceberg.catalog.sql import SqlCatalog
    wh = tmp_path / "wh"
    sqe_cli.run(wh, "CREATE SCHEMA iceberg.c",
                "CREATE TABLE iceberg.c.t (writer integer, seq integer)")
    procs = []
    start = time.monotonic()
    for w in range(WRITERS):
        stmts = [f"INSERT INTO iceberg.c.t VALUES ({w}, {i})" for i in range(COMMITS)]
        procs.append(sqe_cli.popen(wh, *stmts))
    outputs = []
    for p in procs:
        try:
            out, err = p.communicate(timeout=max(10, 240 - (time.monotonic() - start)))
        except Exception:
            for q in procs:
                q.kill()
            pytest.fail("concurrent writers did not finish within 240 s")
        outputs.append((p.returncode, out, err))
    for w, (rc, out, err) in enumerate(outputs):
        assert rc == 0, f"writer {w} failed (exit {rc}):\n{out[-2000:]}\n{err[-2000:]}"
        assert out.count('{"rows": 1}') == COMMITS, f"writer {w}: {out[-2000:]}"

    rows = sqe_cli.query(wh, "SELECT writer, seq FROM iceberg.c.t")
    got = sorted((r["writer"], r["seq"]) for r in rows)
    want = sorted((w, i) for w in range(WRITERS) for i in range(COMMITS))
    assert got == want, f"SQE sees {len(got)} rows, {len(set(want) - set(got))} missing"

    cat = SqlCatalog("iceberg", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")
    t = cat.load_table("c.t")
    pyrows = sorted((r["writer"], r["seq"]) for r in t.scan().to_arrow().to_pylist())
    assert pyrows == want, "pyiceberg sees other rows than were committed"
    snaps = t.metadata.snapshots
    assert len(snaps) == WRITERS * COMMITS, f"{len(snaps)} snapshots for 400 commits"
    chain = snapshot_chain(t)
    assert len(chain) == len(snaps), "history is not one linear chain"
    assert [s.sequence_number for s in chain] == list(range(1, len(chain) + 1))
    log = [e.snapshot_id for e in t.metadata.snapshot_log]
    assert log == [s.snapshot_id for s in chain], "snapshot-log differs from the parent chain"
    for s in chain:
        assert s.summary["added-records"] == "1", s.summary
    assert chain[-1].summary["total-records"] == str(WRITERS * COMMITS)
