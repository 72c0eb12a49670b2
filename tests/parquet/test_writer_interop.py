"""Interop tests of SQE's Parquet writer (src/format/parquet/pq_writer.c, COPY ... TO).

SQE writes files with `sqe sql -e "COPY (...) TO '...'"`; pyarrow and DuckDB read them back and
every value, type, statistic and page index flag is compared with what the SQL computed (the
expected values are computed here in Python with the same formulas).

Run: /work/main/.cache/venv/bin/python -m pytest tests/parquet/test_writer_interop.py
The binary is $SQE_BIN, else build-asan/sqe when it exists, else build/sqe. SQE_PQ_BENCH=1 also
runs the lineitem SF1 write benchmark against DuckDB (needs .cache/tpch/sf1/lineitem.csv; use
a release build for it).
"""

import datetime
import decimal
import glob
import math
import os
import resource
import subprocess
import time
import uuid

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _sqe_binary():
    """$SQE_BIN (relative paths from the current directory, else from the repository root),
    else build-asan/sqe when it exists, else build/sqe (as oracle.py)."""
    b = os.environ.get("SQE_BIN")
    if b:
        if os.path.isabs(b) or os.path.exists(b):
            return os.path.abspath(b)
        return os.path.join(ROOT, b)
    asan = os.path.join(ROOT, "build-asan", "sqe")
    return asan if os.path.exists(asan) else os.path.join(ROOT, "build", "sqe")


SQE = _sqe_binary()
N = 3000
D = decimal.Decimal
decimal.getcontext().prec = 60


def sqe(*statements, check=True):
    args = [SQE, "sql", "--memory", "--bail"]
    for s in statements:
        args += ["-e", s]
    p = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
    if check and p.returncode != 0:
        raise AssertionError("sqe failed: %s\n%s" % (p.stderr, p.stdout))
    return p


def copy(query, path, options=""):
    with_ = " WITH (%s)" % options if options else ""
    return sqe("COPY (%s) TO '%s'%s" % (query, path, with_))


# ---- the all-types table ---------------------------------------------------------------------

UUIDS = ["12151fd2-7586-11e9-8f9e-2a86e4085a59", "00000000-0000-0000-0000-000000000000",
         "ffffffff-ffff-ffff-ffff-ffffffffffff"]

