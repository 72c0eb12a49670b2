"""Generated Parquet files, written by pyarrow and by DuckDB, read back by SQE and compared with
pyarrow's reading of the same file (oracle.compare_file).

pyarrow writes one "wide" table holding every type of SQE's mapping (all integer widths and
unsigned ones, float16/32/64 with NaN, infinities and -0.0, decimals as integers and as
fixed-length arrays, strings, binary, UUID, JSON, dates, times, timestamps with and without
time zone, dictionary and null columns) and nested columns (lists, large and fixed-size lists,
lists of lists, maps with varchar and bigint keys, structs, lists of structs, structs of
structs) with NULLs at every level and empty lists, under:
  - each encoding (PLAIN, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY,
    BYTE_STREAM_SPLIT, RLE booleans) chosen per leaf by physical type, data pages v1 and v2;
  - dictionary encoding, also with a dictionary page limit small enough to fall back to PLAIN;
  - every codec (none, snappy, gzip, zstd, lz4 = LZ4_RAW, brotli) with data pages v1 and v2;
  - small data pages (columns span many pages), several row groups, INT96 timestamps,
    Parquet format 1.0, no stored Arrow schema, zero rows, odd column names.
DuckDB writes its own main types with each codec and PARQUET_VERSION V2.

Files go to a temporary folder; SQE runs two at a time (SQE_TEST_JOBS).
"""
import datetime as dt
import math
import os
import random
import uuid
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import oracle

ROWS = 1000        # the wide table of the encoding and layout files
CODEC_ROWS = 300   # the wide table of the codec files
TIMEOUT = 120


# ---- the wide table ---------------------------------------------------------------------------

def with_nulls(rng, values, rate=0.1):
    return [None if rng.random() < rate else v for v in values]


def edge_then_random(edges, gen, rng, n):
    return list(edges) + [gen(rng) for _ in range(n - len(edges))]


STRINGS = ["", "a", "plain text", "it's", 'quote " backslash \\', "tab\tnewline\n",
           "é ü 中文 😀",
           "NULL", "[x, y]", "k=v", "{z}", " leading and trailing "]


def rand_string(rng):
    return "".join(rng.choice("abcdefghij XYZ_-éß中") for _ in range(rng.randint(0, 12)))


def rand_float(rng):
    return rng.choice([rng.uniform(-1e6, 1e6), rng.uniform(-1, 1),
                       rng.random() * 10 ** rng.randint(-40, 30)])


