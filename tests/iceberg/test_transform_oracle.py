"""Cross-checks SQE's Iceberg partition transforms against pyiceberg's (the oracle).

For every source type SQE maps to an Iceberg type, thousands of random values (plus the edges:
zero, +-1, type limits, pre-1970 instants, multi-byte and 4-byte UTF-8, empty strings) go
through every applicable transform -- identity, bucket[N] for several N, truncate[W] for
several W, year, month, day, hour, void -- in tests/iceberg/transform_driver.c (SQE's
vectorized ice_transform_apply) and through pyiceberg.transforms.parse_transform(...)
.transform(source_type) (pyiceberg 0.12.0, its pure-Python path), and the results must be
identical. Values whose partition value does not fit the result type must make SQE fail with
NUMERIC_VALUE_OUT_OF_RANGE instead of wrapping; pyiceberg computes an unbounded Python int
there, which is the mathematically right value we refuse to truncate.

The driver comes from $TRANSFORM_DRIVER (run_transform_tests.sh builds it) or is compiled
here with gcc. The random seed is fixed (SQE_ORACLE_SEED overrides) so failures replay.
"""

import decimal
import os
import random
import subprocess
import uuid
from datetime import date, datetime, timedelta, timezone

import pytest
from pyiceberg.transforms import parse_transform
from pyiceberg.types import (
    BinaryType,
    DateType,
    DecimalType,
    FixedType,
    IntegerType,
    LongType,
    StringType,
    TimestampType,
    TimestamptzType,
    TimeType,
    UUIDType,
)

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SEED = int(os.environ.get("SQE_ORACLE_SEED", "20240611"))
N_RANDOM = 3000

decimal.getcontext().prec = 80

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1
# Python datetime covers years 1..9999; pyiceberg converts through it.
TS_MIN = int((datetime(1, 1, 2) - datetime(1970, 1, 1)).total_seconds()) * 1_000_000
TS_MAX = int((datetime(9999, 12, 30) - datetime(1970, 1, 1)).total_seconds()) * 1_000_000
DAY_MIN = (date(1, 1, 2) - date(1970, 1, 1)).days
DAY_MAX = (date(9999, 12, 30) - date(1970, 1, 1)).days
MICROS_PER_DAY = 86_400_000_000

BUCKETS = ["bucket[1]", "bucket[2]", "bucket[16]", "bucket[1000]", "bucket[2147483647]"]
TRUNC_NUM = ["truncate[1]", "truncate[3]", "truncate[10]", "truncate[1000]", "truncate[2147483647]"]
TRUNC_STR = ["truncate[1]", "truncate[2]", "truncate[5]", "truncate[20]"]
TIME_PARTS = ["year", "month", "day"]


@pytest.fixture(scope="session")
def driver(tmp_path_factory):
    exe = os.environ.get("TRANSFORM_DRIVER")
    if exe:
        return exe
    exe = str(tmp_path_factory.mktemp("bin") / "transform_driver")
    srcs = [os.path.join(ROOT, "tests/iceberg/transform_driver.c"),
            os.path.join(ROOT, "src/iceberg/transform.c"),
            os.path.join(ROOT, "src/iceberg/murmur3.c")]
    for d in ("src/common", "src/types", "src/vec"):
        full = os.path.join(ROOT, d)
        srcs += [os.path.join(full, f) for f in sorted(os.listdir(full)) if f.endswith(".c")]
    subprocess.run(["gcc", "-std=gnu17", "-g", "-O1", "-fsanitize=address,undefined",
                    "-fno-sanitize-recover=undefined", "-I" + os.path.join(ROOT, "include"),
                    "-I" + os.path.join(ROOT, "src"), *srcs, "-lm", "-lpthread", "-o", exe],
                   check=True)
    return exe