COLUMNS = [
    ("id", "x"),
    ("b", "CASE WHEN x % 11 = 0 THEN NULL ELSE x % 2 = 0 END"),
    ("ti", "CAST(x % 256 - 128 AS tinyint)"),
    ("si", "CAST(x * 7 % 65536 - 32768 AS smallint)"),
    ("i", "CAST(x * 1000003 % 4294967296 - 2147483648 AS integer)"),
    ("bi", "x * 3037000493 - 4611686018427387904"),
    ("r", "CASE WHEN x % 13 = 0 THEN NULL ELSE CAST(x AS real) / 8 END"),
    ("d", "CAST(x AS double) / 3 - 500"),
    ("dec5", "CAST(CAST(x AS decimal(9,2)) * DECIMAL '-0.01' AS decimal(5,2))"),
    ("dec18", "CAST(CAST(x AS decimal(18,4)) * DECIMAL '123456789.1234' AS decimal(18,4))"),
    ("dec38", "CASE WHEN x % 9 = 0 THEN NULL ELSE CAST(CAST(x AS decimal(38,10)) * "
              "DECIMAL '-12345678.1234567891' AS decimal(38,10)) END"),
    ("s", "CASE WHEN x % 17 = 0 THEN NULL WHEN x % 5 = 0 THEN lpad(CAST(x AS varchar), 100, 'é') "
          "ELSE 'str' || CAST(x % 50 AS varchar) END"),
    ("ch", "CAST('c' || CAST(x % 10 AS varchar) AS char(3))"),
    ("vb", "CASE WHEN x % 19 = 0 THEN NULL ELSE to_utf8('bin' || CAST(x AS varchar)) END"),
    ("js", "json_parse('{\"k\":' || CAST(x AS varchar) || '}')"),
    ("dt", "date_add('day', x * 37 - 50000, DATE '2000-01-01')"),
    ("tm", "date_add('second', x * 29, TIME '00:00:00.123456')"),
    ("ts", "date_add('second', x * 3607, TIMESTAMP '1969-12-31 23:00:00.000001')"),
    ("tstz", "date_add('second', x * 3607, TIMESTAMP '1969-12-31 23:00:00.000001 UTC')"),
    ("u", "CAST(CASE x %% 3 WHEN 0 THEN '%s' WHEN 1 THEN '%s' ELSE '%s' END AS uuid)" % tuple(UUIDS)),
    ("arr", "CASE WHEN x % 5 = 0 THEN NULL WHEN x % 5 = 1 THEN CAST(ARRAY[] AS array(integer)) "
            "ELSE ARRAY[CAST(x AS integer), NULL, CAST(x + 1 AS integer)] END"),
    ("arrs", "CASE WHEN x % 4 = 0 THEN ARRAY['a' || CAST(x AS varchar)] ELSE ARRAY['p', NULL] END"),
    ("arr2", "CASE WHEN x % 3 = 0 THEN ARRAY[ARRAY[x], CAST(ARRAY[] AS array(bigint)), NULL] "
             "ELSE NULL END"),
    ("mp", "CASE WHEN x % 6 = 0 THEN NULL WHEN x % 6 = 1 THEN MAP(CAST(ARRAY[] AS array(varchar)), "
           "CAST(ARRAY[] AS array(bigint))) ELSE MAP(ARRAY['a', 'b'], ARRAY[x, NULL]) END"),
    ("rw", "CASE WHEN x % 8 = 0 THEN NULL ELSE CAST(ROW(x, CASE WHEN x % 3 = 0 THEN NULL ELSE "
           "'r' || CAST(x AS varchar) END) AS row(a bigint, b varchar)) END"),
    ("arw", "ARRAY[CAST(ROW(x, 'e') AS row(p bigint, q varchar)), NULL]"),
]

FLAT = ["id", "b", "ti", "si", "i", "bi", "r", "d", "dec5", "dec18", "dec38", "s", "ch", "vb", "js",
        "dt", "tm", "ts", "tstz", "u"]

QUERY = "SELECT %s FROM unnest(sequence(1, %d)) AS t(x)" % (
    ", ".join("%s AS %s" % (expr, name) for name, expr in COLUMNS), N)

EPOCH_TS = datetime.datetime(1969, 12, 31, 23, 0, 0, 1)


def expected_row(x):
    """The row for x as Python values in pyarrow's to_pylist() form."""
    s = None if x % 17 == 0 else ("é" * (100 - len(str(x))) + str(x) if x % 5 == 0 else "str%d" % (x % 50))
    arr = None if x % 5 == 0 else ([] if x % 5 == 1 else [x, None, x + 1])
    mp = None if x % 6 == 0 else ([] if x % 6 == 1 else [("a", x), ("b", None)])
    tm_us = (x * 29 % 86400) * 1000000 + 123456
    return {
        "id": x,
        "b": None if x % 11 == 0 else x % 2 == 0,
        "ti": x % 256 - 128,
        "si": x * 7 % 65536 - 32768,
        "i": x * 1000003 % 4294967296 - 2147483648,
        "bi": x * 3037000493 - 4611686018427387904,
        "r": None if x % 13 == 0 else x / 8,
        "d": x / 3 - 500,
        "dec5": D(x) * D("-0.01"),
        "dec18": (D(x) * D("123456789.1234")).quantize(D("0.0001")),
        "dec38": None if x % 9 == 0 else (D(x) * D("-12345678.1234567891")).quantize(D("1e-10")),
        "s": s,
        "ch": "c%d " % (x % 10),
        "vb": None if x % 19 == 0 else b"bin%d" % x,
        "js": '{"k":%d}' % x,
        "dt": datetime.date(2000, 1, 1) + datetime.timedelta(days=x * 37 - 50000),
        "tm": (datetime.datetime(2000, 1, 1) + datetime.timedelta(microseconds=tm_us)).time(),
        "ts": EPOCH_TS + datetime.timedelta(seconds=x * 3607),
        "tstz": (EPOCH_TS + datetime.timedelta(seconds=x * 3607)).replace(tzinfo=datetime.timezone.utc),
        "u": uuid.UUID(UUIDS[x % 3]),
        "arr": arr,
        "arrs": ["a%d" % x] if x % 4 == 0 else ["p", None],
        "arr2": [[x], [], None] if x % 3 == 0 else None,
        "mp": mp,
        "rw": None if x % 8 == 0 else {"a": x, "b": None if x % 3 == 0 else "r%d" % x},
        "arw": [{"p": x, "q": "e"}, None],
    }


