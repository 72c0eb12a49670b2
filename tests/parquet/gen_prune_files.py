#!/usr/bin/env python3
"""Writes the Parquet files and expectations used by tests/unit/test_parquet_prune.c.

Usage: gen_prune_files.py OUT_DIR

Files (all deterministic):
  pa_types.parquet      pyarrow: 3 row groups of 1000 rows, pages of exactly 100 rows
                        (max_rows_per_page), statistics, page index, bloom filters on most
                        columns; one column per type family and pruning trap (signed/unsigned
                        ints crossing the sign bit, NaN and -0.0, non-ASCII strings, negative
                        decimals in FIXED_LEN_BYTE_ARRAY, UUIDs with high bytes, millisecond and
                        nanosecond timestamps before 1970, FLOAT16, all-NULL row groups and
                        NULL pages).
  duckdb_bloom.parquet  DuckDB: 3 row groups of 2048 rows, dictionary-encoded columns with
                        bloom filters; each row group holds a different residue class, so
                        equality constants fall inside every row group's min/max but are
                        absent from two of them.
  <file>.expect         one predicate per line with its ground truth, computed here in SQE
                        value space (the values the engine reads: timestamps as floored
                        microseconds, decimals unscaled, unsigned ints widened):

    P <file> <column> <op> <n> <const>... rg=<bit per row group> pg=<bits>/<bits>/... [exact]

  op is EQ LT LE GT GE IN ISNULL NOTNULL. A constant is i:<integer>, f:<float.hex()> or
  f:nan, or x:<hex bytes> (strings, binaries, UUIDs). rg has 1 where some row of the row group
  satisfies the predicate; pg has, per row group, one bit per 100-row block (= page) with the
  same meaning, or "-" when the file has no page index. "exact" marks predicates over dense
  sorted columns, where statistics and the page index prune exactly the groups/pages with 0.
"""
import decimal
import math
import os
import random
import sys
import uuid

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

decimal.getcontext().prec = 80

N = 3000
RG_ROWS = 1000
PAGE_ROWS = 100

# ---- pyarrow file -------------------------------------------------------------------------

