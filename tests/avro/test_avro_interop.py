"""Interop of SQE's Avro library (src/format/avro) with fastavro, both ways.

fastavro -> SQE: fastavro writes container files (codecs null, deflate, snappy; every type,
nested records, unions, logical types, Iceberg manifest-list and manifest schemas with field ids,
several blocks, empty files); tests/avro/avro_dump.c reads them and prints the records in the
Avro JSON encoding, which fastavro's json_reader decodes again; the records must equal what
fastavro's own reader returns. Values are compared raw: the reader schema has its logical types
stripped, so dates are ints, decimals bytes.

SQE -> fastavro: avro_dump writes files from a JSON description (records in the Avro JSON
encoding, made by fastavro's json_writer) in every codec; fastavro reads them back exactly,
header metadata included.

Also: damaged files (every truncation, bit flips) give a clean error or a prefix of the records,
never a crash; unknown codecs are NOT_SUPPORTED; pyiceberg-written manifests read identically.

The dump tool comes from $AVRO_DUMP (run_avro_tests.sh builds it), else it is built here.
"""

import ctypes
import ctypes.util
import copy
import datetime
import decimal
import io
import json
import math
import os
import random
import subprocess
import sys
import types
import uuid

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _install_snappy_shim():
    """fastavro needs cramjam (or python-snappy) for the snappy codec. When neither is
    installed, provide a `snappy` module over the system libsnappy (the library SQE links), so
    fastavro's own snappy framing and CRC code is what runs."""
    try:
        import cramjam  # noqa: F401
        return
    except ImportError:
        pass
    try:
        import snappy  # noqa: F401
        return
    except ImportError:
        pass
    path = ctypes.util.find_library("snappy") or "libsnappy.so.1"
    lib = ctypes.CDLL(path)
    size_t = ctypes.c_size_t

    def compress(data):
        data = bytes(data)
        cap = lib.snappy_max_compressed_length(size_t(len(data)))
        out = ctypes.create_string_buffer(cap)
        n = size_t(cap)
        if lib.snappy_compress(data, size_t(len(data)), out, ctypes.byref(n)) != 0:
            raise ValueError("snappy_compress failed")
        return out.raw[: n.value]

    def decompress(data):
        data = bytes(data)
        n = size_t(0)
        if lib.snappy_uncompressed_length(data, size_t(len(data)), ctypes.byref(n)) != 0:
            raise ValueError("bad snappy data")
        out = ctypes.create_string_buffer(max(n.value, 1))
        if lib.snappy_uncompress(data, size_t(len(data)), out, ctypes.byref(n)) != 0:
            raise ValueError("bad snappy data")
        return out.raw[: n.value]

    lib.snappy_max_compressed_length.restype = size_t
    mod = types.ModuleType("snappy")
    mod.compress = compress
    mod.decompress = decompress
    sys.modules["snappy"] = mod


_install_snappy_shim()

import warnings  # noqa: E402

warnings.filterwarnings("ignore", category=DeprecationWarning)
import fastavro  # noqa: E402
import fastavro.read  # noqa: E402

# Compare raw values: fastavro converts logical types on read according to the writer's schema
# whatever the reader schema says, so the conversions are switched off for this module (the
# dict is shared by the Cython and the pure-Python readers; writers keep their conversions).
fastavro.read.LOGICAL_READERS.clear()

CODECS = ["null", "deflate", "snappy"]


# ---- the dump tool ------------------------------------------------------------------------


@pytest.fixture(scope="session")
def dump(tmp_path_factory):
    exe = os.environ.get("AVRO_DUMP")
    if not exe:
        exe = str(tmp_path_factory.mktemp("bin") / "avro_dump")
        srcs = [os.path.join(ROOT, "tests/avro/avro_dump.c")]
        srcs += [os.path.join(ROOT, "src/format/avro", f) for f in
                 ("avro_schema.c", "avro_read.c", "avro_write.c", "avro_value.c")]
        srcs += [os.path.join(ROOT, "src/common", f) for f in
                 ("arena.c", "err.c", "mem.c", "strbuf.c")]
        subprocess.run(["gcc", "-std=gnu17", "-g", "-O1", "-fsanitize=address,undefined",
                        "-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(ROOT, "src"),
                        *srcs, "-ljansson", "-lz", "-lsnappy", "-lm", "-o", exe], check=True)
    return exe


