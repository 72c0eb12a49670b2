"""Checks of the oracle itself, without Parquet files: for every type of the mapping, an Arrow
array built from Python values and SQE SQL producing the same values (casts, literals,
constructors) must meet in the oracle's canonical form, with the types the mapping names.

The SQL side is written independently of the oracle's formatting code (Python's isoformat,
date_add from 1970-01-01, SQE's own casts), so these tests pin SQE's JSON spelling of every
scalar type and of nested values, and the normalizer that the Parquet tests rely on.
"""
import datetime as dt
import json
import math
import struct
import uuid

import pyarrow as pa
import pytest

import oracle
from oracle import SqeType


def sqe_row(exprs):
    """Runs SELECT expr0 AS c0, ... and returns (types, [json values])."""
    sql = "SELECT " + ", ".join(f"{e} AS c{i}" for i, e in enumerate(exprs))
    read = oracle.sqe_read(None, sql=sql)
    assert read.error is None, f"{read.error}\nSQL: {sql}"
    assert read.rows is not None and len(read.rows) == 1, read.run.stdout
    return read.types, [v for _, v in read.rows[0]]


def check(arr: pa.Array, exprs, spelled=None):
    """arr's values through the oracle == SQE's values of exprs, one per element."""
    assert len(arr) == len(exprs)
    st = oracle.sqe_type_of(arr.type)
    expected = oracle.expected_column(arr, st)
    types, values = sqe_row(exprs)
    if spelled is not None:
        assert st.spelled() == spelled
    for i, (want, got, typ) in enumerate(zip(expected, values, types)):
        if want is not None and st.spelled() is not None:
            assert typ == st.spelled(), f"element {i}: SQE type {typ}, mapping {st.spelled()}"
        actual = oracle.canon_actual(got, st)
        assert oracle.values_equal(want, actual, st), \
            f"element {i} ({exprs[i]}): SQE {got!r} -> {actual!r}, expected {want!r}"
    return expected, values


def q(s: str) -> str:
    return oracle.sql_string(s)


def v(s: str) -> str:
    """A varchar literal of SQE's unbounded varchar (a bare 'x' is varchar(1))."""
    return f"CAST({q(s)} AS varchar)"


def float_expr(x: float, sql_type: str) -> str:
    if math.isnan(x):
        return f"CAST(nan() AS {sql_type})"
    if math.isinf(x):
        return f"CAST({'-' if x < 0 else ''}infinity() AS {sql_type})"
    return f"CAST({q(repr(x))} AS {sql_type})"


# ---- scalars ----------------------------------------------------------------------------------

def test_booleans_and_integers():
    check(pa.array([True, False, None]), ["true", "false", "CAST(NULL AS boolean)"], "boolean")
    for typ, sql_t, lo, hi in [(pa.int8(), "tinyint", -128, 127),
                               (pa.int16(), "smallint", -32768, 32767),
                               (pa.int32(), "integer", -2**31, 2**31 - 1),
                               (pa.int64(), "bigint", -2**63, 2**63 - 1)]:
        check(pa.array([lo, 0, hi, None], typ),
              [f"CAST({q(str(v))} AS {sql_t})" for v in (lo, 0, hi)] + [f"CAST(NULL AS {sql_t})"],
              sql_t)


def test_unsigned_integers_widen():
    check(pa.array([0, 255, None], pa.uint8()),
          ["CAST(0 AS smallint)", "CAST(255 AS smallint)", "CAST(NULL AS smallint)"], "smallint")
    check(pa.array([65535], pa.uint16()), ["65535"], "integer")
    check(pa.array([2**32 - 1], pa.uint32()), ["CAST(4294967295 AS bigint)"], "bigint")
    check(pa.array([0, 2**64 - 1, 2**63], pa.uint64()),
          [f"CAST({q(str(v))} AS decimal(20,0))" for v in (0, 2**64 - 1, 2**63)],
          "decimal(20,0)")


FLOAT_VALUES = [0.1, -0.0, 0.0, 1.0, 100.0, 1e7, 1.0e-4, 0.001, 123456.7, 1e-45, 3.4028235e38,
                float("inf"), float("-inf"), float("nan"), -2.5, 1.17549435e-38]


def test_real_bits():
    vals = [struct.unpack("<f", struct.pack("<f", v))[0] for v in FLOAT_VALUES]
    check(pa.array(vals, pa.float32()), [float_expr(x, "real") for x in vals], "real")


def test_float16_reads_as_real():
    vals = [0.0, -0.0, 1.5, 65504.0, 6.1035156e-05, 5.9604645e-08, float("nan"), float("inf")]
    import numpy as np
    arr = pa.array(np.array(vals, dtype=np.float16), pa.float16())
    exact = [float(np.float32(np.float16(v))) for v in vals]
    check(arr, [float_expr(x, "real") for x in exact], "real")