def pa_columns():
    """name -> (pyarrow array, bloom filter wanted)."""
    r = random.Random(42)
    cols = {}

    def add(name, arr, bloom=True):
        cols[name] = (arr, bloom)

    # Dense sorted signed ints: exact pruning.
    add("i32_sorted", pa.array([i - 1500 for i in range(N)], pa.int32()), bloom=False)
    # Random int64 with NULLs.
    add("i64_rand", pa.array([None if i % 10 == 3 else r.randint(-10**12, 10**12)
                              for i in range(N)], pa.int64()))
    # int8 (INT_8 annotation -> TINYINT).
    add("i8", pa.array([None if i % 13 == 0 else r.randint(-128, 127) for i in range(N)],
                       pa.int8()))
    # uint8 -> SMALLINT; the unsigned order puts 200 above 100.
    add("u8", pa.array([r.randint(0, 255) for i in range(N)], pa.uint8()))
    # uint32 sorted across 2^31 (signed order would put the upper half first).
    add("u32", pa.array([2**31 - 1500 + i for i in range(N)], pa.uint32()))
    # uint64 sorted across 2^63 -> DECIMAL(20,0).
    add("u64", pa.array([2**63 - 1500 + i for i in range(N)], pa.uint64()))
    # float32 with NaN, -0.0 and +0.0.
    fv = []
    for i in range(N):
        if i % 37 == 5:
            fv.append(float("nan"))
        elif i % 41 == 7:
            fv.append(-0.0)
        elif i % 43 == 9:
            fv.append(0.0)
        elif i % 17 == 0:
            fv.append(None)
        else:
            fv.append(float(np.float32(r.uniform(-100, 100))))
    # Row group 2 holds only non-negative values and zeros of both signs: its +0.0 / -0.0
    # minimum must not exclude "= 0.0" nor "<= -0.0".
    for i in range(2000, N):
        if fv[i] is not None and not math.isnan(fv[i]) and fv[i] != 0:
            fv[i] = abs(fv[i])
    fv[2500] = -0.0
    add("f32", pa.array(fv, pa.float32()))
    # float64 mostly sorted with NaN and both zeros.
    dv = [i * 0.5 - 700.0 for i in range(N)]
    dv[10] = float("nan")
    dv[1400] = -0.0
    dv[1401] = 0.0
    dv[2999] = float("nan")
    add("f64", pa.array(dv, pa.float64()))
    # float16 (FIXED_LEN_BYTE_ARRAY(2) FLOAT16 -> REAL).
    hv = []
    for i in range(N):
        if i % 29 == 3:
            hv.append(np.nan)
        elif i % 31 == 4:
            hv.append(-0.0)
        else:
            hv.append(r.uniform(-50, 50))
    add("f16", pa.array(np.array(hv, dtype=np.float16)))
    # UTF-8 strings with non-ASCII first bytes (unsigned byte order puts them last).
    words = ["apple", "Zebra", "\u00e9clair", "\u65e5\u672c", "\U0001F680rocket", "", "a",
             "zz", "b\x7f", "mango", "\u03a9mega", "kiwi"]
    add("str", pa.array([None if i % 11 == 6 else r.choice(words) + str(r.randint(0, 400))
                         for i in range(N)], pa.string()))
    add("str_sorted", pa.array(["k%05d" % i for i in range(N)], pa.string()), bloom=False)
    # Binary with high bytes, and FIXED_LEN_BYTE_ARRAY(4) without annotation (VARBINARY).
    add("bin", pa.array([bytes(r.randint(0, 255) for _ in range(r.randint(0, 6)))
                         for i in range(N)], pa.binary()))
    add("fixed4", pa.array([bytes(r.randint(0, 255) for _ in range(4)) for i in range(N)],
                           pa.binary(4)))
    # Dates, dense and sorted, before and after 1970.
    add("date", pa.array([i - 1500 for i in range(N)], pa.int32()).cast(pa.date32()))
    # Timestamps in milliseconds (SQE micros = ms * 1000), random incl. negative.
    add("ts_ms", pa.array([None if i % 19 == 0 else r.randint(-10**12, 10**12)
                           for i in range(N)], pa.timestamp("ms")))
    add("ts_us_utc", pa.array([r.randint(-10**15, 10**15) for i in range(N)],
                              pa.timestamp("us", tz="UTC")))
    # Nanoseconds: SQE floors to micros (negative values: floor, not truncation).
    ns = [r.randint(-10**15, 10**15) * 1000 + r.choice([0, 1, 999, 500]) for i in range(N)]
    for i in range(0, N, 7):
        ns[i] = -(r.randint(1, 10**6) * 1000) - 1  # just below a whole microsecond
    add("ts_ns", pa.array(ns, pa.timestamp("ns")))
    add("time_ms", pa.array([r.randint(0, 86400 * 1000 - 1) for i in range(N)],
                            pa.time32("ms")))
    add("time_us", pa.array([r.randint(0, 86400 * 10**6 - 1) for i in range(N)],
                            pa.time64("us")))

    # Decimals: INT32 (p<=9), INT64 (p<=18), FIXED_LEN_BYTE_ARRAY (p>18), negative values.
    def dec_col(name, p, s):
        lim = 10**p - 1
        uv = [None if i % 23 == 1 else r.randint(-lim, lim) for i in range(N)]
        add(name, pa.array([None if u is None else decimal.Decimal(u).scaleb(-s) for u in uv],
                           pa.decimal128(p, s)))
    dec_col("dec9", 9, 2)
    dec_col("dec18", 18, 4)
    dec_col("dec30", 30, 5)
    # UUIDs (FLBA(16) UUID): unsigned byte order.
    add("uuid", pa.array([uuid.UUID(int=r.getrandbits(128)).bytes for i in range(N)],
                         pa.uuid()))
    add("bool", pa.array([None if i % 9 == 0 else (i % 3 == 0) for i in range(N)], pa.bool_()),
        bloom=False)
    # All NULL in row group 1, NULL pages (rows 100..299 and 2500..2999) elsewhere.
    add("nulls", pa.array([None if (1000 <= i < 2000 or 100 <= i < 300 or i >= 2500) else i
                           for i in range(N)], pa.int32()))
    return cols