def run_dump(dump, *args, stdin=None):
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    p = subprocess.run([dump, *args], input=stdin, capture_output=True, env=env, timeout=60)
    assert "Sanitizer" not in p.stderr.decode(errors="replace"), p.stderr.decode(errors="replace")
    assert p.returncode in (0, 1), p.stderr.decode(errors="replace")
    return p


def c_read(dump, path):
    """(header, records in JSON text lines) from the C reader; raises on error."""
    p = run_dump(dump, "read", str(path))
    assert p.returncode == 0, p.stderr.decode()
    lines = p.stdout.decode().split("\n")[:-1]
    return json.loads(lines[0]), lines[1:]


# ---- schema helpers -----------------------------------------------------------------------


def strip_logical(schema):
    """The schema with every logicalType removed (raw values)."""
    s = copy.deepcopy(schema)

    def walk(node):
        if isinstance(node, dict):
            node.pop("logicalType", None)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(s)
    return s


def raw_records(schema, records):
    """Writes records with fastavro (full schema) and reads them back raw."""
    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(copy.deepcopy(schema)), records)
    buf.seek(0)
    return list(fastavro.reader(buf, reader_schema=fastavro.parse_schema(strip_logical(schema))))


def json_lines_to_records(schema, lines):
    if not lines:
        return []
    text = "\n".join(lines) + "\n"
    return list(fastavro.json_reader(io.StringIO(text), fastavro.parse_schema(strip_logical(schema))))


def records_to_json_values(schema, records):
    """Records in the Avro JSON encoding (as JSON values), by fastavro's json_writer."""
    if not records:
        return []  # fastavro's json_writer fails on an empty list
    out = io.StringIO()
    fastavro.json_writer(out, fastavro.parse_schema(strip_logical(schema)), records)
    return [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]


def same(a, b):
    """Equality that treats NaN as equal to NaN and compares floats bit-exactly otherwise."""
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) and math.isnan(b):
            return True
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


# ---- test schemas -------------------------------------------------------------------------

PRIMS = {
    "type": "record", "name": "prims", "namespace": "sqe.test",
    "fields": [
        {"name": "n", "type": "null"},
        {"name": "b", "type": "boolean"},
        {"name": "i", "type": "int"},
        {"name": "l", "type": "long"},
        {"name": "f", "type": "float"},
        {"name": "d", "type": "double"},
        {"name": "by", "type": "bytes"},
        {"name": "s", "type": "string"},
        {"name": "e", "type": {"type": "enum", "name": "color", "symbols": ["RED", "GREEN", "BLUE"]}},
        {"name": "fx", "type": {"type": "fixed", "name": "f4", "size": 4}},
    ],
}


def prims_records(n, seed=1):
    rnd = random.Random(seed)
    out = []
    edge_i = [0, 1, -1, 2**31 - 1, -2**31, 63, 64, -64, -65]
    edge_l = [0, 1, -1, 2**63 - 1, -2**63, 2**53 + 1, -(2**53) - 1]
    for k in range(n):
        out.append({
            "n": None,
            "b": k % 2 == 0,
            "i": edge_i[k % len(edge_i)] if k < 20 else rnd.randint(-2**31, 2**31 - 1),
            "l": edge_l[k % len(edge_l)] if k < 20 else rnd.randint(-2**63, 2**63 - 1),
            "f": [0.0, -0.0, 1.5, 3.4028234663852886e38, 1e-45, -2.5][k % 6] if k < 12
            else rnd.uniform(-1e6, 1e6),
            "d": [0.0, -0.0, 1e308, 5e-324, math.pi, -1.0][k % 6] if k < 12
            else rnd.uniform(-1e300, 1e300),
            "by": bytes(rnd.randrange(256) for _ in range(k % 40)),
            "s": ["", "ascii", "ümlaut ✓ 😀", "a\x00b", "x" * 300][k % 5],
            "e": ["RED", "GREEN", "BLUE"][k % 3],
            "fx": bytes([k % 256, 0, 255, 7]),
        })
    return out