def test_double_bits():
    vals = [0.1, -0.0, 1e300, 5e-324, 1.7976931348623157e308, 1e7, 1e-3, 1e-4, 12345678.9,
            float("nan"), float("-inf"), 2.0**53 + 2]
    check(pa.array(vals, pa.float64()), [float_expr(x, "double") for x in vals], "double")


def test_float_text_is_java_shortest():
    # SQE prints REAL/DOUBLE as Java's Float/Double.toString; the oracle's java_float_text must
    # agree character for character (used when comparing ambiguous nested text).
    vals = [v for v in FLOAT_VALUES if not math.isinf(v) and not math.isnan(v)]
    sql = "SELECT " + ", ".join(
        f"CAST({q(repr(v))} AS real) AS r{i}, CAST({q(repr(v))} AS double) AS d{i}"
        for i, v in enumerate(vals))
    run = oracle.run_sqe(sql + ";")
    assert run.health_problem() is None
    row = json.loads(run.stdout.splitlines()[0], parse_float=str, parse_int=str)[0]
    for i, v in enumerate(vals):
        f32 = struct.unpack("<f", struct.pack("<f", v))[0]
        assert row[f"r{i}"] == oracle.java_float_text(f32, True), (v, row[f"r{i}"])
        assert row[f"d{i}"] == oracle.java_float_text(v, False), (v, row[f"d{i}"])


def test_decimals():
    for p, s, texts in [(4, 2, ["12.34", "-0.05", "0.00", "-99.99"]),
                        (9, 0, ["0", "-123456789"]),
                        (18, 6, ["123456789012.345678", "-0.000001"]),
                        (38, 10, ["1234567890123456789012345678.9012345678", "-0.0000000001"]),
                        (38, 38, ["0.12345678901234567890123456789012345678"])]:
        from decimal import Decimal
        arr = pa.array([Decimal(t) for t in texts] + [None], pa.decimal128(p, s))
        check(arr, [f"CAST({q(t)} AS decimal({p},{s}))" for t in texts]
              + [f"CAST(NULL AS decimal({p},{s}))"], f"decimal({p},{s})")


def test_strings():
    texts = ["", "plain", "it's", 'quote " and \\ backslash', "tab\there\nnewline",
             "é ü 中文 😀", "[1, 2]", "{a=1}", "NULL"]
    check(pa.array(texts + [None], pa.string()),
          [f"CAST({q(t)} AS varchar)" for t in texts] + ["CAST(NULL AS varchar)"], "varchar")
    check(pa.array(["x"], pa.large_string()), [v("x")])


def test_varbinary():
    blobs = [b"", b"\x00", b"\x01\x02", bytes(range(256))]
    exprs = [f"X'{b.hex()}'" for b in blobs]
    check(pa.array(blobs + [None], pa.binary()), exprs + ["CAST(NULL AS varbinary)"],
          "varbinary")
    check(pa.array([b"\xff\x00\xaa"], pa.binary(3)), ["X'ff00aa'"], "varbinary")
    assert oracle.varbinary_text(b"\x01\x02") == "01 02"


def test_uuid():
    us = [uuid.UUID("12151fd2-7586-11e9-8f9e-2a86e4085a59"), uuid.UUID(int=0),
          uuid.UUID(int=2**128 - 1)]
    arr = pa.array([u.bytes for u in us] + [None], pa.uuid())
    check(arr, [f"uuid {q(str(u))}" for u in us] + ["CAST(NULL AS uuid)"], "uuid")


def test_json():
    docs = ['{"a": 1, "b": [true, null]}', "[]", '"s"', "3.5"]
    arr = pa.array(docs + [None], pa.json_())
    check(arr, [f"json_parse({q(d)})" for d in docs] + ["CAST(NULL AS json)"], "json")


def days_expr(days: int) -> str:
    return f"date_add('day', {days}, DATE '1970-01-01')"


def test_dates_including_far_years():
    days = [0, -1, 18262, -719528, -719529, 2932896, 2932897, -1000000, 5000000]
    check(pa.array(days + [None], pa.date32()), [days_expr(d) for d in days]
          + ["CAST(NULL AS date)"], "date")
    check(pa.array([86_400_000 * 3, -86_400_000], pa.date64()), [days_expr(3), days_expr(-1)])
    assert oracle.date_text(-719528) == "0000-01-01"
    assert oracle.date_text(-719529) == "-0001-12-31"
    assert oracle.date_text(2932897) == "+10000-01-01"


def time_expr(t: dt.time, p: int) -> str:
    return f"CAST(TIME {q(t.isoformat())} AS time({p}))"


