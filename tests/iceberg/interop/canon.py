"""One canonical form for table rows, whatever produced them.

Rows come from three sources: the expected JSON that the Iceberg Java generator writes
(java/IcebergInteropGen.java), pyiceberg scans (pyarrow's to_pylist: Decimal, datetime, bytes,
UUID, maps as lists of (key, value) tuples) and `sqe sql --format json` (decimals as strings,
timestamps "YYYY-MM-DD HH:MM:SS.ffffff[ zone]", varbinary as spaced hex "01 ff", rows as
objects keyed by field name, maps as objects for varchar keys and [[k, v], ...] otherwise).
Normalization is driven by the Iceberg type (the spec's JSON form: "int", "decimal(9, 2)",
{"type": "struct", "fields": [...]}, ...), so the same function serves every source:

  boolean -> bool; int/long -> int; float -> '%.9g' of the float32 value; double -> repr();
  NaN/Infinity -> "NaN"/"Infinity"/"-Infinity"; decimal(p,s) -> plain string with s digits;
  date -> "YYYY-MM-DD"; time -> "HH:MM:SS.ffffff"; timestamp -> "YYYY-MM-DDTHH:MM:SS.ffffff";
  timestamptz -> the same in UTC with "+00:00"; string -> str; uuid -> lowercase text;
  fixed/binary -> lowercase hex without spaces; struct -> {name: value}; list -> [values];
  map -> [[key, value], ...] sorted by key.

rows_equal() compares two row lists as multisets and returns a readable diff.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
import struct
import uuid
from decimal import Decimal, localcontext
from zoneinfo import ZoneInfo

UTC = _dt.timezone.utc

_DECIMAL = re.compile(r"decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)")
_FIXED = re.compile(r"fixed\[\s*(\d+)\s*\]")


def schema_fields(schema):
    """The field list of a schema given as spec JSON (dict), a JSON string, or a pyiceberg
    Schema."""
    if hasattr(schema, "model_dump_json"):
        schema = json.loads(schema.model_dump_json())
    elif isinstance(schema, str):
        schema = json.loads(schema)
    return schema["fields"]


def _special_float(v):
    if isinstance(v, str):
        t = v.strip()
        low = t.lower()
        if low == "nan":
            return float("nan")
        if low in ("infinity", "+infinity", "inf"):
            return float("inf")
        if low in ("-infinity", "-inf"):
            return float("-inf")
        return float(t)
    return float(v)


def _float_text(f, single):
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "Infinity" if f > 0 else "-Infinity"
    if single:
        f32 = struct.unpack("<f", struct.pack("<f", f))[0]
        return "%.9g" % f32
    return repr(f)


def _parse_time_of_day(text):
    text = text.strip()
    m = re.fullmatch(r"(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?", text)
    if not m:
        raise ValueError(f"bad time {text!r}")
    frac = (m.group(4) or "").ljust(9, "0")
    micros = int(frac[:6])
    return _dt.time(int(m.group(1)), int(m.group(2)), int(m.group(3) or 0), micros)


_TS = re.compile(
    r"(-?\d{1,6})-(\d{2})-(\d{2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?"
    r"\s*(Z|[+-]\d{2}(?::?\d{2})?|[A-Za-z_/]+[A-Za-z0-9_/+-]*)?")


def _parse_timestamp(text, with_zone):
    m = _TS.fullmatch(text.strip())
    if not m:
        raise ValueError(f"bad timestamp {text!r}")
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    frac = (m.group(7) or "").ljust(9, "0")
    ts = _dt.datetime(year, month, day, int(m.group(4) or 0), int(m.group(5) or 0),
                      int(m.group(6) or 0), int(frac[:6]))
    zone = m.group(8)
    if zone is None:
        if with_zone:
            ts = ts.replace(tzinfo=UTC)
        return ts
    if zone in ("Z", "UTC", "Z[UTC]"):
        tz = UTC
    elif zone[0] in "+-":
        digits = zone[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
        delta = _dt.timedelta(hours=hours, minutes=minutes)
        tz = _dt.timezone(delta if zone[0] == "+" else -delta)
    else:
        tz = ZoneInfo(zone)
    return ts.replace(tzinfo=tz)


def _hex(v):
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    if isinstance(v, str):
        return v.replace(" ", "").lower()
    raise TypeError(f"binary value {v!r}")


def norm(itype, v):
    """The canonical form of value v of Iceberg type itype (see the module comment)."""
    if v is None:
        return None
    if isinstance(itype, dict):
        kind = itype["type"]
        if kind == "struct":
            return norm_struct(itype["fields"], v)
        if kind == "list":
            return [norm(itype["element"], e) for e in v]
        if kind == "map":
            if isinstance(v, dict):
                pairs = list(v.items())
            else:
                pairs = [tuple(p) if not isinstance(p, dict) else (p["key"], p["value"])
                         for p in v]
            out = [[norm(itype["key"], k), norm(itype["value"], x)] for k, x in pairs]
            return sorted(out, key=lambda p: json.dumps(p[0], sort_keys=True))
        raise ValueError(f"unknown type {itype!r}")
    t = itype.strip().lower()
    if t == "boolean":
        if isinstance(v, str):
            return v.strip().lower() == "true"
        return bool(v)
    if t in ("int", "long"):
        return int(v)
    if t in ("float", "double"):
        return _float_text(_special_float(v), t == "float")
    m = _DECIMAL.fullmatch(t)
    if m:
        scale = int(m.group(2))
        d = Decimal(str(v)) if not isinstance(v, Decimal) else v
        with localcontext() as ctx:
            ctx.prec = 100
            return format(d.quantize(Decimal(1).scaleb(-scale)), "f")
    if t == "date":
        if isinstance(v, _dt.datetime):
            v = v.date()
        if isinstance(v, _dt.date):
            return v.isoformat()
        if isinstance(v, int):
            return (_dt.date(1970, 1, 1) + _dt.timedelta(days=v)).isoformat()
        return _dt.date.fromisoformat(v.strip()).isoformat()
    if t == "time":
        if isinstance(v, str):
            v = _parse_time_of_day(v)
        if isinstance(v, int):
            v = (_dt.datetime(1970, 1, 1) + _dt.timedelta(microseconds=v)).time()
        return v.isoformat(timespec="microseconds")
    if t in ("timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns"):
        with_zone = t.startswith("timestamptz")
        if isinstance(v, str):
            v = _parse_timestamp(v, with_zone)
        if with_zone:
            if v.tzinfo is None:
                v = v.replace(tzinfo=UTC)
            v = v.astimezone(UTC)
            return v.replace(tzinfo=None).isoformat(timespec="microseconds") + "+00:00"
        if v.tzinfo is not None:
            v = v.astimezone(UTC).replace(tzinfo=None)
        return v.isoformat(timespec="microseconds")
    if t == "string":
        return str(v)
    if t == "uuid":
        if isinstance(v, (bytes, bytearray)):
            return str(uuid.UUID(bytes=bytes(v)))
        return str(uuid.UUID(str(v)))
    if t == "binary" or _FIXED.fullmatch(t):
        return _hex(v)
    raise ValueError(f"unsupported Iceberg type {itype!r}")


def norm_struct(fields, v):
    """A struct value (dict keyed by name, or a sequence in field order) as {name: value}."""
    if isinstance(v, dict):
        get = lambda i, f: v.get(f["name"])  # noqa: E731
        extra = set(v) - {f["name"] for f in fields}
        if extra:
            raise ValueError(f"unexpected fields {sorted(extra)} in {v!r}")
    else:
        seq = list(v)
        get = lambda i, f: seq[i]  # noqa: E731
    return {f["name"]: norm(f["type"], get(i, f)) for i, f in enumerate(fields)}


def norm_rows(schema, rows):
    """Rows (dicts keyed by column name, or sequences) of a table with this schema."""
    fields = schema_fields(schema)
    return [norm_struct(fields, r) for r in rows]


def _key(row):
    return json.dumps(row, sort_keys=True, ensure_ascii=False)


def rows_equal(schema, got, expected, got_name="got", expected_name="expected"):
    """Compares two row lists as multisets after normalization. Returns None when equal, else a
    readable description of the rows only on one side (at most 10 each)."""
    a = sorted(_key(r) for r in norm_rows(schema, got))
    b = sorted(_key(r) for r in norm_rows(schema, expected))
    if a == b:
        return None
    from collections import Counter
    ca, cb = Counter(a), Counter(b)
    only_a = list((ca - cb).elements())
    only_b = list((cb - ca).elements())
    lines = [f"{len(a)} rows in {got_name}, {len(b)} in {expected_name}"]
    lines.append(f"only in {got_name} ({len(only_a)}):")
    lines += ["  " + r for r in only_a[:10]]
    lines.append(f"only in {expected_name} ({len(only_b)}):")
    lines += ["  " + r for r in only_b[:10]]
    return "\n".join(lines)


def arrow_rows(table):
    """pyarrow Table -> list of dicts (maps arrive as lists of (key, value) tuples)."""
    return table.to_pylist()