NESTED = {
    "type": "record", "name": "outer", "namespace": "sqe.nest",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "opt", "type": ["null", "string"], "default": None},
        {"name": "multi", "type": ["null", "long", "string", {"type": "array", "items": "int"},
                                    {"type": "map", "values": "double"}]},
        {"name": "inner", "type": {"type": "record", "name": "inner", "fields": [
            {"name": "a", "type": "int"},
            {"name": "tags", "type": {"type": "array", "items": "string"}},
            {"name": "deep", "type": {"type": "map", "values": {"type": "array", "items": ["null", "double"]}}},
        ]}},
        {"name": "inners", "type": {"type": "array", "items": "inner"}},
        {"name": "maybe_inner", "type": ["null", "sqe.nest.inner"], "default": None},
        {"name": "nested_arr", "type": {"type": "array", "items": {"type": "array", "items": "long"}}},
        {"name": "m", "type": {"type": "map", "values": ["null", "bytes"]}},
        {"name": "nulls", "type": {"type": "array", "items": "null"}},
        {"name": "other", "type": {"type": "record", "name": "other", "namespace": "x.y", "fields": [
            {"name": "e", "type": {"type": "enum", "name": "kind", "symbols": ["A", "B"]}},
            {"name": "same_ns", "type": ["null", "kind"]},
        ]}},
    ],
}


def nested_records(n, seed=2):
    rnd = random.Random(seed)
    out = []
    for k in range(n):
        inner = {"a": k, "tags": ["t%d" % j for j in range(k % 4)],
                 "deep": {"k%d" % j: [None, 1.5 * j] for j in range(k % 3)}}
        multi = [None, k * 1000, "s%d" % k, list(range(k % 5)), {"x": 0.5, "y": -2.0}][k % 5]
        out.append({
            "id": k,
            "opt": None if k % 3 == 0 else "opt%d" % k,
            "multi": multi,
            "inner": inner,
            "inners": [inner] * (k % 3),
            "maybe_inner": inner if k % 2 else None,
            "nested_arr": [[rnd.randint(-10**12, 10**12) for _ in range(j)] for j in range(k % 4)],
            "m": {"a": None, "b": b"\x01\x02", "ü": b""} if k % 2 else {},
            "nulls": [None] * (k % 7),
            "other": {"e": "B" if k % 2 else "A", "same_ns": "A" if k % 3 else None},
        })
    return out


LOGICAL = {
    "type": "record", "name": "logical",
    "fields": [
        {"name": "date", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tmic", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "tsmic", "type": {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": True}},
        {"name": "tsmic_local", "type": {"type": "long", "logicalType": "timestamp-micros", "adjust-to-utc": False}},
        {"name": "dec_bytes", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
        {"name": "dec_fixed", "type": {"type": "fixed", "name": "dec16", "size": 16, "logicalType": "decimal",
                                       "precision": 38, "scale": 9}},
        {"name": "uuid_s", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "uuid_f", "type": {"type": "fixed", "name": "uuid16", "size": 16, "logicalType": "uuid"}},
        {"name": "opt_date", "type": ["null", {"type": "int", "logicalType": "date"}], "default": None},
    ],
}


def logical_records(n):
    out = []
    utc = datetime.timezone.utc
    for k in range(n):
        out.append({
            "date": datetime.date(1970, 1, 1) + datetime.timedelta(days=k * 997 - 30000),
            "tmic": datetime.time(k % 24, k % 60, k % 60, k * 7 % 1000000),
            "tsmic": datetime.datetime(2024, 1, 1, tzinfo=utc) + datetime.timedelta(microseconds=k * 123456789),
            "tsmic_local": datetime.datetime(1900 + k % 200, 1 + k % 12, 1, 0, 0, 1, tzinfo=utc),
            "dec_bytes": decimal.Decimal(k * 12345 - 500000).scaleb(-2),
            "dec_fixed": decimal.Decimal("-12345678901234567890.123456789") + k,
            "uuid_s": str(uuid.UUID(int=k * 0x1234567890ABCDEF)),
            "uuid_f": uuid.UUID(int=(k + 1) * 0xFEDCBA9876543210).bytes,
            "opt_date": None if k % 2 else datetime.date(2000, 1, 1 + k % 28),
        })
    return out


