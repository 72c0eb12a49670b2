"""Iceberg data-file writer (src/iceberg/data_writer.c) checked against pyarrow and pyiceberg.

The C driver (DATA_WRITER_DRIVER, tests/iceberg/data_writer_driver.c) writes a table whose
metadata pyiceberg made here; its rows follow formulas mirrored in expected_row(). Checks:
the rows read back with pyarrow, the field id of every Parquet node and the standard list/map
layout, each file's partition tuple against pyiceberg's transforms of its rows, the partition
path against PartitionSpec.partition_to_path, and the metrics against pyiceberg's
data_file_statistics_from_parquet_metadata on the same file (bounds of struct fields, which
pyiceberg leaves out, and NaN counts, which it does not compute, against the data itself).
"""
import json
import math
import os
import struct
import subprocess
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyiceberg.conversions import from_bytes, to_bytes
from pyiceberg.io.pyarrow import (compute_statistics_plan, data_file_statistics_from_parquet_metadata,
                                  parquet_path_to_id_mapping)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.table.metadata import new_table_metadata
from pyiceberg.table.sorting import UNSORTED_SORT_ORDER
from pyiceberg.transforms import (BucketTransform, DayTransform, HourTransform, IdentityTransform,
                                  MonthTransform, TruncateTransform, VoidTransform, YearTransform)
from pyiceberg.typedef import Record
from pyiceberg.types import (BinaryType, BooleanType, DateType, DecimalType, DoubleType, FloatType,
                             IntegerType, ListType, LongType, MapType, NestedField, StringType,
                             StructType, TimestampType)

DRIVER = os.environ.get("DATA_WRITER_DRIVER")
pytestmark = pytest.mark.skipif(not DRIVER, reason="DATA_WRITER_DRIVER not set (use run_data_writer_tests.sh)")

SCHEMA = Schema(
    NestedField(1, "id", LongType(), required=True),
    NestedField(2, "name", StringType()),
    NestedField(3, "price", DoubleType()),
    NestedField(4, "ts", TimestampType()),
    NestedField(5, "d", DateType()),
    NestedField(6, "amount", DecimalType(10, 2)),
    NestedField(7, "flag", BooleanType()),
    NestedField(8, "bin", BinaryType()),
    NestedField(9, "point", StructType(NestedField(10, "x", DoubleType()),
                                       NestedField(11, "y", IntegerType(), required=True))),
    NestedField(12, "tags", ListType(13, StringType(), element_required=False)),
    NestedField(14, "f", FloatType()),
    NestedField(15, "props", MapType(16, StringType(), 17, IntegerType(), value_required=False)),
)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def expected_row(i):
    """Row i in Iceberg's internal Python form (mirrors gen() in data_writer_driver.c)."""
    if i % 11 == 5:
        name = None
    elif i % 17 == 0:
        name = "\u00fc" * 20 + f"long-{i}"
    else:
        name = f"name-{i % 37}"
    price = None if i % 11 == 3 else (math.nan if i % 13 == 0 else (i % 101) * 1.5 - 20)
    ts = None if i % 19 == 7 else 1700000000000000 + i * 3600000000 * 7 - (1800000000000000 if i % 23 == 0 else 0)
    d = -400 if i % 23 == 0 else 19000 + (i * 3) % 400
    amount = None if i % 29 == 1 else Decimal((i * 12345) % 1000000 - 500000).scaleb(-2)
    b = None if i % 31 == 2 else bytes([i % 256]) * (i % 20)
    point = None if i % 7 == 6 else {"x": i * 0.25, "y": i % 5}
    tags = None if i % 9 == 8 else [f"t{i % 4 + j}" for j in range(i % 3)]
    f = math.nan if i % 5 == 0 else f32(i * 0.5)
    props = None if i % 10 == 9 else [(f"k{j}", None if (i + j) % 4 == 0 else i * 10 + j) for j in range(i % 3)]
    return {"id": i, "name": name, "price": price, "ts": ts, "d": d, "amount": amount, "flag": i % 3 == 0,
            "bin": b, "point": point, "tags": tags, "f": f, "props": props}


