"""pyiceberg 0.12 and Iceberg Java read the tables SQE writes.

Every scenario below is a list of SQL statements run by `sqe sql --warehouse W` (one shared
warehouse per test session, one table per scenario in schema iceberg.s). For each scenario:
- test_pyiceberg_reads[scenario]: pyiceberg's SqlCatalog("iceberg") on W/catalog.db scans the
  table; its rows must equal SQE's own SELECT *, and SQE's rows must equal the rows the
  scenario's Python model predicts (where it has one). Partitioned tables: the spec pyiceberg
  sees has the requested transforms, and every data file's partition tuple equals the transform
  applied (by pyiceberg) to every row in that file. DELETE/UPDATE/MERGE scenarios: merge-on-read
  leaves delete files (deletion vectors for v3), copy-on-write none.
- test_java_reads[scenario]: Iceberg Java (IcebergInteropGen dump, one JVM for all scenarios)
  reads the same rows. This also covers v3 deletion vectors, which pyiceberg cannot read.
A scenario whose statements SQE cannot run yet fails with the failing statement and SQE's error.
"""
from __future__ import annotations

import datetime as dt
import json
import warnings
from decimal import Decimal

import pyarrow.parquet as pq
import pytest

import canon
import sqe_cli
from interop_env import java_dump

warnings.filterwarnings("ignore")
NS = "s"


def T(name):
    return f"iceberg.{NS}.{name}"


# ---- scenarios -----------------------------------------------------------------------------------

ALL_TYPES_COLS = (
    "id integer, b boolean, i integer, l bigint, f real, d double, dec9 decimal(9,2),"
    " dec18 decimal(18,6), dec38 decimal(38,10), dt date, tm time(6), ts timestamp(6),"
    " tstz timestamp(6) with time zone, s varchar, u uuid, bin varbinary,"
    " pt row(x integer, label varchar), ints array(integer), smap map(varchar, bigint),"
    " imap map(integer, varchar)")
ALL_TYPES_VALUES = (
    "(1, true, 42, 1234567890123, REAL '1.5', 2.25E0, DECIMAL '1234567.89',"
    " DECIMAL '-123456789012.345678', DECIMAL '1234567890123456789012345678.0123456789',"
    " DATE '2024-02-29', TIME '13:45:30.123456', TIMESTAMP '2024-02-29 13:45:30.123456',"
    " TIMESTAMP '2024-02-29 13:45:30.654321 UTC', 'plain ascii',"
    " UUID '12151fd2-7586-11e9-8f9e-2a86e4085a59', X'00ff10', ROW(7, 'seven'), ARRAY[1, 2, 3],"
    " MAP(ARRAY['a'], ARRAY[BIGINT '1']), MAP(ARRAY[1, 2], ARRAY['x', 'y'])),"
    " (2, false, -2147483648, -9223372036854775808, REAL '-0.0', -1E300, DECIMAL '-0.01',"
    " DECIMAL '0.000001', DECIMAL '-1.0000000001', DATE '1969-12-31', TIME '00:00:00.000001',"
    " TIMESTAMP '1969-12-31 23:59:59.999999', TIMESTAMP '1969-12-31 23:00:00.000000 -05:00',"
    " 'quotes \" and \\ and, commas; unicode: \u00e9\u4e2d\U0001F600',"
    " UUID '00000000-0000-0000-0000-000000000000', X'', ROW(NULL, NULL), ARRAY[],"
    " MAP(), MAP()),"
    " (3, NULL, 2147483647, 9223372036854775807, CAST(nan() AS real), infinity(), DECIMAL '9999999.99', NULL,"
    " DECIMAL '0.0000000000', DATE '0001-01-01', TIME '23:59:59.999999',"
    " TIMESTAMP '1900-01-01 00:00:00', NULL, '', NULL, NULL, NULL, ARRAY[4, NULL, 6], NULL, NULL),"
    " (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
    " NULL, NULL, NULL, NULL, NULL)")

PART_COLS = "id bigint, s varchar, n integer, d date, ts timestamp(6), amt decimal(10,2)"
GEN_SELECT = (
    "SELECT CAST(x AS bigint) AS id, ARRAY['apple', 'apricot', 'banana', '', NULL][x % 5 + 1] AS s,"
    " CAST(x * 7 - 300 AS integer) AS n, date_add('day', x * 17 - 1500, DATE '1970-01-01') AS d,"
    " date_add('minute', x * 37, TIMESTAMP '1969-12-31 20:00:00.000000') AS ts,"
    " CAST(x * 1.25 AS decimal(10,2)) AS amt FROM UNNEST(sequence({lo}, {hi})) AS g(x)")


