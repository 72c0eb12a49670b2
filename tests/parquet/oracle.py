"""The Parquet test oracle: read a file with pyarrow and with SQE, compare value by value.

SQE is run as `sqe sql --threads 1` (build-asan/sqe when built, else build/sqe, or $SQE_BIN)
on a script that prints the result's column types (table format, LIMIT 0) and then its rows
as one JSON line (`--format json`); `threads=None` runs it with its default thread count.
pyarrow's reading of the same file is turned into the values SQE's JSON must hold, following
SQE's type mapping (see README.md):

    bool -> boolean; int8/16/32/64 -> tinyint/smallint/integer/bigint; uint8 -> smallint,
    uint16 -> integer, uint32 -> bigint, uint64 -> decimal(20,0); float16, float32 -> real;
    float64 -> double; decimal(p,s) -> decimal(p,s) (p <= 38); string, enum -> varchar;
    binary -> varbinary; JSON -> json; UUID -> uuid; date -> date; time[ms] -> time(3),
    time[us|ns] -> time(6); timestamp[ms] -> timestamp(3), timestamp[us|ns] and INT96 ->
    timestamp(6) (nanoseconds floored to microseconds); UTC-adjusted timestamps -> timestamp(p)
    with time zone (printed in UTC); list -> array; map -> map; struct -> row; null -> NULL.

Every expected value is put in a canonical form that SQE's JSON value is also brought to:
None for NULL, bool, int, str (decimals, varchar, varbinary hex, uuid, date/time text),
('real' | 'double', IEEE bits or 'NaN') for floats (bit-exact, -0.0 != 0.0, NaN == NaN),
('json', text) for json, lists for arrays, ('map', ((k, v), ...)) and ('row', ((name, v), ...))
with entries in order. When SQE's CLI could not turn a nested value's text into JSON (a string
element holding ", " or "]"; see src/cli/output.c) the cell arrives as a string; it is then
compared with the Trino text form of the expected value.

Entry points: compare_file(path) -> Outcome; run_sqe(script) -> SqeRun; read_reference(path);
sqe_type_of(arrow_type); expected_column(chunked_array, sqe_type); canon_actual(value, sqe_type);
trino_text(canonical, sqe_type); java_float_text(x, single).
"""
from __future__ import annotations

import json
import os
import signal
import struct
import subprocess
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "parquet-testing"
SANITIZER_MARKS = ("AddressSanitizer", "runtime error:", "LeakSanitizer")


# ---- running SQE -------------------------------------------------------------------------------

def sqe_binary() -> Path:
    """$SQE_BIN, else build-asan/sqe when it exists, else build/sqe."""
    if os.environ.get("SQE_BIN"):
        return Path(os.environ["SQE_BIN"])
    asan = ROOT / "build-asan" / "sqe"
    return asan if asan.exists() else ROOT / "build" / "sqe"


@dataclass
class SqeRun:
    """One `sqe sql` process: its exit, output and the checks every run must pass."""
    script: str
    returncode: int | None
    stdout: str
    stderr: str
    timed_out: bool

    @property
    def signal_name(self) -> str | None:
        if self.returncode is not None and self.returncode < 0:
            try:
                return signal.Signals(-self.returncode).name
            except ValueError:
                return f"signal {-self.returncode}"
        return None

    @property
    def sanitizer_report(self) -> str | None:
        found = [at for at in (self.stderr.find(mark) for mark in SANITIZER_MARKS) if at >= 0]
        if not found:
            return None
        at = self.stderr.rfind("\n", 0, min(found)) + 1
        return self.stderr[at:at + 4000]

    def health_problem(self) -> str | None:
        """Why this run is unacceptable whatever it printed (crash, sanitizer, hang), or None."""
        if self.timed_out:
            return "timed out"
        if self.signal_name:
            return f"killed by {self.signal_name}; stderr: {self.stderr[-1500:]}"
        report = self.sanitizer_report
        if report:
            return f"sanitizer report:\n{report}"
        return None

    def json_lines(self) -> list[Any]:
        """The JSON lines of stdout, parsed (objects keep their key order as Pairs)."""
        out = []
        for line in self.stdout.splitlines():
            if line.startswith("[") or line.startswith("{"):
                out.append(parse_json(line))
        return out


def run_sqe(script: str, *, fmt: str = "json", timeout: float = 60, binary: Path | None = None,
            cwd: Path | None = None, threads: int | None = 1) -> SqeRun:
    """Runs `sqe sql --format FMT` with script on stdin (dot commands allowed), on `threads`
    worker threads (None: SQE's default, one per core)."""
    exe = binary or sqe_binary()
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
    args = [str(exe), "sql", "--memory", "--format", fmt]
    if threads is not None:
        args += ["--threads", str(threads)]
    try:
        proc = subprocess.run(args, input=script.encode(), capture_output=True, timeout=timeout,
                              env=env, cwd=cwd)
    except subprocess.TimeoutExpired as exc:
        return SqeRun(script, None, _text(exc.stdout), _text(exc.stderr), True)
    return SqeRun(script, proc.returncode, _text(proc.stdout), _text(proc.stderr), False)