def _kv_map(name, kid, vid, vtype):
    return ["null", {"type": "array", "logicalType": "map", "items": {
        "type": "record", "name": name, "fields": [
            {"name": "key", "type": "int", "field-id": kid},
            {"name": "value", "type": vtype, "field-id": vid}]}}]


# Iceberg spec, "Manifest Lists" (v2 manifest_file) and "Manifests" (v2 manifest_entry).
MANIFEST_LIST_V2 = {
    "type": "record", "name": "manifest_file", "fields": [
        {"name": "manifest_path", "type": "string", "field-id": 500},
        {"name": "manifest_length", "type": "long", "field-id": 501},
        {"name": "partition_spec_id", "type": "int", "field-id": 502},
        {"name": "content", "type": "int", "field-id": 517},
        {"name": "sequence_number", "type": "long", "field-id": 515},
        {"name": "min_sequence_number", "type": "long", "field-id": 516},
        {"name": "added_snapshot_id", "type": "long", "field-id": 503},
        {"name": "added_files_count", "type": "int", "field-id": 504},
        {"name": "existing_files_count", "type": "int", "field-id": 505},
        {"name": "deleted_files_count", "type": "int", "field-id": 506},
        {"name": "added_rows_count", "type": "long", "field-id": 512},
        {"name": "existing_rows_count", "type": "long", "field-id": 513},
        {"name": "deleted_rows_count", "type": "long", "field-id": 514},
        {"name": "partitions", "type": ["null", {"type": "array", "element-id": 508, "items": {
            "type": "record", "name": "r508", "fields": [
                {"name": "contains_null", "type": "boolean", "field-id": 509},
                {"name": "contains_nan", "type": ["null", "boolean"], "default": None, "field-id": 518},
                {"name": "lower_bound", "type": ["null", "bytes"], "default": None, "field-id": 510},
                {"name": "upper_bound", "type": ["null", "bytes"], "default": None, "field-id": 511}]}}],
         "default": None, "field-id": 507},
        {"name": "key_metadata", "type": ["null", "bytes"], "default": None, "field-id": 519},
    ],
}

MANIFEST_V2 = {
    "type": "record", "name": "manifest_entry", "fields": [
        {"name": "status", "type": "int", "field-id": 0},
        {"name": "snapshot_id", "type": ["null", "long"], "default": None, "field-id": 1},
        {"name": "sequence_number", "type": ["null", "long"], "default": None, "field-id": 3},
        {"name": "file_sequence_number", "type": ["null", "long"], "default": None, "field-id": 4},
        {"name": "data_file", "field-id": 2, "type": {"type": "record", "name": "r2", "fields": [
            {"name": "content", "type": "int", "field-id": 134},
            {"name": "file_path", "type": "string", "field-id": 100},
            {"name": "file_format", "type": "string", "field-id": 101},
            {"name": "partition", "field-id": 102, "type": {"type": "record", "name": "r102", "fields": [
                {"name": "id_bucket", "type": ["null", "int"], "default": None, "field-id": 1000},
                {"name": "ts_day", "type": ["null", {"type": "int", "logicalType": "date"}],
                 "default": None, "field-id": 1001}]}},
            {"name": "record_count", "type": "long", "field-id": 103},
            {"name": "file_size_in_bytes", "type": "long", "field-id": 104},
            {"name": "column_sizes", "type": _kv_map("k117_v118", 117, 118, "long"), "default": None, "field-id": 108},
            {"name": "value_counts", "type": _kv_map("k119_v120", 119, 120, "long"), "default": None, "field-id": 109},
            {"name": "null_value_counts", "type": _kv_map("k121_v122", 121, 122, "long"), "default": None,
             "field-id": 110},
            {"name": "nan_value_counts", "type": _kv_map("k138_v139", 138, 139, "long"), "default": None,
             "field-id": 137},
            {"name": "lower_bounds", "type": _kv_map("k126_v127", 126, 127, "bytes"), "default": None, "field-id": 125},
            {"name": "upper_bounds", "type": _kv_map("k129_v130", 129, 130, "bytes"), "default": None, "field-id": 128},
            {"name": "key_metadata", "type": ["null", "bytes"], "default": None, "field-id": 131},
            {"name": "split_offsets", "type": ["null", {"type": "array", "items": "long", "element-id": 133}],
             "default": None, "field-id": 132},
            {"name": "equality_ids", "type": ["null", {"type": "array", "items": "int", "element-id": 136}],
             "default": None, "field-id": 135},
            {"name": "sort_order_id", "type": ["null", "int"], "default": None, "field-id": 140},
        ]}},
    ],
}