EXPECTED = [expected_row(x) for x in range(1, N + 1)]

CODECS = ["zstd", "snappy", "gzip", "lz4", "lz4_raw", "brotli", "none"]
# pyarrow names the LZ4_RAW codec "LZ4"
PARQUET_CODEC = {"zstd": "ZSTD", "snappy": "SNAPPY", "gzip": "GZIP", "lz4": "LZ4",
                 "lz4_raw": "LZ4", "brotli": "BROTLI", "none": "UNCOMPRESSED"}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """One all-types file per codec (row groups of 1000 rows, pages of at most 300 rows)."""
    d = tmp_path_factory.mktemp("pqw")
    out = {}
    for codec in CODECS:
        path = str(d / ("all_%s.parquet" % codec))
        p = copy(QUERY, path, "compression = '%s', row_group_size = 1000, page_row_limit = 300" % codec)
        assert "(%d rows affected)" % N in p.stdout
        out[codec] = path
    path = str(d / "all_plain.parquet")
    copy(QUERY, path, "dictionary = false, row_group_size = 1000")
    out["plain"] = path
    return out


@pytest.mark.parametrize("codec", CODECS + ["plain"])
def test_pyarrow_values(files, codec):
    t = pq.read_table(files[codec])
    assert t.num_rows == N
    assert t.column_names == [c[0] for c in COLUMNS]
    rows = t.to_pylist()
    for got, want in zip(rows, EXPECTED):
        assert got == want


@pytest.mark.parametrize("codec", CODECS)
def test_codec_and_layout(files, codec):
    md = pq.ParquetFile(files[codec]).metadata
    assert md.num_rows == N
    assert md.num_row_groups == 3
    assert md.created_by.startswith("SQE version ")
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        assert rg.num_rows == 1000
        for c in range(rg.num_columns):
            col = rg.column(c)
            assert col.compression == PARQUET_CODEC[codec]
            assert col.has_offset_index
            assert col.is_stats_set