def gen_rows(lo, hi):
    """The Python model of GEN_SELECT."""
    strs = ["apple", "apricot", "banana", "", None]
    return [{"id": x, "s": strs[x % 5], "n": x * 7 - 300,
             "d": dt.date(1970, 1, 1) + dt.timedelta(days=x * 17 - 1500),
             "ts": dt.datetime(1969, 12, 31, 20) + dt.timedelta(minutes=x * 37),
             "amt": Decimal(x) * Decimal("1.25")} for x in range(lo, hi + 1)]


class Scenario:
    def __init__(self, name, statements, model=None, transforms=None, mode=None, version=2):
        self.name = name
        self.statements = statements
        self.model = model            # rows SQE must return, or None
        self.transforms = transforms  # expected spec as ["day(ts)", ...] or None
        self.mode = mode              # "mor" / "cow" for DML scenarios
        self.version = version


def part_scenario(key, partitioning):
    arr = ", ".join(f"'{p}'" for p in partitioning)
    name = f"part_{key}"
    return Scenario(name, [
        f"CREATE TABLE {T(name)} ({PART_COLS}) WITH (partitioning = ARRAY[{arr}])",
        f"INSERT INTO {T(name)} " + GEN_SELECT.format(lo=1, hi=150),
        f"INSERT INTO {T(name)} " + GEN_SELECT.format(lo=151, hi=200),
    ], model=gen_rows(1, 200), transforms=partitioning)


DML_START = [(i, f"v{i}", "a" if i % 2 else "b") for i in range(1, 21)]


def dml_model(op):
    rows = {i: {"id": i, "v": v, "cat": c} for i, v, c in DML_START}
    if op == "delete":
        rows = {k: r for k, r in rows.items() if k % 5 != 0}
    elif op == "update":
        for k, r in rows.items():
            if k < 6:
                r["v"] = r["v"] + "_u"
    elif op == "merge":
        del rows[3]
        rows[1]["v"] = "m1"
        rows[100] = {"id": 100, "v": "new", "cat": "c"}
    return list(rows.values())


def dml_scenario(op, mode, version=2, partitioned=False):
    name = f"dml_{op}_{mode}_v{version}" + ("_part" if partitioned else "")
    m = "merge-on-read" if mode == "mor" else "copy-on-write"
    props = (f"format_version = {version}, extra_properties = MAP(ARRAY['write.delete.mode',"
             f" 'write.update.mode', 'write.merge.mode'], ARRAY['{m}', '{m}', '{m}'])")
    if partitioned:
        props += ", partitioning = ARRAY['cat']"
    values = ", ".join(f"({i}, '{v}', '{c}')" for i, v, c in DML_START)
    stmts = [f"CREATE TABLE {T(name)} (id integer, v varchar, cat varchar) WITH ({props})",
             f"INSERT INTO {T(name)} VALUES {values}"]
    if op == "delete":
        stmts.append(f"DELETE FROM {T(name)} WHERE id % 5 = 0")
    elif op == "update":
        stmts.append(f"UPDATE {T(name)} SET v = v || '_u' WHERE id < 6")
    else:
        stmts.append(
            f"MERGE INTO {T(name)} t USING (VALUES (1, 'm1'), (3, 'm3'), (100, 'new')) AS s(id, v)"
            " ON t.id = s.id WHEN MATCHED AND s.id = 3 THEN DELETE"
            " WHEN MATCHED THEN UPDATE SET v = s.v"
            " WHEN NOT MATCHED THEN INSERT (id, v, cat) VALUES (s.id, s.v, 'c')")
    return Scenario(name, stmts, model=dml_model(op), mode=mode, version=version,
                    transforms=["cat"] if partitioned else None)


