"""Writes Iceberg tables with pyiceberg 0.12 for SQE to read, plus their expected rows.

  python gen_pyiceberg.py WAREHOUSE      -> namespace "py" in WAREHOUSE/catalog.db (SqlCatalog
                                            "iceberg", warehouse file://WAREHOUSE) and
                                            WAREHOUSE/expected/py.<table>.json

Only the identity transform is used for partitions: without pyiceberg-core, pyiceberg 0.12
cannot write bucket/truncate/year/month/day/hour partitions, and it does not write format v3.
The expected JSON has the layout IcebergInteropGen.java writes (see describe()): rows come
from pyiceberg's own scans, normalized later by canon.py. Each table is also checked against
the rows the generator meant to write, so a pyiceberg regression cannot hide in the oracle.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import time
import uuid
import warnings
from decimal import Decimal
from pathlib import Path

import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent))
import canon  # noqa: E402

from pyiceberg.catalog.sql import SqlCatalog  # noqa: E402
from pyiceberg.expressions import (  # noqa: E402
    And, EqualTo, GreaterThan, GreaterThanOrEqual, IsNull, LessThan, parser)
from pyiceberg.manifest import ManifestContent  # noqa: E402
from pyiceberg.partitioning import PartitionField, PartitionSpec  # noqa: E402
from pyiceberg.schema import Schema  # noqa: E402
from pyiceberg.transforms import IdentityTransform  # noqa: E402
from pyiceberg.types import (  # noqa: E402
    BinaryType, BooleanType, DateType, DecimalType, DoubleType, FixedType, FloatType,
    IntegerType, ListType, LongType, MapType, NestedField, StringType, StructType, TimestampType,
    TimestamptzType, TimeType, UUIDType)

NS = "py"
warnings.filterwarnings("ignore")


def catalog(warehouse: Path) -> SqlCatalog:
    warehouse.mkdir(parents=True, exist_ok=True)
    return SqlCatalog("iceberg", uri=f"sqlite:///{warehouse}/catalog.db",
                      warehouse=f"file://{warehouse}")


def fresh(cat, name, schema, spec=None, props=None):
    ident = f"{NS}.{name}"
    if cat.table_exists(ident):
        cat.purge_table(ident)
    kw = {"properties": {"format-version": "2", **(props or {})}}
    if spec is not None:
        kw["partition_spec"] = spec
    return cat.create_table(ident, schema, **kw)


def pause():
    time.sleep(0.015)  # distinct snapshot timestamps


# ---- tables -------------------------------------------------------------------------------------

POINT = StructType(NestedField(101, "x", IntegerType(), required=False),
                   NestedField(102, "label", StringType(), required=False))

ALL_TYPES = Schema(
    NestedField(1, "id", IntegerType(), required=True),
    NestedField(2, "b", BooleanType(), required=False),
    NestedField(3, "i", IntegerType(), required=False),
    NestedField(4, "l", LongType(), required=False),
    NestedField(5, "f", FloatType(), required=False),
    NestedField(6, "d", DoubleType(), required=False),
    NestedField(7, "dec9", DecimalType(9, 2), required=False),
    NestedField(8, "dec18", DecimalType(18, 6), required=False),
    NestedField(9, "dec38", DecimalType(38, 10), required=False),
    NestedField(10, "dt", DateType(), required=False),
    NestedField(11, "tm", TimeType(), required=False),
    NestedField(12, "ts", TimestampType(), required=False),
    NestedField(13, "tstz", TimestamptzType(), required=False),
    NestedField(14, "s", StringType(), required=False),
    NestedField(15, "u", UUIDType(), required=False),
    NestedField(16, "fx", FixedType(4), required=False),
    NestedField(17, "bin", BinaryType(), required=False),
    NestedField(18, "pt", POINT, required=False),
    NestedField(19, "ints", ListType(103, IntegerType(), element_required=False), required=False),
    NestedField(21, "smap", MapType(105, StringType(), 106, LongType(), value_required=False),
                required=False),
    NestedField(22, "imap", MapType(107, IntegerType(), 108, StringType(), value_required=False),
                required=False),
)


def all_types_rows():
    utc = dt.timezone.utc
    return [
        {"id": 1, "b": True, "i": 42, "l": 1234567890123, "f": 1.5, "d": 2.25,
         "dec9": Decimal("1234567.89"), "dec18": Decimal("-123456789012.345678"),
         "dec38": Decimal("1234567890123456789012345678.0123456789"),
         "dt": dt.date(2024, 2, 29), "tm": dt.time(13, 45, 30, 123456),
         "ts": dt.datetime(2024, 2, 29, 13, 45, 30, 123456),
         "tstz": dt.datetime(2024, 2, 29, 13, 45, 30, 654321, tzinfo=utc), "s": "plain ascii",
         "u": uuid.UUID("12151fd2-7586-11e9-8f9e-2a86e4085a59").bytes, "fx": b"\x01\x02\x03\x04",
         "bin": b"\x00\xff\x10", "pt": {"x": 7, "label": "seven"}, "ints": [1, 2, 3],
         "smap": [("a", 1)], "imap": [(1, "x"), (2, "y")]},
        {"id": 2, "b": False, "i": -2**31, "l": -2**63, "f": -0.0, "d": -1e300,
         "dec9": Decimal("-0.01"), "dec18": Decimal("0.000001"), "dec38": Decimal("-1.0000000001"),
         "dt": dt.date(1969, 12, 31), "tm": dt.time(0, 0, 0, 1),
         "ts": dt.datetime(1969, 12, 31, 23, 59, 59, 999999),
         "tstz": dt.datetime(1970, 1, 1, 4, 0, tzinfo=utc),
         "s": 'quotes " and \\ and, commas; unicode: \u00e9\u4e2d\U0001F600',
         "u": bytes(16), "fx": bytes(4), "bin": b"", "pt": {"x": None, "label": None},
         "ints": [], "smap": [], "imap": []},
        {"id": 3, "b": None, "i": 2**31 - 1, "l": 2**63 - 1, "f": float("nan"),
         "d": float("inf"), "dec9": Decimal("9999999.99"), "dec18": None,
         "dec38": Decimal("0E-10"), "dt": dt.date(1, 1, 1), "tm": dt.time(23, 59, 59, 999999),
         "ts": dt.datetime(1900, 1, 1), "tstz": None, "s": "", "u": None, "fx": None, "bin": None,
         "pt": None, "ints": [4, None, 6], "smap": None, "imap": None},
        {"id": 4, **{f.name: None for f in ALL_TYPES.fields if f.name != "id"}},
    ]


def write_all_types(cat):
    t = fresh(cat, "all_types", ALL_TYPES)
    rows = all_types_rows()
    arrow_schema = t.schema().as_arrow()
    t.append(pa.Table.from_pylist(rows, schema=arrow_schema))
    return t, rows


SIMPLE = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "cat", StringType(), required=False),
    NestedField(3, "n", IntegerType(), required=False),
    NestedField(4, "d", DateType(), required=False),
    NestedField(5, "amount", DecimalType(10, 2), required=False),
)


def simple_rows(lo, hi):
    cats = ["a", "b", "c", None]
    return [{"id": i, "cat": cats[i % 4], "n": None if i % 6 == 5 else i * 7 - 30,
             "d": dt.date(1969, 12, 1) + dt.timedelta(days=11 * i),
             "amount": Decimal(i * 125 - 1000).scaleb(-2)} for i in range(lo, hi)]


def arrow(t, rows):
    return pa.Table.from_pylist(rows, schema=t.schema().as_arrow())


def write_part_identity(cat):
    spec = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "cat"),
                         PartitionField(4, 1001, IdentityTransform(), "d_ident"))
    t = fresh(cat, "part_identity", SIMPLE, spec)
    rows = simple_rows(0, 30)
    t.append(arrow(t, rows[:20]))
    pause()
    t.append(arrow(t, rows[20:]))
    return t, rows


def write_deleted(cat):
    """Appends, a row-filter delete (copy-on-write), an overwrite with a filter, a partition
    delete: several snapshots of different operations."""
    spec = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "cat"))
    t = fresh(cat, "deleted", SIMPLE, spec, {"write.delete.mode": "copy-on-write"})
    rows = simple_rows(0, 40)
    t.append(arrow(t, rows[:25]))
    pause()
    t.append(arrow(t, rows[25:]))
    pause()
    t.delete(delete_filter=LessThan("id", 5))          # rewrites files of several partitions
    pause()
    t.delete(delete_filter=EqualTo("cat", "c"))          # drops a whole partition
    pause()
    new = [{"id": 1000 + i, "cat": "a", "n": i, "d": dt.date(2001, 1, i + 1),
            "amount": Decimal("1.23")} for i in range(3)]
    t.overwrite(arrow(t, new), overwrite_filter=And(EqualTo("cat", "a"), GreaterThan("id", 20)))
    pause()
    keep = [r for r in rows if r["id"] >= 5 and r["cat"] != "c"
            and not (r["cat"] == "a" and r["id"] > 20)]
    return t, keep + new


def write_evolved(cat):
    t = fresh(cat, "evolved", Schema(
        NestedField(1, "id", IntegerType(), required=False),
        NestedField(2, "a", StringType(), required=False),
        NestedField(3, "b", IntegerType(), required=False),
        NestedField(4, "n", IntegerType(), required=False),
        NestedField(5, "f", FloatType(), required=False),
        NestedField(6, "cat", StringType(), required=False)))
    first = [{"id": i, "a": f"a{i}", "b": i * 10, "n": i * 1000, "f": i + 0.5,
              "cat": "odd" if i % 2 else "even"} for i in range(1, 7)]
    t.append(arrow(t, first))
    pause()
    with t.update_schema() as u:
        u.rename_column("a", "a_renamed")
        u.delete_column("b")
        u.update_column("n", LongType())
        u.update_column("f", DoubleType())
        u.add_column("added", StringType())
    with t.update_schema() as u:
        u.add_column("b", StringType())
    with t.update_spec() as s:
        s.add_identity("cat")
    second = [{"id": i, "a_renamed": f"r{i}", "n": 10_000_000_000 + i, "f": i + 0.25,
               "cat": "new", "added": f"added{i}", "b": f"b{i}"} for i in range(7, 11)]
    t.append(arrow(t, second))
    expected = [{"id": r["id"], "a_renamed": r["a"], "n": r["n"], "f": r["f"], "cat": r["cat"],
                 "added": None, "b": None} for r in first] + second
    return t, expected


def write_snapshots(cat):
    t = fresh(cat, "snapshots", SIMPLE)
    rows = simple_rows(0, 12)
    t.append(arrow(t, rows[:4]))
    pause()
    first = t.current_snapshot().snapshot_id
    t.manage_snapshots().create_tag(first, "tag_first").commit()
    t.append(arrow(t, rows[4:8]))
    pause()
    second = t.current_snapshot().snapshot_id
    t.manage_snapshots().create_branch(second, "dev").commit()
    t.delete(delete_filter=LessThan("id", 2))
    pause()
    t.append(arrow(t, rows[8:]))
    pause()
    t.refresh()
    expected = [r for r in rows if r["id"] >= 2]
    return t, expected


GENERATORS = [write_all_types, write_part_identity, write_deleted, write_evolved,
              write_snapshots]


# ---- describing a table (the layout of IcebergInteropGen.describe) ------------------------------

CHECKS = {
    "part_identity": ["cat = 'b'", "cat IS NULL", "d < DATE '1970-01-01'", "id >= 25"],
    "deleted": ["cat = 'a'", "id >= 30"],
    "evolved": ["id > 5", "b IS NULL", "n > 5000"],
}


def _expr(sql):
    # the SQL predicates above are also valid pyiceberg filter strings once DATE is dropped
    return parser.parse(sql.replace("DATE ", ""))


def scan_rows(t, **kw):
    return t.scan(**kw).to_arrow().to_pylist()


def schema_json(schema):
    return json.loads(schema.model_dump_json())


def describe(t, name):
    md = t.metadata
    snaps = []
    for s in md.snapshots:
        sch = md.schema_by_id(s.schema_id) if s.schema_id is not None else t.schema()
        snaps.append({
            "snapshot_id": s.snapshot_id, "parent_id": s.parent_snapshot_id,
            "sequence_number": s.sequence_number, "timestamp_ms": s.timestamp_ms,
            "operation": s.summary.operation.value if s.summary else None,
            "schema": schema_json(sch),
            "rows": canon.norm_rows(schema_json(sch), scan_rows(t, snapshot_id=s.snapshot_id)),
        })
    counts = {"data": 0, "position_deletes": 0, "equality_deletes": 0, "dvs": 0}
    cur = t.current_snapshot()
    if cur is not None:
        for m in cur.manifests(t.io):
            for e in m.fetch_manifest_entry(t.io, discard_deleted=True):
                c = e.data_file.content
                key = {0: "data", 1: "position_deletes", 2: "equality_deletes"}[int(c)]
                counts[key] += 1
    sj = schema_json(t.schema())
    checks = [{"sql": sql, "rows": canon.norm_rows(sj, scan_rows(t, row_filter=_expr(sql)))}
              for sql in CHECKS.get(name.split(".", 1)[1], [])]
    return {
        "table": name, "format_version": md.format_version, "location": md.location,
        "schema": sj, "spec": json.loads(t.spec().model_dump_json()),
        "snapshot_id": cur.snapshot_id if cur else None,
        "rows": canon.norm_rows(sj, scan_rows(t)),
        "snapshots": snaps,
        "refs": {k: {"type": v.snapshot_ref_type.value, "snapshot_id": v.snapshot_id}
                 for k, v in md.refs.items()},
        "history": [{"snapshot_id": h.snapshot_id, "timestamp_ms": h.timestamp_ms}
                    for h in md.snapshot_log],
        "files": counts,
        "checks": checks,
    }


def main(argv):
    if len(argv) != 2:
        print("usage: gen_pyiceberg.py WAREHOUSE", file=sys.stderr)
        return 2
    warehouse = Path(argv[1]).resolve()
    cat = catalog(warehouse)
    cat.create_namespace_if_not_exists(NS)
    out = warehouse / "expected"
    out.mkdir(parents=True, exist_ok=True)
    failures = 0
    for gen in GENERATORS:
        t, intended = gen(cat)
        t = cat.load_table(f"{NS}.{t.name()[-1]}")
        name = f"{NS}.{t.name()[-1]}"
        doc = describe(t, name)
        diff = canon.rows_equal(doc["schema"], doc["rows"], intended, "pyiceberg scan", "intended")
        if diff:
            print(f"{name}: pyiceberg reads back other rows than it was given:\n{diff}",
                  file=sys.stderr)
            failures += 1
        (out / f"{name}.json").write_text(json.dumps(doc, ensure_ascii=False))
    print(f"generated {len(GENERATORS)} tables in {warehouse}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