def _text(b: bytes | None) -> str:
    return (b or b"").decode("utf-8", errors="replace")


def sql_string(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def read_parquet_sql(path: Path | str) -> str:
    return f"SELECT * FROM read_parquet({sql_string(str(Path(path).resolve()))})"


class Pairs(list):
    """A JSON object as its (key, value) pairs in order (keeps duplicate keys and order)."""


def parse_json(text: str) -> Any:
    return json.loads(text, object_pairs_hook=Pairs)


@dataclass
class SqeRead:
    """What SQE returned for `SELECT * FROM read_parquet(path)`."""
    run: SqeRun
    types: list[str] | None = None      # column types from the table header
    rows: list[Pairs] | None = None     # each row: (column name, JSON value) pairs
    error: str | None = None            # the error message with its SQLSTATE, when it failed

    @property
    def names(self) -> list[str] | None:
        return [k for k, _ in self.rows[0]] if self.rows else None


def table_header_types(stdout: str) -> list[str] | None:
    """The type line of a table-format header (the second line starting with '│')."""
    box_lines = [line for line in stdout.splitlines() if line.startswith("│")]
    if len(box_lines) < 2:
        return None
    return [cell.strip() for cell in box_lines[1].split("│")[1:-1]]


def sqe_read(path: Path | str, *, timeout: float = 60, with_types: bool = True,
             sql: str | None = None, threads: int | None = 1) -> SqeRead:
    """Runs SELECT * FROM read_parquet(path) (or sql) and collects types, rows or the error."""
    query = sql or read_parquet_sql(path)
    script = ""
    if with_types:
        script += f"{query} LIMIT 0;\n"
    script += ".format json\n" if with_types else ""
    script += f"{query};\n"
    run = run_sqe(script, fmt="table" if with_types else "json", timeout=timeout,
                  threads=threads)
    read = SqeRead(run)
    if run.health_problem():
        read.error = run.health_problem()
        return read
    if with_types:
        read.types = table_header_types(run.stdout)
    lines = run.json_lines()
    last = lines[-1] if lines else None
    if isinstance(last, list) and not isinstance(last, Pairs):
        read.rows = last
    else:
        read.error = error_text(last, run)
    return read


def error_text(line: Any, run: SqeRun) -> str:
    """The error of a failed statement: "message (SQLSTATE xxxxx)"."""
    if isinstance(line, Pairs):
        err = dict(line).get("error")
        if isinstance(err, Pairs):
            e = dict(err)
            return f"{e.get('message')} (SQLSTATE {e.get('sqlstate')})"
    tail = run.stderr.strip().splitlines()
    return tail[-1] if tail else f"no result and no error (exit {run.returncode})"


def has_sqlstate(error: str | None) -> bool:
    return bool(error) and "SQLSTATE" in error


# ---- the reference reading ---------------------------------------------------------------------

@dataclass
class Reference:
    """A reading of a file to compare SQE with: by pyarrow, or by DuckDB when pyarrow fails."""
    table: pa.Table | None
    leaves: list | None          # pyarrow ColumnSchema of each Parquet leaf, in schema order
    source: str | None           # "pyarrow", "duckdb" or None
    pyarrow_error: str | None = None
    duckdb_error: str | None = None


def read_reference(path: Path | str, *, duckdb_fallback: bool = True) -> Reference:
    path = str(path)
    try:
        # INT96 values past the nanosecond range (year 2262) wrap around in pyarrow's default
        # unit; SQE reads INT96 as microseconds.
        pf = pq.ParquetFile(path, coerce_int96_timestamp_unit="us")
        leaves = [pf.schema.column(i) for i in range(len(pf.schema))]
        table = pf.read()
        return Reference(table, leaves, "pyarrow")
    except Exception as exc:  # pyarrow raises many types here
        pyarrow_error = f"{type(exc).__name__}: {exc}"
    if not duckdb_fallback:
        return Reference(None, None, None, pyarrow_error)
    try:
        import duckdb
        con = duckdb.connect()
        table = con.sql(f"SELECT * FROM read_parquet({sql_string(path)})").to_arrow_table()
        return Reference(table, None, "duckdb", pyarrow_error)
    except Exception as exc:
        return Reference(None, None, None, pyarrow_error, f"{type(exc).__name__}: {exc}")


# ---- SQE types of Arrow types ------------------------------------------------------------------

@dataclass(frozen=True)
class SqeType:
    """An SQE type: kind plus decimal/time precision, children and row field names."""
    kind: str                     # boolean tinyint smallint integer bigint real double decimal
    #                               varchar varbinary json uuid date time timestamp timestamptz
    #                               array map row null unsupported
    p: int = 0                    # decimal precision; time/timestamp fraction digits
    s: int = 0                    # decimal scale
    children: tuple = ()
    names: tuple = ()
    why: str = ""                 # unsupported: the reason

    def spelled(self) -> str | None:
        """SQE's (Trino's) spelling of the type; None when any spelling is acceptable."""
        k = self.kind
        if k in ("null", "unsupported"):
            return None
        if k == "decimal":
            return f"decimal({self.p},{self.s})"
        if k == "time":
            return f"time({self.p})"
        if k == "timestamp":
            return f"timestamp({self.p})"
        if k == "timestamptz":
            return f"timestamp({self.p}) with time zone"
        if k == "array":
            c = self.children[0].spelled()
            return None if c is None else f"array({c})"
        if k == "map":
            kk, vv = (c.spelled() for c in self.children)
            return None if kk is None or vv is None else f"map({kk}, {vv})"
        if k == "row":
            parts = []
            for name, c in zip(self.names, self.children):
                cs = c.spelled()
                if cs is None:
                    return None
                parts.append(f"{type_field_name(name)} {cs}")
            return "row(" + ", ".join(parts) + ")"
        return k

    def has_unsupported(self) -> bool:
        return self.kind == "unsupported" or any(c.has_unsupported() for c in self.children)

    @property
    def string_keys(self) -> bool:
        return self.kind == "map" and self.children[0].kind == "varchar"


def type_field_name(name: str) -> str:
    """A row field name as SQE's type names write it (plain identifier or double-quoted)."""
    plain = bool(name) and (name[0].isascii() and (name[0].isalpha() or name[0] == "_")) and all(
        ch.isascii() and (ch.isalnum() or ch == "_") for ch in name)
    return name if plain else '"' + name.replace('"', '""') + '"'


def _logical(leaf) -> str:
    if leaf is None:
        return ""
    try:
        return str(leaf.logical_type.type)
    except Exception:
        return ""


def sqe_type_of(atype: pa.DataType, leaves: Iterator | None = None) -> SqeType:
    """SQE's type for an Arrow type read from Parquet. leaves yields the Parquet ColumnSchema of
    each leaf in order (consumed as the type is walked); it refines binary/string columns (ENUM,
    JSON, UUID annotations)."""
    def leaf():
        return next(leaves, None) if leaves is not None else None

    if isinstance(atype, pa.BaseExtensionType):
        name = atype.extension_name
        storage = sqe_type_of(atype.storage_type, leaves)
        if name == "arrow.uuid":
            return SqeType("uuid")
        if name in ("arrow.json", "arrow.parquet.json"):
            return SqeType("json")
        return storage
    t = pa.types
    if t.is_dictionary(atype):
        return sqe_type_of(atype.value_type, leaves)
    if t.is_list(atype) or t.is_large_list(atype) or t.is_fixed_size_list(atype) or \
            getattr(t, "is_list_view", lambda _: False)(atype) or \
            getattr(t, "is_large_list_view", lambda _: False)(atype):
        return SqeType("array", children=(sqe_type_of(atype.value_type, leaves),))
    if t.is_map(atype):
        k = sqe_type_of(atype.key_type, leaves)
        v = sqe_type_of(atype.item_type, leaves)
        return SqeType("map", children=(k, v))
    if t.is_struct(atype):
        fields = [atype.field(i) for i in range(atype.num_fields)]
        children = tuple(sqe_type_of(f.type, leaves) for f in fields)
        return SqeType("row", children=children, names=tuple(f.name for f in fields))
    # a leaf
    lt = _logical(leaf())
    if t.is_null(atype):
        return SqeType("null")
    if t.is_boolean(atype):
        return SqeType("boolean")
    ints = {pa.int8(): "tinyint", pa.int16(): "smallint", pa.int32(): "integer",
            pa.int64(): "bigint", pa.uint8(): "smallint", pa.uint16(): "integer",
            pa.uint32(): "bigint"}
    if atype in ints:
        return SqeType(ints[atype])
    if atype == pa.uint64():
        return SqeType("decimal", 20, 0)
    if t.is_float16(atype) or t.is_float32(atype):
        return SqeType("real")
    if t.is_float64(atype):
        return SqeType("double")
    if t.is_decimal(atype):
        if atype.precision > 38:
            return SqeType("unsupported", why=f"decimal precision {atype.precision} > 38")
        return SqeType("decimal", atype.precision, atype.scale)
    if t.is_string(atype) or t.is_large_string(atype) or \
            getattr(t, "is_string_view", lambda _: False)(atype):
        return SqeType("json" if lt == "JSON" else "varchar")
    if t.is_binary(atype) or t.is_large_binary(atype) or t.is_fixed_size_binary(atype) or \
            getattr(t, "is_binary_view", lambda _: False)(atype):
        if lt in ("STRING", "ENUM"):
            return SqeType("varchar")
        if lt == "JSON":
            return SqeType("json")
        if lt == "UUID":
            return SqeType("uuid")
        return SqeType("varbinary")
    if t.is_date(atype):
        return SqeType("date")
    if t.is_time(atype):
        return SqeType("time", 3 if atype.unit in ("s", "ms") else 6)
    if t.is_timestamp(atype):
        p = 3 if atype.unit in ("s", "ms") else 6
        return SqeType("timestamptz" if atype.tz is not None else "timestamp", p)
    if t.is_duration(atype):
        return SqeType("bigint")   # pyarrow stores durations as plain INT64
    return SqeType("unsupported", why=f"no SQE type for Arrow {atype}")


def sqe_schema_of(ref: Reference) -> list[SqeType]:
    leaves = iter(ref.leaves) if ref.leaves is not None else None
    return [sqe_type_of(f.type, leaves) for f in ref.table.schema]


# ---- expected values from Arrow arrays ---------------------------------------------------------

def expected_column(col: pa.ChunkedArray | pa.Array, st: SqeType) -> list:
    """The canonical value of each row of col as SQE must return it."""
    if isinstance(col, pa.ChunkedArray):
        out = []
        for chunk in col.chunks:
            out.extend(expected_array(chunk, st))
        return out
    return expected_array(col, st)


def _valid(arr: pa.Array) -> list[bool]:
    return arr.is_valid().to_pylist()


def _fixed_width_values(arr: pa.Array, dtype) -> np.ndarray:
    """The raw value buffer of a fixed-width primitive array, respecting its offset."""
    buf = arr.buffers()[1]
    n = arr.offset + len(arr)
    if buf is None:
        return np.zeros(len(arr), dtype=dtype)
    return np.frombuffer(buf, dtype=dtype, count=n)[arr.offset:]


def expected_array(arr: pa.Array, st: SqeType) -> list:
    atype = arr.type
    if isinstance(atype, pa.BaseExtensionType):
        arr = arr.storage
        atype = arr.type
    t = pa.types
    if t.is_dictionary(atype):
        arr = arr.dictionary_decode()
        atype = arr.type
    n = len(arr)
    if st.kind == "null" or t.is_null(atype):
        return [None] * n
    valid = _valid(arr)

    def masked(values):
        return [v if ok else None for v, ok in zip(values, valid)]

    k = st.kind
    if k == "array":
        child = st.children[0]
        values = arr.values
        if t.is_fixed_size_list(atype):
            size = atype.list_size
            flat = expected_array(values, child)
            starts = [(arr.offset + i) * size for i in range(n)]
            return masked([flat[s:s + size] for s in starts])
        if getattr(t, "is_list_view", lambda _: False)(atype) or \
                getattr(t, "is_large_list_view", lambda _: False)(atype):
            flat = expected_array(values, child)
            offs, sizes = arr.offsets.to_pylist(), arr.sizes.to_pylist()
            return masked([flat[o:o + s] for o, s in zip(offs, sizes)])
        flat = expected_array(values, child)
        offs = arr.offsets.to_pylist()
        return masked([flat[offs[i]:offs[i + 1]] for i in range(n)])
    if k == "map":
        kt, vt = st.children
        keys = expected_array(arr.keys, kt)
        items = expected_array(arr.items, vt)
        offs = arr.offsets.to_pylist()
        return masked([("map", tuple(zip(keys[offs[i]:offs[i + 1]], items[offs[i]:offs[i + 1]])))
                       for i in range(n)])
    if k == "row":
        fields = [expected_array(arr.field(j), c) for j, c in enumerate(st.children)]
        return masked([("row", tuple((name, f[i]) for name, f in zip(st.names, fields)))
                       for i in range(n)])
    if k == "boolean":
        return arr.to_pylist()
    if k in ("tinyint", "smallint", "integer", "bigint"):
        if t.is_duration(atype):
            arr = arr.cast(pa.int64())
        return arr.to_pylist()
    if k == "decimal":
        if t.is_integer(atype):            # uint64 -> decimal(20,0)
            return masked([str(v) if v is not None else None for v in arr.to_pylist()])
        width = atype.byte_width
        buf = arr.buffers()[1]
        out = []
        for i in range(n):
            if not valid[i]:
                out.append(None)
                continue
            at = (arr.offset + i) * width
            unscaled = int.from_bytes(buf[at:at + width].to_pybytes(), "little", signed=True)
            out.append(decimal_text(unscaled, st.s))
        return out
    if k in ("real", "double"):
        if t.is_float16(atype):
            vals = _fixed_width_values(arr, np.float16).astype(np.float32)
        elif t.is_float32(atype):
            vals = _fixed_width_values(arr, np.float32)
        else:
            vals = _fixed_width_values(arr, np.float64)
        return masked([float_canon(float(v), k) for v in vals])
    if k in ("varchar", "json"):
        raw = _bytes_values(arr)
        texts = [sqe_utf8(b) if b is not None else None for b in raw]
        if k == "json":
            return [("json", json_canon(s)) if s is not None else None for s in texts]
        return texts
    if k == "varbinary":
        return [varbinary_text(b) if b is not None else None for b in _bytes_values(arr)]
    if k == "uuid":
        return [uuid_text(b) if b is not None else None for b in _bytes_values(arr)]
    if k == "date":
        if atype == pa.date64():
            days = [v // 86_400_000 if v is not None else None
                    for v in arr.cast(pa.int64()).to_pylist()]
        else:
            days = arr.cast(pa.int32()).to_pylist()
        return [date_text(d) if d is not None else None for d in days]
    if k == "time":
        per_unit = {"s": 1_000_000, "ms": 1000, "us": 1, "ns": None}[atype.unit]
        raw = arr.cast(pa.int32() if pa.types.is_time32(atype) else pa.int64()).to_pylist()
        micros = [None if v is None else (v // 1000 if per_unit is None else v * per_unit)
                  for v in raw]
        return [time_text(u, st.p) if u is not None else None for u in micros]
    if k in ("timestamp", "timestamptz"):
        per_unit = {"s": 1_000_000, "ms": 1000, "us": 1, "ns": None}[atype.unit]
        raw = arr.cast(pa.int64()).to_pylist()
        micros = [None if v is None else (v // 1000 if per_unit is None else v * per_unit)
                  for v in raw]
        suffix = " UTC" if k == "timestamptz" else ""
        return [timestamp_text(u, st.p) + suffix if u is not None else None for u in micros]
    raise ValueError(f"no expected values for SQE type {st} (Arrow {atype})")


def _bytes_values(arr: pa.Array) -> list[bytes | None]:
    t = pa.types
    atype = arr.type
    if t.is_string(atype) or getattr(t, "is_string_view", lambda _: False)(atype):
        arr = arr.cast(pa.binary())
    elif t.is_large_string(atype):
        arr = arr.cast(pa.large_binary())
    return arr.to_pylist()


# ---- scalar spellings (SQE's text of each type) ------------------------------------------------

def decimal_text(unscaled: int, scale: int) -> str:
    """"-12.50": sign, at least one integer digit, exactly `scale` fraction digits."""
    sign = "-" if unscaled < 0 else ""
    digits = str(abs(unscaled)).rjust(scale + 1, "0")
    if scale == 0:
        return sign + digits
    return f"{sign}{digits[:-scale]}.{digits[-scale:]}"


def float_canon(x: float, kind: str) -> tuple:
    """('real' | 'double', IEEE bits) with every NaN as 'NaN'."""
    if x != x:
        return (kind, "NaN")
    if kind == "real":
        return (kind, struct.unpack("<I", struct.pack("<f", x))[0])
    return (kind, struct.unpack("<Q", struct.pack("<d", x))[0])


def float_of_canon(c: tuple) -> float:
    kind, bits = c
    if bits == "NaN":
        return float("nan")
    if kind == "real":
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def java_float_text(x: float, single: bool) -> str:
    """Java's Float.toString / Double.toString (JDK 19+, shortest round trip): "0.1", "100.0",
    "1.0E7", "1.0E-4", "-0.0", "NaN", "Infinity". SQE prints REAL and DOUBLE this way."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if struct.pack("<d", x)[0:8] != struct.pack("<d", 0.0) else "0.0"
    if single:
        shortest = np.format_float_scientific(np.float32(x), unique=True, trim="-")
    else:
        shortest = repr(x)
    sign, digits, exp = Decimal(shortest).normalize().as_tuple()
    if len(digits) == 1:
        # Java picks among the decimals of length 1 or 2 that round to x the one closest to x
        # (Float.MIN_VALUE is "1.4E-45", not "1.0E-45").
        exact = Decimal(x)
        two = exact.quantize(Decimal(1).scaleb(exact.adjusted() - 1), rounding=ROUND_HALF_EVEN)
        sign, digits, exp = two.normalize().as_tuple()
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    # value = 0.ds * 10^(exp + len(digits)) -> scientific exponent e with d.ddd
    e = exp + len(digits) - 1
    neg = "-" if sign else ""
    if -3 <= e < 7:
        if e >= 0:
            whole = ds[:e + 1].ljust(e + 1, "0")
            frac = ds[e + 1:] or "0"
        else:
            whole = "0"
            frac = "0" * (-e - 1) + ds
        return f"{neg}{whole}.{frac}"
    return f"{neg}{ds[0]}.{ds[1:] or '0'}E{e}"


def sqe_utf8(b: bytes) -> str:
    """Decodes like SQE's JSON writer: each byte that does not start a valid UTF-8 sequence
    (overlong, surrogate, > U+10FFFF, cut short) becomes U+FFFD on its own."""
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        pass
    out = []
    i = 0
    while i < len(b):
        c = b[i]
        if c < 0x80:
            out.append(chr(c))
            i += 1
            continue
        if c & 0xE0 == 0xC0:
            n, cp, low = 2, c & 0x1F, 0x80
        elif c & 0xF0 == 0xE0:
            n, cp, low = 3, c & 0x0F, 0x800
        elif c & 0xF8 == 0xF0:
            n, cp, low = 4, c & 0x07, 0x10000
        else:
            out.append("\ufffd")
            i += 1
            continue
        ok = i + n <= len(b) and all(b[i + j] & 0xC0 == 0x80 for j in range(1, n))
        if ok:
            for j in range(1, n):
                cp = (cp << 6) | (b[i + j] & 0x3F)
            ok = low <= cp <= 0x10FFFF and not 0xD800 <= cp <= 0xDFFF
        if ok:
            out.append(chr(cp))
            i += n
        else:
            out.append("\ufffd")
            i += 1
    return "".join(out)


def json_canon(text: str) -> str:
    """JSON text compared by meaning: re-serialized compactly when it parses."""
    try:
        return json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
    except ValueError:
        return text


def varbinary_text(b: bytes) -> str:
    return " ".join(f"{x:02x}" for x in b)


def uuid_text(b: bytes) -> str:
    h = b.hex()
    return f"{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def civil_from_days(z: int) -> tuple[int, int, int]:
    """Proleptic Gregorian (year, month, day) of days since 1970-01-01 (H. Hinnant)."""
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (1 if m <= 2 else 0), m, d


def year_text(y: int) -> str:
    """0000-9999 as four digits, later years with '+', earlier with '-' and four digits."""
    if 0 <= y <= 9999:
        return f"{y:04d}"
    return f"+{y}" if y > 9999 else f"-{-y:04d}"


def date_text(days: int) -> str:
    y, m, d = civil_from_days(days)
    return f"{year_text(y)}-{m:02d}-{d:02d}"


def _clock(micros_of_day: int, p: int) -> str:
    s, frac = divmod(micros_of_day, 1_000_000)
    h, rem = divmod(s, 3600)
    mi, sec = divmod(rem, 60)
    text = f"{h:02d}:{mi:02d}:{sec:02d}"
    if p > 0:
        text += "." + f"{frac:06d}"[:p]
    return text


def time_text(micros: int, p: int) -> str:
    return _clock(micros, p)


def timestamp_text(micros: int, p: int) -> str:
    days, rem = divmod(micros, 86_400_000_000)
    return f"{date_text(days)} {_clock(rem, p)}"


# ---- SQE's JSON values in canonical form -------------------------------------------------------

class Mismatch(Exception):
    """SQE's value does not have the shape its type requires."""


def canon_actual(v: Any, st: SqeType) -> Any:
    """SQE's JSON value v of type st in the canonical form of expected_column."""
    if v is None:
        return None
    k = st.kind
    if k == "null":
        return ("non-null", v)
    if k in ("array", "map", "row") and isinstance(v, str):
        return ("text", v)                     # the CLI's fallback for ambiguous text
    if k == "boolean":
        if not isinstance(v, bool):
            raise Mismatch(f"expected a JSON boolean, got {v!r}")
        return v
    if k in ("tinyint", "smallint", "integer", "bigint"):
        if isinstance(v, bool) or not isinstance(v, int):
            raise Mismatch(f"expected a JSON integer, got {v!r}")
        return v
    if k in ("real", "double"):
        if isinstance(v, str):
            specials = {"NaN": float("nan"), "Infinity": float("inf"),
                        "-Infinity": float("-inf")}
            if v not in specials:
                raise Mismatch(f"expected a number or NaN/Infinity, got {v!r}")
            return float_canon(specials[v], k)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise Mismatch(f"expected a JSON number, got {v!r}")
        x = float(v)
        if k == "real":
            x = float(np.float32(v if isinstance(v, float) else float(v)))
        return float_canon(x, k)
    if k == "json":
        if not isinstance(v, str):
            raise Mismatch(f"expected a JSON string holding JSON text, got {v!r}")
        return ("json", json_canon(v))
    if k in ("decimal", "varchar", "varbinary", "uuid", "date", "time", "timestamp",
             "timestamptz"):
        if not isinstance(v, str):
            raise Mismatch(f"expected a JSON string, got {v!r}")
        return v
    if k == "array":
        if not isinstance(v, list) or isinstance(v, Pairs):
            raise Mismatch(f"expected a JSON array, got {v!r}")
        return [canon_actual(x, st.children[0]) for x in v]
    if k == "map":
        kt, vt = st.children
        if st.string_keys:
            if not isinstance(v, Pairs):
                raise Mismatch(f"expected a JSON object (map with varchar keys), got {v!r}")
            return ("map", tuple((key, canon_actual(x, vt)) for key, x in v))
        if not isinstance(v, list) or isinstance(v, Pairs) or \
                not all(isinstance(e, list) and len(e) == 2 for e in v):
            raise Mismatch(f"expected a JSON array of [key, value] pairs, got {v!r}")
        return ("map", tuple((canon_actual(a, kt), canon_actual(b, vt)) for a, b in v))
    if k == "row":
        if not isinstance(v, Pairs):
            raise Mismatch(f"expected a JSON object (row), got {v!r}")
        if [name for name, _ in v] != list(st.names):
            raise Mismatch(f"row fields {[n for n, _ in v]} != {list(st.names)}")
        return ("row", tuple((name, canon_actual(x, c))
                             for (name, x), c in zip(v, st.children)))
    raise Mismatch(f"no canonical form for SQE type {k}")


def trino_text(c: Any, st: SqeType) -> str:
    """The Trino text form (what sqe_chunk_format prints) of canonical value c of type st."""
    if c is None:
        return "NULL"
    k = st.kind
    if k == "array":
        return "[" + ", ".join(trino_text(x, st.children[0]) for x in c) + "]"
    if k == "map":
        kt, vt = st.children
        return "{" + ", ".join(f"{trino_text(a, kt)}={trino_text(b, vt)}" for a, b in c[1]) + "}"
    if k == "row":
        return "{" + ", ".join(f"{name}={trino_text(x, ct)}"
                               for (name, x), ct in zip(c[1], st.children)) + "}"
    if k in ("real", "double"):
        return java_float_text(float_of_canon(c), k == "real")
    if k == "json":
        return c[1]
    if isinstance(c, bool):
        return "true" if c else "false"
    return str(c)


TEXT_SEPARATORS = (", ", "=", "[", "]", "{", "}")  # and "" and "NULL", see below


def text_is_ambiguous(c: Any, st: SqeType) -> bool:
    """True if nested value c holds a string that the Trino text form cannot delimit (one with
    a separator, or "NULL"): SQE's CLI may then split it wrongly when turning text into JSON."""
    if c is None:
        return False
    k = st.kind
    if k == "varchar":
        # "" too: ARRAY[''] prints "[]", like an empty array
        return c in ("NULL", "") or any(sep in c for sep in TEXT_SEPARATORS)
    if k == "array":
        return any(text_is_ambiguous(x, st.children[0]) for x in c)
    if k == "map":
        kt, vt = st.children
        return any(text_is_ambiguous(a, kt) or text_is_ambiguous(b, vt) for a, b in c[1])
    if k == "row":
        return any(text_is_ambiguous(x, ct) for (_, x), ct in zip(c[1], st.children))
    return False


def values_equal(expected: Any, actual: Any, st: SqeType) -> bool:
    """expected == actual; for a nested value whose text is ambiguous (see text_is_ambiguous),
    equal Trino text forms are enough."""
    if st.kind in ("array", "map", "row") and text_is_ambiguous(expected, st):
        got = actual[1] if isinstance(actual, tuple) and actual[:1] == ("text",) else \
            trino_text(actual, st)
        return trino_text(expected, st) == got
    if isinstance(actual, tuple) and len(actual) == 2 and actual[0] == "text" and \
            st.kind in ("array", "map", "row"):
        return False
    if st.kind == "array" and isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(
            values_equal(e, a, st.children[0]) for e, a in zip(expected, actual))
    if st.kind == "map" and isinstance(expected, tuple) and isinstance(actual, tuple) and \
            actual[0] == "map":
        kt, vt = st.children
        return len(expected[1]) == len(actual[1]) and all(
            values_equal(ek, ak, kt) and values_equal(ev, av, vt)
            for (ek, ev), (ak, av) in zip(expected[1], actual[1]))
    if st.kind == "row" and isinstance(expected, tuple) and isinstance(actual, tuple) and \
            actual[0] == "row":
        return len(expected[1]) == len(actual[1]) and all(
            en == an and values_equal(ev, av, ct)
            for (en, ev), (an, av), ct in zip(expected[1], actual[1], st.children))
    return expected == actual


# ---- comparing a file --------------------------------------------------------------------------

@dataclass
class Outcome:
    """The verdict on one file. status: "match", "mismatch", "sqe_error", "unhealthy"
    (crash, sanitizer report, timeout) or "no_reference" (pyarrow and DuckDB both failed)."""
    status: str
    detail: str = ""
    sqe: SqeRead | None = None
    reference: Reference | None = None
    problems: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.status}: {self.detail}"


def _short(x: Any, limit: int = 300) -> str:
    s = repr(x)
    return s if len(s) <= limit else s[:limit] + "..."


def compare_rows(ref_table: pa.Table, types: list[SqeType], read: SqeRead,
                 max_problems: int = 12) -> list[str]:
    """Every difference between the reference table and SQE's rows (up to max_problems)."""
    problems: list[str] = []
    names = ref_table.schema.names
    if read.types is None:
        problems.append("SQE printed no column types (its LIMIT 0 statement failed?)")
    else:
        if len(read.types) != len(types):
            problems.append(f"SQE has {len(read.types)} columns {read.types}, expected "
                            f"{len(types)} {names}")
            return problems
        for name, got, want in zip(names, read.types, types):
            spelled = want.spelled()
            if spelled is not None and got != spelled:
                problems.append(f"column {name!r}: SQE type {got}, expected {spelled}")
    rows = read.rows or []
    if len(rows) != ref_table.num_rows:
        problems.append(f"SQE returned {len(rows)} rows, expected {ref_table.num_rows}")
    expected_cols = [expected_column(ref_table.column(i), t) for i, t in enumerate(types)]
    for r, row in enumerate(rows[:ref_table.num_rows]):
        if len(row) != len(names):
            problems.append(f"row {r}: {len(row)} columns, expected {len(names)}")
            break
        for c, ((got_name, got), st) in enumerate(zip(row, types)):
            if got_name != names[c]:
                problems.append(f"column {c}: SQE name {got_name!r}, expected {names[c]!r}")
                return problems
            want = expected_cols[c][r]
            try:
                actual = canon_actual(got, st)
            except Mismatch as exc:
                problems.append(f"row {r} column {names[c]!r}: {exc}; expected {_short(want)}")
                actual = None
            else:
                if want != actual and not values_equal(want, actual, st):
                    problems.append(f"row {r} column {names[c]!r}: SQE {_short(got)} "
                                    f"(canonical {_short(actual)}), expected {_short(want)}")
            if len(problems) >= max_problems:
                problems.append("(more differences not shown)")
                return problems
    return problems


def same_rows_in_other_order(ref_table: pa.Table, types: list[SqeType], read: SqeRead) -> bool:
    """True if SQE's rows equal the reference's apart from their order (a diagnosis only)."""
    rows = read.rows or []
    if len(rows) != ref_table.num_rows or ref_table.num_rows < 2:
        return False
    def key(value, st):
        # nested values by their text form, which ambiguous cells are compared by
        if st.kind in ("array", "map", "row") and value is not None:
            return value[1] if isinstance(value, tuple) and value[0] == "text" else \
                trino_text(value, st)
        return repr(value)

    try:
        cols = [expected_column(ref_table.column(i), t) for i, t in enumerate(types)]
        want = sorted(tuple(key(c[r], t) for c, t in zip(cols, types))
                      for r in range(ref_table.num_rows))
        got = sorted(tuple(key(canon_actual(v, t), t) for (_, v), t in zip(row, types))
                     for row in rows)
    except (Mismatch, ValueError, TypeError):
        return False
    return want == got


def compare_file(path: Path | str, *, timeout: float = 60, reference: Reference | None = None,
                 sql: str | None = None, duckdb_fallback: bool = True,
                 threads: int | None = 1) -> Outcome:
    """Reads path with SQE and with pyarrow (DuckDB when pyarrow cannot, if duckdb_fallback)
    and compares them."""
    ref = reference or read_reference(path, duckdb_fallback=duckdb_fallback)
    read = sqe_read(path, timeout=timeout, sql=sql, threads=threads)
    health = read.run.health_problem()
    if health:
        return Outcome("unhealthy", health, read, ref)
    if read.error is not None:
        return Outcome("sqe_error", read.error, read, ref)
    if ref.table is None:
        return Outcome("no_reference", f"pyarrow: {ref.pyarrow_error}; duckdb: "
                       f"{ref.duckdb_error}", read, ref)
    types = sqe_schema_of(ref)
    problems = compare_rows(ref.table, types, read)
    if problems and same_rows_in_other_order(ref.table, types, read):
        problems.insert(0, "the rows are equal as a multiset: SQE returned them in another order")
    if problems:
        return Outcome("mismatch", "\n".join(problems), read, ref, problems)
    return Outcome("match", f"{ref.table.num_rows} rows equal ({ref.source})", read, ref)