def scenarios():
    out = [
        Scenario("all_types", [f"CREATE TABLE {T('all_types')} ({ALL_TYPES_COLS})",
                               f"INSERT INTO {T('all_types')} VALUES {ALL_TYPES_VALUES}"]),
        Scenario("all_types_v3", [
            f"CREATE TABLE {T('all_types_v3')} ({ALL_TYPES_COLS}) WITH (format_version = 3)",
            f"INSERT INTO {T('all_types_v3')} VALUES {ALL_TYPES_VALUES}"], version=3),
        Scenario("insert_select", [
            f"CREATE TABLE {T('insert_select')} ({PART_COLS})",
            f"INSERT INTO {T('insert_select')} " + GEN_SELECT.format(lo=1, hi=5000)],
            model=gen_rows(1, 5000)),
        Scenario("ctas", [
            f"CREATE TABLE {T('ctas')} WITH (partitioning = ARRAY['bucket(id, 4)']) AS "
            + GEN_SELECT.format(lo=1, hi=300)], model=gen_rows(1, 300),
            transforms=["bucket(id, 4)"]),
    ]
    for key, spec in [("identity", ["s"]), ("bucket", ["bucket(id, 16)"]),
                      ("bucket_str", ["bucket(s, 8)"]), ("truncate", ["truncate(s, 3)"]),
                      ("truncate_int", ["truncate(n, 10)"]),
                      ("truncate_dec", ["truncate(amt, 100)"]), ("year", ["year(d)"]),
                      ("month", ["month(d)"]), ("day", ["day(ts)"]), ("hour", ["hour(ts)"]),
                      ("multi", ["s", "bucket(id, 4)", "month(ts)", "truncate(n, 50)"])]:
        out.append(part_scenario(key, spec))
    for op in ("delete", "update", "merge"):
        for mode in ("cow", "mor"):
            out.append(dml_scenario(op, mode))
        out.append(dml_scenario(op, "mor", version=3))
    out.append(dml_scenario("merge", "mor", partitioned=True))
    out.append(dml_scenario("delete", "cow", partitioned=True))
    ev = T("schema_evolution")
    out.append(Scenario("schema_evolution", [
        f"CREATE TABLE {ev} (id integer, a varchar, b integer, n integer, f real)",
        f"INSERT INTO {ev} VALUES (1, 'a1', 10, 100, REAL '1.5'), (2, 'a2', 20, 200, REAL '2.5')",
        f"ALTER TABLE {ev} ADD COLUMN added varchar",
        f"ALTER TABLE {ev} RENAME COLUMN a TO a_renamed",
        f"ALTER TABLE {ev} DROP COLUMN b",
        f"ALTER TABLE {ev} ALTER COLUMN n SET DATA TYPE bigint",
        f"ALTER TABLE {ev} ALTER COLUMN f SET DATA TYPE double",
        f"ALTER TABLE {ev} ADD COLUMN b varchar",
        f"INSERT INTO {ev} VALUES (3, 'r3', 10000000000, 3.25E0, 'x3', 'b3')",
    ], model=[
        {"id": 1, "a_renamed": "a1", "n": 100, "f": 1.5, "added": None, "b": None},
        {"id": 2, "a_renamed": "a2", "n": 200, "f": 2.5, "added": None, "b": None},
        {"id": 3, "a_renamed": "r3", "n": 10000000000, "f": 3.25, "added": "x3", "b": "b3"}]))
    pe = T("partition_evolution")
    out.append(Scenario("partition_evolution", [
        f"CREATE TABLE {pe} ({PART_COLS}) WITH (partitioning = ARRAY['month(d)'])",
        f"INSERT INTO {pe} " + GEN_SELECT.format(lo=1, hi=60),
        f"ALTER TABLE {pe} SET PROPERTIES partitioning = ARRAY['bucket(id, 4)', 'truncate(s, 2)']",
        f"INSERT INTO {pe} " + GEN_SELECT.format(lo=61, hi=120),
    ], model=gen_rows(1, 120), transforms=["bucket(id, 4)", "truncate(s, 2)"]))
    tr = T("truncated")
    out.append(Scenario("truncated", [
        f"CREATE TABLE {tr} ({PART_COLS})",
        f"INSERT INTO {tr} " + GEN_SELECT.format(lo=1, hi=10),
        f"TRUNCATE TABLE {tr}",
        f"INSERT INTO {tr} " + GEN_SELECT.format(lo=11, hi=12)], model=gen_rows(11, 12)))
    return out


SCENARIOS = {s.name: s for s in scenarios()}


# ---- building (once per session) ----------------------------------------------------------------

class Built:
    def __init__(self):
        self.error = None
        self.sqe_rows = None


@pytest.fixture(scope="session")
def warehouse(tmp_path_factory):
    return tmp_path_factory.mktemp("sqe_warehouse")


_built: dict[str, Built] = {}


def build(warehouse, sc: Scenario) -> Built:
    if sc.name in _built:
        return _built[sc.name]
    b = Built()
    _built[sc.name] = b
    try:
        sqe_cli.run(warehouse, f"CREATE SCHEMA IF NOT EXISTS iceberg.{NS}")
        for stmt in sc.statements:  # one process per statement: state must persist on disk
            sqe_cli.run(warehouse, stmt, timeout=300)
        b.sqe_rows = sqe_cli.query(warehouse, f"SELECT * FROM {T(sc.name)}")
    except (sqe_cli.SqeError, pytest.fail.Exception) as e:  # the latter: SQE lacks --warehouse
        b.error = str(e)
    return b


def built_or_fail(warehouse, name):
    b = build(warehouse, SCENARIOS[name])
    if b.error:
        pytest.fail(f"SQE could not build scenario {name}:\n{b.error}")
    return b


@pytest.fixture(scope="session")
def catalog(warehouse):
    from pyiceberg.catalog.sql import SqlCatalog
    return SqlCatalog("iceberg", uri=f"sqlite:///{warehouse}/catalog.db",
                      warehouse=f"file://{warehouse}")


