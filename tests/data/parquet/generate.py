#!/usr/bin/env python3
"""Writes the small Parquet fixtures used by tests/sql/parquet.test (committed; rerun only to
change them): .cache/venv/bin/python tests/data/parquet/generate.py

  types.parquet     one column per type family SQE maps (pyarrow, snappy, dictionary on),
                    with NULLs; 5 rows.
  nested.parquet    lists, maps, structs, lists of structs, NULLs at every level; 4 rows.
  groups.parquet    10000 rows in 10 row groups of 1000, small pages, zstd, DELTA encodings
                    for ints and strings, no dictionary, page index (column + offset index).
  pages.parquet     20000 rows in one row group of many small pages with a page index (page
                    pruning inside a row group); 's' dictionary-encoded.
  part-*.parquet    two files with the same columns (for globs).
  not_parquet.parquet  text, to check the error.
  truncated.parquet    types.parquet cut in the middle of its footer.
"""
import datetime
import decimal
import os

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(HERE, name)


def types_table():
    D = decimal.Decimal
    return pa.table({
        "b": pa.array([True, False, None, True, False], pa.bool_()),
        "i8": pa.array([1, -128, 127, None, 0], pa.int8()),
        "i16": pa.array([1, -32768, 32767, None, 0], pa.int16()),
        "i32": pa.array([1, -2147483648, 2147483647, None, 0], pa.int32()),
        "i64": pa.array([1, -9223372036854775808, 9223372036854775807, None, 0], pa.int64()),
        "u8": pa.array([1, 0, 255, None, 7], pa.uint8()),
        "u16": pa.array([1, 0, 65535, None, 7], pa.uint16()),
        "u32": pa.array([1, 0, 4294967295, None, 7], pa.uint32()),
        "u64": pa.array([1, 0, 18446744073709551615, None, 7], pa.uint64()),
        "f32": pa.array([1.5, -0.0, float("inf"), None, float("nan")], pa.float32()),
        "f64": pa.array([1.25, -2.5e300, float("-inf"), None, 0.1], pa.float64()),
        "d9": pa.array([D("1.23"), D("-9999999.99"), D("0.00"), None, D("42.10")], pa.decimal128(9, 2)),
        "d18": pa.array([D("1.234"), D("-999999999999999.999"), D("0"), None, D("3.000")], pa.decimal128(18, 3)),
        "d38": pa.array([D("12345678901234567890123456789.012345678"), D("-1"), D("0"), None,
                         D("99999999999999999999999999999.999999999")], pa.decimal128(38, 9)),
        "s": pa.array(["a", "", "a longer string value", None, "ünïcødé"], pa.string()),
        "bin": pa.array([b"\x00\x01", b"", b"xyz", None, b"\xff"], pa.binary()),
        "d": pa.array([datetime.date(2020, 1, 2), datetime.date(1969, 12, 31), datetime.date(1, 1, 1),
                       None, datetime.date(9999, 12, 31)], pa.date32()),
        "t_ms": pa.array([datetime.time(1, 2, 3, 4000), datetime.time(0, 0), datetime.time(23, 59, 59, 999000),
                          None, datetime.time(12, 0)], pa.time32("ms")),
        "t_us": pa.array([datetime.time(1, 2, 3, 4), datetime.time(0, 0), datetime.time(23, 59, 59, 999999),
                          None, datetime.time(12, 0)], pa.time64("us")),
        "ts_ms": pa.array([datetime.datetime(2020, 1, 2, 3, 4, 5, 6000), datetime.datetime(1969, 12, 31, 23, 59, 59, 999000),
                           datetime.datetime(1970, 1, 1), None, datetime.datetime(2262, 4, 11)], pa.timestamp("ms")),
        "ts_us": pa.array([datetime.datetime(2020, 1, 2, 3, 4, 5, 6), datetime.datetime(1969, 12, 31, 23, 59, 59, 999999),
                           datetime.datetime(1970, 1, 1), None, datetime.datetime(2262, 4, 11)], pa.timestamp("us")),
        "ts_ns": pa.array([1577934245006007008, -1, 0, None, 1000], pa.timestamp("ns")),
        "tstz": pa.array([datetime.datetime(2020, 1, 2, 3, 4, 5, 6), datetime.datetime(1969, 12, 31, 23, 59, 59, 999999),
                          datetime.datetime(1970, 1, 1), None, datetime.datetime(2000, 2, 29)], pa.timestamp("us", tz="UTC")),
        "f16": pa.array([1.5, -2.0, 65504.0, None, 0.0], pa.float16()),
    })


def nested_table():
    person = pa.struct([("name", pa.string()), ("age", pa.int32())])
    return pa.table({
        "id": pa.array([1, 2, 3, 4], pa.int32()),
        "ints": pa.array([[1, 2, 3], [], None, [None, 5]], pa.list_(pa.int64())),
        "words": pa.array([["a"], ["b", None, "c"], [], None], pa.list_(pa.string())),
        "nested": pa.array([[[1], [2, 3]], [[], None], None, [[None]]], pa.list_(pa.list_(pa.int32()))),
        "m": pa.array([[("x", 1), ("y", 2)], [], None, [("z", None)]], pa.map_(pa.string(), pa.int32())),
        "st": pa.array([{"name": "ann", "age": 30}, {"name": None, "age": 5}, None, {"name": "bo", "age": None}], person),
        "people": pa.array([[{"name": "c", "age": 1}], [None, {"name": "d", "age": 2}], [], None], pa.list_(person)),
    })


def main():
    pq.write_table(types_table(), path("types.parquet"), compression="snappy")
    pq.write_table(nested_table(), path("nested.parquet"), compression="zstd")
    n = 10000
    t = pa.table({
        "k": pa.array(range(n), pa.int64()),
        "g": pa.array([i % 7 for i in range(n)], pa.int32()),
        "s": pa.array(["v%05d" % (i * 7919 % n) if i % 13 else None for i in range(n)], pa.string()),
        "x": pa.array([i * 0.5 for i in range(n)], pa.float64()),
    })
    pq.write_table(t, path("groups.parquet"), row_group_size=1000, data_page_size=1024, compression="zstd",
                   use_dictionary=False, column_encoding={"k": "DELTA_BINARY_PACKED", "g": "DELTA_BINARY_PACKED",
                                                          "s": "DELTA_BYTE_ARRAY", "x": "BYTE_STREAM_SPLIT"},
                   data_page_version="2.0", write_page_index=True)
    m = 20000
    pages = pa.table({"k": pa.array(range(m), pa.int64()),
                      "v": pa.array([None if i % 10 == 0 else i * 3 for i in range(m)], pa.int32()),
                      "s": pa.array(["s%06d" % i for i in range(m)], pa.string())})
    pq.write_table(pages, path("pages.parquet"), row_group_size=m, data_page_size=512,
                   write_page_index=True, compression="zstd", use_dictionary=["s"])
    pq.write_table(t.slice(0, 3), path("part-1.parquet"))
    pq.write_table(t.slice(3, 2), path("part-2.parquet"))
    with open(path("not_parquet.parquet"), "w") as f:
        f.write("this is not a parquet file, just text that is long enough\n")
    data = open(path("types.parquet"), "rb").read()
    with open(path("truncated.parquet"), "wb") as f:
        f.write(data[: len(data) - 100])


if __name__ == "__main__":
    main()