def scalar_columns(rng, n):
    """name -> pa.Array (n rows) for every scalar type of the mapping."""
    cols = {}
    cols["bool"] = pa.array(with_nulls(rng, [rng.random() < 0.5 for _ in range(n)]), pa.bool_())
    for name, t, lo, hi in [("i8", pa.int8(), -128, 127), ("i16", pa.int16(), -2**15, 2**15 - 1),
                            ("i32", pa.int32(), -2**31, 2**31 - 1),
                            ("i64", pa.int64(), -2**63, 2**63 - 1),
                            ("u8", pa.uint8(), 0, 255), ("u16", pa.uint16(), 0, 2**16 - 1),
                            ("u32", pa.uint32(), 0, 2**32 - 1), ("u64", pa.uint64(), 0, 2**64 - 1)]:
        vals = edge_then_random([lo, hi, 0, 1], lambda r: r.randint(lo, hi), rng, n)
        # runs of equal and slowly growing values exercise RLE and delta bit widths
        vals[100:300] = [min(hi, max(lo, 7 + i // 10)) for i in range(200)]
        cols[name] = pa.array(with_nulls(rng, vals), t)
    specials = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.5, 1e-45, 3.4028234e38,
                1.17549435e-38, 0.1]
    cols["f16"] = pa.array(with_nulls(rng, edge_then_random(
        [0.0, -0.0, math.inf, -math.inf, math.nan, 65504.0, 5.960464477539063e-08, 1.5],
        lambda r: r.uniform(-1000, 1000), rng, n)), pa.float16())
    cols["f32"] = pa.array(with_nulls(rng, edge_then_random(specials, rand_float, rng, n)),
                           pa.float32())
    cols["f64"] = pa.array(with_nulls(rng, edge_then_random(
        specials + [5e-324, 1.7976931348623157e308, 2.0**53 + 1], rand_float, rng, n)),
        pa.float64())
    for name, p, s in [("dec_5_2", 5, 2), ("dec_9_0", 9, 0), ("dec_18_4", 18, 4),
                       ("dec_25_2", 25, 2), ("dec_38_10", 38, 10), ("dec_38_38", 38, 38)]:
        top = 10 ** p - 1
        vals = edge_then_random([top, -top, 0, 1, -1], lambda r: r.randint(-top, top), rng, n)
        cols[name] = pa.array(with_nulls(rng, [Decimal(f"{v}E-{s}") for v in vals]),
                              pa.decimal128(p, s))
    cols["str"] = pa.array(with_nulls(rng, edge_then_random(STRINGS, rand_string, rng, n)),
                           pa.string())
    cols["large_str"] = pa.array(with_nulls(rng, edge_then_random(["", "x"], rand_string, rng, n)),
                                 pa.large_string())
    cols["bin"] = pa.array(with_nulls(rng, edge_then_random(
        [b"", b"\x00", bytes(range(256))],
        lambda r: bytes(r.randrange(256) for _ in range(r.randint(0, 9))), rng, n)),
        pa.binary())
    cols["large_bin"] = pa.array(with_nulls(rng, [bytes([i % 256]) * (i % 5) for i in range(n)]),
                                 pa.large_binary())
    cols["fixed_bin"] = pa.array(with_nulls(rng, [bytes((i + k) % 256 for k in range(5))
                                                  for i in range(n)]), pa.binary(5))
    cols["uuid"] = pa.array(with_nulls(rng, [uuid.UUID(int=rng.getrandbits(128)).bytes
                                             for _ in range(n)]), pa.uuid())
    cols["json"] = pa.array(with_nulls(rng, edge_then_random(
        ['{"a": 1, "b": [true, null]}', "[]", '"s"', "3.5", "null"],
        lambda r: f'{{"k": {r.randint(0, 99)}, "s": "x, y]"}}', rng, n)), pa.json_())
    days = edge_then_random([0, -1, -719528, 2932896, -1000000, 3000000],
                            lambda r: r.randint(-50000, 50000), rng, n)
    cols["date"] = pa.array(with_nulls(rng, days), pa.int32()).cast(pa.date32())
    cols["time_ms"] = pa.array(with_nulls(rng, edge_then_random(
        [0, 86399999], lambda r: r.randrange(86400000), rng, n)), pa.time32("ms"))
    cols["time_us"] = pa.array(with_nulls(rng, edge_then_random(
        [0, 86399999999], lambda r: r.randrange(86400000000), rng, n)), pa.time64("us"))
    cols["time_ns"] = pa.array(with_nulls(rng, edge_then_random(
        [0, 999, 86399999999999], lambda r: r.randrange(86400000000000), rng, n)), pa.time64("ns"))
    for unit, scale in (("ms", 10**3), ("us", 10**6), ("ns", 10**9)):
        span = 10**10 * scale if unit != "ns" else 2**62
        edges = [0, -1, 1, -scale * 86400 * 365 * 3000 if unit != "ns" else -2**62, span // 3]
        vals = edge_then_random(edges, lambda r: r.randint(-span, span), rng, n)
        raw = pa.array(with_nulls(rng, vals), pa.int64())
        cols[f"ts_{unit}"] = raw.cast(pa.timestamp(unit))
        cols[f"tstz_{unit}"] = raw.cast(pa.timestamp(unit, tz="UTC"))
    cols["tstz_ny"] = cols["ts_us"].cast(pa.int64()).cast(pa.timestamp("us", tz="America/New_York"))
    cols["dict_str"] = pa.array(with_nulls(rng, [f"v{i % 7}" for i in range(n)])) \
        .dictionary_encode()
    cols["all_null"] = pa.nulls(n)
    return cols


def rand_list(rng, gen, max_len=4, null_rate=0.1, elem_null_rate=0.15):
    if rng.random() < null_rate:
        return None
    return [None if rng.random() < elem_null_rate else gen(rng)
            for _ in range(rng.randint(0, max_len))]


def nested_columns(rng, n):
    ints = lambda r: r.randint(-1000, 1000)  # noqa: E731
    cols = {}
    cols["list_i32"] = pa.array([[], None, [None], [1, None, 3]] + [
        rand_list(rng, ints) for _ in range(n - 4)], pa.list_(pa.int32()))
    cols["list_str"] = pa.array([rand_list(rng, lambda r: r.choice(STRINGS[:8]) if r.random()
                                           < 0.2 else rand_string(r)) for _ in range(n)],
                                pa.list_(pa.string()))
    cols["large_list_i64"] = pa.array([rand_list(rng, lambda r: r.getrandbits(63))
                                       for _ in range(n)], pa.large_list(pa.int64()))
    cols["fixed_list_f64"] = pa.array([None if rng.random() < 0.1 else
                                       [None if rng.random() < 0.1 else rng.uniform(-9, 9)
                                        for _ in range(3)] for _ in range(n)],
                                      pa.list_(pa.float64(), 3))
    cols["list_list"] = pa.array([[[]], [None], None, [[None, 1]]] + [
        rand_list(rng, lambda r: rand_list(r, ints)) for _ in range(n - 4)],
        pa.list_(pa.list_(pa.int32())))

    def str_map(r):
        if r.random() < 0.1:
            return None
        keys = r.sample(["a", "b", "c", "key d", "e"], r.randint(0, 4))
        return [(k, None if r.random() < 0.2 else r.randint(0, 99)) for k in keys]
    cols["map_str_i32"] = pa.array([str_map(rng) for _ in range(n)],
                                   pa.map_(pa.string(), pa.int32()))

    def int_map(r):
        if r.random() < 0.1:
            return None
        keys = r.sample(range(-50, 50), r.randint(0, 3))
        return [(k, None if r.random() < 0.2 else rand_string(r)) for k in keys]
    cols["map_i64_str"] = pa.array([int_map(rng) for _ in range(n)],
                                   pa.map_(pa.int64(), pa.string()))
    inner = pa.struct([("a", pa.int32()), ("b", pa.string()), ("c", pa.list_(pa.int16()))])

    def inner_val(r):
        if r.random() < 0.1:
            return None
        return {"a": None if r.random() < 0.2 else r.randint(-9, 9),
                "b": None if r.random() < 0.2 else rand_string(r),
                "c": rand_list(r, lambda q: q.randint(-100, 100))}
    cols["struct"] = pa.array([inner_val(rng) for _ in range(n)], inner)
    point = pa.struct([("x", pa.float64()), ("y", pa.date32())])
    cols["list_struct"] = pa.array([rand_list(rng, lambda r: {
        "x": r.uniform(0, 1), "y": None if r.random() < 0.3 else r.randint(0, 9999)})
        for _ in range(n)], pa.list_(point))
    deep = pa.struct([("inner", pa.struct([("z", pa.bool_()), ("w", pa.decimal128(10, 3))])),
                      ("t", pa.timestamp("us"))])
    cols["struct_struct"] = pa.array([None if rng.random() < 0.1 else {
        "inner": None if rng.random() < 0.2 else {
            "z": rng.random() < 0.5, "w": Decimal(f"{rng.randint(-10**9, 10**9)}E-3")},
        "t": rng.randint(-10**15, 10**15)} for _ in range(n)], deep)
    cols["map_str_list_struct"] = pa.array([None if rng.random() < 0.1 else [
        (k, rand_list(rng, lambda r: {"x": r.uniform(0, 1), "y": r.randint(0, 9999)}))
        for k in rng.sample(["p", "q", "r"], rng.randint(0, 2))] for _ in range(n)],
        pa.map_(pa.string(), pa.list_(point)))
    return cols


def wide_table(seed=20240601, nested=True, rows=ROWS):
    rng = random.Random(seed)
    cols = scalar_columns(rng, rows)
    if nested:
        cols.update(nested_columns(rng, rows))
    return pa.table(cols)


# ---- encodings per leaf -----------------------------------------------------------------------

def leaves(name, atype):
    """(Parquet dotted path, Arrow leaf type) of every leaf below a column, as pyarrow names
    them."""
    t = pa.types
    if isinstance(atype, pa.BaseExtensionType):
        yield name, atype
    elif t.is_dictionary(atype):
        yield name, atype.value_type
    elif t.is_list(atype) or t.is_large_list(atype) or t.is_fixed_size_list(atype):
        yield from leaves(f"{name}.list.element", atype.value_type)
    elif t.is_map(atype):
        yield from leaves(f"{name}.key_value.key", atype.key_type)
        yield from leaves(f"{name}.key_value.value", atype.item_type)
    elif t.is_struct(atype):
        for i in range(atype.num_fields):
            f = atype.field(i)
            yield from leaves(f"{name}.{f.name}", f.type)
    else:
        yield name, atype


def physical(atype, decimals_as_int):
    t = pa.types
    if isinstance(atype, pa.BaseExtensionType):
        return "FLBA" if atype.extension_name == "arrow.uuid" else "BYTE_ARRAY"
    if t.is_boolean(atype):
        return "BOOLEAN"
    if t.is_null(atype):
        return "NULL"
    if t.is_float16(atype) or t.is_fixed_size_binary(atype):
        return "FLBA"
    if t.is_floating(atype):
        return "FLOAT"
    if t.is_decimal(atype):
        if decimals_as_int and atype.precision <= 18:
            return "INT"
        return "FLBA"
    if t.is_string(atype) or t.is_large_string(atype) or t.is_binary(atype) or \
            t.is_large_binary(atype):
        return "BYTE_ARRAY"
    return "INT"


ENCODING_PLANS = {
    "plain": {"INT": "PLAIN", "FLOAT": "PLAIN", "BYTE_ARRAY": "PLAIN", "FLBA": "PLAIN",
              "BOOLEAN": "PLAIN"},
    "delta": {"INT": "DELTA_BINARY_PACKED", "BYTE_ARRAY": "DELTA_LENGTH_BYTE_ARRAY",
              "FLBA": "DELTA_BYTE_ARRAY", "FLOAT": "BYTE_STREAM_SPLIT", "BOOLEAN": "RLE"},
    "delta_byte_array": {"INT": "DELTA_BINARY_PACKED", "BYTE_ARRAY": "DELTA_BYTE_ARRAY",
                         "FLBA": "DELTA_BYTE_ARRAY"},
    "byte_stream_split": {"INT": "BYTE_STREAM_SPLIT", "FLOAT": "BYTE_STREAM_SPLIT",
                          "FLBA": "BYTE_STREAM_SPLIT"},
}


def column_encoding(table, plan, decimals_as_int):
    out = {}
    for f in table.schema:
        if pa.types.is_dictionary(f.type):
            continue   # pyarrow cannot read non-dictionary encodings back into a dictionary
        for path, leaf in leaves(f.name, f.type):
            enc = ENCODING_PLANS[plan].get(physical(leaf, decimals_as_int))
            if enc:
                out[path] = enc
    return out


# ---- the files --------------------------------------------------------------------------------

def pyarrow_files(folder):
    """{name: path} of every pyarrow-written file."""
    files = {}
    table = wide_table()

    def write(name, tbl=table, **kw):
        path = folder / f"{name}.parquet"
        kw.setdefault("data_page_size", 2048)
        kw.setdefault("row_group_size", ROWS * 2)
        pq.write_table(tbl, path, **kw)
        files[name] = path

    for plan in ENCODING_PLANS:
        for version in ("1.0", "2.0"):
            as_int = plan == "delta"
            write(f"enc_{plan}_v{version[0]}", use_dictionary=False, data_page_version=version,
                  store_decimal_as_integer=as_int,
                  column_encoding=column_encoding(table, plan, as_int))
    for version in ("1.0", "2.0"):
        write(f"dictionary_v{version[0]}", use_dictionary=True, data_page_version=version)
        write(f"dictionary_fallback_v{version[0]}", use_dictionary=True,
              dictionary_pagesize_limit=256, data_page_version=version)
    small = wide_table(seed=7, rows=CODEC_ROWS)
    for codec in ("none", "snappy", "gzip", "zstd", "lz4", "brotli"):
        for version in ("1.0", "2.0"):
            write(f"codec_{codec}_v{version[0]}", small, compression=codec,
                  data_page_version=version, data_page_size=1024)
    write("tiny_pages", data_page_size=64, write_batch_size=16, compression="snappy")
    write("row_groups", row_group_size=250, data_page_size=512)
    write("row_groups_v2", row_group_size=333, data_page_version="2.0", compression="zstd")
    write("format_1_0", version="1.0", coerce_timestamps="us", allow_truncated_timestamps=True)
    write("no_arrow_schema", store_schema=False)
    write("statistics_off_page_index", write_statistics=False, write_page_index=True)
    int96 = pa.table({"ts_ns": table.column("ts_ns"), "ts_us": table.column("ts_us"),
                      "id": pa.array(range(ROWS), pa.int32())})
    write("int96", int96, use_deprecated_int96_timestamps=True)
    write("empty", table.slice(0, 0))
    write("one_row", table.slice(7, 1))
    odd = pa.table({"a b": [1, 2], "x.y": ["p", "q"], 'q"uote': [True, None], "Mixed": [1.5, 2.5],
                    "ünï": [b"\x01", None], "_1": pa.array([[1], []], pa.list_(pa.int8()))})
    write("odd_names", odd)
    write("only_nulls", pa.table({"n": pa.nulls(10), "s": pa.array([None] * 10, pa.string()),
                                  "l": pa.array([None] * 10, pa.list_(pa.int32()))}))
    deep = pa.array([[[[[1]]]], [[[[]]]], [[[None]]], None],
                    pa.list_(pa.list_(pa.list_(pa.list_(pa.int32())))))
    write("deep_nesting", pa.table({"d": deep}))
    long_strings = pa.array(["x" * 100000, "", None, "é" * 50000], pa.string())
    write("long_strings", pa.table({"s": long_strings}))
    return files


DUCKDB_SELECT = """
SELECT i::INTEGER AS id,
  CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 = 0 END AS b,
  (i % 256 - 128)::TINYINT AS ti, (i * 37 % 65536 - 32768)::SMALLINT AS si,
  CASE WHEN i % 11 = 0 THEN NULL ELSE i * 104729 END::BIGINT AS bi,
  (i % 256)::UTINYINT AS uti, (i * 7 % 65536)::USMALLINT AS usi, (i * 1000003)::UINTEGER AS ui,
  (i * 1000000007 * 1000)::UBIGINT AS ubi,
  CASE WHEN i % 5 = 0 THEN NULL ELSE (i * 1.5 - 700)::FLOAT END AS f,
  CASE WHEN i = 3 THEN 'NaN'::DOUBLE WHEN i = 4 THEN '-Infinity'::DOUBLE
       ELSE i / 7.0 END::DOUBLE AS d,
  (i * 12.34 - 5000)::DECIMAL(10,2) AS dec10, (i * 98765.4321)::DECIMAL(18,4) AS dec18,
  (i::DECIMAL(38,10) * 1234567890.0123456789) AS dec38,
  CASE WHEN i % 9 = 0 THEN NULL ELSE 'str ' || i || repeat('é', i % 4) END AS s,
  CASE WHEN i % 5 = 0 THEN NULL ELSE ('x' || i)::BLOB END AS blob,
  DATE '2020-01-01' + (i * 37 - 50000)::INTEGER AS dt,
  TIME '00:00:00' + INTERVAL (i * 17) SECOND AS tm,
  TIMESTAMP '2020-01-01' + INTERVAL (i * 7919 - 4000000) MINUTE AS ts,
  (TIMESTAMP '1960-01-01 00:00:00.123' + INTERVAL (i * 1234567) MILLISECOND)::TIMESTAMP_MS AS ts_ms,
  (TIMESTAMP '1969-12-31 23:59:59' + INTERVAL (i * 1234567) MICROSECOND)::TIMESTAMP_NS AS ts_ns,
  (TIMESTAMP '2000-01-01' + INTERVAL (i * 3600) SECOND)::TIMESTAMPTZ AS tstz,
  md5(i::VARCHAR)::UUID AS u,
  CASE WHEN i % 3 = 0 THEN [] WHEN i % 13 = 0 THEN NULL ELSE [i, NULL, i + 1] END AS lst,
  CASE WHEN i % 4 = 0 THEN NULL ELSE ['a' || i, NULL, 'b'] END AS lst_s,
  CASE WHEN i % 6 = 0 THEN NULL ELSE {'a': i, 'b': 's' || i, 'c': [i % 3]} END AS st,
  CASE WHEN i % 8 = 0 THEN NULL ELSE MAP {'k' || i: i, 'z': NULL} END AS m,
  [{'x': i, 'y': [i, i]}, NULL] AS lst_st
FROM range(0, {rows}) t(i)
"""


def duckdb_files(folder):
    import duckdb
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    files = {}
    select = DUCKDB_SELECT.replace("{rows}", str(ROWS))
    for codec in ("uncompressed", "snappy", "gzip", "zstd", "lz4", "brotli"):
        path = folder / f"duckdb_{codec}.parquet"
        con.execute(f"COPY ({select}) TO '{path}' (FORMAT parquet, COMPRESSION {codec}, "
                    "ROW_GROUP_SIZE 100000)")
        files[f"duckdb_{codec}"] = path
    path = folder / "duckdb_v2.parquet"
    con.execute(f"COPY ({select}) TO '{path}' (FORMAT parquet, PARQUET_VERSION V2, "
                "COMPRESSION zstd)")
    files["duckdb_v2"] = path
    path = folder / "duckdb_row_groups.parquet"
    con.execute(f"COPY ({select}) TO '{path}' (FORMAT parquet, ROW_GROUP_SIZE 300)")
    files["duckdb_row_groups"] = path
    return files


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("roundtrip")
    files = pyarrow_files(folder)
    files.update(duckdb_files(folder))
    return files


@pytest.fixture(scope="module")
def outcomes(generated, request):
    """Futures of the comparisons of the selected files, two SQE processes at a time."""
    selected = {item.callspec.params["name"] for item in request.session.items
                if item.module.__name__ == __name__ and hasattr(item, "callspec")
                and "name" in item.callspec.params}
    pool = ThreadPoolExecutor(int(os.environ.get("SQE_TEST_JOBS", "2")))
    futures = {name: pool.submit(oracle.compare_file, path, timeout=TIMEOUT,
                                 duckdb_fallback=False)
               for name, path in generated.items() if name in selected}
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


PYARROW_NAMES = (
    [f"enc_{plan}_v{v}" for plan in ENCODING_PLANS for v in (1, 2)]
    + [f"dictionary{f}_v{v}" for f in ("", "_fallback") for v in (1, 2)]
    + [f"codec_{c}_v{v}" for c in ("none", "snappy", "gzip", "zstd", "lz4", "brotli")
       for v in (1, 2)]
    + ["tiny_pages", "row_groups", "row_groups_v2", "format_1_0", "no_arrow_schema",
       "statistics_off_page_index", "int96", "empty", "one_row", "odd_names", "only_nulls",
       "deep_nesting", "long_strings"])
DUCKDB_NAMES = [f"duckdb_{c}" for c in ("uncompressed", "snappy", "gzip", "zstd", "lz4",
                                        "brotli")] + ["duckdb_v2", "duckdb_row_groups"]


def test_generated_names_match(generated):
    assert sorted(generated) == sorted(PYARROW_NAMES + DUCKDB_NAMES)


@pytest.mark.parametrize("name", PYARROW_NAMES + DUCKDB_NAMES)
def test_roundtrip(name, outcomes):
    outcome = outcomes[name].result()
    if outcome.status != "match":
        pytest.fail(f"{name}: {outcome}", pytrace=False)


def test_encodings_were_used(generated):
    """The files hold the encodings and codecs they are named for (a check of the suite)."""
    def encodings(path):
        md = pq.ParquetFile(path).metadata
        return {e for g in range(md.num_row_groups) for c in range(md.num_columns)
                for e in md.row_group(g).column(c).encodings}
    assert {"DELTA_BINARY_PACKED", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
            "BYTE_STREAM_SPLIT"} <= encodings(generated["enc_delta_v2"])
    assert "DELTA_BYTE_ARRAY" in encodings(generated["enc_delta_byte_array_v1"])
    assert "BYTE_STREAM_SPLIT" in encodings(generated["enc_byte_stream_split_v2"])
    fallback = encodings(generated["dictionary_fallback_v1"])
    assert {"PLAIN", "RLE_DICTIONARY"} <= fallback or {"PLAIN", "PLAIN_DICTIONARY"} <= fallback
    md = pq.ParquetFile(generated["tiny_pages"]).metadata
    assert md.num_row_groups == 1
    assert pq.ParquetFile(generated["row_groups"]).metadata.num_row_groups >= 4
    codec = pq.ParquetFile(generated["codec_lz4_v1"]).metadata.row_group(0).column(0).compression
    assert codec in ("LZ4_RAW", "LZ4")


# ---- other ways to name the files -------------------------------------------------------------

def test_path_as_table_equals_read_parquet(generated):
    path = generated["codec_snappy_v1"]
    direct = oracle.sqe_read(path, sql=f"SELECT * FROM {oracle.sql_string(str(path))}")
    via_function = oracle.sqe_read(path)
    assert direct.error is None, direct.error
    assert direct.types == via_function.types
    assert direct.rows == via_function.rows


def test_glob_reads_every_file(tmp_path):
    parts = [pa.table({"k": pa.array(range(i * 10, i * 10 + 10), pa.int64()),
                       "s": [f"file{i}"] * 10}) for i in range(3)]
    for i, part in enumerate(parts):
        pq.write_table(part, tmp_path / f"part-{i}.parquet")
    (tmp_path / "not-parquet.txt").write_text("ignored by the glob")
    read = oracle.sqe_read(None, sql="SELECT * FROM read_parquet("
                           f"{oracle.sql_string(str(tmp_path / '*.parquet'))})")
    assert read.error is None, read.error
    got = sorted((dict(r)["k"], dict(r)["s"]) for r in read.rows)
    want = sorted((k, s) for part in parts for k, s in zip(part.column("k").to_pylist(),
                                                           part.column("s").to_pylist()))
    assert got == want


def test_file_order_with_default_threads(generated):
    """A plain SELECT * of one file returns the rows in file order also when row groups are read
    by several threads (the other tests run SQE with --threads 1)."""
    for name in ("row_groups", "duckdb_row_groups"):
        outcome = oracle.compare_file(generated[name], timeout=TIMEOUT, duckdb_fallback=False,
                                      threads=None)
        if outcome.status != "match":
            pytest.fail(f"{name} with the default thread count: {outcome}", pytrace=False)


def test_missing_file_is_a_clear_error(tmp_path):
    read = oracle.sqe_read(tmp_path / "nope.parquet", with_types=False)
    assert read.run.health_problem() is None
    assert read.rows is None and oracle.has_sqlstate(read.error), read.error


@pytest.mark.xfail(strict=True, reason="the reader keeps NUL bytes, but the sqe CLI passes cell text "
                   "as C strings and cuts it at the first NUL (src/cli/run.c, output.c); "
                   "tracked as its own issue")
def test_strings_with_nul_bytes(tmp_path):
    """Strings holding U+0000 must come out whole (SQE's CLI cuts cells at the first NUL byte
    today: sqe_chunk_format's text goes through C strings in src/cli/run.c)."""
    path = tmp_path / "nul.parquet"
    pq.write_table(pa.table({"s": ["a\x00b", "\x00", "plain"],
                             "l": pa.array([["x\x00y"], [], None], pa.list_(pa.string()))}), path)
    outcome = oracle.compare_file(path)
    if outcome.status != "match":
        pytest.fail(str(outcome), pytrace=False)


def test_wide_table_covers_the_mapping():
    """Every Arrow type of the mapping appears in the generated table (a check of the suite)."""
    kinds = {oracle.sqe_type_of(f.type).kind for f in wide_table(nested=True).schema}
    assert kinds >= {"boolean", "tinyint", "smallint", "integer", "bigint", "real", "double",
                     "decimal", "varchar", "varbinary", "json", "uuid", "date", "time",
                     "timestamp", "timestamptz", "array", "map", "row", "null"}
    assert dt.date(1970, 1, 1) + dt.timedelta(days=2932896) == dt.date(9999, 12, 31)