def run_driver(tmp_path, spec, rows, props=None, target=None, max_open=None, chunk=None):
    md = new_table_metadata(SCHEMA, spec, UNSORTED_SORT_ORDER, str(tmp_path / "t"), props or {})
    mdp = tmp_path / "md.json"
    mdp.write_text(md.model_dump_json())
    out = tmp_path / "files.json"
    data = tmp_path / "t" / "data"
    # 0 = the writer's default
    args = [DRIVER, str(mdp), str(data), str(rows), str(out), str(target or 0), str(max_open or 0),
            str(chunk or 1000)]
    r = subprocess.run(args, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "runtime error" not in r.stderr and "Sanitizer" not in r.stderr, r.stderr
    return md, data, json.loads(out.read_text())


def ids_of(path):
    return pq.read_table(path, columns=["id"]).column("id").to_pylist()


def check_field_ids(schema, path):
    """Every node of the Parquet schema carries the Iceberg field id; lists and maps use the
    standard 3-level layout."""
    pf = pq.ParquetFile(path)
    paths = [pf.schema.column(i).path for i in range(len(pf.schema))]
    assert "tags.list.element" in paths
    assert "props.key_value.key" in paths and "props.key_value.value" in paths
    assert pf.schema.column(paths.index("id")).max_definition_level == 0  # required
    assert pf.schema.column(paths.index("point.y")).max_definition_level == 1  # required in optional
    arrow = pf.schema_arrow

    def fid(field):
        return int(field.metadata[b"PARQUET:field_id"])

    seen = []

    def walk(field, ice_field):
        assert fid(field) == ice_field.field_id, (field.name, ice_field.field_id)
        seen.append(ice_field.field_id)
        t, it = field.type, ice_field.field_type
        if pa.types.is_struct(t):
            for k in range(t.num_fields):
                walk(t.field(k), it.fields[k])
        elif pa.types.is_map(t):
            walk(t.key_field, it.key_field)
            walk(t.item_field, it.value_field)
        elif pa.types.is_list(t):
            walk(t.value_field, it.element_field)

    for k, ice_field in enumerate(schema.fields):
        walk(arrow.field(k), ice_field)
    assert sorted(seen) == list(range(1, 18))  # every id of the (fresh-id) schema
    assert not arrow.field("id").nullable


def normalize(v):
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, dict):
        return {k: normalize(x) for k, x in v.items()}
    if isinstance(v, list):
        return [normalize(x) for x in v]
    return v


def check_rows(files, rows):
    got = {}
    for f in files:
        t = pq.read_table(f["path"])
        assert t.num_rows == f["record_count"]
        for r in t.to_pylist():
            assert r["id"] not in got
            got[r["id"]] = r
    assert sorted(got) == list(range(rows))
    for i in range(rows):
        e, g = expected_row(i), got[i]
        assert g["name"] == e["name"] and g["flag"] == e["flag"] and g["bin"] == e["bin"]
        assert normalize(g["price"]) == normalize(e["price"]) and normalize(g["f"]) == normalize(e["f"])
        assert g["amount"] == e["amount"]
        assert (g["ts"] is None) == (e["ts"] is None)
        if e["ts"] is not None:
            from pyiceberg.utils.datetime import datetime_to_micros
            assert datetime_to_micros(g["ts"]) == e["ts"]
        from pyiceberg.utils.datetime import date_to_days
        assert date_to_days(g["d"]) == e["d"]
        assert g["point"] == e["point"] and g["tags"] == e["tags"] and g["props"] == e["props"]


def check_partitions(md, data, files):
    SCHEMA = md.schema()
    spec = md.spec()
    ptype = spec.partition_type(SCHEMA)
    for f in files:
        assert f["spec_id"] == spec.spec_id and f["format"] == "PARQUET" and f["sort_order_id"] == 0
        values = [None if h is None else from_bytes(pf.field_type, bytes.fromhex(h))
                  for h, pf in zip(f["partition"], ptype.fields)]
        for i in ids_of(f["path"]):
            row = expected_row(i)
            for k, pfield in enumerate(spec.fields):
                src = SCHEMA.find_field(pfield.source_id)
                name = SCHEMA.find_column_name(pfield.source_id)
                v = row
                for part in name.split("."):
                    v = None if v is None else v[part]
                want = pfield.transform.transform(src.field_type)(v)
                assert want == values[k], (f["path"], i, pfield.name, want, values[k])
        rel = os.path.relpath(os.path.dirname(f["path"]), str(data))
        want_path = spec.partition_to_path(Record(*values), SCHEMA) if spec.fields else "."
        assert rel == want_path
        assert os.path.basename(f["path"]).endswith(".parquet")