ICEBERG_META = {
    "schema": json.dumps({"type": "struct", "schema-id": 0, "fields": [
        {"id": 1, "name": "id", "required": False, "type": "long"},
        {"id": 2, "name": "ts", "required": False, "type": "timestamptz"}]}),
    "schema-id": "0",
    "partition-spec": json.dumps([{"name": "id_bucket", "transform": "bucket[16]", "source-id": 1,
                                   "field-id": 1000}]),
    "partition-spec-id": "0",
    "format-version": "2",
    "content": "data",
}


def manifest_list_records(n):
    return [{
        "manifest_path": "file:///warehouse/db/t/metadata/%08d-m0.avro" % k,
        "manifest_length": 4096 + k, "partition_spec_id": 0, "content": k % 2,
        "sequence_number": k + 1, "min_sequence_number": 1, "added_snapshot_id": 7000000000000000000 + k,
        "added_files_count": k, "existing_files_count": 0, "deleted_files_count": 1,
        "added_rows_count": 10 * k, "existing_rows_count": 0, "deleted_rows_count": 3,
        "partitions": None if k % 3 == 0 else [
            {"contains_null": False, "contains_nan": None, "lower_bound": b"\x00\x00\x00\x00",
             "upper_bound": b"\x0f\x00\x00\x00"}],
        "key_metadata": None,
    } for k in range(n)]


def manifest_records(n):
    return [{
        "status": k % 3, "snapshot_id": 123456789 + k if k % 2 else None, "sequence_number": None,
        "file_sequence_number": k,
        "data_file": {
            "content": 0, "file_path": "s3://bucket/t/data/id_bucket=%d/%05d.parquet" % (k % 16, k),
            "file_format": "PARQUET",
            "partition": {"id_bucket": k % 16, "ts_day": None if k % 5 == 0 else 19000 + k},
            "record_count": 1000 + k, "file_size_in_bytes": 65536 + k,
            "column_sizes": [{"key": 1, "value": 100 + k}, {"key": 2, "value": 200}],
            "value_counts": [{"key": 1, "value": 1000}],
            "null_value_counts": [{"key": 1, "value": 0}, {"key": 2, "value": k}],
            "nan_value_counts": None,
            "lower_bounds": [{"key": 1, "value": (k).to_bytes(8, "little")}],
            "upper_bounds": [{"key": 1, "value": (k + 999).to_bytes(8, "little")}],
            "key_metadata": None, "split_offsets": [4], "equality_ids": None, "sort_order_id": 0,
        },
    } for k in range(n)]


CASES = {
    "prims": (PRIMS, prims_records(60)),
    "nested": (NESTED, nested_records(40)),
    "logical": (LOGICAL, logical_records(30)),
    "manifest_list": (MANIFEST_LIST_V2, manifest_list_records(25)),
    "manifest": (MANIFEST_V2, manifest_records(25)),
    "bare_long": ("long", [0, 1, -1, 2**62, -2**63]),
    "bare_union": (["null", "string", "double"], [None, "x", 1.25, None]),
}


# ---- fastavro writes, SQE reads -----------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("block", [None, 7])
def test_read_fastavro_file(dump, tmp_path, case, codec, block):
    schema, records = CASES[case]
    path = tmp_path / "in.avro"
    meta = ICEBERG_META if case.startswith("manifest") else {"k": "v", "ü": "✓"}
    with open(path, "wb") as f:
        w = fastavro.write.Writer(f, fastavro.parse_schema(copy.deepcopy(schema)), codec=codec,
                                  metadata=dict(meta), sync_interval=16000 if block is None else 1)
        for k, r in enumerate(records):
            w.write(r)
            if block and k % block == block - 1:
                w.flush()
        w.flush()
    with open(path, "rb") as f:
        rd = fastavro.reader(f, reader_schema=fastavro.parse_schema(strip_logical(schema)))
        expected = list(rd)
        expected_meta = dict(rd.metadata)
    header, lines = c_read(dump, path)
    assert header["codec"] == codec
    got_meta = {k: v.encode("latin-1").decode("utf-8") for k, v in header["meta"].items()}
    assert got_meta == expected_meta
    got = json_lines_to_records(schema, lines)
    assert same(got, expected)