def test_pyarrow_types(files):
    s = pq.read_schema(files["zstd"])
    want = {
        "id": pa.int64(), "b": pa.bool_(), "ti": pa.int8(), "si": pa.int16(), "i": pa.int32(),
        "bi": pa.int64(), "r": pa.float32(), "d": pa.float64(), "dec5": pa.decimal128(5, 2),
        "dec18": pa.decimal128(18, 4), "dec38": pa.decimal128(38, 10), "s": pa.string(),
        "ch": pa.string(), "vb": pa.binary(), "js": pa.string(), "dt": pa.date32(),
        "tm": pa.time64("us"), "ts": pa.timestamp("us"), "tstz": pa.timestamp("us", tz="UTC"),
        "u": pa.uuid(), "arr": pa.list_(pa.int32()), "arrs": pa.list_(pa.string()),
        "arr2": pa.list_(pa.list_(pa.int64())),
        "rw": pa.struct([("a", pa.int64()), ("b", pa.string())]),
        "arw": pa.list_(pa.struct([("p", pa.int64()), ("q", pa.string())])),
    }
    for name, t in want.items():
        got = s.field(name).type
        if pa.types.is_list(t):
            assert pa.types.is_list(got) and got.value_type == t.value_type, name
        elif hasattr(got, "storage_type") and not hasattr(t, "storage_type"):
            assert got.storage_type == t, name  # pyarrow reads JSON as arrow.json on a string
        else:
            assert got == t, name
    assert pa.types.is_map(s.field("mp").type)
    assert s.field("mp").type.key_type == pa.string() and s.field("mp").type.item_type == pa.int64()
    # logical annotations as written
    sch = pq.ParquetFile(files["zstd"]).schema
    col = {sch.column(i).path: sch.column(i) for i in range(len(sch))}
    assert str(col["js"].logical_type) == "JSON"
    assert str(col["u"].logical_type) == "UUID"
    assert col["u"].physical_type == "FIXED_LEN_BYTE_ARRAY" and col["u"].length == 16
    assert col["dec5"].physical_type == "INT32"
    assert col["dec18"].physical_type == "INT64"
    assert col["dec38"].physical_type == "FIXED_LEN_BYTE_ARRAY" and col["dec38"].length == 16
    assert "isAdjustedToUTC=false" in str(col["ts"].logical_type)
    assert "isAdjustedToUTC=true" in str(col["tstz"].logical_type)
    assert "isAdjustedToUTC=false" in str(col["tm"].logical_type)


def duckdb_rows(path, columns="*"):
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    return con.execute("SELECT %s FROM read_parquet('%s')" % (columns, path)).fetchall()


def duck_expected(row):
    """pyarrow's form -> DuckDB's Python form."""
    out = []
    for name, _ in COLUMNS:
        v = row[name]
        if name == "mp" and v is not None:
            v = dict(v)
        out.append(v)
    return tuple(out)


@pytest.mark.parametrize("codec", CODECS + ["plain"])
def test_duckdb_values(files, codec):
    rows = duckdb_rows(files[codec])
    assert len(rows) == N
    for got, want in zip(rows, EXPECTED):
        assert got == duck_expected(want)


def test_duckdb_types(files):
    con = duckdb.connect()
    types = dict((r[0], r[1]) for r in con.execute(
        "DESCRIBE SELECT * FROM read_parquet('%s')" % files["zstd"]).fetchall())
    assert types["b"] == "BOOLEAN"
    assert types["ti"] == "TINYINT"
    assert types["si"] == "SMALLINT"
    assert types["i"] == "INTEGER"
    assert types["bi"] == "BIGINT"
    assert types["r"] == "FLOAT"
    assert types["d"] == "DOUBLE"
    assert types["dec5"] == "DECIMAL(5,2)"
    assert types["dec18"] == "DECIMAL(18,4)"
    assert types["dec38"] == "DECIMAL(38,10)"
    assert types["s"] == "VARCHAR"
    assert types["vb"] == "BLOB"
    assert types["dt"] == "DATE"
    assert types["tm"] == "TIME"
    assert types["ts"] == "TIMESTAMP"
    assert types["tstz"] == "TIMESTAMP WITH TIME ZONE"
    assert types["u"] == "UUID"
    assert types["arr"] == "INTEGER[]"
    assert types["mp"] == "MAP(VARCHAR, BIGINT)"
    assert types["rw"] == "STRUCT(a BIGINT, b VARCHAR)"


def _key(v):
    return v


