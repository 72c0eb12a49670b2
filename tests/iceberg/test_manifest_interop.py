"""Iceberg manifest lists and manifests: SQE (src/iceberg/manifest*.c, bounds.c) vs pyiceberg.

Run by tests/iceberg/run_manifest_tests.sh, which builds tests/iceberg/manifest_driver.c and
exports MANIFEST_DRIVER. pyiceberg (SqlCatalog on a temporary SQLite file) writes v1 and v2
tables with every primitive type, unpartitioned and partitioned (identity on several types,
truncate, year/month/day/hour, bucket), appends several times and deletes rows (copy-on-write,
which leaves DELETED and EXISTING entries).

Read direction: the driver reads the current snapshot's manifest list and every manifest and
prints each entry; every field is compared with pyiceberg's own reader (read_manifest_list and
ManifestFile.fetch_manifest_entry, which apply the same inheritance), bounds both as bytes and
decoded (pyiceberg.conversions.from_bytes), partition tuples decoded to typed values.

Write direction: (1) the driver rewrites every manifest and the manifest list of a table in
place with SQE's writers; pyiceberg must then read exactly the same entries and manifest list
fields, scan the same rows, and the files' Avro schemas must carry the names and field ids of
Iceberg's published schemas; SQE's manifest summaries must equal the ones pyiceberg wrote.
(2) the driver writes a manifest + manifest list from a JSON description of pyarrow-written
Parquet files; pyiceberg reads them back field by field. Hostile inputs (truncations, bit flips,
bounds of the wrong size) must fail cleanly.

pyiceberg's bucket/truncate/time transforms on write need the optional pyiceberg-core package,
which is not installed: partitioned tables with those transforms are filled with add_files
(pyiceberg derives the partition from Parquet statistics) and bucket tables with a hand-built
DataFile whose bucket is computed by pyiceberg's Python BucketTransform.
"""

import datetime
import decimal
import json
import math
import os
import random
import shutil
import subprocess
import uuid

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.conversions import from_bytes
from pyiceberg.io.pyarrow import PyArrowFileIO
from pyiceberg.manifest import read_manifest_list
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import (BucketTransform, DayTransform, HourTransform,
                                  IdentityTransform, MonthTransform, TruncateTransform,
                                  YearTransform)
from pyiceberg.typedef import Record
from pyiceberg.types import (BinaryType, BooleanType, DateType, DecimalType, DoubleType,
                             FixedType, FloatType, IntegerType, LongType, NestedField,
                             StringType, TimestampType, TimestamptzType, TimeType, UUIDType)

DRIVER = os.environ.get("MANIFEST_DRIVER", "")

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=False),
    NestedField(2, "i", IntegerType(), required=False),
    NestedField(3, "s", StringType(), required=False),
    NestedField(4, "dbl", DoubleType(), required=False),
    NestedField(5, "flt", FloatType(), required=False),
    NestedField(6, "d", DateType(), required=False),
    NestedField(7, "ts", TimestampType(), required=False),
    NestedField(8, "tstz", TimestamptzType(), required=False),
    NestedField(9, "dec", DecimalType(10, 2), required=False),
    NestedField(10, "bigdec", DecimalType(25, 4), required=False),
    NestedField(11, "b", BooleanType(), required=False),
    NestedField(12, "bin", BinaryType(), required=False),
    NestedField(13, "t", TimeType(), required=False),
    NestedField(14, "u", UUIDType(), required=False),
    NestedField(15, "f", FixedType(4), required=False),
)
UTC = datetime.timezone.utc


def make_row(k):
    """Row k: values vary with k; some are NULL, NaN, -0.0, pre-1970, multi-byte UTF-8."""
    return {
        "id": k,
        "i": None if k % 5 == 4 else (k * 7) % 11 - 5,
        "s": ["héllo", "abc", "ab", "zzz", "日本語テキスト", None][k % 6],
        "dbl": [1.5, float("nan"), -2.25, 0.0, None][k % 5],
        "flt": [-0.0, 0.5, None, 3.25][k % 4],
        "d": datetime.date(1969, 12, 30) + datetime.timedelta(days=k % 4),
        "ts": datetime.datetime(2020, 1, 1, 1, 2, 3, 4) + datetime.timedelta(hours=k),
        "tstz": datetime.datetime(1969, 12, 31, 23, tzinfo=UTC) + datetime.timedelta(minutes=37 * k),
        "dec": decimal.Decimal("-12.34") + k,
        "bigdec": decimal.Decimal("123456789012345678.9012") * (-1 if k % 2 else 1),
        "b": k % 3 == 0,
        "bin": bytes([k % 256, 255, 0]),
        "t": datetime.time(k % 24, 2, 3, 5),
        "u": uuid.UUID(int=(k * 0x9E3779B97F4A7C15) % (1 << 128)),
        "f": bytes([k % 256, 1, 2, 3]),
    }


def arrow_rows(table, ks):
    return pa.Table.from_pylist([make_row(k) for k in ks], schema=table.schema().as_arrow())