def fid_of(schema, name):
    return schema.find_field(name).field_id


def check_metrics(md, files, props=None):
    SCHEMA = md.schema()
    ids = {n: fid_of(SCHEMA, n) for n in ("price", "f", "point.x", "point.y", "tags.element", "props.key",
                                          "props.value")}
    plan = compute_statistics_plan(SCHEMA, props or {})
    mapping = parquet_path_to_id_mapping(SCHEMA)
    for f in files:
        meta = pq.read_metadata(f["path"])
        st = data_file_statistics_from_parquet_metadata(meta, plan, mapping)
        assert f["record_count"] == st.record_count
        assert f["file_size"] == os.path.getsize(f["path"])
        assert {int(k): v for k, v in f["column_sizes"].items()} == st.column_sizes
        assert {int(k): v for k, v in f["value_counts"].items()} == st.value_counts
        assert {int(k): v for k, v in f["null_value_counts"].items()} == st.null_value_counts
        assert f["split_offsets"] == st.split_offsets
        lower = {int(k): bytes.fromhex(v) for k, v in f["lower_bounds"].items()}
        upper = {int(k): bytes.fromhex(v) for k, v in f["upper_bounds"].items()}
        for fid, agg in st.column_aggregates.items():
            lo, hi = agg.min_as_bytes(), agg.max_as_bytes()
            ftype = SCHEMA.find_field(fid).field_type
            if lo is not None:
                # decimals: pyiceberg pads to the precision's size, Java and SQE write the minimum
                assert from_bytes(ftype, lower[fid]) == from_bytes(ftype, lo), (fid, lower.get(fid), lo)
            else:
                assert fid not in lower
            if hi is not None:
                assert from_bytes(ftype, upper[fid]) == from_bytes(ftype, hi), (fid, upper.get(fid), hi)
            else:
                assert fid not in upper
        # fields pyiceberg gives no bounds: struct fields (Java keeps them), never list/map ones
        assert not ({ids["tags.element"], ids["props.key"], ids["props.value"]} & (set(lower) | set(upper)))
        t = pq.read_table(f["path"])
        xs = [p["x"] for p in t.column("point").to_pylist() if p is not None and p["x"] is not None]
        ys = [p["y"] for p in t.column("point").to_pylist() if p is not None]
        if ys and (props or {}).get("write.metadata.metrics.default", "truncate(16)") != "counts":
            y_id, x_id = ids["point.y"], ids["point.x"]
            assert from_bytes(IntegerType(), lower[y_id]) == min(ys)
            assert from_bytes(IntegerType(), upper[y_id]) == max(ys)
            xs_ok = [x for x in xs if not math.isnan(x)]
            if xs_ok:
                assert from_bytes(DoubleType(), lower[x_id]) == min(xs_ok)
                assert from_bytes(DoubleType(), upper[x_id]) == max(xs_ok)
        # NaN counts from the data
        nan = {int(k): v for k, v in f["nan_value_counts"].items()}
        prices = t.column("price").to_pylist()
        fs = t.column("f").to_pylist()
        assert nan[ids["price"]] == sum(1 for p in prices if p is not None and math.isnan(p))
        assert nan[ids["f"]] == sum(1 for p in fs if p is not None and math.isnan(p))
        assert nan[ids["point.x"]] == sum(1 for x in xs if math.isnan(x))
        assert set(nan) == {ids["price"], ids["f"], ids["point.x"]}