@pytest.mark.parametrize("codec", CODECS)
def test_read_empty_and_many_blocks(dump, tmp_path, codec):
    schema = PRIMS
    path = tmp_path / "empty.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(copy.deepcopy(schema)), [], codec=codec)
    header, lines = c_read(dump, path)
    assert lines == []
    records = prims_records(3000, seed=9)
    path = tmp_path / "many.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(copy.deepcopy(schema)), records, codec=codec,
                        sync_interval=2000)
    header, lines = c_read(dump, path)
    assert same(json_lines_to_records(schema, lines), raw_records(schema, records))


def test_nan_and_infinity(dump, tmp_path):
    schema = {"type": "record", "name": "r", "fields": [{"name": "f", "type": "float"},
                                                        {"name": "d", "type": "double"}]}
    vals = [float("nan"), float("inf"), float("-inf")]
    path = tmp_path / "nan.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, schema, [{"f": v, "d": v} for v in vals])
    _, lines = c_read(dump, path)
    assert [json.loads(x) for x in lines] == [{"f": s, "d": s} for s in ["NaN", "Infinity", "-Infinity"]]


def test_iceberg_schema_attributes(dump, tmp_path):
    path = tmp_path / "m.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(copy.deepcopy(MANIFEST_V2)), manifest_records(1),
                        metadata=dict(ICEBERG_META))
    p = run_dump(dump, "schema", str(path))
    assert p.returncode == 0, p.stderr.decode()
    s = json.loads(p.stdout)
    assert s["name"] == "manifest_entry"
    ids = {f["name"]: f.get("field-id") for f in s["fields"]}
    assert ids == {"status": 0, "snapshot_id": 1, "sequence_number": 3, "file_sequence_number": 4,
                   "data_file": 2}
    df = s["fields"][4]["type"]
    fields = {f["name"]: f for f in df["fields"]}
    assert fields["file_path"]["field-id"] == 100
    assert s["fields"][1]["default"] == "null" and "default" not in s["fields"][0]
    cs = fields["column_sizes"]["type"]["branches"][1]
    assert cs["type"] == "array" and cs["logical"] == "map"
    assert [f["field-id"] for f in cs["items"]["fields"]] == [117, 118]
    so = fields["split_offsets"]["type"]["branches"][1]
    assert so["element-id"] == 133
    part = fields["partition"]["type"]
    assert part["fields"][1]["type"]["branches"][1]["logical"] == "date"

    path = tmp_path / "l.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(copy.deepcopy(LOGICAL)), logical_records(1))
    s = json.loads(run_dump(dump, "schema", str(path)).stdout)
    f = {x["name"]: x["type"] for x in s["fields"]}
    assert f["dec_fixed"]["logical"] == "decimal" and f["dec_fixed"]["precision"] == 38
    assert f["dec_fixed"]["scale"] == 9 and f["dec_fixed"]["size"] == 16
    assert f["tsmic"]["adjust-to-utc"] is True and f["tsmic_local"]["adjust-to-utc"] is False
    assert f["uuid_f"]["logical"] == "uuid"


def test_map_with_ids(dump, tmp_path):
    schema = {"type": "record", "name": "r", "fields": [
        {"name": "props", "field-id": 5, "type": {"type": "map", "values": "string", "key-id": 6, "value-id": 7}}]}
    path = tmp_path / "m.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, schema, [{"props": {"a": "1"}}])
    s = json.loads(run_dump(dump, "schema", str(path)).stdout)
    m = s["fields"][0]["type"]
    assert (m["key-id"], m["value-id"], s["fields"][0]["field-id"]) == (6, 7, 5)


@pytest.mark.parametrize("codec", ["bzip2", "xz"])
def test_unsupported_codec(dump, tmp_path, codec):
    path = tmp_path / "c.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, PRIMS, prims_records(3), codec=codec)
    p = run_dump(dump, "read", str(path))
    assert p.returncode == 1
    assert "NOT_SUPPORTED: unsupported: Avro codec %s" % codec in p.stderr.decode()