@pytest.mark.parametrize("codec", ["zstd", "plain"])
def test_statistics(files, codec):
    """Chunk min/max/null_count of every flat column equal the values of its row group."""
    md = pq.ParquetFile(files[codec]).metadata
    names = [c[0] for c in COLUMNS]
    for g in range(md.num_row_groups):
        rows = EXPECTED[g * 1000:(g + 1) * 1000]
        rg = md.row_group(g)
        for c, name in enumerate(names):
            if name not in FLAT:
                continue
            st = rg.column(c).statistics
            vals = [r[name] for r in rows if r[name] is not None]
            assert st.null_count == len(rows) - len(vals), name
            assert st.has_min_max, name
            if name == "s":
                # strings longer than 64 bytes: truncated bounds that still bracket the values
                enc = sorted(v.encode() for v in vals)
                assert st.min.encode() <= enc[0] and len(st.min.encode()) <= 64
                assert st.max.encode() >= enc[-1] and len(st.max.encode()) <= 64
                continue
            if name == "u":
                assert st.min == min(vals).bytes and st.max == max(vals).bytes
                continue
            if name in ("tstz",):
                vals = [v.replace(tzinfo=None) for v in vals]
                assert st.min.replace(tzinfo=None) == min(vals)
                assert st.max.replace(tzinfo=None) == max(vals)
                continue
            if name == "js":  # pyarrow gives JSON bounds as bytes
                vals = [v.encode() for v in vals]
            assert st.min == min(vals), name
            assert st.max == max(vals), name


def test_page_index_present(files):
    md = pq.ParquetFile(files["zstd"]).metadata
    for g in range(md.num_row_groups):
        for c in range(md.num_columns):
            col = md.row_group(g).column(c)
            assert col.has_column_index and col.has_offset_index


def test_page_index_with_duckdb_filters(files):
    """Filters that prune pages through the page index still return exact results."""
    con = duckdb.connect()
    got = con.execute("SELECT count(*), sum(id) FROM read_parquet('%s') WHERE id BETWEEN 1234 AND 1777"
                      % files["zstd"]).fetchone()
    assert got == (544, sum(range(1234, 1778)))


def test_dictionary_and_fallback(tmp_path):
    path = str(tmp_path / "dict.parquet")
    copy("SELECT x AS uniq, x % 7 AS low, 'v' || CAST(x % 3 AS varchar) AS s, "
         "lpad(CAST(x AS varchar), 40, '#') AS long_uniq FROM unnest(sequence(1, 10000)) AS t(x)", path)
    rg = pq.ParquetFile(path).metadata.row_group(0)
    enc = {rg.column(i).path_in_schema: rg.column(i).encodings for i in range(rg.num_columns)}
    assert "RLE_DICTIONARY" not in enc["uniq"]
    assert "RLE_DICTIONARY" in enc["low"]
    assert "RLE_DICTIONARY" in enc["s"]
    assert "RLE_DICTIONARY" not in enc["long_uniq"]
    assert rg.column(1).has_dictionary_page
    t = pq.read_table(path)
    assert t.column("low").to_pylist() == [x % 7 for x in range(1, 10001)]
    assert t.column("long_uniq").to_pylist() == [str(x).rjust(40, "#") for x in range(1, 10001)]
    # a small dictionary limit makes the low-cardinality string column fall back too
    path2 = str(tmp_path / "dict2.parquet")
    copy("SELECT 'value-' || CAST(x % 2000 AS varchar) AS s FROM unnest(sequence(1, 10000)) AS t(x)",
         path2, "dictionary_page_size = 1000")
    assert "RLE_DICTIONARY" not in pq.ParquetFile(path2).metadata.row_group(0).column(0).encodings
    assert pq.read_table(path2).column("s").to_pylist() == ["value-%d" % (x % 2000) for x in range(1, 10001)]


