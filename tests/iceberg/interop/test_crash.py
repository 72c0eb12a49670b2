"""Crash safety: `kill -9` of `sqe sql --warehouse W` during a large INSERT and during a MERGE.

Afterwards the table reads at its previous snapshot (same snapshot id in the catalog, same rows
through SQE), a new INSERT succeeds, and
  CALL iceberg.system.remove_orphan_files(table => 'k.t', older_than => TIMESTAMP '...')
removes the files the killed statement left in the table's data folder while keeping every file
a snapshot references (checked on disk).
"""
import datetime as dt
import os
import signal
import time

import pytest

import sqe_cli
from iceberg_disk import files_on_disk, referenced_files

BIG_SELECT = ("SELECT CAST(a AS bigint) * 10000 + b AS id, 'payload-' || CAST(b AS varchar) AS v"
              " FROM UNNEST(sequence(1, 2000)) AS x(a) CROSS JOIN UNNEST(sequence(1, 10000)) AS y(b)")


def catalog(wh):
    from pyiceberg.catalog.sql import SqlCatalog
    return SqlCatalog("iceberg", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")


def kill_during(wh, table, statement):
    """Starts statement in its own sqe process and kills it with SIGKILL once it has written a
    new file under the table's data folder (or after 4 s). Fails when it finished first."""
    t = catalog(wh).load_table(table)
    before = files_on_disk(t)
    p = sqe_cli.popen(wh, statement)
    deadline = time.monotonic() + 4
    while time.monotonic() < deadline and p.poll() is None:
        if files_on_disk(t) - before:
            time.sleep(0.2)
            break
        time.sleep(0.05)
    if p.poll() is not None:
        out, err = p.communicate()
        pytest.fail(f"the statement ended (exit {p.returncode}) before it could be killed; "
                    f"make it larger:\n{out[-1000:]}{err[-1000:]}")
    os.kill(p.pid, signal.SIGKILL)
    p.wait(timeout=30)
    assert p.returncode == -signal.SIGKILL


def check_recovered(wh, table, snapshot_id, count, total):
    qt = f"iceberg.{table}"
    t = catalog(wh).load_table(table)
    assert t.current_snapshot().snapshot_id == snapshot_id, "the table moved past its snapshot"
    (row,) = sqe_cli.query(wh, f"SELECT count(*) AS c, sum(id) AS s FROM {qt}")
    assert (row["c"], row["s"]) == (count, total)
    sqe_cli.run(wh, f"INSERT INTO {qt} (id, v) VALUES (-1, 'after crash')")
    (row,) = sqe_cli.query(wh, f"SELECT count(*) AS c FROM {qt}")
    assert row["c"] == count + 1
    t = catalog(wh).load_table(table)
    orphans = files_on_disk(t) - referenced_files(t)
    future = (dt.datetime.now(dt.timezone.utc) + dt.timedelta(minutes=1)).strftime(
        "%Y-%m-%d %H:%M:%S")
    sqe_cli.run(wh, f"CALL iceberg.system.remove_orphan_files(table => '{table}', "
                    f"older_than => TIMESTAMP '{future} UTC')")
    t = catalog(wh).load_table(table)
    on_disk, refs = files_on_disk(t), referenced_files(t)
    assert not (on_disk - refs), f"orphans left: {sorted(map(str, on_disk - refs))[:5]}"
    assert not (refs - on_disk), f"referenced files removed: {sorted(map(str, refs - on_disk))[:5]}"
    assert not any(p.exists() for p in orphans)
    (row,) = sqe_cli.query(wh, f"SELECT count(*) AS c FROM {qt}")
    assert row["c"] == count + 1


def setup_table(wh, rows_sql, n, total):
    sqe_cli.run(wh, "CREATE SCHEMA iceberg.k", "CREATE TABLE iceberg.k.t (id bigint, v varchar)")
    sqe_cli.run(wh, f"INSERT INTO iceberg.k.t {rows_sql}", timeout=300)
    t = catalog(wh).load_table("k.t")
    (row,) = sqe_cli.query(wh, "SELECT count(*) AS c, sum(id) AS s FROM iceberg.k.t")
    assert (row["c"], row["s"]) == (n, total)
    return t.current_snapshot().snapshot_id


def test_kill_during_insert(tmp_path):
    wh = tmp_path / "wh"
    snap = setup_table(wh, "SELECT CAST(x AS bigint), 'v' FROM UNNEST(sequence(1, 100)) AS g(x)",
                       100, 5050)
    kill_during(wh, "k.t", f"INSERT INTO iceberg.k.t {BIG_SELECT}")
    check_recovered(wh, "k.t", snap, 100, 5050)


def test_kill_during_merge(tmp_path):
    wh = tmp_path / "wh"
    n = 300 * 1000
    gen = ("SELECT CAST(a AS bigint) * 1000 + b AS id, 'v' FROM UNNEST(sequence(0, 299)) AS x(a)"
           " CROSS JOIN UNNEST(sequence(0, 999)) AS y(b)")
    snap = setup_table(wh, gen, n, n * (n - 1) // 2)
    kill_during(wh, "k.t", (
        "MERGE INTO iceberg.k.t t USING (SELECT CAST(a AS bigint) * 1000 + b AS id"
        " FROM UNNEST(sequence(0, 2999)) AS x(a) CROSS JOIN UNNEST(sequence(0, 999)) AS y(b)) s"
        " ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 'merged'"
        " WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, 'new')"))
    check_recovered(wh, "k.t", snap, n, n * (n - 1) // 2)