def test_times():
    ms = [0, 1, 3723123, 86399999]
    check(pa.array(ms + [None], pa.time32("ms")),
          [time_expr((dt.datetime.min + dt.timedelta(milliseconds=m)).time(), 3) for m in ms]
          + ["CAST(NULL AS time(3))"], "time(3)")
    us = [0, 1, 3723123456, 86399999999]
    check(pa.array(us, pa.time64("us")),
          [time_expr((dt.datetime.min + dt.timedelta(microseconds=u)).time(), 6) for u in us],
          "time(6)")
    ns = [999, 1000, 3723123456789, 86399999999999]
    check(pa.array(ns, pa.time64("ns")),
          [time_expr((dt.datetime.min + dt.timedelta(microseconds=n // 1000)).time(), 6)
           for n in ns], "time(6)")


EPOCH = dt.datetime(1970, 1, 1)


def ts_expr(micros: int, p: int, tz: bool = False) -> str:
    """SQL for the timestamp `micros` after the epoch, built without the oracle's formatting:
    isoformat inside Python's range, date_add by whole days outside it."""
    days, rem = divmod(micros, 86_400_000_000)
    clock = (dt.datetime.min + dt.timedelta(microseconds=rem)).time().isoformat(
        timespec="microseconds")
    base = f"TIMESTAMP '1970-01-01 {clock}'"
    expr = f"date_add('day', {days}, CAST({base} AS timestamp(6)))"
    target = f"timestamp({p}) with time zone" if tz else f"timestamp({p})"
    if tz:
        expr = f"with_timezone({expr}, 'UTC')"
    return f"CAST({expr} AS {target})"


def test_timestamps_units_and_flooring():
    ms = [0, -1, 1577934245123, -62135596800000, 253402300799999]
    check(pa.array(ms + [None], pa.timestamp("ms")), [ts_expr(v * 1000, 3) for v in ms]
          + ["CAST(NULL AS timestamp(3))"], "timestamp(3)")
    us = [0, -1, 1577934245123456, -62167219200000000, 253402300800000000 * 10]
    check(pa.array(us, pa.timestamp("us")), [ts_expr(v, 6) for v in us], "timestamp(6)")
    ns = [0, -1, 999, -1001, 1577934245123456789]
    check(pa.array(ns, pa.timestamp("ns")), [ts_expr(v // 1000, 6) for v in ns], "timestamp(6)")
    assert oracle.timestamp_text(-1, 6) == "1969-12-31 23:59:59.999999"


def test_timestamps_with_time_zone_print_utc():
    us = [0, -1, 1577934245123456]
    check(pa.array(us, pa.timestamp("us", tz="UTC")), [ts_expr(v, 6, tz=True) for v in us],
          "timestamp(6) with time zone")
    ms = [1577934245123]
    check(pa.array(ms, pa.timestamp("ms", tz="America/New_York")),
          [ts_expr(v * 1000, 3, tz=True) for v in ms], "timestamp(3) with time zone")


# ---- nested -----------------------------------------------------------------------------------

def test_arrays():
    check(pa.array([[1, None, 3], [], None, [None]], pa.list_(pa.int32())),
          ["ARRAY[1, NULL, 3]", "CAST(ARRAY[] AS array(integer))", "CAST(NULL AS array(integer))",
           "CAST(ARRAY[NULL] AS array(integer))"], "array(integer)")
    check(pa.array([[[1], [], None]], pa.large_list(pa.list_(pa.int64()))),
          ["ARRAY[ARRAY[CAST(1 AS bigint)], CAST(ARRAY[] AS array(bigint)), NULL]"],
          "array(array(bigint))")
    check(pa.array([[1.5, None]], pa.list_(pa.float32(), 2)),
          ["ARRAY[CAST(1.5 AS real), NULL]"], "array(real)")
    check(pa.array([["a", "b"], ["x, y"]], pa.list_(pa.string())),
          # the second arrives as ambiguous text, compared in Trino text form
          [f"ARRAY[{v('a')}, {v('b')}]", f"ARRAY[{v('x, y')}]"])


def test_maps():
    check(pa.array([[("a", 1), ("b", None)], [], None], pa.map_(pa.string(), pa.int32())),
          [f"MAP(ARRAY[{v('a')}, {v('b')}], ARRAY[1, NULL])",
           "CAST(MAP() AS map(varchar, integer))",
           "CAST(NULL AS map(varchar, integer))"], "map(varchar, integer)")
    check(pa.array([[(1, "x"), (2, None)]], pa.map_(pa.int64(), pa.string())),
          [f"MAP(ARRAY[CAST(1 AS bigint), 2], ARRAY[{v('x')}, NULL])"], "map(bigint, varchar)")
    check(pa.array([[("k", [1, 2])]], pa.map_(pa.string(), pa.list_(pa.int32()))),
          [f"MAP(ARRAY[{v('k')}], ARRAY[ARRAY[1, 2]])"], "map(varchar, array(integer))")


def test_rows_and_lists_of_rows():
    st = pa.struct([("a", pa.int32()), ("b", pa.string()), ("c c", pa.list_(pa.float64()))])
    rowt = 'row(a integer, b varchar, "c c" array(double))'
    check(pa.array([{"a": 1, "b": "x", "c c": [0.5]}, {"a": None, "b": None, "c c": None}, None],
                   st),
          [f"CAST(ROW(1, 'x', ARRAY[0.5e0]) AS {rowt})",
           f"CAST(ROW(NULL, NULL, NULL) AS {rowt})", f"CAST(NULL AS {rowt})"], rowt)
    lst = pa.list_(pa.struct([("id", pa.int64()), ("tags", pa.list_(pa.string()))]))
    rt = "row(id bigint, tags array(varchar))"
    check(pa.array([[{"id": 1, "tags": ["p", None]}, None, {"id": None, "tags": []}], []], lst),
          [f"ARRAY[CAST(ROW(1, ARRAY['p', NULL]) AS {rt}), NULL, "
           f"CAST(ROW(NULL, CAST(ARRAY[] AS array(varchar))) AS {rt})]",
           f"CAST(ARRAY[] AS array({rt}))"], f"array({rt})")


def test_sliced_arrays():
    arr = pa.array([[1], [2, 3], None, [4]], pa.list_(pa.int32())).slice(1)
    check(arr, ["ARRAY[2, 3]", "CAST(NULL AS array(integer))", "ARRAY[4]"])
    s = pa.array([{"a": 1}, {"a": 2}, None], pa.struct([("a", pa.int32())])).slice(1)
    check(s, ["CAST(ROW(2) AS row(a integer))", "CAST(NULL AS row(a integer))"])
    m = pa.array([[("a", 1)], [("b", 2)]], pa.map_(pa.string(), pa.int32())).slice(1)
    check(m, [f"MAP(ARRAY[{v('b')}], ARRAY[2])"])


def test_dictionary_and_null_types():
    check(pa.array(["x", "y", None, "x"]).dictionary_encode(),
          [v("x"), v("y"), "CAST(NULL AS varchar)", v("x")], "varchar")
    st = oracle.sqe_type_of(pa.null())
    assert st.kind == "null" and st.spelled() is None
    assert oracle.expected_column(pa.nulls(3), st) == [None, None, None]


# ---- pieces of the normalizer -----------------------------------------------------------------

def test_canon_rejects_wrong_shapes():
    with pytest.raises(oracle.Mismatch):
        oracle.canon_actual("1", SqeType("integer"))
    with pytest.raises(oracle.Mismatch):
        oracle.canon_actual(1, SqeType("decimal", 3, 0))
    with pytest.raises(oracle.Mismatch):
        oracle.canon_actual([1], SqeType("row", children=(SqeType("integer"),), names=("a",)))
    assert oracle.canon_actual("[a, b]", SqeType("array", children=(SqeType("varchar"),))) \
        == ("text", "[a, b]")


def test_float_canon_distinguishes_signed_zero_and_merges_nans():
    assert oracle.float_canon(-0.0, "double") != oracle.float_canon(0.0, "double")
    assert oracle.float_canon(float("nan"), "real") == oracle.float_canon(-float("nan"), "real")
    assert oracle.canon_actual("NaN", SqeType("real")) == ("real", "NaN")


def test_trino_text_of_nested_values():
    st = oracle.sqe_type_of(pa.map_(pa.string(), pa.list_(pa.float32())))
    c = ("map", (("k, 1", [oracle.float_canon(1.5, "real"), None]),))
    assert oracle.trino_text(c, st) == "{k, 1=[1.5, NULL]}"


def test_sqe_utf8_replaces_each_bad_byte():
    assert oracle.sqe_utf8(b"a\xe2\x82b") == "a\ufffd\ufffdb"
    assert oracle.sqe_utf8(b"\xc0\x80") == "\ufffd\ufffd"
    assert oracle.sqe_utf8("é".encode()) == "é"


def test_type_spelling():
    t = oracle.sqe_type_of(pa.struct([("x", pa.int32()), ("a b", pa.string()), ('q"', pa.bool_()),
                                      ("_1", pa.date32())]))
    assert t.spelled() == 'row(x integer, "a b" varchar, "q""" boolean, _1 date)'
    assert oracle.sqe_type_of(pa.timestamp("ns", tz="+01:00")).spelled() == \
        "timestamp(6) with time zone"
    assert oracle.sqe_type_of(pa.decimal256(40, 2)).kind == "unsupported"