def write_pa(out_dir):
    cols = pa_columns()
    table = pa.table({name: c[0] for name, c in cols.items()})
    bloom = {name: {"ndv": 1000, "fpp": 0.01} for name, c in cols.items() if c[1]}
    pq.write_table(table, os.path.join(out_dir, "pa_types.parquet"), row_group_size=RG_ROWS,
                   max_rows_per_page=PAGE_ROWS, data_page_size=1 << 20, write_page_index=True,
                   write_statistics=True, store_decimal_as_integer=True,
                   bloom_filter_options=bloom, compression="snappy")
    return "pa_types.parquet"


# ---- DuckDB file --------------------------------------------------------------------------

def write_duckdb(out_dir):
    import duckdb
    path = os.path.join(out_dir, "duckdb_bloom.parquet")
    n = 3 * 2048
    # Row group k holds values of residue k modulo 3 (the "* 3 + (i // 2048)" terms).
    duckdb.connect().execute(f"""
        copy (select
            ((i % 61) * 3 + (i // 2048))::int as a,
            'v' || ((i % 53) * 3 + (i // 2048)) as s,
            (((i % 47) * 3 + (i // 2048)) * 1000000007)::bigint as b,
            (((i % 43) * 3 + (i // 2048)) / 4)::double as d,
            (date '2000-01-01' + ((i % 41) * 3 + (i // 2048))::int) as dt,
            (((i % 37) * 3 + (i // 2048)) / 100)::decimal(9,2) as dec9,
            (((i % 31) * 3 + (i // 2048)) / 1000 - 0.045)::decimal(18,3) as dec18,
            ((((i % 29) * 3 + (i // 2048)) - 40)::decimal(30,2)
                * 1e15::decimal(30,2))::decimal(30,2) as dec30,
            (((i % 23) * 3 + (i // 2048)))::utinyint as ut,
            (timestamp '2001-01-01'
                + to_microseconds(((i % 19) * 3 + (i // 2048)) * 1001)) as ts,
            (case when i % 5 = 0 then null else (i % 17) * 3 + (i // 2048) end)::int as nul
        from range({n}) t(i)) to '{path}' (format parquet, row_group_size 2048)
    """)
    return "duckdb_bloom.parquet"


# ---- SQE values of a column, as the engine reads it ---------------------------------------

I64 = (-2**63, 2**63 - 1)