def test_partitioned_day_and_bucket(tmp_path):
    spec = PartitionSpec(PartitionField(4, 1000, MonthTransform(), "ts_month"),
                         PartitionField(1, 1001, BucketTransform(4), "id_bucket"))
    md, data, files = run_driver(tmp_path, spec, 1500)
    assert len(files) > 8
    check_field_ids(md.schema(), files[0]["path"])
    check_rows(files, 1500)
    check_partitions(md, data, files)
    check_metrics(md, files)


def test_transforms_and_nested_source(tmp_path):
    spec = PartitionSpec(PartitionField(7, 1000, IdentityTransform(), "flag"),
                         PartitionField(2, 1001, TruncateTransform(3), "name_trunc"),
                         PartitionField(5, 1002, YearTransform(), "d_year"),
                         PartitionField(11, 1003, IdentityTransform(), "point.y"),
                         PartitionField(6, 1004, VoidTransform(), "amount_void"),
                         PartitionField(6, 1005, TruncateTransform(100000), "amount trunc"))
    md, data, files = run_driver(tmp_path, spec, 700, chunk=333)
    check_rows(files, 700)
    check_partitions(md, data, files)
    check_metrics(md, files)
    # URL-escaped names and values as Java's URLEncoder writes them
    assert any("/amount+trunc=" in f["path"] for f in files)
    assert any("point.y=null" in f["path"] for f in files)


def test_day_hour_paths(tmp_path):
    spec = PartitionSpec(PartitionField(4, 1000, HourTransform(), "ts_hour"),
                         PartitionField(5, 1001, DayTransform(), "d_day"))
    md, data, files = run_driver(tmp_path, spec, 300)
    check_partitions(md, data, files)
    assert any("/d_day=1968-11-27/" in f["path"] for f in files)  # day -400
    check_metrics(md, files)


def test_unpartitioned_rolling_files(tmp_path):
    props = {"write.parquet.row-group-size-bytes": "65536", "write.parquet.compression-codec": "snappy"}
    target = 200000
    md, data, files = run_driver(tmp_path, PartitionSpec(), 30000, props=props, target=target)
    assert len(files) >= 3
    for f in files:
        assert os.path.dirname(f["path"]) == str(data) and f["partition"] == []
        # rolled at the target: at most one chunk (1000 rows, ~30 KB) beyond it
        assert f["file_size"] < target + 100000, f["file_size"]
        meta = pq.read_metadata(f["path"])
        assert meta.row_group(0).column(0).compression == "SNAPPY"
    assert sum(len(f["split_offsets"]) for f in files) > len(files)  # several row groups
    check_rows(files, 30000)
    check_metrics(md, files, props)


def test_open_file_cap(tmp_path):
    spec = PartitionSpec(PartitionField(1, 1000, BucketTransform(16), "b"))
    md, data, files = run_driver(tmp_path, spec, 4000, max_open=3, chunk=500)
    # 16 partitions, 3 open at a time: partitions are closed and reopened, so more files
    assert len(files) > 16
    check_rows(files, 4000)
    check_partitions(md, data, files)


def test_metrics_modes(tmp_path):
    props = {"write.metadata.metrics.default": "counts", "write.metadata.metrics.column.name": "truncate(4)",
             "write.metadata.metrics.column.bin": "none", "write.metadata.metrics.column.d": "full"}
    md, data, files = run_driver(tmp_path, PartitionSpec(), 500, props=props)
    check_metrics(md, files, props)
    f = files[0]
    sc = md.schema()
    name, d, b = (str(fid_of(sc, n)) for n in ("name", "d", "bin"))
    assert set(f["lower_bounds"]) == {name, d}
    assert b not in f["value_counts"] and b in f["column_sizes"]
    lo = bytes.fromhex(f["lower_bounds"][name])
    assert len(lo.decode()) <= 4


def test_long_string_upper_bound(tmp_path):
    md, data, files = run_driver(tmp_path, PartitionSpec(), 200)
    up = bytes.fromhex(files[0]["upper_bounds"][str(fid_of(md.schema(), "name"))]).decode()
    names = [r["name"] for r in (expected_row(i) for i in range(200)) if r["name"] is not None]
    assert len(up) == 16 and up > max(names)
    assert up == "\u00fc" * 15 + "\u00fd"
