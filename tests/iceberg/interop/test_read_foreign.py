"""SQE reads Iceberg tables written by Iceberg Java (namespace java) and pyiceberg (namespace py).

For every generated table (see java/IcebergInteropGen.java and gen_pyiceberg.py):
- SELECT * through `sqe sql --warehouse` equals the writer's own read (canon.rows_equal);
- filtered SELECTs (the "checks" of the expected JSON) equal the writer's filtered read, which
  exercises partition and statistics pruning for every transform;
- time travel: FOR VERSION AS OF <snapshot id> for every snapshot, FOR VERSION AS OF '<ref>'
  for every branch and tag, FOR TIMESTAMP AS OF at and between the history's commit times;
- the metadata tables "t$snapshots", "t$history", "t$files" and "t$refs".
Run through run_interop_tests.sh (it generates the warehouses first).
"""
import datetime as dt

import pytest

import canon
import sqe_cli
from interop_env import expected_tables, load_expected, warehouse_of

TABLES = expected_tables("java") + expected_tables("py")
if not TABLES:  # not generated: keep one id per namespace so the run fails loudly
    TABLES = ["java.all_types", "py.all_types"]


def _has_checks(table):
    try:
        return bool(load_expected(table)["checks"])
    except BaseException:  # not generated: test_select_all reports it
        return False


FILTERED = [t for t in TABLES if _has_checks(t)] or TABLES[:1]

# tables with several snapshots whose schema never changed: refs and timestamps are checked
TIME_TRAVEL = ["java.time_travel", "py.snapshots", "java.pos_deletes", "java.eq_deletes",
               "py.deleted"]


def select(table, suffix=""):
    return f"SELECT * FROM {sqe_cli.qualified(table)}{suffix}"


def assert_rows(schema, got, expected, what):
    diff = canon.rows_equal(schema, got, expected, "SQE", "writer")
    assert diff is None, f"{what}:\n{diff}"


@pytest.mark.parametrize("table", TABLES)
def test_select_all(table):
    exp = load_expected(table)
    got = sqe_cli.query(warehouse_of(table), select(table))
    assert_rows(exp["schema"], got, exp["rows"], select(table))


@pytest.mark.parametrize("table", FILTERED)
def test_filtered(table):
    exp = load_expected(table)
    assert exp["checks"], f"{table}: no filter checks generated"
    wh = warehouse_of(table)
    for check in exp["checks"]:
        sql = select(table, f" WHERE {check['sql']}")
        assert_rows(exp["schema"], sqe_cli.query(wh, sql), check["rows"], sql)


@pytest.mark.parametrize("table", TABLES)
def test_version_as_of_each_snapshot(table):
    exp = load_expected(table)
    wh = warehouse_of(table)
    for snap in exp["snapshots"]:
        sql = select(table, f" FOR VERSION AS OF {snap['snapshot_id']}")
        assert_rows(snap["schema"], sqe_cli.query(wh, sql), snap["rows"], sql)


def _ts_literal(ms):
    t = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc) + dt.timedelta(milliseconds=ms)
    return f"TIMESTAMP '{t.strftime('%Y-%m-%d %H:%M:%S.%f')[:-3]} UTC'"


@pytest.mark.parametrize("table", TIME_TRAVEL)
def test_refs(table):
    exp = load_expected(table)
    wh = warehouse_of(table)
    snaps = {s["snapshot_id"]: s for s in exp["snapshots"]}
    assert len(exp["refs"]) >= 1
    for name, ref in exp["refs"].items():
        snap = snaps[ref["snapshot_id"]]
        sql = select(table, f" FOR VERSION AS OF '{name}'")
        assert_rows(snap["schema"], sqe_cli.query(wh, sql), snap["rows"], sql)


@pytest.mark.parametrize("table", TIME_TRAVEL)
def test_timestamp_as_of(table):
    exp = load_expected(table)
    wh = warehouse_of(table)
    snaps = {s["snapshot_id"]: s for s in exp["snapshots"]}
    hist = exp["history"]
    assert len(hist) >= 2, "time-travel tables have several snapshots on main"
    for i, h in enumerate(hist):
        snap = snaps[h["snapshot_id"]]
        at = [h["timestamp_ms"]]
        if i + 1 < len(hist) and hist[i + 1]["timestamp_ms"] - h["timestamp_ms"] >= 2:
            at.append((h["timestamp_ms"] + hist[i + 1]["timestamp_ms"]) // 2)
        for ms in at:
            sql = select(table, f" FOR TIMESTAMP AS OF {_ts_literal(ms)}")
            assert_rows(snap["schema"], sqe_cli.query(wh, sql), snap["rows"], sql)
    # before the first commit there is no snapshot: an error, not rows
    before = select(table, f" FOR TIMESTAMP AS OF {_ts_literal(hist[0]['timestamp_ms'] - 1000)}")
    (res,) = sqe_cli.run(wh, before, check=False)
    assert isinstance(res, dict) and "error" in res, f"{before} gave {res!r}"


@pytest.mark.parametrize("table", TABLES)
def test_metadata_tables(table):
    exp = load_expected(table)
    wh = warehouse_of(table)
    snaps = sqe_cli.query(wh, f"SELECT snapshot_id, parent_id FROM "
                              f"{sqe_cli.meta_table(table, 'snapshots')}")
    assert sorted((r["snapshot_id"], r["parent_id"]) for r in snaps) == \
        sorted((s["snapshot_id"], s["parent_id"]) for s in exp["snapshots"])
    hist = sqe_cli.query(wh, f"SELECT snapshot_id FROM {sqe_cli.meta_table(table, 'history')}")
    assert sorted(r["snapshot_id"] for r in hist) == \
        sorted(h["snapshot_id"] for h in exp["history"])
    files = sqe_cli.query(wh, f"SELECT content, count(*) AS n FROM "
                              f"{sqe_cli.meta_table(table, 'files')} GROUP BY content")
    got = {int(r["content"]): int(r["n"]) for r in files}
    f = exp["files"]
    want = {k: v for k, v in {0: f["data"], 1: f["position_deletes"],
                              2: f["equality_deletes"]}.items() if v}
    assert got == want, f"$files by content: SQE {got}, writer {want}"
    refs = sqe_cli.query(wh, f"SELECT name, type, snapshot_id FROM "
                             f"{sqe_cli.meta_table(table, 'refs')}")
    assert sorted((r["name"], r["type"].lower(), r["snapshot_id"]) for r in refs) == \
        sorted((k, v["type"], v["snapshot_id"]) for k, v in exp["refs"].items())