@pytest.fixture
def catalog(tmp_path):
    if not DRIVER:
        pytest.skip("MANIFEST_DRIVER not set (run run_manifest_tests.sh)")
    cat = SqlCatalog("t", uri=f"sqlite:///{tmp_path}/cat.db", warehouse=f"file://{tmp_path}/wh")
    cat.create_namespace("db")
    return cat


def run_driver(*args, check=True):
    p = subprocess.run([DRIVER, *map(str, args)], capture_output=True, text=True, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError(f"driver {args[0]} failed ({p.returncode}): {p.stderr}{p.stdout}")
    return p


def driver_read(table, list_path=None):
    args = ["read", table.metadata_location.replace("file://", "")]
    if list_path:
        args.append(list_path)
    lines = [json.loads(x) for x in run_driver(*args).stdout.splitlines()]
    info = [x for x in lines if x["kind"] == "list_info"][0]
    files = [x for x in lines if x["kind"] == "manifest_file"]
    entries = [x for x in lines if x["kind"] == "entry"]
    return info, files, entries


# ---- pyiceberg values -> the driver's encodings ---------------------------------------------

EPOCH = datetime.datetime(1970, 1, 1)


def norm(t, v):
    """A pyiceberg value of Iceberg type t in the driver's JSON encoding."""
    if v is None:
        return None
    if isinstance(t, (FloatType, DoubleType)):
        return "NaN" if math.isnan(v) else repr(float(v))
    if isinstance(t, DecimalType):
        if isinstance(v, decimal.Decimal):
            return str(int(v.scaleb(t.scale)))
        return str(v)
    if isinstance(t, DateType):
        return (v - datetime.date(1970, 1, 1)).days if isinstance(v, datetime.date) else v
    if isinstance(t, TimeType):
        if isinstance(v, datetime.time):
            return ((v.hour * 60 + v.minute) * 60 + v.second) * 1000000 + v.microsecond
        return v
    if isinstance(t, (TimestampType, TimestamptzType)):
        if isinstance(v, datetime.datetime):
            if v.tzinfo:
                v = v.astimezone(UTC).replace(tzinfo=None)
            d = v - EPOCH
            return (d.days * 86400 + d.seconds) * 1000000 + d.microseconds
        return v
    if isinstance(t, UUIDType):
        return (v.bytes if isinstance(v, uuid.UUID) else bytes(v)).hex()
    if isinstance(t, (BinaryType, FixedType)):
        return bytes(v).hex()
    return v


def norm_driver(v):
    if isinstance(v, float):
        return repr(v)
    return v


def field_type(table, fid):
    for sch in [table.schema()] + list(table.schemas().values()):
        try:
            return sch.find_field(fid).field_type
        except ValueError:
            continue
    return None


def oracle(table):
    """pyiceberg's view of the current snapshot: manifest files and their entries."""
    io = table.io
    snap = table.current_snapshot()
    files = list(read_manifest_list(io.new_input(snap.manifest_list)))
    entries = []
    for mf in files:
        spec = table.specs()[mf.partition_spec_id]
        ptype = spec.partition_type(table.schema())
        for e in mf.fetch_manifest_entry(io, discard_deleted=False):
            entries.append((mf, ptype, e))
    return files, entries


def expect_manifest_file(table, mf):
    spec = table.specs()[mf.partition_spec_id]
    ptype = spec.partition_type(table.schema())
    parts = None
    if mf.partitions is not None:
        parts = []
        for k, s in enumerate(mf.partitions):
            parts.append({
                "contains_null": s.contains_null,
                "contains_nan": s.contains_nan,
                "lower_bound": None if s.lower_bound is None else bytes(s.lower_bound).hex(),
                "upper_bound": None if s.upper_bound is None else bytes(s.upper_bound).hex(),
                "lower_value": None if s.lower_bound is None else norm(ptype.fields[k].field_type, from_bytes(ptype.fields[k].field_type, s.lower_bound)),
                "upper_value": None if s.upper_bound is None else norm(ptype.fields[k].field_type, from_bytes(ptype.fields[k].field_type, s.upper_bound)),
            })
    return {
        "manifest_path": mf.manifest_path,
        "manifest_length": mf.manifest_length,
        "partition_spec_id": mf.partition_spec_id,
        "content": int(mf.content),
        "sequence_number": mf.sequence_number,
        "min_sequence_number": mf.min_sequence_number,
        "added_snapshot_id": mf.added_snapshot_id,
        "added_files_count": mf.added_files_count,
        "existing_files_count": mf.existing_files_count,
        "deleted_files_count": mf.deleted_files_count,
        "added_rows_count": mf.added_rows_count,
        "existing_rows_count": mf.existing_rows_count,
        "deleted_rows_count": mf.deleted_rows_count,
        "partitions": parts,
    }


def got_manifest_file(table, f):
    spec = table.specs()[f["partition_spec_id"]]
    ptype = spec.partition_type(table.schema())
    out = {k: f[k] for k in ("manifest_path", "manifest_length", "partition_spec_id", "content",
                             "sequence_number", "min_sequence_number", "added_snapshot_id",
                             "added_files_count", "existing_files_count", "deleted_files_count",
                             "added_rows_count", "existing_rows_count", "deleted_rows_count")}
    parts = None
    if f["partitions"] is not None:
        parts = []
        for k, s in enumerate(f["partitions"]):
            t = ptype.fields[k].field_type
            s = dict(s)
            s["lower_value"] = None if s["lower_bound"] is None else norm(t, from_bytes(t, bytes.fromhex(s["lower_bound"])))
            s["upper_value"] = None if s["upper_bound"] is None else norm(t, from_bytes(t, bytes.fromhex(s["upper_bound"])))
            parts.append(s)
    out["partitions"] = parts
    return out


def counts(m):
    return None if m is None else {str(k): v for k, v in m.items()}


def expect_entry(table, mf, ptype, e):
    df = e.data_file

    def bounds(m):
        if m is None:
            return None
        out = {}
        for fid, raw in m.items():
            t = field_type(table, fid)
            out[str(fid)] = {"raw": bytes(raw).hex(), "value": norm(t, from_bytes(t, raw))}
        return out

    part = {}
    for k, pf in enumerate(ptype.fields):
        part[pf.name] = norm(pf.field_type, df.partition[k])
    return {
        "manifest": mf.manifest_path,
        "status": int(e.status),
        "snapshot_id": e.snapshot_id,
        "sequence_number": e.sequence_number,
        "file_sequence_number": e.file_sequence_number,
        "content": int(df.content),
        "file_path": df.file_path,
        "file_format": str(df.file_format.value if hasattr(df.file_format, "value") else df.file_format),
        "spec_id": mf.partition_spec_id,
        "partition": part,
        "record_count": df.record_count,
        "file_size_in_bytes": df.file_size_in_bytes,
        "column_sizes": counts(df.column_sizes),
        "value_counts": counts(df.value_counts),
        "null_value_counts": counts(df.null_value_counts),
        "nan_value_counts": counts(df.nan_value_counts),
        "lower_bounds": bounds(df.lower_bounds),
        "upper_bounds": bounds(df.upper_bounds),
        "key_metadata": None if df.key_metadata is None else bytes(df.key_metadata).hex(),
        "split_offsets": df.split_offsets,
        "equality_ids": df.equality_ids,
        "sort_order_id": df.sort_order_id,
    }


def got_entry(x):
    out = {k: x[k] for k in ("manifest", "status", "snapshot_id", "sequence_number",
                             "file_sequence_number", "content", "file_path", "file_format",
                             "spec_id", "record_count", "file_size_in_bytes", "column_sizes",
                             "value_counts", "null_value_counts", "nan_value_counts",
                             "key_metadata", "split_offsets", "equality_ids", "sort_order_id")}
    out["partition"] = {k: norm_driver(v) for k, v in x["partition"].items()}
    for key in ("lower_bounds", "upper_bounds"):
        b = x[key]
        out[key] = None if b is None else {
            fid: {"raw": v["raw"], "value": norm_driver(v["value"])} for fid, v in b.items()}
    return out


def compare_with_pyiceberg(table, list_path=None):
    """Asserts that the driver reads what pyiceberg reads; returns the number of entries."""
    files, entries = oracle(table)
    info, dfiles, dentries = driver_read(table, list_path)
    snap = table.current_snapshot()
    assert info["snapshot_id"] == snap.snapshot_id
    assert info["format_version"] == table.format_version
    assert len(dfiles) == len(files)
    for mf, f in zip(files, dfiles):
        assert got_manifest_file(table, f) == expect_manifest_file(table, mf)
        assert f["manifest_length"] == os.path.getsize(mf.manifest_path.replace("file://", ""))
    assert len(dentries) == len(entries)
    for (mf, ptype, e), x in zip(entries, dentries):
        assert got_entry(x) == expect_entry(table, mf, ptype, e)
    return len(entries)


# ---- tables -----------------------------------------------------------------------------------

def props(version):
    return {"format-version": str(version)}


def fill_append_delete(table):
    table.append(arrow_rows(table, range(0, 6)))
    table.append(arrow_rows(table, range(6, 13)))
    table.append(arrow_rows(table, range(13, 15)))
    table.delete("id = 3")
    table.append(arrow_rows(table, range(15, 18)))
    table.delete("id >= 13 and id <= 14")


def add_parquet_files(table, tmp_path, groups, tag):
    """Writes one Parquet file per group of row numbers and adds them with add_files."""
    paths = []
    for n, ks in enumerate(groups):
        p = tmp_path / f"{tag}-{n}.parquet"
        pq.write_table(arrow_rows(table, ks), p)
        paths.append(f"file://{p}")
    table.add_files(paths)
    return paths


# uuid is left out: pyarrow cannot partition (group by) its uuid extension type on append.
IDENTITY_SOURCES = ["i", "s", "d", "ts", "tstz", "dec", "bigdec", "b", "bin", "f", "t", "id"]


@pytest.mark.parametrize("version", [1, 2])
def test_unpartitioned(catalog, version):
    t = catalog.create_table("db.u", SCHEMA, properties=props(version))
    fill_append_delete(t)
    t = catalog.load_table("db.u")
    n = compare_with_pyiceberg(t)
    assert n >= 4
    statuses = {int(e.status) for _, _, e in oracle(t)[1]}
    assert {1, 2} <= statuses  # added and deleted entries (copy-on-write delete)


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("source", IDENTITY_SOURCES)
def test_identity(catalog, version, source):
    fid = SCHEMA.find_field(source).field_id
    spec = PartitionSpec(PartitionField(fid, 1000, IdentityTransform(), f"{source}_p"))
    t = catalog.create_table("db.p", SCHEMA, partition_spec=spec, properties=props(version))
    fill_append_delete(t)
    compare_with_pyiceberg(catalog.load_table("db.p"))


TRANSFORM_SPECS = {
    "truncate_string": [("s", TruncateTransform(2))],
    "truncate_int": [("i", TruncateTransform(3))],
    "truncate_long": [("id", TruncateTransform(10))],
    "truncate_decimal": [("dec", TruncateTransform(100))],
    "truncate_binary": [("bin", TruncateTransform(1))],
    "day": [("ts", DayTransform())],
    "month_year": [("d", MonthTransform()), ("tstz", YearTransform())],
    "hour": [("tstz", HourTransform())],
    "multi": [("s", TruncateTransform(1)), ("d", DayTransform()), ("dec", IdentityTransform()),
              ("ts", YearTransform())],
}


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("name", sorted(TRANSFORM_SPECS))
def test_transforms_add_files(catalog, tmp_path, version, name):
    fields = [PartitionField(SCHEMA.find_field(src).field_id, 1000 + k, tr, f"p{k}_{src}")
              for k, (src, tr) in enumerate(TRANSFORM_SPECS[name])]
    t = catalog.create_table("db.x", SCHEMA, partition_spec=PartitionSpec(*fields),
                             properties=props(version))
    # One row per file, so every transform has a single value per file (add_files needs it).
    add_parquet_files(t, tmp_path, [[k] for k in range(0, 4)], "a")
    add_parquet_files(t, tmp_path, [[k] for k in range(4, 9)], "b")
    compare_with_pyiceberg(catalog.load_table("db.x"))


@pytest.mark.parametrize("version", [1, 2])
def test_bucket(catalog, tmp_path, version):
    from pyiceberg.manifest import DataFile, DataFileContent, FileFormat
    spec = PartitionSpec(PartitionField(1, 1000, BucketTransform(4), "id_bucket"),
                         PartitionField(3, 1001, BucketTransform(3), "s_bucket"))
    t = catalog.create_table("db.bk", SCHEMA, partition_spec=spec, properties=props(version))
    bucket_id = BucketTransform(4).transform(LongType())
    bucket_s = BucketTransform(3).transform(StringType())
    for k in range(6):
        row = make_row(k)
        p = tmp_path / f"bk{k}.parquet"
        pq.write_table(arrow_rows(t, [k]), p)
        df = DataFile.from_args(
            content=DataFileContent.DATA, file_path=f"file://{p}", file_format=FileFormat.PARQUET,
            partition=Record(bucket_id(row["id"]), bucket_s(row["s"])), record_count=1,
            file_size_in_bytes=os.path.getsize(p), sort_order_id=None,
            column_sizes={1: 10}, value_counts={1: 1, 3: 1}, null_value_counts={1: 0},
            nan_value_counts={}, lower_bounds={1: row["id"].to_bytes(8, "little")},
            upper_bounds={1: row["id"].to_bytes(8, "little")}, split_offsets=[4])
        with t.transaction() as tx:
            with tx.update_snapshot().fast_append() as fa:
                fa.append_data_file(df)
    t = catalog.load_table("db.bk")
    assert len(t.scan().to_arrow()) == 6
    compare_with_pyiceberg(t)


# ---- write direction: rewrite in place ------------------------------------------------------

def avro_records(path):
    with open(path.replace("file://", ""), "rb") as f:
        r = fastavro.reader(f)
        return r.writer_schema, dict(r.metadata), list(r)


def schema_shape(s):
    """Names, field ids, types and nesting of an Avro schema (docs and defaults aside)."""
    if isinstance(s, list):
        return [schema_shape(x) for x in s]
    if isinstance(s, str):
        return s
    t = s["type"]
    if t == "record":
        return {"record": s["name"].split(".")[-1],
                "fields": [(f["name"], f.get("field-id"), schema_shape(f["type"])) for f in s["fields"]]}
    if t == "array":
        return {"array": schema_shape(s["items"]), "element-id": s.get("element-id"),
                "logicalType": s.get("logicalType")}
    if t == "fixed":
        return {"fixed": s["size"], "logicalType": s.get("logicalType"),
                "precision": s.get("precision"), "scale": s.get("scale")}
    out = {"type": schema_shape(t) if isinstance(t, (dict, list)) else t}
    for k in ("logicalType", "adjust-to-utc"):
        if k in s:
            out[k] = s[k]
    return out


def by_field_id(shape):
    """A record shape as {field id: (name, type)}, nested records likewise.

    pyiceberg's schemas differ from Iceberg Java's (which SQE writes) in three ways that the
    spec allows or that are pyiceberg's own: the order of fields (v1 lists: Java puts
    partitions before the row counts), equality_ids elements (pyiceberg: long; spec and Java:
    int) and v2 referenced_data_file (Java writes it, pyiceberg does not)."""
    if isinstance(shape, list):
        return [by_field_id(x) for x in shape]
    if isinstance(shape, dict) and "fields" in shape:
        out = {}
        for name, fid, t in shape["fields"]:
            if fid == 143:
                continue
            if fid == 135:
                t = ["null", {"array": "int", "element-id": 136, "logicalType": None}]
            out[fid] = (name, by_field_id(t))
        return {"record": shape["record"], "fields": out}
    if isinstance(shape, dict) and "array" in shape:
        return dict(shape, array=by_field_id(shape["array"]))
    return shape


def snapshot_state(table):
    files, entries = oracle(table)
    mfs = [expect_manifest_file(table, mf) for mf in files]
    ents = [expect_entry(table, mf, ptype, e) for mf, ptype, e in entries]
    rows = sorted(json.dumps(r, default=str, sort_keys=True) for r in table.scan().to_arrow().to_pylist())
    return mfs, ents, rows


def rewrite_and_compare(catalog, name):
    t = catalog.load_table(name)
    before = snapshot_state(t)
    snap = t.current_snapshot()
    old_list_schema, old_list_meta, old_list_recs = avro_records(snap.manifest_list)
    old_manifests = {mf["manifest_path"]: avro_records(mf["manifest_path"]) for mf in before[0]}
    p = run_driver("rewrite", t.metadata_location.replace("file://", ""))
    summaries = [json.loads(x) for x in p.stdout.splitlines()]
    t = catalog.load_table(name)
    after = snapshot_state(t)
    # Same manifest list fields (lengths aside), same entries, same rows.
    for b, a in zip(before[0], after[0]):
        b = dict(b)
        a = dict(a)
        assert a.pop("manifest_length") == os.path.getsize(a["manifest_path"].replace("file://", ""))
        b.pop("manifest_length")
        assert a == b
    assert len(before[0]) == len(after[0])
    assert after[1] == before[1]
    assert after[2] == before[2]
    # SQE's summaries equal what pyiceberg wrote (counts and partition field summaries).
    for s, b in zip(summaries, before[0]):
        for k in ("added_files_count", "existing_files_count", "deleted_files_count",
                  "added_rows_count", "existing_rows_count", "deleted_rows_count", "content",
                  "partition_spec_id"):
            assert s[k] == b[k], k
        exp = [{k: v for k, v in x.items() if not k.endswith("_value")} for x in b["partitions"]]
        assert s["partitions"] == exp
    # Avro schemas: same shape (names, ids, types) as pyiceberg's; header keys as the spec asks.
    new_list_schema, new_list_meta, new_list_recs = avro_records(snap.manifest_list)
    assert by_field_id(schema_shape(new_list_schema)) == by_field_id(schema_shape(old_list_schema))
    for k in ("snapshot-id", "parent-snapshot-id", "format-version"):
        assert new_list_meta[k] == old_list_meta[k], k
    if t.format_version >= 2:
        assert new_list_meta["sequence-number"] == old_list_meta["sequence-number"]
    for rec_new, rec_old in zip(new_list_recs, old_list_recs):
        rec_new.pop("manifest_length")
        rec_old.pop("manifest_length")
        assert rec_new == rec_old
    for path, (osch, ometa, orecs) in old_manifests.items():
        nsch, nmeta, nrecs = avro_records(path)
        assert by_field_id(schema_shape(nsch)) == by_field_id(schema_shape(osch))
        for k in ("partition-spec-id", "format-version", "content"):
            assert nmeta.get(k) == ometa.get(k), k
        # pyiceberg omits schema-id (required from v2 on); SQE always writes it.
        assert nmeta["schema-id"] == ometa.get("schema-id", str(t.schema().schema_id))
        assert json.loads(nmeta["partition-spec"]) == json.loads(ometa["partition-spec"])
        assert json.loads(nmeta["schema"]) == json.loads(ometa["schema"])
        for rn, ro in zip(nrecs, orecs):
            if "referenced_data_file" not in ro["data_file"]:  # Java writes it (v2), pyiceberg not
                assert rn["data_file"].pop("referenced_data_file", None) is None
            assert rn == ro
        assert len(nrecs) == len(orecs)
    return len(after[1])


@pytest.mark.parametrize("version", [1, 2])
def test_rewrite_unpartitioned(catalog, version):
    t = catalog.create_table("db.u", SCHEMA, properties=props(version))
    fill_append_delete(t)
    assert rewrite_and_compare(catalog, "db.u") >= 4


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("source", ["s", "d", "dec", "bigdec", "f", "bin", "tstz", "b"])
def test_rewrite_identity(catalog, version, source):
    fid = SCHEMA.find_field(source).field_id
    spec = PartitionSpec(PartitionField(fid, 1000, IdentityTransform(), f"{source} part"))
    t = catalog.create_table("db.p", SCHEMA, partition_spec=spec, properties=props(version))
    fill_append_delete(t)
    rewrite_and_compare(catalog, "db.p")


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("name", ["multi", "month_year", "hour", "truncate_binary"])
def test_rewrite_transforms(catalog, tmp_path, version, name):
    fields = [PartitionField(SCHEMA.find_field(src).field_id, 1000 + k, tr, f"p{k}_{src}")
              for k, (src, tr) in enumerate(TRANSFORM_SPECS[name])]
    t = catalog.create_table("db.x", SCHEMA, partition_spec=PartitionSpec(*fields),
                             properties=props(version))
    add_parquet_files(t, tmp_path, [[k] for k in range(0, 5)], "a")
    add_parquet_files(t, tmp_path, [[k] for k in range(5, 7)], "b")
    rewrite_and_compare(catalog, "db.x")


# ---- write direction: from a description ----------------------------------------------------

@pytest.mark.parametrize("version", [1, 2, 3])
def test_write_from_description(catalog, tmp_path, version):
    """Manifest + list written by SQE for pyarrow-written Parquet files; pyiceberg reads them.

    Version 3 files are written for a v2 table (pyiceberg cannot write v3 metadata) and read
    with pyiceberg's v3 read schemas, first_row_id included."""
    fields = [PartitionField(3, 1000, TruncateTransform(2), "s_trunc"),
              PartitionField(6, 1001, DayTransform(), "d_day"),
              PartitionField(9, 1002, IdentityTransform(), "dec"),
              PartitionField(14, 1003, IdentityTransform(), "u")]
    t = catalog.create_table("db.w", SCHEMA, partition_spec=PartitionSpec(*fields),
                             properties=props(min(version, 2)))
    # Let pyiceberg compute metrics and partitions (add_files), then write the same entries
    # with SQE's writer into new files, with explicit and inherited sequence numbers.
    add_parquet_files(t, tmp_path, [[k] for k in range(8)], "w")
    t = catalog.load_table("db.w")
    files, entries = oracle(t)
    ptype = t.spec().partition_type(t.schema())
    desc_entries = []
    for n, (mf, _, e) in enumerate(entries):
        df = e.data_file
        status = [1, 0, 2][n % 3] if version >= 2 else [1, 0][n % 2]
        inherit = version >= 2 and status == 1 and n % 2 == 0
        desc_entries.append({
            "status": status,
            "snapshot_id": None if inherit else e.snapshot_id,
            "sequence_number": None if inherit or version == 1 else 5 + n,
            "file_sequence_number": None if inherit or version == 1 else 6 + n,
            "content": 0,
            "file_path": df.file_path,
            "file_format": "PARQUET",
            "partition": [norm(ptype.fields[k].field_type, df.partition[k])
                          for k in range(len(ptype.fields))],
            "record_count": df.record_count,
            "file_size_in_bytes": df.file_size_in_bytes,
            "column_sizes": counts(df.column_sizes),
            "value_counts": counts(df.value_counts),
            "null_value_counts": counts(df.null_value_counts),
            "nan_value_counts": counts(df.nan_value_counts),
            "lower_bounds": {str(k): bytes(v).hex() for k, v in df.lower_bounds.items()},
            "upper_bounds": {str(k): bytes(v).hex() for k, v in df.upper_bounds.items()},
            "split_offsets": df.split_offsets,
            "equality_ids": None,
            "sort_order_id": 0 if n % 2 else None,
        })
    snap_id = 123456789
    seq = 42 if version >= 2 else 0
    mpath = tmp_path / "sqe-m0.avro"
    lpath = tmp_path / "snap-sqe.avro"
    desc = {"metadata": t.metadata_location.replace("file://", ""), "format_version": version,
            "content": 0, "snapshot_id": snap_id, "parent_snapshot_id": None,
            "sequence_number": seq, "first_row_id": 0,
            "manifest_location": f"file://{mpath}", "entries": desc_entries}
    (tmp_path / "desc.json").write_text(json.dumps(desc))
    run_driver("write", tmp_path / "desc.json", mpath, lpath)
    # fastavro: the files are valid Avro with Iceberg's schema names and ids.
    lsch, lmeta, lrecs = avro_records(str(lpath))
    assert lsch["name"] == "manifest_file"
    ids = [f["field-id"] for f in lsch["fields"]]
    if version == 1:
        assert ids == [500, 501, 502, 503, 504, 505, 506, 507, 512, 513, 514, 519]
    else:
        assert ids == [500, 501, 502, 517, 515, 516, 503, 504, 505, 506, 512, 513, 514, 507, 519] + \
            ([520] if version == 3 else [])
    if version == 3:
        assert lrecs[0]["first_row_id"] == 0 and lmeta["first-row-id"] == "0"
    dfields = [f["field-id"] for f in
               [x for x in avro_records(str(mpath))[0]["fields"] if x["name"] == "data_file"][0]["type"]["fields"]]
    assert dfields == {1: [100, 101, 102, 103, 104, 105, 108, 109, 110, 137, 125, 128, 131, 132, 140],
                       2: [134, 100, 101, 102, 103, 104, 108, 109, 110, 137, 125, 128, 131, 132, 135, 140, 143],
                       3: [134, 100, 101, 102, 103, 104, 108, 109, 110, 137, 125, 128, 131, 132, 135, 140, 142,
                           143, 144, 145]}[version]
    assert lmeta["format-version"] == str(version) and lmeta["snapshot-id"] == str(snap_id)
    assert lmeta["parent-snapshot-id"] == "null"
    msch, mmeta, mrecs = avro_records(str(mpath))
    assert msch["name"] == "manifest_entry"
    assert mmeta["format-version"] == str(version)
    assert mmeta["partition-spec-id"] == "0" and mmeta["schema-id"] == "0"
    assert json.loads(mmeta["partition-spec"]) == json.loads(t.spec().model_dump_json())["fields"]
    if version >= 2:
        assert mmeta["content"] == "data"
    assert len(mrecs) == len(desc_entries)
    # pyiceberg reads them back, with inheritance, field by field.
    io = PyArrowFileIO()
    lfiles = list(read_manifest_list(io.new_input(f"file://{lpath}")))
    assert len(lfiles) == 1
    mf = lfiles[0]
    assert mf.manifest_path == f"file://{mpath}"
    assert mf.manifest_length == os.path.getsize(mpath)
    assert mf.added_snapshot_id == snap_id
    assert mf.sequence_number == seq
    live = [(d, k) for k, d in enumerate(desc_entries) if d["status"] != 2]
    explicit = [d["sequence_number"] for d, _ in live if d["sequence_number"] is not None]
    assert mf.min_sequence_number == (min(explicit) if explicit else seq)
    for st, attr in ((1, "added"), (0, "existing"), (2, "deleted")):
        sel = [d for d in desc_entries if d["status"] == st]
        assert getattr(mf, f"{attr}_files_count") == len(sel)
        assert getattr(mf, f"{attr}_rows_count") == sum(d["record_count"] for d in sel)
    # Partition summaries: computed from the tuples.
    for k, s in enumerate(mf.partitions):
        pt = ptype.fields[k].field_type
        vals = [d["partition"][k] for d in desc_entries]
        assert s.contains_null == any(v is None for v in vals)
        lo, hi = from_bytes(pt, s.lower_bound), from_bytes(pt, s.upper_bound)
        nn = [v for v in vals if v is not None]
        key = (lambda v: int(v)) if isinstance(pt, DecimalType) else (lambda v: v)
        assert norm(pt, lo) == min(nn, key=key) and norm(pt, hi) == max(nn, key=key)
    got = mf.fetch_manifest_entry(io, discard_deleted=False)
    assert len(got) == len(desc_entries)
    for d, e in zip(desc_entries, got):
        df = e.data_file
        assert int(e.status) == d["status"]
        assert e.snapshot_id == (d["snapshot_id"] if d["snapshot_id"] is not None else snap_id)
        if version >= 2:
            assert e.sequence_number == (d["sequence_number"] if d["sequence_number"] is not None else seq)
            assert e.file_sequence_number == (d["file_sequence_number"] if d["file_sequence_number"] is not None else seq)
        else:
            assert e.sequence_number == 0 and e.file_sequence_number == 0
        assert df.file_path == d["file_path"] and df.record_count == d["record_count"]
        assert df.file_size_in_bytes == d["file_size_in_bytes"]
        assert [norm(ptype.fields[k].field_type, df.partition[k]) for k in range(len(ptype.fields))] == d["partition"]
        assert counts(df.column_sizes) == d["column_sizes"]
        assert counts(df.value_counts) == d["value_counts"]
        assert counts(df.null_value_counts) == d["null_value_counts"]
        assert counts(df.nan_value_counts) == d["nan_value_counts"]
        assert {str(k): bytes(v).hex() for k, v in df.lower_bounds.items()} == d["lower_bounds"]
        assert {str(k): bytes(v).hex() for k, v in df.upper_bounds.items()} == d["upper_bounds"]
        assert df.split_offsets == d["split_offsets"]
        assert df.sort_order_id == d["sort_order_id"]
    # And SQE reads its own files back identically to pyiceberg.
    info, dfiles, dentries = driver_read(t, str(lpath))
    assert len(dentries) == len(desc_entries)
    for (x, (d, e)) in zip(dentries, zip(desc_entries, got)):
        assert {k: norm_driver(v) for k, v in x["partition"].items()} == \
            {pf.name: v for pf, v in zip(ptype.fields, d["partition"])}
        assert x["status"] == d["status"] and x["file_path"] == d["file_path"]
        assert {k: v["raw"] for k, v in x["lower_bounds"].items()} == d["lower_bounds"]
        assert x["sequence_number"] == e.sequence_number
        assert x["snapshot_id"] == e.snapshot_id


# ---- hostile input --------------------------------------------------------------------------

def hostile_checks(args_for, data, path, rng, n_flips=150):
    outcomes = set()
    cuts = sorted(set([0, 1, 3, 4, 10, len(data) // 2, len(data) - 1] +
                      [rng.randrange(len(data)) for _ in range(40)]))
    variants = [data[:c] for c in cuts if c < len(data)]
    for _ in range(n_flips):
        b = bytearray(data)
        pos = rng.randrange(len(b))
        b[pos] ^= 1 << rng.randrange(8)
        variants.append(bytes(b))
    for v in variants:
        with open(path, "wb") as f:
            f.write(v)
        p = run_driver(*args_for(path), check=False)
        assert p.returncode in (0, 1), (p.returncode, p.stderr[-2000:])
        assert "runtime error" not in p.stderr and "Sanitizer" not in p.stderr, p.stderr[-2000:]
        if p.returncode == 1:
            kind = p.stdout.split()[1]
            assert kind in ("INVALID_FILE", "NOT_SUPPORTED"), p.stdout
            assert ("Invalid Iceberg manifest" in p.stdout or "Invalid Avro file" in p.stdout
                    or "unsupported" in p.stdout), p.stdout
        outcomes.add(p.returncode)
    return outcomes


@pytest.mark.parametrize("version", [1, 2])
def test_hostile_truncation_and_bitflips(catalog, tmp_path, version):
    spec = PartitionSpec(PartitionField(3, 1000, IdentityTransform(), "s"))
    t = catalog.create_table("db.h", SCHEMA, partition_spec=spec, properties=props(version))
    t.append(arrow_rows(t, range(6)))
    t = catalog.load_table("db.h")
    files, _ = oracle(t)
    meta = t.metadata_location.replace("file://", "")
    rng = random.Random(version)
    lst = open(t.current_snapshot().manifest_list.replace("file://", ""), "rb").read()
    out = hostile_checks(lambda p: ["check-list", p], lst, str(tmp_path / "bad-list.avro"), rng)
    assert 1 in out
    man = open(files[0].manifest_path.replace("file://", ""), "rb").read()
    out = hostile_checks(lambda p: ["check-manifest", meta, p], man, str(tmp_path / "bad-m.avro"), rng)
    assert 1 in out


def rewrite_manifest_records(src, dst, mutate, schema_mutate=None):
    with open(src, "rb") as f:
        r = fastavro.reader(f)
        schema, meta, recs = r.writer_schema, dict(r.metadata), list(r)
    if schema_mutate:
        schema_mutate(schema)
    for rec in recs:
        mutate(rec)
    meta = {k: v for k, v in meta.items() if not k.startswith("avro.")}
    with open(dst, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(schema), recs, metadata=meta)


@pytest.mark.parametrize("case", ["short_long_bound", "long_int_bound", "bad_uuid_bound",
                                  "decimal_too_wide", "bad_status", "bad_content",
                                  "negative_count", "bad_spec_header"])
def test_hostile_fields(catalog, tmp_path, case):
    t = catalog.create_table("db.h", SCHEMA, properties=props(2))
    t.append(arrow_rows(t, range(3)))
    t = catalog.load_table("db.h")
    files, _ = oracle(t)
    src = files[0].manifest_path.replace("file://", "")
    dst = str(tmp_path / "m.avro")
    meta = t.metadata_location.replace("file://", "")

    def set_bound(fid, raw):
        def m(rec):
            lb = rec["data_file"]["lower_bounds"]
            for kv in lb:
                if kv["key"] == fid:
                    kv["value"] = raw
        return m

    mutate = {
        "short_long_bound": set_bound(1, b"\x01\x02\x03"),
        "long_int_bound": set_bound(2, b"\x01" * 8),
        "bad_uuid_bound": set_bound(14, b"\x01" * 15),
        "decimal_too_wide": set_bound(9, b"\x7f" + b"\xff" * 8),
        "bad_status": lambda rec: rec.__setitem__("status", 7),
        "bad_content": lambda rec: rec["data_file"].__setitem__("content", 9),
        "negative_count": lambda rec: rec["data_file"].__setitem__("record_count", -1),
        "bad_spec_header": lambda rec: None,
    }[case]
    rewrite_manifest_records(src, dst, mutate)
    if case == "bad_spec_header":
        with open(src, "rb") as f:
            r = fastavro.reader(f)
            schema, recs, md = r.writer_schema, list(r), dict(r.metadata)
        md = {k: v for k, v in md.items() if not k.startswith("avro.")}
        md["partition-spec-id"] = "x1"
        with open(dst, "wb") as f:
            fastavro.writer(f, fastavro.parse_schema(schema), recs, metadata=md)
    p = run_driver("check-manifest", meta, dst, check=False)
    assert p.returncode == 1, p.stdout + p.stderr
    assert p.stdout.startswith("error INVALID_FILE Invalid Iceberg manifest: "), p.stdout


def test_unknown_fields_ignored_and_promoted_bounds(catalog, tmp_path):
    """Extra fields in entries are skipped; a 4-byte bound of a long column reads widened."""
    t = catalog.create_table("db.h", SCHEMA, properties=props(2))
    t.append(arrow_rows(t, range(3)))
    t = catalog.load_table("db.h")
    files, _ = oracle(t)
    src = files[0].manifest_path.replace("file://", "")
    dst = str(tmp_path / "m.avro")

    def add_field(schema):
        schema["fields"].append({"name": "future_field", "type": ["null", "string"],
                                 "default": None, "field-id": 9999})

    def mutate(rec):
        rec["future_field"] = "x"
        for kv in rec["data_file"]["lower_bounds"]:
            if kv["key"] == 1:
                kv["value"] = (-5).to_bytes(4, "little", signed=True)

    rewrite_manifest_records(src, dst, mutate, add_field)
    meta = t.metadata_location.replace("file://", "")
    assert run_driver("check-manifest", meta, dst).stdout.startswith("ok ")
