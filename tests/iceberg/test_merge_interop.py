"""MERGE on Iceberg tables (src/engine/merge.c, ice_merge.c, ice_dml.c) checked with pyiceberg:
a table goes through a series of MERGEs (every case kind, NULL join keys, a duplicate-match
failure); after each one, pyiceberg's SqlCatalog on the same warehouse reads exactly the rows SQE
reads, and both equal the rows a Python model of the statement predicts. Runs for copy-on-write
and merge-on-read, format v2 and v3, unpartitioned and partitioned (identity and bucket).

Run: SQE_BIN=<build>/sqe .cache/venv/bin/python -m pytest tests/iceberg/test_merge_interop.py
"""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "interop"))
import canon  # noqa: E402
import sqe_cli  # noqa: E402

TABLE = "iceberg.default.t"


def catalog(wh):
    from pyiceberg.catalog.sql import SqlCatalog
    return SqlCatalog("iceberg", uri=f"sqlite:///{wh}/catalog.db", warehouse=f"file://{wh}")


def cat_of(i):
    return ("a", "b", None)[i % 3]


def initial_model():
    return {i: {"id": i, "v": f"v{i}", "cat": cat_of(i), "n": i} for i in range(1, 41)}


# Each step: (SQL, function applying it to the model, rows the statement reports).
def step_mixed(m):
    changed = 0
    for sid in range(35, 51):
        if sid in m:
            if sid % 2 == 0:
                del m[sid]
            else:
                m[sid]["v"] += "_m"
                m[sid]["n"] *= 10
        else:
            m[sid] = {"id": sid, "v": "new", "cat": "c", "n": 0}
        changed += 1
    return changed


def step_null_keys(m):
    m[1]["v"] = "one"
    m[1]["cat"] = "b"
    return 1


def step_deletes(m):
    gone = [k for k in m if k <= 10 and m[k]["n"] < 5]
    for k in gone:
        del m[k]
    return len(gone)


def step_inserts(m):
    for k in (100, 101):
        m[k] = {"id": k, "v": None, "cat": None, "n": k}
    return 2


STEPS = [
    ("mixed",
     f"MERGE INTO {TABLE} t USING (SELECT CAST(x AS integer) AS id FROM UNNEST(sequence(35, 50))"
     " AS g(x)) s ON t.id = s.id"
     " WHEN MATCHED AND s.id % 2 = 0 THEN DELETE"
     " WHEN MATCHED THEN UPDATE SET v = t.v || '_m', n = t.n * 10"
     " WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'new', 'c', 0)",
     step_mixed, "overwrite"),
    ("null_keys",
     f"MERGE INTO {TABLE} t USING (VALUES (NULL, 'x'), (1, 'one')) AS s(id, v) ON t.id = s.id"
     " WHEN MATCHED THEN UPDATE SET v = s.v, cat = 'b'",
     step_null_keys, "overwrite"),
    ("deletes",
     f"MERGE INTO {TABLE} t USING (SELECT CAST(x AS integer) AS id FROM UNNEST(sequence(1, 10))"
     " AS g(x)) s ON t.id = s.id WHEN MATCHED AND t.n < 5 THEN DELETE",
     step_deletes, None),
    ("inserts",
     f"MERGE INTO {TABLE} t USING (VALUES 100, 101) AS s(id) ON t.id = s.id"
     " WHEN NOT MATCHED THEN INSERT (n, id) VALUES (s.id, s.id)",
     step_inserts, "append"),
]

CONFIGS = [(mode, version, part) for mode in ("copy-on-write", "merge-on-read")
           for version in (2, 3) for part in (None, "cat", "bucket(id, 4)")]


def config_id(c):
    mode, version, part = c
    return f"{'cow' if mode == 'copy-on-write' else 'mor'}-v{version}-{part or 'unpart'}"