# ---- SQE writes, fastavro reads -----------------------------------------------------------


def c_write(dump, path, schema, records, codec, block_records=0, meta=None):
    spec = {"schema": schema, "codec": codec, "block_records": block_records,
            "meta": meta or {}, "records": records_to_json_values(schema, records)}
    p = run_dump(dump, "write", str(path), stdin=json.dumps(spec).encode())
    assert p.returncode == 0, p.stderr.decode()


@pytest.mark.parametrize("codec", CODECS)
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("block_records", [0, 4])
def test_write_read_by_fastavro(dump, tmp_path, case, codec, block_records):
    schema, records = CASES[case]
    raw = raw_records(schema, records)
    path = tmp_path / "out.avro"
    meta = ICEBERG_META if case.startswith("manifest") else {"k": "v", "ü": "✓"}
    c_write(dump, path, schema, raw, codec, block_records, meta)
    with open(path, "rb") as f:
        rd = fastavro.reader(f, reader_schema=fastavro.parse_schema(strip_logical(schema)))
        got = list(rd)
        assert rd.codec == codec
        for k, v in meta.items():
            assert rd.metadata[k] == v
        assert json.loads(rd.metadata["avro.schema"]) == schema
    assert same(got, raw)
    # and with the logical types applied
    with open(path, "rb") as f:
        assert len(list(fastavro.reader(f))) == len(records)
    # blocks: the count of sync markers after the header
    if block_records and records:
        data = path.read_bytes()
        sync = data[-16:]
        assert data.count(sync) == 1 + (len(records) + block_records - 1) // block_records
    # SQE reads back its own file
    header, lines = c_read(dump, path)
    assert same(json_lines_to_records(schema, lines), raw)


def test_write_empty_and_large(dump, tmp_path):
    path = tmp_path / "e.avro"
    c_write(dump, path, PRIMS, [], "deflate")
    with open(path, "rb") as f:
        assert list(fastavro.reader(f)) == []
    big = [{"s": "x" * 200000 + str(k), "b": os.urandom(70000)} for k in range(5)]
    schema = {"type": "record", "name": "big", "fields": [{"name": "s", "type": "string"},
                                                          {"name": "b", "type": "bytes"}]}
    for codec in CODECS:
        c_write(dump, path, schema, big, codec, 2)
        with open(path, "rb") as f:
            assert list(fastavro.reader(f)) == big


def test_write_rejects_bad_values(dump, tmp_path):
    schema = {"type": "record", "name": "r", "fields": [{"name": "a", "type": "int"}]}
    spec = {"schema": schema, "codec": "null", "records": [{"a": 2**40}]}
    p = run_dump(dump, "write", str(tmp_path / "x.avro"), stdin=json.dumps(spec).encode())
    assert p.returncode == 1 and "Invalid Avro value" in p.stderr.decode()
    spec = {"schema": {"type": "record", "name": "r", "fields": [{"name": "a", "type": "nope"}]},
            "codec": "null", "records": []}
    p = run_dump(dump, "write", str(tmp_path / "x.avro"), stdin=json.dumps(spec).encode())
    assert p.returncode == 1 and "Invalid Avro schema: unknown type \"nope\"" in p.stderr.decode()


# ---- damaged files ------------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
def test_truncations(dump, tmp_path, codec):
    path = tmp_path / "t.avro"
    records = manifest_records(12)
    with open(path, "wb") as f:
        w = fastavro.write.Writer(f, fastavro.parse_schema(copy.deepcopy(MANIFEST_V2)), codec=codec,
                                  metadata=dict(ICEBERG_META), sync_interval=1)
        for k, r in enumerate(records):
            w.write(r)
            if k % 4 == 3:
                w.flush()
        w.flush()
    data = path.read_bytes()
    _, full = c_read(dump, path)
    cut = tmp_path / "cut.avro"
    header_end = data.index(data[-16:]) + 16
    # every cut near the end of the header and around each block's sync marker, a sample elsewhere
    syncs = [i for i in range(len(data)) if data[i:i + 16] == data[-16:]]
    near = [n for i in syncs for n in (i - 24, i - 17, i - 16, i - 15, i - 1, i, i + 1, i + 8, i + 15, i + 16, i + 17, i + 18)]
    points = sorted(set(list(range(0, len(data), 61)) + near + [len(data) - 1]) & set(range(len(data))))
    for n in points:
        cut.write_bytes(data[:n])
        p = run_dump(dump, "read", str(cut))
        out = p.stdout.decode().split("\n")[1:-1]
        if p.returncode == 0:
            # only a cut right after a block's sync marker is a valid (shorter) file
            assert data[n - 16:n] == data[-16:], n
            assert full[:len(out)] == out
        else:
            assert "error: INVALID_FILE: Invalid Avro file: " in p.stderr.decode(), (n, p.stderr)
            assert full[:len(out)] == out