# ---- checks ------------------------------------------------------------------------------------

def _internal(v):
    """Python value -> Iceberg's internal representation (what transforms take)."""
    if isinstance(v, dt.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return (v - dt.datetime(1970, 1, 1)) // dt.timedelta(microseconds=1)
    if isinstance(v, dt.date):
        return (v - dt.date(1970, 1, 1)).days
    return v


def _transform_text(pf, schema):
    name = schema.find_field(pf.source_id).name
    t = str(pf.transform)
    if t == "identity":
        return name
    if "[" in t:  # bucket[16] / truncate[3]
        kind, n = t.rstrip("]").split("[")
        return f"{kind}({name}, {n})"
    return f"{t}({name})"


def check_partitions(table, expected):
    spec = table.spec()
    got = [_transform_text(pf, table.schema()) for pf in spec.fields]
    assert got == expected, f"partition spec: pyiceberg sees {got}, requested {expected}"
    for task in table.scan().plan_files():
        f = task.file
        if f.spec_id != spec.spec_id:
            continue
        path = f.file_path.removeprefix("file://")
        pt = pq.read_table(path)
        by_id = {}
        for i, field in enumerate(pt.schema):
            meta = field.metadata or {}
            if b"PARQUET:field_id" in meta:
                by_id[int(meta[b"PARQUET:field_id"])] = i
        for pos, pf in enumerate(spec.fields):
            src = table.schema().find_field(pf.source_id)
            assert pf.source_id in by_id, f"{path}: no column with field id {pf.source_id}"
            fn = pf.transform.transform(src.field_type)
            values = pt.column(by_id[pf.source_id]).to_pylist()
            want = {fn(_internal(v)) if v is not None else None for v in values}
            assert want == {_internal(f.partition[pos])}, (
                f"{path}: partition field {pf.name} = {f.partition[pos]!r} but its rows "
                f"transform to {sorted(map(str, want))}")


def check_delete_files(table, sc: Scenario):
    counts = {"pos": 0, "eq": 0, "puffin": 0}
    for m in table.current_snapshot().manifests(table.io):
        for e in m.fetch_manifest_entry(table.io, discard_deleted=True):
            c = int(e.data_file.content)
            if c == 1:
                counts["pos"] += 1
                if str(e.data_file.file_format).upper().endswith("PUFFIN"):
                    counts["puffin"] += 1
            elif c == 2:
                counts["eq"] += 1
    mode = "merge-on-read" if sc.mode == "mor" else "copy-on-write"
    for key in ("write.delete.mode", "write.update.mode", "write.merge.mode"):
        assert table.properties.get(key) == mode, f"{key} = {table.properties.get(key)!r}"
    if sc.mode == "cow":
        assert counts == {"pos": 0, "eq": 0, "puffin": 0}, f"copy-on-write left {counts}"
    else:
        assert counts["pos"] > 0, f"merge-on-read wrote no delete files: {counts}"
        if sc.version == 3:
            assert counts["puffin"] == counts["pos"], f"v3 must use deletion vectors: {counts}"


def sqe_schema(table):
    return json.loads(table.schema().model_dump_json())


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_pyiceberg_reads(warehouse, catalog, name):
    sc = SCENARIOS[name]
    b = built_or_fail(warehouse, name)
    table = catalog.load_table(f"{NS}.{name}")
    assert table.metadata.format_version == sc.version
    schema = sqe_schema(table)
    if sc.model is not None:
        diff = canon.rows_equal(schema, b.sqe_rows, sc.model, "SQE", "model")
        assert diff is None, f"SQE's own SELECT * differs from the model:\n{diff}"
    if sc.mode == "mor" and sc.version == 3:
        check_delete_files(table, sc)
        return  # pyiceberg 0.12 cannot read deletion vectors: test_java_reads covers the rows
    rows = table.scan().to_arrow().to_pylist()
    diff = canon.rows_equal(schema, rows, b.sqe_rows, "pyiceberg", "SQE")
    assert diff is None, diff
    if sc.transforms:
        check_partitions(table, sc.transforms)
    if sc.mode:
        check_delete_files(table, sc)


@pytest.fixture(scope="session")
def java_view(warehouse):
    names = [n for n in SCENARIOS if not build(warehouse, SCENARIOS[n]).error]
    return java_dump(warehouse, [f"{NS}.{n}" for n in names]) if names else {}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_java_reads(warehouse, java_view, name):
    b = built_or_fail(warehouse, name)
    got = java_view[f"{NS}.{name}"]
    assert "error" not in got, f"Iceberg Java cannot read {name}: {got.get('error')}"
    diff = canon.rows_equal(got["schema"], got["rows"], b.sqe_rows, "Iceberg Java", "SQE")
    assert diff is None, diff