def create(wh, mode, version, part):
    props = (f"format_version = {version}, extra_properties = MAP(ARRAY['write.merge.mode'],"
             f" ARRAY['{mode}'])")
    if part:
        props += f", partitioning = ARRAY['{part}']"
    values = ", ".join(f"({r['id']}, '{r['v']}', " + (f"'{r['cat']}'" if r["cat"] else "NULL")
                       + f", {r['n']})" for r in initial_model().values())
    sqe_cli.run(wh, f"CREATE TABLE {TABLE} (id integer NOT NULL, v varchar, cat varchar,"
                f" n bigint) WITH ({props})")
    # two INSERTs: two snapshots, more data files per partition
    half = values.split("), (")
    sqe_cli.run(wh, f"INSERT INTO {TABLE} VALUES " + "), (".join(half[:20]) + ")")
    sqe_cli.run(wh, f"INSERT INTO {TABLE} VALUES (" + "), (".join(half[20:]))


def delete_file_kinds(tbl):
    kinds = []
    for mf in tbl.current_snapshot().manifests(tbl.io):
        for e in mf.fetch_manifest_entry(tbl.io, discard_deleted=True):
            if int(e.data_file.content) == 1:
                kinds.append(str(e.data_file.file_format).upper().split(".")[-1])
    return kinds


@pytest.mark.parametrize("config", CONFIGS, ids=[config_id(c) for c in CONFIGS])
def test_merge_interop(tmp_path, config):
    mode, version, part = config
    wh = tmp_path / "wh"
    create(wh, mode, version, part)
    model = initial_model()
    cat = catalog(wh)
    for name, sql, apply, operation in STEPS:
        (res,) = sqe_cli.run(wh, sql)
        want_changed = apply(model)
        assert res.get("rows") == want_changed, f"{name}: MERGE reported {res}"
        tbl = cat.load_table("default.t")
        schema = json.loads(tbl.schema().model_dump_json())
        sqe_rows = sqe_cli.query(wh, f"SELECT * FROM {TABLE}")
        diff = canon.rows_equal(schema, sqe_rows, list(model.values()), "SQE", "model")
        assert diff is None, f"after {name}: {diff}"
        snap = tbl.current_snapshot()
        if operation:
            assert snap.summary.operation.value == operation, f"{name}: {snap.summary}"
        kinds = delete_file_kinds(tbl)
        if mode == "copy-on-write":
            assert kinds == [], f"{name}: copy-on-write left delete files {kinds}"
        elif name != "inserts":
            assert kinds, f"{name}: merge-on-read wrote no delete files"
            if version == 3:
                assert set(kinds) == {"PUFFIN"}, f"{name}: v3 must use deletion vectors: {kinds}"
        if mode == "merge-on-read" and version == 3 and kinds:
            # Not a skip of the test: pyiceberg 0.12 cannot apply deletion vectors (nor does
            # its DataFile expose referenced_data_file), so the rows are compared with SQE's
            # model above and the vectors checked through SQE's "$files" (one per data file);
            # Iceberg Java reads such rows in tests/iceberg/interop/test_pyiceberg_reads_sqe.py
            # (dml_merge_mor_v3).
            (dup,) = sqe_cli.query(wh, 'SELECT count(*) - count(DISTINCT referenced_data_file)'
                                   ' AS d FROM iceberg.default."t$files" WHERE content = 1')
            assert dup["d"] == 0, f"{name}: two deletion vectors for one data file"
            continue
        py_rows = tbl.scan().to_arrow().to_pylist()
        diff = canon.rows_equal(schema, py_rows, sqe_rows, "pyiceberg", "SQE")
        assert diff is None, f"after {name}: {diff}"


def test_duplicate_match_leaves_table_unchanged(tmp_path):
    wh = tmp_path / "wh"
    create(wh, "merge-on-read", 2, None)
    before = catalog(wh).load_table("default.t").metadata_location
    (res,) = sqe_cli.run(wh, f"MERGE INTO {TABLE} t USING (VALUES 5, 5) AS s(id) ON t.id = s.id"
                         " WHEN MATCHED THEN DELETE", check=False)
    assert "error" in res
    assert "One MERGE target table row matched more than one source row" in \
        json.dumps(res["error"])
    tbl = catalog(wh).load_table("default.t")
    assert tbl.metadata_location == before
    assert len(tbl.scan().to_arrow()) == 40