@pytest.mark.parametrize("codec", CODECS)
def test_bit_flips(dump, tmp_path, codec):
    path = tmp_path / "f.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, fastavro.parse_schema(copy.deepcopy(NESTED)), nested_records(10), codec=codec)
    data = bytearray(path.read_bytes())
    rnd = random.Random(7)
    bad = tmp_path / "bad.avro"
    for _ in range(80):
        d = bytearray(data)
        for _ in range(rnd.randint(1, 3)):
            i = rnd.randrange(len(d))
            d[i] ^= 1 << rnd.randrange(8)
        bad.write_bytes(bytes(d))
        p = run_dump(dump, "read", str(bad))
        if p.returncode == 1:
            assert "error: " in p.stderr.decode()


def test_snappy_crc_checked(dump, tmp_path):
    path = tmp_path / "s.avro"
    with open(path, "wb") as f:
        fastavro.writer(f, PRIMS, prims_records(5), codec="snappy")
    data = bytearray(path.read_bytes())
    data[-17] ^= 0x01  # last byte of the CRC of the only block
    path.write_bytes(bytes(data))
    p = run_dump(dump, "read", str(path))
    assert p.returncode == 1 and "snappy block CRC mismatch" in p.stderr.decode()


# ---- real Iceberg manifests (pyiceberg) ---------------------------------------------------


def test_pyiceberg_manifests(dump, tmp_path):
    pyiceberg = pytest.importorskip("pyiceberg.catalog.sql")
    pa = pytest.importorskip("pyarrow")
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.schema import Schema
    from pyiceberg.transforms import IdentityTransform
    from pyiceberg.types import LongType, NestedField, StringType, TimestamptzType

    wh = tmp_path / "wh"
    wh.mkdir()
    cat = pyiceberg.SqlCatalog("t", uri="sqlite:///%s/cat.db" % wh, warehouse="file://%s" % wh)
    cat.create_namespace("db")
    schema = Schema(NestedField(1, "id", LongType(), required=False),
                    NestedField(2, "s", StringType(), required=False),
                    NestedField(3, "ts", TimestamptzType(), required=False))
    # identity only: the other transforms need the optional pyiceberg-core package
    spec = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), "s"))
    t = cat.create_table("db.t", schema, partition_spec=spec)
    ts = [datetime.datetime(2024, 1, 1 + k % 5, tzinfo=datetime.timezone.utc) for k in range(40)]
    t.append(pa.table({"id": pa.array(range(40), pa.int64()), "s": ["v%d" % (k % 3) for k in range(40)],
                       "ts": pa.array(ts, pa.timestamp("us", tz="UTC"))}))
    t.append(pa.table({"id": pa.array([100], pa.int64()), "s": ["x"],
                       "ts": pa.array(ts[:1], pa.timestamp("us", tz="UTC"))}))
    files = list(wh.rglob("*.avro"))
    assert len(files) >= 3
    for p in files:
        with open(p, "rb") as f:
            rd = fastavro.reader(f)
            wschema = rd.writer_schema
        with open(p, "rb") as f:
            expected = list(fastavro.reader(f, reader_schema=fastavro.parse_schema(strip_logical(wschema))))
        header, lines = c_read(dump, p)
        assert header["meta"]["format-version"] == "2"
        assert same(json_lines_to_records(wschema, lines), expected), p
        s = json.loads(run_dump(dump, "schema", str(p)).stdout)
        assert all("field-id" in f for f in s["fields"]), p