def test_bloom_filters(tmp_path):
    """Dictionary-encoded chunks get split-block bloom filters that DuckDB probes; unique
    columns (PLAIN) get none."""
    path = str(tmp_path / "bloom.parquet")
    copy("SELECT x % 100 AS k, 'v' || CAST(x % 50 AS varchar) AS s, x AS u, CAST(x % 7 AS integer) AS i "
         "FROM unnest(sequence(1, 10000)) AS t(x)", path, "row_group_size = 5000")
    md = pq.ParquetFile(path).metadata
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        assert rg.column(0).bloom_filter_offset is not None and rg.column(0).bloom_filter_length > 0
        assert rg.column(1).bloom_filter_offset is not None
        assert rg.column(2).bloom_filter_offset is None
    con = duckdb.connect()

    def excluded(col, v):
        return [r[2] for r in con.execute("SELECT * FROM parquet_bloom_probe('%s', '%s', %s)" % (path, col, v)).fetchall()]

    for v in range(100):
        assert excluded("k", v) == [False, False]
    assert excluded("s", "'v7'") == [False, False]
    assert excluded("i", 3) == [False, False]
    absent = sum(sum(excluded("k", v)) for v in range(1000, 1500))
    assert absent > 900  # about 1% false positives
    assert excluded("s", "'v77'") == [True, True] or sum(excluded("s", "'v77'")) >= 1
    nob = str(tmp_path / "nobloom.parquet")
    copy("SELECT x % 100 AS k FROM unnest(sequence(1, 1000)) AS t(x)", nob, "bloom_filter = false")
    assert pq.ParquetFile(nob).metadata.row_group(0).column(0).bloom_filter_offset is None