def run_driver(exe, lines):
    proc = subprocess.run([exe], input="".join(l + "\n" for l in lines), capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert proc.stderr == "", proc.stderr[-4000:]
    out = proc.stdout.splitlines()
    assert len(out) == len(lines)
    return out


# ---- value generators: (pyiceberg value, driver token) -------------------------------------

def hexs(b):
    return b.hex() if b else "-"


def gen_ints(rng, lo, hi):
    edges = [0, 1, -1, 2, -2, 9, 10, -9, -10, 11, -11, 999, -1000, lo, hi, lo + 1, hi - 1,
             INT_MIN, INT_MAX, INT_MIN + 9, INT_MAX - 9]
    vals = [v for v in edges if lo <= v <= hi]
    for _ in range(N_RANDOM):
        r = rng.random()
        if r < 0.4:
            vals.append(rng.randint(-2000, 2000))
        elif r < 0.7:
            vals.append(rng.randint(max(lo, -(10**9)), min(hi, 10**9)))
        else:
            vals.append(rng.randint(lo, hi))
    return vals


def gen_strings(rng):
    alphabet = ["a", "b", "Z", "0", " ", "é", "ß", "中", "€", "😀", "𝄞", "\u007f", "\u0800",
                "\uffff", "\U0010ffff"]
    vals = ["", "a", "iceberg", "😀", "中文字符串", "é" * 30, "😀" * 25, "x" * 100]
    for _ in range(N_RANDOM):
        n = rng.choice([0, 1, 2, 3, 5, 8, 13, 21, 40])
        vals.append("".join(rng.choice(alphabet) for _ in range(n)))
    return vals


def gen_bytes(rng):
    vals = [b"", b"\x00", b"\x00\x01\x02\x03", b"\xff" * 17, bytes(range(256))]
    for _ in range(N_RANDOM):
        n = rng.choice([0, 1, 2, 3, 4, 5, 7, 8, 12, 13, 16, 31, 64])
        vals.append(bytes(rng.getrandbits(8) for _ in range(n)))
    return vals


def gen_micros(rng):
    vals = [0, 1, -1, MICROS_PER_DAY, -MICROS_PER_DAY, MICROS_PER_DAY - 1, -MICROS_PER_DAY + 1,
            3_600_000_000, -3_600_000_000, -3_600_000_001, TS_MIN, TS_MAX,
            int((datetime(2017, 11, 16, 22, 31, 8) - datetime(1970, 1, 1)).total_seconds()) * 10**6,
            int((datetime(1969, 12, 31, 23, 59, 59) - datetime(1970, 1, 1)).total_seconds()) * 10**6,
            int((datetime(1900, 3, 1) - datetime(1970, 1, 1)).total_seconds()) * 10**6 - 1,
            int((datetime(2000, 3, 1) - datetime(1970, 1, 1)).total_seconds()) * 10**6 - 1]
    for _ in range(N_RANDOM):
        r = rng.random()
        if r < 0.3:
            vals.append(rng.randint(-400 * MICROS_PER_DAY, 400 * MICROS_PER_DAY))
        elif r < 0.5:
            vals.append(rng.randint(-3, 3) * MICROS_PER_DAY + rng.randint(-2, 2))
        else:
            vals.append(rng.randint(TS_MIN, TS_MAX))
    return vals


def gen_days(rng):
    vals = [0, 1, -1, -365, -366, 17486, DAY_MIN, DAY_MAX, -719162 + 60, 10957, 11016, -25508]
    for _ in range(N_RANDOM):
        vals.append(rng.randint(-1000, 1000) if rng.random() < 0.4 else rng.randint(DAY_MIN, DAY_MAX))
    return vals


def gen_decimals(rng, precision):
    top = 10**precision - 1
    vals = [0, 1, -1, 5, -5, 49, 50, -50, 1065, -1065, top, -top + 10**9, top // 2]
    for _ in range(N_RANDOM):
        digits = rng.randint(1, precision)
        vals.append(rng.randint(-(10**digits) + 1, 10**digits - 1))
    return [v for v in vals if -top <= v <= top]


def to_decimal(unscaled, scale):
    return decimal.Decimal(unscaled).scaleb(-scale)


def from_decimal(d, scale):
    return int(d.scaleb(scale))


# ---- the comparison ------------------------------------------------------------------------

def expected_token(kind, transform, result):
    if result is None:
        return "null"
    if kind in ("string",):
        return hexs(result.encode("utf-8")) if transform.startswith("truncate") or \
            transform == "identity" else str(result)
    if kind in ("binary", "fixed"):
        return hexs(result) if transform.startswith("truncate") or transform == "identity" \
            else str(result)
    if kind == "uuid":
        return hexs(result.bytes if isinstance(result, uuid.UUID) else result) \
            if transform == "identity" else str(result)
    if isinstance(result, decimal.Decimal):
        raise AssertionError("decimal result needs its scale")
    if isinstance(result, date) and not isinstance(result, datetime):
        return str((result - date(1970, 1, 1)).days)
    return str(int(result))


def compare(exe, sql_type, ice_type, values, transforms, to_py, kind, result_range=None,
            scale=None):
    """values: driver tokens' source (python ints/str/bytes); to_py maps one to pyiceberg's."""
    lines, want = [], []
    for t in transforms:
        fn = parse_transform(t).transform(ice_type)
        for v in values + [None]:
            if v is None:
                token = "null"
            elif kind == "string":
                token = hexs(v.encode("utf-8"))
            elif kind in ("binary", "uuid"):
                token = hexs(v)
            else:
                token = str(v)
            res = fn(None if v is None else to_py(v))
            if isinstance(res, decimal.Decimal):
                exp = str(from_decimal(res, scale))
                num = int(exp)
            else:
                exp = expected_token(kind, t, res)
                num = res if isinstance(res, int) else None
            if result_range and t.startswith(result_range[0]) and num is not None and \
                    not (result_range[1] <= num <= result_range[2]):
                continue  # checked separately (test_out_of_range)
            lines.append(f"{sql_type} {token} {t}")
            want.append(exp)
    got = run_driver(exe, lines)
    bad = [(l, w, g) for l, w, g in zip(lines, want, got) if w != g]
    assert not bad, f"{len(bad)} mismatches of {len(lines)}, first: {bad[:5]}"
    return len(lines)


def test_int(driver):
    rng = random.Random(SEED)
    vals = gen_ints(rng, INT_MIN, INT_MAX)
    n = compare(driver, "int", IntegerType(), vals, ["identity", "void"] + BUCKETS + TRUNC_NUM,
                int, "int", result_range=("truncate", INT_MIN, INT_MAX))
    assert n > 30000


def test_long(driver):
    rng = random.Random(SEED + 1)
    vals = gen_ints(rng, LONG_MIN, LONG_MAX)
    n = compare(driver, "long", LongType(), vals, ["identity", "void"] + BUCKETS + TRUNC_NUM,
                int, "long", result_range=("truncate", LONG_MIN, LONG_MAX))
    assert n > 30000


@pytest.mark.parametrize("precision,scale", [(9, 2), (18, 0), (18, 6), (38, 10), (38, 0), (3, 3)])
def test_decimal(driver, precision, scale):
    rng = random.Random(SEED + precision * 100 + scale)
    vals = gen_decimals(rng, precision)
    top = 10**precision - 1
    n = compare(driver, f"decimal({precision},{scale})", DecimalType(precision, scale), vals,
                ["identity", "void"] + BUCKETS + TRUNC_NUM, lambda v: to_decimal(v, scale),
                "decimal", result_range=("truncate", -top, top), scale=scale)
    assert n > 30000


def test_date(driver):
    rng = random.Random(SEED + 2)
    vals = gen_days(rng)
    n = compare(driver, "date", DateType(), vals, ["identity", "void"] + BUCKETS + TIME_PARTS,
                int, "date")
    assert n > 25000


def test_time(driver):
    rng = random.Random(SEED + 3)
    vals = [0, 1, MICROS_PER_DAY - 1, (22 * 3600 + 31 * 60 + 8) * 10**6] + \
        [rng.randint(0, MICROS_PER_DAY - 1) for _ in range(N_RANDOM)]
    n = compare(driver, "time", TimeType(), vals, ["identity", "void"] + BUCKETS, int, "time")
    assert n > 15000


@pytest.mark.parametrize("sql_type,ice_type", [("timestamp", TimestampType()),
                                               ("timestamptz", TimestamptzType())])
def test_timestamp(driver, sql_type, ice_type):
    rng = random.Random(SEED + 4)
    vals = gen_micros(rng)
    n = compare(driver, sql_type, ice_type, vals,
                ["identity", "void"] + BUCKETS + TIME_PARTS + ["hour"], int, "timestamp")
    assert n > 30000


def test_string(driver):
    rng = random.Random(SEED + 5)
    vals = gen_strings(rng)
    n = compare(driver, "string", StringType(), vals, ["identity", "void"] + BUCKETS + TRUNC_STR,
                lambda v: v, "string")
    assert n > 30000


def test_binary_and_fixed(driver):
    rng = random.Random(SEED + 6)
    vals = gen_bytes(rng)
    n = compare(driver, "binary", BinaryType(), vals, ["identity", "void"] + BUCKETS + TRUNC_STR,
                lambda v: v, "binary")
    assert n > 30000
    # fixed(L) hashes like binary; SQE stores it as VARBINARY.
    fixed = [v for v in vals if len(v) == 16]
    compare(driver, "binary", FixedType(16), fixed, BUCKETS, lambda v: v, "binary")


def test_uuid(driver):
    rng = random.Random(SEED + 7)
    vals = [uuid.UUID("f79c3e09-677c-4bbd-a479-3f349cb785e7").bytes, bytes(16), b"\xff" * 16] + \
        [rng.getrandbits(128).to_bytes(16, "big") for _ in range(N_RANDOM)]
    n = compare(driver, "uuid", UUIDType(), vals, ["identity", "void"] + BUCKETS,
                lambda v: uuid.UUID(bytes=v), "uuid")
    assert n > 15000


def test_spec_vectors_through_driver(driver):
    """Appendix B test values, as bucket[2147483647] (hash & INT_MAX) through the driver."""
    m = 2147483647
    cases = [("int 34", 2017239379), ("long 34", 2017239379), ("decimal(4,2) 1420", -500754589),
             ("date 17486", -653330422), ("time 81068000000", -662762989),
             ("timestamp 1510871468000000", -2047944441),
             ("timestamptz 1510871468000000", -2047944441),
             ("string 69636562657267", 1210000089),
             ("uuid f79c3e09677c4bbda4793f349cb785e7", 1488055340),
             ("binary 00010203", -188683207)]
    got = run_driver(driver, [f"{c} bucket[{m}]" for c, _ in cases])
    assert got == [str((h & 0x7FFFFFFF) % m) for _, h in cases]


def test_out_of_range(driver):
    """Partition values beyond the result type fail the batch rather than wrap."""
    cases = ["int -2147483648 truncate[10]", "int -2147483647 truncate[3]",
             "long -9223372036854775808 truncate[10]", "decimal(3,0) -999 truncate[10]",
             "timestamp -9223372036854775808 hour", "timestamp 9223372036854775807 hour"]
    lines = []
    for c in cases:
        lines += [c, "int 0 identity"]  # the separator keeps each case in its own batch
    got = run_driver(driver, lines)
    assert got[0::2] == ["error NUMERIC_VALUE_OUT_OF_RANGE"] * len(cases)
    assert got[1::2] == ["0"] * len(cases)


def test_not_applicable(driver):
    got = run_driver(driver, ["time 5 year", "date 5 hour", "uuid " + "00" * 16 + " truncate[2]",
                              "int 5 zorder", "timestamp 5 truncate[3]"])
    assert got == ["error NOT_SUPPORTED"] * 5