def sqe_values(arr):
    """(values, kind, range of valid integer constants or None); None when unsupported."""
    typ = arr.type
    if isinstance(typ, pa.BaseExtensionType):
        arr, typ = arr.storage, typ.storage_type
    if pa.types.is_dictionary(typ):
        arr = arr.dictionary_decode()
        typ = arr.type
    ints = {pa.int8(): (-2**7, 2**7 - 1), pa.int16(): (-2**15, 2**15 - 1),
            pa.int32(): (-2**31, 2**31 - 1), pa.int64(): I64,
            pa.uint8(): (-2**15, 2**15 - 1), pa.uint16(): (-2**31, 2**31 - 1),
            pa.uint32(): I64, pa.uint64(): (-(10**20 - 1), 10**20 - 1)}
    if typ in ints:
        return arr.to_pylist(), "i", ints[typ]
    if pa.types.is_boolean(typ):
        return [None if b is None else int(b) for b in arr.to_pylist()], "i", (0, 1)
    if pa.types.is_decimal(typ):
        return ([None if x is None else int(x.scaleb(typ.scale)) for x in arr.to_pylist()], "i",
                (-(10**typ.precision - 1), 10**typ.precision - 1))
    if pa.types.is_floating(typ):
        return [None if x is None else float(x) for x in arr.to_pylist()], "f", None
    if pa.types.is_string(typ) or pa.types.is_large_string(typ):
        return [None if x is None else x.encode() for x in arr.to_pylist()], "x", None
    if pa.types.is_binary(typ) or pa.types.is_large_binary(typ) or \
            pa.types.is_fixed_size_binary(typ):
        return arr.to_pylist(), "x", None
    if pa.types.is_date32(typ):
        return pc.cast(arr, pa.int32()).to_pylist(), "i", (-2**31, 2**31 - 1)
    if pa.types.is_timestamp(typ) or pa.types.is_time(typ):
        raw = pc.cast(arr, pa.int32() if typ.bit_width == 32 else pa.int64()).to_pylist()
        mult = {"s": 10**6, "ms": 1000, "us": 1, "ns": None}[typ.unit]
        if mult is None:
            return [None if x is None else x // 1000 for x in raw], "i", I64
        return [None if x is None else x * mult for x in raw], "i", I64
    return None


# ---- predicates and truth -----------------------------------------------------------------

def is_nan(x):
    return isinstance(x, float) and math.isnan(x)


def token(kind, x):
    if kind == "f":
        return "f:nan" if math.isnan(x) else "f:" + float(x).hex()
    if kind == "x":
        return "x:" + bytes(x).hex()
    return "i:%d" % x


def holds(op, v, consts):
    if op == "ISNULL":
        return v is None
    if op == "NOTNULL":
        return v is not None
    if v is None:
        return False
    c = consts[0] if consts else None
    if op == "EQ":
        return v == c
    if op == "LT":
        return v < c
    if op == "LE":
        return v <= c
    if op == "GT":
        return v > c
    if op == "GE":
        return v >= c
    if op == "IN":
        return any(v == k for k in consts)
    raise ValueError(op)


def same_const(a, b):
    if is_nan(a) or is_nan(b):
        return is_nan(a) and is_nan(b)
    if type(a) is not type(b) or a != b:
        return False
    return not isinstance(a, float) or math.copysign(1, a) == math.copysign(1, b)


def constants(name, sqe, kind, rng, real, width):
    """Constants to test: values from the data (some from one row group only), values just
    outside and between them, and the traps of the column's type."""
    present = [x for x in sqe if x is not None and not is_nan(x)]
    if not present:
        return []
    s = sorted(set(present))
    cands = [s[0], s[-1], s[len(s) // 2], s[len(s) // 3]]
    for row in (1050, 1777, 2100, 42, 4100):
        if row < len(sqe) and sqe[row] is not None and not is_nan(sqe[row]):
            cands.append(sqe[row])
    if kind == "i":
        lo, hi = rng
        cands += [s[0] - 1, s[-1] + 1, s[len(s) // 2] + 1, s[0] - 1000, s[-1] + 1000]
        if name in ("ts_ms", "time_ms"):
            cands.append(s[len(s) // 2] + 1)  # sub-millisecond: provably absent
        if name == "ts_ns":
            cands.append(sqe[7])  # a floored negative value
        cands = [c for c in cands if lo <= c <= hi]
    elif kind == "f":
        cands += [0.0, -0.0, float("nan"), s[0] - 1.0, s[-1] + 1.0, 0.1, 60.0]
        if real:
            cands = [c if math.isnan(c) else float(np.float32(c)) for c in cands]
            cands = [c for c in cands if not math.isinf(c)]
    else:
        cands += [b"", s[0] + b"\x00", s[-1] + b"\xff", s[len(s) // 2] + b"zz"]
        if width:
            cands = [c for c in cands if len(c) == width]
            cands += [b"\x00" * width, b"\xff" * width, b"\x80" + b"\x00" * (width - 1)]
    out = []
    for c in cands:
        if not any(same_const(c, d) for d in out):
            out.append(c)
    return out


def ranges_of(flags):
    out, start = [], None
    for i, f in enumerate(flags + [False]):
        if f and start is None:
            start = i
        elif not f and start is not None:
            out.append("%d-%d" % (start, i))
            start = None
    return ",".join(out) if out else "_"


def expect_lines(fname, table, rg_sizes, exact_cols=(), max_consts=12):
    """Predicates over every supported top-level column of table with their truth."""
    r = random.Random(7)
    lines = []
    for name in table.column_names:
        arr = table.column(name).combine_chunks()
        conv = sqe_values(arr)
        if conv is None:
            continue
        sqe, kind, rng = conv
        real = pa.types.is_float32(arr.type) or pa.types.is_float16(arr.type)
        typ = arr.type.storage_type if isinstance(arr.type, pa.BaseExtensionType) else arr.type
        width = typ.byte_width if pa.types.is_fixed_size_binary(typ) else 0
        preds = [("ISNULL", []), ("NOTNULL", [])]
        cs = constants(name, sqe, kind, rng, real, width)[:max_consts]
        for c in cs:
            for op in ("EQ", "LT", "LE", "GT", "GE"):
                preds.append((op, [c]))
        for k in range(4):
            preds.append(("IN", r.sample(cs, min(len(cs), 1 + k))))
        present = set(x for x in sqe if x is not None and not is_nan(x))
        absent = [c for c in cs if not is_nan(c) and c not in present]
        if absent:
            preds.append(("IN", absent[:5]))
        for op, consts in preds:
            rg_bits, rows = [], []
            start = 0
            for size in rg_sizes:
                flags = [holds(op, sqe[i], consts) for i in range(start, start + size)]
                rg_bits.append("1" if any(flags) else "0")
                rows.append(ranges_of(flags))
                start += size
            toks = "".join(" " + token(kind, c) for c in consts)
            line = "P %s %s %s %d%s rg=%s rows=%s" % (fname, name, op, len(consts), toks,
                                                      "".join(rg_bits), "/".join(rows))
            if name in exact_cols:
                line += " exact"
            lines.append(line)
    return lines


def write_expect(out_dir, fname, lines):
    with open(os.path.join(out_dir, fname.replace(".parquet", ".expect")), "w") as f:
        f.write("# generated by tests/parquet/gen_prune_files.py\n")
        f.write("\n".join(lines) + "\n")


def rg_sizes_of(path):
    md = pq.ParquetFile(path).metadata
    return [md.row_group(i).num_rows for i in range(md.num_row_groups)]


CORPUS_FILES = [
    "alltypes_tiny_pages.parquet",        # parquet-mr 1.12, page index, INT_8/INT_16, INT96
    "alltypes_tiny_pages_plain.parquet",
    "binary_truncated_min_max.parquet",   # parquet-rs, truncated (inexact) string bounds
    "data_index_bloom_encoding_stats.parquet",       # parquet-mr bloom filter
    "data_index_bloom_encoding_with_length.parquet", # parquet-rs bloom filter
    "int32_with_null_pages.parquet",      # null pages in the column index
    "nan_in_stats.parquet",               # NaN max from pyarrow 0.8 (parquet-cpp 1.3.2)
    "floating_orders_nan_count.parquet",  # IEEE 754 total order vs TYPE_ORDER, -0/+0 bounds
    "float16_nonzeros_and_nans.parquet",
    "float16_zeros_and_nans.parquet",
    "sort_columns.parquet",
    "fixed_length_decimal.parquet",
    "fixed_length_decimal_legacy.parquet",  # parquet-mr 1.8.2: deprecated binary statistics
    "int32_decimal.parquet",
    "int64_decimal.parquet",
    "byte_array_decimal.parquet",
    "fixed_length_byte_array.parquet",
    "alltypes_plain.parquet",
    "int96_from_spark.parquet",
    "datapage_v2.snappy.parquet",
    "nulls.snappy.parquet",
]


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: gen_prune_files.py OUT_DIR [PARQUET_TESTING_DATA_DIR]")
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    exact = ("i32_sorted", "u32", "u64", "date")
    for writer in (write_pa, write_duckdb):
        fname = writer(out_dir)
        path = os.path.join(out_dir, fname)
        table = pq.read_table(path)
        write_expect(out_dir, fname, expect_lines(fname, table, rg_sizes_of(path), exact))
    if len(sys.argv) == 3:
        lines = []
        for fname in CORPUS_FILES:
            path = os.path.join(sys.argv[2], fname)
            if not os.path.exists(path):
                continue
            table = pq.read_table(path, coerce_int96_timestamp_unit="us")
            lines += expect_lines(fname, table, rg_sizes_of(path), max_consts=8)
        write_expect(out_dir, "corpus.parquet", lines)


if __name__ == "__main__":
    main()