def test_big_values_and_long_lists(tmp_path):
    """Values larger than a page, and repeated columns whose pages cut at row boundaries."""
    path = str(tmp_path / "bigvals.parquet")
    copy("SELECT x, lpad(CAST(x AS varchar), 200000 + x * 1000, 'abcdefgh') AS s, "
         "sequence(1, x * 300) AS arr, transform(sequence(1, x * 50), e -> CAST(e AS varchar)) AS sarr "
         "FROM unnest(sequence(1, 30)) AS t(x)", path,
         "page_size = 100000, page_row_limit = 7, dictionary = false")
    t = pq.read_table(path).to_pylist()
    for x in range(1, 31):
        r = t[x - 1]
        n = 200000 + x * 1000
        pad = ("abcdefgh" * (n // 8 + 1))[: n - len(str(x))]
        assert r["s"] == pad + str(x)
        assert r["arr"] == list(range(1, x * 300 + 1))
        assert r["sarr"] == [str(e) for e in range(1, x * 50 + 1)]
    assert duckdb_rows(path, "sum(len(arr)), sum(len(s))")[0] == (sum(x * 300 for x in range(1, 31)),
                                                                     sum(200000 + x * 1000 for x in range(1, 31)))
    md = pq.ParquetFile(path).metadata.row_group(0)
    assert md.column(1).has_offset_index and md.column(2).has_offset_index


def test_duplicate_and_unnamed_columns(tmp_path):
    path = str(tmp_path / "names.parquet")
    copy("SELECT 1 AS a, 2 AS a, 3 AS a_1, 4", path)
    assert pq.read_table(path).to_pylist() == [{"a": 1, "a_1": 2, "a_1_1": 3, "_col3": 4}]


def test_float_statistics_nan_and_zero(tmp_path):
    path = str(tmp_path / "f.parquet")
    copy("SELECT CASE WHEN x = 1 THEN nan() WHEN x = 2 THEN -0.0E0 WHEN x = 3 THEN 0.0E0 "
         "ELSE CAST(x AS double) END AS d, CASE WHEN x < 5 THEN nan() ELSE NULL END AS allnan "
         "FROM unnest(sequence(1, 10)) AS t(x)", path)
    md = pq.ParquetFile(path).metadata.row_group(0)
    st = md.column(0).statistics
    assert st.min == 0.0 and math.copysign(1, st.min) == -1.0
    assert st.max == 10.0
    # all-NaN column: no bounds, and no column index (PageIndex rules)
    assert not md.column(1).statistics.has_min_max
    assert not md.column(1).has_column_index
    vals = pq.read_table(path).column("d").to_pylist()
    assert math.isnan(vals[0]) and vals[1:4] == [-0.0, 0.0, 4.0]


def test_string_statistics_truncation(tmp_path):
    path = str(tmp_path / "s.parquet")
    # 70 x 'ü' (2 bytes each), then one long ASCII max ending in '~' + 'z'*80
    copy("SELECT * FROM (VALUES lpad('a', 70, 'ü'), 'b' || lpad('', 80, 'z'), 'abc') AS t(s)", path)
    st = pq.ParquetFile(path).metadata.row_group(0).column(0).statistics
    assert st.has_min_max
    assert st.min == "abc"
    mx = st.max.encode()
    assert len(mx) <= 64 and mx > ("b" + "z" * 80).encode()
    path2 = str(tmp_path / "s2.parquet")
    copy("SELECT lpad('a', 70, 'ü') AS s", path2)
    st = pq.ParquetFile(path2).metadata.row_group(0).column(0).statistics
    mn, mx = st.min.encode(), st.max.encode()  # valid UTF-8 or .encode() would have failed
    assert len(mn) <= 64 and len(mx) <= 64
    v = ("ü" * 69 + "a").encode()
    assert mn <= v <= mx


def test_copy_table_and_duckdb_syntax(tmp_path):
    path = str(tmp_path / "t.parquet")
    sqe("CREATE TABLE t1 (a integer, b varchar)", "INSERT INTO t1 VALUES (1, 'x'), (2, NULL)",
        "COPY t1 TO '%s' (FORMAT parquet, COMPRESSION snappy)" % path)
    assert pq.read_table(path).to_pylist() == [{"a": 1, "b": "x"}, {"a": 2, "b": None}]
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).compression == "SNAPPY"


def test_result_row(tmp_path):
    path = str(tmp_path / "r.parquet")
    p = sqe("COPY (SELECT 1 AS a UNION ALL SELECT 2) TO '%s'" % path)
    assert "(2 rows affected)" in p.stdout


def test_empty_result(tmp_path):
    path = str(tmp_path / "e.parquet")
    copy("SELECT CAST(1 AS integer) AS a, 'x' AS b WHERE false", path)
    t = pq.read_table(path)
    assert t.num_rows == 0 and t.column_names == ["a", "b"]
    assert duckdb_rows(path) == []


def test_many_row_groups_and_byte_limit(tmp_path):
    path = str(tmp_path / "big.parquet")
    q = ("SELECT x * 10000 + y AS k, lpad(CAST(y AS varchar), 30, '-') AS s "
         "FROM unnest(sequence(1, 100)) AS a(x) CROSS JOIN unnest(sequence(1, 1000)) AS b(y)")
    copy(q, path, "row_group_size_bytes = '1MB', compression = 'lz4'")
    md = pq.ParquetFile(path).metadata
    assert md.num_rows == 100000 and md.num_row_groups > 2
    t = pq.read_table(path)
    assert sorted(t.column("k").to_pylist()) == sorted(x * 10000 + y for x in range(1, 101) for y in range(1, 1001))


def test_field_ids_absent_and_names(files):
    sch = pq.ParquetFile(files["zstd"]).schema_arrow
    assert sch.names == [c[0] for c in COLUMNS]


def errors(stderr):
    return stderr.strip()


def test_errors(tmp_path):
    bad = str(tmp_path / "x.parquet")
    p = sqe("COPY (SELECT 1 AS a) TO '%s' WITH (compression = 'lzo')" % bad, check=False)
    assert p.returncode != 0 and "22023" in p.stderr and "compression" in p.stderr
    p = sqe("COPY (SELECT 1 AS a) TO '%s' WITH (nosuch = 1)" % bad, check=False)
    assert "22023" in p.stderr and "nosuch" in p.stderr
    p = sqe("COPY (SELECT 1 AS a) TO '%s' WITH (row_group_size = 0)" % bad, check=False)
    assert "22023" in p.stderr and "row_group_size" in p.stderr
    p = sqe("COPY (SELECT 1 AS a) TO '%s'" % str(tmp_path / "x.csv"), check=False)
    assert "0A000" in p.stderr
    p = sqe("COPY (SELECT 1 AS a) TO '%s' WITH (format = 'csv')" % bad, check=False)
    assert "0A000" in p.stderr
    p = sqe("COPY (SELECT INTERVAL '1' DAY AS iv) TO '%s'" % bad, check=False)
    assert "0A000" in p.stderr and "unsupported" in p.stderr
    p = sqe("COPY (SELECT 1 AS a) TO '%s'" % str(tmp_path / "no" / "such" / "dir.parquet"), check=False)
    assert "58030" in p.stderr
    p = sqe("COPY no_such_table TO '%s'" % bad, check=False)
    assert p.returncode != 0
    assert not os.path.exists(bad)
    assert glob.glob(str(tmp_path / "*tmp-*")) == []


def test_failed_query_leaves_no_file(tmp_path):
    path = str(tmp_path / "fail.parquet")
    p = sqe("COPY (SELECT 10 / (x - 5000) AS v FROM unnest(sequence(1, 10000)) AS t(x)) TO '%s'" % path,
            check=False)
    assert p.returncode != 0 and "22012" in p.stderr
    assert not os.path.exists(path)
    assert glob.glob(str(tmp_path / "*")) == []


def test_overwrite_is_atomic(tmp_path):
    path = str(tmp_path / "o.parquet")
    copy("SELECT 1 AS a", path)
    # an existing file is kept unless the statement asks to replace it
    p = sqe("COPY (SELECT 2 AS a) TO '%s'" % path, check=False)
    assert p.returncode != 0 and "overwrite = true" in p.stderr, p.stderr
    assert pq.read_table(path).to_pylist() == [{"a": 1}]
    copy("SELECT 2 AS a", path, "overwrite = true")
    assert pq.read_table(path).to_pylist() == [{"a": 2}]
    assert glob.glob(str(tmp_path / "*tmp-*")) == []


@pytest.mark.skipif(not os.environ.get("SQE_PQ_BENCH"), reason="set SQE_PQ_BENCH=1")
def test_lineitem_benchmark(tmp_path):
    csv = os.path.join(ROOT, ".cache", "tpch", "sf1", "lineitem.csv")
    if not os.path.exists(csv):
        pytest.skip("no lineitem SF1")
    ours = str(tmp_path / "sqe.parquet")
    theirs = str(tmp_path / "duck.parquet")
    load = "CREATE TABLE li AS SELECT * FROM read_csv('%s')" % csv

    def run(args):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.time()
        subprocess.run(args, check=True, capture_output=True, cwd=ROOT)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        return time.time() - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

    base = run([SQE, "sql", "--memory", "--threads", "2", "-e", load])
    full = run([SQE, "sql", "--memory", "--threads", "2", "-e", load, "-e",
                "COPY li TO '%s' WITH (compression = 'zstd')" % ours])
    con = duckdb.connect()
    con.execute("SET threads = 2")
    con.execute("CREATE TABLE li AS SELECT * FROM read_csv('%s')" % csv)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.time()
    con.execute("COPY li TO '%s' (FORMAT parquet, COMPRESSION zstd)" % theirs)
    duck = (time.time() - t0,
            resource.getrusage(resource.RUSAGE_SELF).ru_utime - r0.ru_utime +
            resource.getrusage(resource.RUSAGE_SELF).ru_stime - r0.ru_stime)
    print("\nSQE COPY lineitem: wall %.2f s, cpu %.2f s, %d bytes" % (
        full[0] - base[0], full[1] - base[1], os.path.getsize(ours)))
    print("DuckDB COPY lineitem: wall %.2f s, cpu %.2f s, %d bytes" % (duck[0], duck[1], os.path.getsize(theirs)))
    assert pq.ParquetFile(ours).metadata.num_rows == 6001215
