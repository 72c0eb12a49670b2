"""Differential tests of SQE's TOML reader (src/common/toml.c) against Python's tomllib.

The C side is tests/config/toml_dump.c, compiled here with gcc (ASan/UBSan) and run in batch
mode; it prints each document as toml-test style typed JSON ({"type": "integer", "value": "1"}).
The Python side converts tomllib.loads' result into the same form. For every document both must
agree: the same values with the same types, or both reject it.

Documents: hand-written edge cases from the TOML 1.0 spec (valid and invalid), randomly
generated valid documents (random trees written with random syntax choices), and random
mutations of valid documents (mostly invalid, some valid). Seeds are fixed; set
SQE_TOML_ORACLE_SEED to explore others and SQE_TOML_ORACLE_N to scale the random counts.

Known, deliberate differences (the spec is on the C side):
- integers outside int64 are errors in C (spec: "out of range must throw an error"), while
  tomllib returns Python ints of any size;
- the year 0000 is accepted by C (RFC 3339 allows it); Python's datetime cannot hold it.
"""

import datetime as dt
import json
import math
import os
import random
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SEED = int(os.environ.get("SQE_TOML_ORACLE_SEED", "20240601"))
SCALE = float(os.environ.get("SQE_TOML_ORACLE_N", "1"))
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


# --- the C side ---------------------------------------------------------------------------------

@pytest.fixture(scope="session")
def dumper():
    """tests/config/toml_dump.c as CMake builds it (TOML_DUMP, else build-asan/toml_dump)."""
    exe = Path(os.environ.get("TOML_DUMP", ROOT / "build-asan" / "toml_dump"))
    if not exe.exists():
        pytest.fail(f"{exe} is missing: build it with make asan")
    return exe


def run_c(exe, docs):
    """Parses each document (bytes) with the C reader: [(ok, json-or-message)]."""
    payload = b"".join(b"%d\n" % len(d) + d for d in docs)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    proc = subprocess.run([str(exe), "--batch"], input=payload, capture_output=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")[-4000:]
    lines = proc.stdout.decode("utf-8").split("\n")
    assert lines[-1] == ""
    lines = lines[:-1]
    assert len(lines) == len(docs), proc.stderr.decode(errors="replace")[-4000:]
    out = []
    for line in lines:
        if line.startswith("OK "):
            out.append((True, json.loads(line[3:])))
        else:
            assert line.startswith("ERR "), line
            out.append((False, line[4:]))
    return out


# --- the Python side ----------------------------------------------------------------------------

def typed(v):
    if isinstance(v, dict):
        return {k: typed(x) for k, x in v.items()}
    if isinstance(v, list):
        return [typed(x) for x in v]
    if isinstance(v, bool):
        return {"type": "bool", "value": "true" if v else "false"}
    if isinstance(v, int):
        return {"type": "integer", "value": str(v)}
    if isinstance(v, float):
        if math.isnan(v):
            s = "nan"
        elif math.isinf(v):
            s = "inf" if v > 0 else "-inf"
        else:
            s = repr(v)
        return {"type": "float", "value": s}
    if isinstance(v, str):
        return {"type": "string", "value": v}
    if isinstance(v, dt.datetime):
        base = "%04d-%02d-%02dT%02d:%02d:%02d.%06d" % (v.year, v.month, v.day, v.hour, v.minute,
                                                       v.second, v.microsecond)
        if v.tzinfo is None:
            return {"type": "datetime-local", "value": base}
        off = int(v.utcoffset().total_seconds()) // 60
        sign = "-" if off < 0 else "+"
        off = abs(off)
        return {"type": "datetime", "value": base + "%s%02d:%02d" % (sign, off // 60, off % 60)}
    if isinstance(v, dt.date):
        return {"type": "date-local", "value": "%04d-%02d-%02d" % (v.year, v.month, v.day)}
    if isinstance(v, dt.time):
        return {"type": "time-local",
                "value": "%02d:%02d:%02d.%06d" % (v.hour, v.minute, v.second, v.microsecond)}
    raise TypeError(type(v))


def has_big_int(v):
    if isinstance(v, dict):
        return any(has_big_int(x) for x in v.values())
    if isinstance(v, list):
        return any(has_big_int(x) for x in v)
    return isinstance(v, int) and not isinstance(v, bool) and not INT64_MIN <= v <= INT64_MAX


def run_py(doc):
    """(ok, typed-json-or-message, note) from tomllib."""
    try:
        text = doc.decode("utf-8")
    except UnicodeDecodeError as e:
        return False, "invalid UTF-8: %s" % e, None
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        return False, str(e), None
    except (ValueError, OverflowError) as e:  # defensive: should be TOMLDecodeError
        return False, str(e), None
    if has_big_int(value):
        return False, "integer outside int64", "bigint"
    return True, typed(value), None


def same(c, p):
    """Deep equality of typed JSON, with floats compared as numbers (and -0.0 != 0.0)."""
    if isinstance(p, dict) and set(p) == {"type", "value"} and isinstance(p["type"], str) \
            and isinstance(c, dict) and set(c) == {"type", "value"} and isinstance(p["value"], str):
        if c["type"] != p["type"]:
            return False
        if p["type"] == "float":
            a, b = float(c["value"]), float(p["value"])
            if math.isnan(a) or math.isnan(b):
                return math.isnan(a) and math.isnan(b)
            return a == b and math.copysign(1, a) == math.copysign(1, b)
        return c["value"] == p["value"]
    if isinstance(p, dict):
        return isinstance(c, dict) and list(c) == list(p) and all(same(c[k], p[k]) for k in p)
    if isinstance(p, list):
        return isinstance(c, list) and len(c) == len(p) and all(same(x, y) for x, y in zip(c, p))
    return False


def year_zero(c_json):
    return '"value": "0000-' in json.dumps(c_json)


def check_all(exe, docs, expect=None):
    """Compares C and tomllib on every document; expect in (None, True, False) also pins the
    verdict. Returns (n_valid, n_invalid). Fails listing the first mismatches."""
    results = run_c(exe, docs)
    bad = []
    n_ok = 0
    for doc, (c_ok, c_val) in zip(docs, results):
        p_ok, p_val, note = run_py(doc)
        if c_ok and not p_ok and year_zero(c_val):
            continue
        if c_ok != p_ok:
            bad.append((doc, "C %s (%s) / tomllib %s (%s)" % (
                "accepts" if c_ok else "rejects", str(c_val)[:200],
                "accepts" if p_ok else "rejects", str(p_val)[:200])))
        elif c_ok and not same(c_val, p_val):
            bad.append((doc, "values differ:\n  C:  %s\n  py: %s" % (
                json.dumps(c_val)[:600], json.dumps(p_val)[:600])))
        elif expect is not None and c_ok != expect:
            bad.append((doc, "expected %s, both %s (%s)" % (
                "valid" if expect else "invalid", "accept" if c_ok else "reject",
                str(p_val)[:200])))
        n_ok += c_ok
    if bad:
        msg = "\n\n".join("%r\n%s" % (d[:300], why) for d, why in bad[:15])
        pytest.fail("%d of %d documents disagree:\n\n%s" % (len(bad), len(docs), msg))
    return n_ok, len(docs) - n_ok


# --- hand-written cases -------------------------------------------------------------------------

VALID = [
    "", "# only a comment", "\n\n\n", "a = 1", "a = 1\r\nb = 2\r\n", "a=1#c", "a = 1 # c\n",
    # keys
    'bare_key-1 = 1\n"quoted key" = 2\n\'literal key\' = 3\n1234 = 4\n"" = 5',
    "a.b.c = 1\na.b.d = 2\na.e = 3", "a . b = 1", '"a.b" = 1\na."b.c" = 2',
    "3.14159 = 'pi'", '"\\u00e9t\\u00e9" = 1', "'' = 'empty'", "true = 1\nfalse = 2\ninf = 3\nnan = 4",
    '"\\u0000" = 1', "a.'b.c'.\"d\" = 1", "ʎǝʞ = 1" if False else "\"ʎǝʞ\" = 1",
    # strings
    r'a = "tab\there \"quote\" back\\slash \b\f\n\r"',
    r'a = "\u00E9 \U0001F600 \u0000 \U0010FFFF \uD7FF \uE000"',
    "a = 'C:\\Users\\nodejs\\templates'", "a = '<\\i\\c*\\s*>'",
    'a = """\nRoses are red\nViolets are blue"""',
    'a = """\r\nRoses\r\nare red"""',
    'a = """\nThe quick brown \\\n\n\n  fox jumps over \\\n    the lazy dog."""',
    'a = """\\\n       The quick brown \\\n       fox.\\\n       """',
    'a = """Here are two quotation marks: "". Simple enough."""',
    'a = """Here are three quotation marks: ""\\"."""',
    'a = """Here are fifteen quotation marks: ""\\"""\\"""\\"""\\"""\\"."""',
    'a = """"This," she said, "is just a pointless statement.""""',
    'a = """a""""', 'a = """a"""""', 'a = """"""', "a = ''''''", "a = '''a''''", "a = '''a'''''",
    "a = '''\nThe first newline is\ntrimmed in raw strings.\n   All other whitespace\n   is preserved.\n'''",
    "a = '''Here are fifteen quotation marks: \"\"\"\"\"\"\"\"\"\"\"\"\"\"\"'''",
    "a = ''''That,' she said, 'is still pointless.''''",
    'a = "tab\there"', "a = 'tab\there'", 'a = """line ending backslash \\  \t\n  next"""',
    'a = "é — ✓ 😀"', 'a = """\\u0041\\U00000042"""', 'a = """ends with quote\\""""',
    'a = "#not a comment"', "a = '''multi\n# not a comment\n'''",
    # integers
    "a = +99\nb = 42\nc = 0\nd = -17\ne = 1_000\nf = 5_349_221\ng = 53_49_221\nh = 1_2_3_4_5",
    "a = 0xDEADBEEF\nb = 0xdeadbeef\nc = 0xdead_beef\nd = 0o01234567\ne = 0o755\nf = 0b11010110",
    "a = 0x00\nb = 0o0_0\nc = 0b0000_0001", "a = +0\nb = -0",
    "a = 9223372036854775807\nb = -9223372036854775808", "a = 0x7FFFFFFFFFFFFFFF",
    "a = 0o777777777777777777777", "a = 0b" + "1" * 63,
    # floats
    "a = +1.0\nb = 3.1415\nc = -0.01\nd = 5e+22\ne = 1e06\nf = -2E-2\ng = 6.626e-34",
    "a = 224_617.445_991_228", "a = 0.0\nb = +0.0\nc = -0.0", "a = inf\nb = +inf\nc = -inf",
    "a = nan\nb = +nan\nc = -nan", "a = 1e1_0", "a = 0e0\nb = 0.0e-0\nc = 1E+0001",
    "a = 1.7976931348623157e308\nb = 5e-324\nc = 2.2250738585072014e-308", "a = 1e400",
    "a = 0.1\nb = 0.30000000000000004\nc = 123456789012345678901234567890.0",
    # booleans
    "a = true\nb = false",
    # date-times
    "a = 1979-05-27T07:32:00Z\nb = 1979-05-27T00:32:00-07:00\nc = 1979-05-27T00:32:00.999999-07:00",
    "a = 1979-05-27 07:32:00Z\nb = 1979-05-27t07:32:00z", "a = 1979-05-27T07:32:00.5+05:30",
    "a = 1979-05-27T07:32:00.123456789123Z", "a = 1979-05-27T07:32:00-00:00",
    "a = 1979-05-27T07:32:00\nb = 1979-05-27T00:32:00.999999", "a = 1979-05-27",
    "a = 07:32:00\nb = 00:32:00.999999\nc = 23:59:59.1", "a = 2000-02-29\nb = 2024-02-29T00:00:00",
    "a = 1999-12-31T23:59:59+23:59\nb = 0001-01-01T00:00:00-23:59",
    "a = 1979-05-27 # a date and a comment", "a = [1979-05-27 , 07:32:00]",
    # arrays
    "a = [ 1, 2, 3 ]\nb = [ \"red\", \"yellow\", \"green\" ]\nc = [ [ 1, 2 ], [3, 4, 5] ]",
    "a = [ \"all\", 'strings', \"\"\"are the same\"\"\", '''type''' ]",
    "a = [ 0.1, 0.2, 0.5, 1, 2, 5 ]",
    "a = [ \"Foo Bar <foo@example.com>\", { name = \"Baz Qux\", email = \"bazqux@example.com\", url = \"https://example.com/bazqux\" } ]",
    "a = [\n  1, 2, 3\n]\nb = [\n  1,\n  2, # this is ok\n]", "a = []\nb = [[]]\nc = [[], [[]], {}]",
    "a = [\n# comment\n]", "a = [1,]", "a = [ # c\n 1 # c\n , # c\n 2 # c\n ] # c",
    "a = [{a=1}, {b=2}]",
    # inline tables
    'name = { first = "Tom", last = "Preston-Werner" }\npoint = { x = 1, y = 2 }',
    'animal = { type.name = "pug" }', "a = {}", "a = {b = {c = {d = 1}}}",
    "a = { b = [ 1,\n 2 ] }", "a = {a.b = 1, a.c = 2, d = {}}",
    # tables
    '[table-1]\nkey1 = "some string"\nkey2 = 123\n\n[table-2]\nkey1 = "another string"\nkey2 = 456',
    '[dog."tater.man"]\ntype.name = "pug"', "[a.b.c]\n[ d.e.f ]\n[ g .  h  . i ]\n[ j . \"ʞ\" . 'l' ]",
    "[x.y.z.w]\n[x]", "[]\n" if False else "[a]\n[a.b]\n[a.c]\n[b]",
    "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n[fruit.apple.texture]\nsmooth = true",
    "fruit.apple = 1\nfruit.orange = 2\n[animal]", "a.b.c = 1\n[a.b.d]\ne = 1",
    "[a.b.c]\nz = 9\n[a]\nb.d = 1", "[a]\n[a.b]\n[a.b.c]\nd = 1\n[a.e]",
    # arrays of tables
    '[[products]]\nname = "Hammer"\nsku = 738594937\n\n[[products]]  # empty table\n\n[[products]]\nname = "Nail"\nsku = 284758393\ncolor = "gray"',
    '[[fruits]]\nname = "apple"\n[fruits.physical]\ncolor = "red"\nshape = "round"\n[[fruits.varieties]]\nname = "red delicious"\n[[fruits.varieties]]\nname = "granny smith"\n\n[[fruits]]\nname = "banana"\n[[fruits.varieties]]\nname = "plantain"',
    "points = [ { x = 1, y = 2, z = 3 },\n           { x = 7, y = 8, z = 9 },\n           { x = 2, y = 4, z = 8 } ]",
    "[[a]]\nb.c = 1\n[[a]]\nb.c = 2", "[[a.b]]\n[a]\nc = 1", "[[a]]\n[a.b]\n[[a]]\n[a.b]",
    "[[ a . b ]]\n[[a.b]]\nx = 1",
    # whitespace and comments
    "\t a \t = \t 1 \t # comment \t\n", "# é ✓\na = 1 # 😀", "a = 1\n\n\n# end", "a = 1 #",
    "a = \"x\" #\t tabs\tin comment",
]

INVALID = [
    # keys
    "= 1", "a", "a =", "a = # c", "a b = 1", "a. = 1", ".a = 1", "a..b = 1", "a = 1 b = 2",
    "\"\"\"a\"\"\" = 1", "'''a''' = 1", "a\n= 1", "a =\n1", "a = 1\na = 2", "a = 1\n\"a\" = 2",
    "a.b = 1\na = 2", "a = 1\na.b = 2", "a = {}\na.b = 1", "a = [1]\na.b = 2", "ʞ = 1",
    "a = 1 = 2", "[a]\nb = 1\nb = 2", "a = \"x\" \"y\"", "\"a\nb\" = 1", "a = {b = 1, b = 2}",
    # strings
    'a = "unterminated', "a = 'unterminated", 'a = """unterminated', "a = '''unterminated",
    'a = "bad \\q escape"', 'a = "\\x41"', 'a = "\\e"', 'a = "\\uD800"', 'a = "\\uDFFF"',
    'a = "\\U00110000"', 'a = "\\u12"', 'a = "\\U0001F60"', 'a = "\\u12G4"',
    'a = "line\nbreak"', "a = 'line\nbreak'", 'a = "a\x00b"', 'a = "a\x7fb"', 'a = "a\x1bb"',
    "a = 'a\x7fb'", 'a = """a\x00b"""', 'a = """a\rb"""', "a = '''a\rb'''",
    'a = """\\ x"""', 'a = """a""""""', "a = '''a''''''", 'a = "a" "b"', 'a = "\\ "',
    'a = "a\rb"', "a = '''a\x08b'''",
    # integers
    "a = 01", "a = 00", "a = -01", "a = +01", "a = 1__000", "a = _1", "a = 1_", "a = 1_000_",
    "a = 0x", "a = 0xG", "a = 0X1", "a = +0x1", "a = -0x1", "a = 0x_1", "a = 0x1_", "a = 0o8",
    "a = 0b2", "a = 0O7", "a = 0B1", "a = 1.0.0", "a = 123abc", "a = 1 2", "a = --1", "a = ++1",
    "a = 1-", "a = 0x-1", "a = 1e",
    # floats
    "a = .7", "a = 7.", "a = 3.e+20", "a = 1e_1", "a = 1_e1", "a = 1._1", "a = 1.1_", "a = 1e1_",
    "a = 01.5", "a = -01.5", "a = 1e+", "a = 1e-", "a = infinity", "a = Inf", "a = NaN",
    "a = +-inf", "a = inf1", "a = nan_", "a = 1.2e3.4", "a = 1__1.0", "a = 1.0e",
    # booleans
    "a = True", "a = FALSE", "a = tru", "a = truee", "a = t", "a = yes",
    # date-times
    "a = 1979-05-27T07:32", "a = 1979-05-27T", "a = 1979-05-27T07:32:00Zjunk", "a = 1979-5-27",
    "a = 1979-05-7", "a = 79-05-27", "a = 1979-13-01", "a = 1979-00-01", "a = 1979-02-30",
    "a = 2023-02-29", "a = 1900-02-29", "a = 1979-05-32", "a = 1979-05-00", "a = 24:00:00",
    "a = 23:60:00", "a = 23:59:60", "a = 7:32:00", "a = 07:32", "a = 07:32:00Z",
    "a = 07:32:00+01:00", "a = 1979-05-27T07:32:00+24:00", "a = 1979-05-27T07:32:00+01:60",
    "a = 1979-05-27T07:32:00+1:00", "a = 1979-05-27T07:32:00.", "a = 1979-05-27T07:32:00.Z",
    "a = 1979-05-27 07:32", "a = 1979-05-27T07:32:00 Z", "a = 1979-05-27_07:32:00",
    "a = 1979-05-27T07:32:00+0100", "a = 12:30:00.", "a = 1979-05-27 x",
    # arrays
    "a = [", "a = [1", "a = [1,", "a = [,]", "a = [1,,2]", "a = [1 2]", "a = [,1]",
    "a = ]", "a = [1]]", "a = [1,]]", "a = [[1]",
    # inline tables
    "a = {", "a = {b = 1", "a = {b = 1,}", "a = {,}", "a = {b}", "a = {b = }", "a = {b = 1\n}",
    "a = {\nb = 1}", "a = {b = 1 c = 2}", "a = {b = 1} c = 2", "a = {a.b = 1, a = 2}",
    "a = {b = {c = 1}, b.d = 2}", "a = {b = 1, b.c = 2}", "a = { # c\n }", "a = {b = [1], b.c = 1}",
    "a = {b = 1}\n[a]", "a = {b = 1}\n[a.c]", "a = {b = {}}\n[a.b]", "a = {}\n[[a]]",
    # tables
    "[a]\n[a]", "[a.b]\n[a.b]", "[a]\nb = 1\n[a.b]", "[a]\nb.c = 1\n[a.b]", "a.b = 1\n[a]",
    "a.b.c = 1\n[a.b]", "[fruit]\napple.color = \"red\"\n[fruit.apple]",
    "[fruit]\napple.taste.sweet = true\n[fruit.apple.taste]", "[a.b]\n[a]\nb.c = 1",
    "[a.b.c]\nz = 9\n[a]\nb.c.t = 1", "[", "[a", "[a]]", "[[a]", "[ [a] ]", "[a b]", "[a.]",
    "[.a]", "[]", "[[]]", "[a] b = 1", "[a]\n[a.b]\n[a]", "[a]x", "[\"a\"]\n[a]",
    "a = 1\n[a]", "a = 1\n[a.b]", "a = [1]\n[a.b]", "a = [1]\n[[a]]", "a = []\n[[a]]",
    "[a]\n[[a]]", "[[a]]\n[a]", "[[a]]\n[a.b]\nc=1\n[a.b]", "a = [{}]\n[[a]]", "a = [{}]\n[a.b]",
    "[[a]]\nb = 1\n[a.b]", "[a]\n[[a.b]]\n[a.b]", "[[a.b]]\n[a]\nb.c = 1",
    # whitespace, newlines, control characters, encoding
    "a = 1\rb = 2", "a = 1\r", "\r", "a = 1 # bad \x00 comment", "a = 1 # bad \x7f",
    "# \x01", "a\x00 = 1", "\ufeffa = 1", "a = 1\x0c",
]


def test_valid_cases(dumper):
    docs = [s.encode("utf-8") for s in VALID]
    n_ok, _ = check_all(dumper, docs, expect=True)
    assert n_ok == len(docs)


def test_invalid_cases(dumper):
    docs = [s.encode("utf-8") for s in INVALID]
    check_all(dumper, docs, expect=False)


def test_invalid_utf8(dumper):
    docs = [b'a = "\xff"', b'a = "\xc0\xaf"', b'a = "\xe0\x80\xaf"', b'a = "\xed\xa0\x80"',
            b'a = "\xf4\x90\x80\x80"', b'a = "\xc3"', b"# \xfe\n", b'"\xe2\x82" = 1',
            b'a = "\xf0\x9f\x98"', b"a = '\x80'", b"\xf8\x88\x80\x80\x80 = 1"]
    check_all(dumper, docs, expect=False)


def test_int64_range_is_enforced(dumper):
    """tomllib accepts these (Python ints); the spec and our reader do not."""
    docs = [b"a = 9223372036854775808", b"a = -9223372036854775809",
            b"a = 0x8000000000000000", b"a = 0o1000000000000000000000", b"a = 0b1" + b"0" * 63,
            b"a = 99999999999999999999999", b"a = [1, 18446744073709551616]"]
    for ok, msg in run_c(dumper, docs):
        assert not ok and "out of range" in msg, msg


def test_error_positions(dumper):
    cases = [(b"a = 1\nb = \n", "2:5"), (b"a = 1\n[x]\nc = 01\n", "3:5"),
             (b'x = "\xc3\xa9\xc3\xa9\\q"', "1:8"), (b"a = 1\na = 2", "2:1"),
             (b"[a]\n[a]", "2:1"), (b"a = [\n1,\n2,,\n]", "3:3"), (b"k = '''\n\n\nx", "1:5")]
    results = run_c(dumper, [d for d, _ in cases])
    for (doc, pos), (ok, msg) in zip(cases, results):
        assert not ok and msg.startswith(pos + ":"), (doc, msg)


# --- random valid documents ---------------------------------------------------------------------

BARE = "abcxyzABZ019_-"


def rnd_key(r):
    k = r.random()
    if k < 0.6:
        return "".join(r.choice(BARE) for _ in range(r.randint(1, 6)))
    if k < 0.8:
        return '"' + rnd_basic_body(r, 5) + '"'
    return "'" + "".join(r.choice("ab .#=[]\"\\é ") for _ in range(r.randint(0, 5))) + "'"


def rnd_basic_body(r, n):
    parts = []
    for _ in range(r.randint(0, n)):
        x = r.random()
        if x < 0.6:
            parts.append(r.choice("abc XYZ.=#[]{}é✓😀'"))
        elif x < 0.8:
            parts.append(r.choice(["\\n", "\\t", "\\\\", '\\"', "\\b", "\\f", "\\r"]))
        else:
            cp = r.choice([0, 0x1F, 0x7F, 0xE9, 0x20AC, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF,
                           0xD7FF, 0xE000])
            parts.append("\\u%04X" % cp if cp < 0x10000 and r.random() < 0.5 else "\\U%08x" % cp)
    return "".join(parts)


def rnd_string(r):
    k = r.random()
    if k < 0.4:
        return '"' + rnd_basic_body(r, 8) + '"'
    if k < 0.6:
        return "'" + "".join(r.choice("ab\\ \"#é\t") for _ in range(r.randint(0, 8))) + "'"
    if k < 0.8:
        body = "".join(r.choice(["a", "\n", "\r\n", '"', '""', "\\\n   ", "\\t", " ", "é"])
                       for _ in range(r.randint(0, 8)))
        if body.endswith('"'):
            body += "x"
        return '"""' + r.choice(["", "\n"]) + body + '"""'
    body = "".join(r.choice(["a", "\n", "'", "''", "\\", " ", "\t"]) for _ in range(r.randint(0, 8)))
    if body.endswith("'"):
        body += "x"
    return "'''" + r.choice(["", "\n"]) + body + "'''"


def rnd_digits(r, alphabet, n):
    s = r.choice(alphabet)
    for _ in range(r.randint(0, n)):
        if r.random() < 0.2:
            s += "_"
        s += r.choice(alphabet)
    return s


def rnd_int(r):
    k = r.random()
    if k < 0.5:
        s = r.choice(["", "+", "-"])
        return s + ("0" if r.random() < 0.1 else r.choice("123456789") + rnd_digits(r, "0123456789", 6)[1:])
    if k < 0.7:
        return "0x" + rnd_digits(r, "0123456789abcdefABCDEF", 8)
    if k < 0.85:
        return "0o" + rnd_digits(r, "01234567", 8)
    if k < 0.95:
        return "0b" + rnd_digits(r, "01", 16)
    return r.choice(["9223372036854775807", "-9223372036854775808", "0x7fffffffffffffff"])


def rnd_float(r):
    k = r.random()
    if k < 0.1:
        return r.choice(["", "+", "-"]) + r.choice(["inf", "nan"])
    s = r.choice(["", "+", "-"]) + ("0" if r.random() < 0.3 else
                                    r.choice("123456789") + rnd_digits(r, "0123456789", 4)[1:])
    has_frac = r.random() < 0.7
    if has_frac:
        s += "." + rnd_digits(r, "0123456789", 6)
    if not has_frac or r.random() < 0.3:
        s += r.choice("eE") + r.choice(["", "+", "-"]) + rnd_digits(r, "0123456789", 2)
    return s


def rnd_datetime(r):
    y, mo = r.randint(1, 9999), r.randint(1, 12)
    d = r.randint(1, 28 if mo == 2 else 30)
    date = "%04d-%02d-%02d" % (y, mo, d)
    t = "%02d:%02d:%02d" % (r.randint(0, 23), r.randint(0, 59), r.randint(0, 59))
    if r.random() < 0.4:
        t += "." + "".join(r.choice("0123456789") for _ in range(r.randint(1, 12)))
    k = r.random()
    if k < 0.25:
        return date
    if k < 0.45:
        return t
    sep = r.choice("Tt ")
    if k < 0.65:
        return date + sep + t
    off = r.choice(["Z", "z", "+00:00", "-00:00", "+05:30", "-07:00", "+23:59"])
    return date + sep + t + off


def rnd_scalar(r):
    k = r.random()
    if k < 0.3:
        return rnd_string(r)
    if k < 0.5:
        return rnd_int(r)
    if k < 0.65:
        return rnd_float(r)
    if k < 0.75:
        return r.choice(["true", "false"])
    return rnd_datetime(r)


def rnd_value(r, depth):
    k = r.random()
    if depth < 3 and k < 0.15:
        items = [rnd_value(r, depth + 1) for _ in range(r.randint(0, 4))]
        sep = r.choice([",", ", ", " ,\n  ", ",\n# c\n"])
        tail = r.choice(["", ",", ",\n"]) if items else ""
        return "[" + r.choice(["", " ", "\n"]) + sep.join(items) + tail + "]"
    if depth < 3 and k < 0.25:
        keys = unique_keys(r, r.randint(0, 3))
        return "{" + ", ".join("%s = %s" % (kk, rnd_value(r, depth + 1)) for kk in keys) + "}"
    return rnd_scalar(r)


def norm_key(k):
    """The key a piece of key syntax denotes (for uniqueness)."""
    return tomllib.loads(k + " = 0").popitem()[0]


def unique_keys(r, n):
    seen, out = set(), []
    while len(out) < n:
        k = rnd_key(r)
        nk = norm_key(k)
        if nk not in seen:
            seen.add(nk)
            out.append(k)
    return out


def rnd_document(r):
    lines = []
    used_tables = set()
    for _ in range(r.randint(1, 5)):
        if lines:
            if r.random() < 0.3:
                name = ".".join(unique_keys(r, r.randint(1, 2)))
                lines.append("[[%s]]" % name)
            else:
                name = ".".join(unique_keys(r, r.randint(1, 3)))
                norm = tuple(norm_key(p) for p in name.split(".")) if False else name
                if norm in used_tables:
                    continue
                used_tables.add(norm)
                lines.append(r.choice(["[%s]", "[ %s ]", "[%s] # c"]) % name)
        for key in unique_keys(r, r.randint(0, 5)):
            if r.random() < 0.2:
                key = key + "." + unique_keys(r, 1)[0]
            lines.append("%s%s=%s%s" % (key, r.choice([" ", "", "\t"]), r.choice([" ", ""]),
                                        rnd_value(r, 0)) + r.choice(["", " # comment", "\t#"]))
        if r.random() < 0.3:
            lines.append(r.choice(["", "# comment", "  "]))
    return r.choice(["\n", "\r\n"]).join(lines) + r.choice(["", "\n"])


def test_random_documents(dumper):
    r = random.Random(SEED)
    docs = [rnd_document(r).encode("utf-8") for _ in range(int(1500 * SCALE))]
    n_ok, n_bad = check_all(dumper, docs)
    # Most generated documents are valid; a few collide (dotted key vs. table) and are invalid.
    assert n_ok > len(docs) * 0.7, (n_ok, n_bad)


MUTATION_CHARS = list("=[]{}.,\"'#\\ \t\n\r_-+:0123456789eExob") + ["\x00", "\x7f", "é", "'''",
                                                                      '"""', "\r\n", "[[", "]]"]


def mutate(r, doc):
    s = doc
    for _ in range(r.randint(1, 3)):
        k = r.random()
        i = r.randint(0, len(s))
        if k < 0.35 and s:
            j = min(len(s), i + r.randint(1, 3))
            s = s[:i] + s[j:]
        elif k < 0.7:
            s = s[:i] + r.choice(MUTATION_CHARS) + s[i:]
        elif k < 0.85 and s:
            s = s[:i] + r.choice(MUTATION_CHARS) + s[i + 1:]
        else:
            lines = s.split("\n")
            a, b = r.randrange(len(lines)), r.randrange(len(lines))
            if r.random() < 0.5:
                lines.insert(b, lines[a])
            else:
                lines[a], lines[b] = lines[b], lines[a]
            s = "\n".join(lines)
    return s


def test_mutated_documents(dumper):
    r = random.Random(SEED + 1)
    seeds = VALID + [rnd_document(r) for _ in range(200)]
    docs = []
    for _ in range(int(6000 * SCALE)):
        docs.append(mutate(r, r.choice(seeds)).encode("utf-8"))
    n_ok, n_bad = check_all(dumper, docs)
    assert n_ok > 100 and n_bad > 1000, (n_ok, n_bad)


def test_random_bytes(dumper):
    r = random.Random(SEED + 2)
    alphabet = b"ab1=[]{}.,\"'#\\ \n\r\t-+:_eTZ0x\x00\xc3\xa9\xff"
    docs = [bytes(r.choice(alphabet) for _ in range(r.randint(0, 40))) for _ in range(int(3000 * SCALE))]
    check_all(dumper, docs)


def test_large_documents(dumper):
    """Big inputs stay linear: many keys in one table, many tables, long strings, deep nesting."""
    many_keys = "\n".join("k%d = %d" % (i, i) for i in range(50000))
    many_tables = "\n".join("[t%d.x]\ny = %d" % (i, i) for i in range(20000))
    long_string = 'a = "' + "x" * 1_000_000 + '"'
    deep = "a = " + "[" * 100 + "]" * 100
    inline_one_line = "a = {" + ", ".join("k%d = %d" % (i, i) for i in range(20000)) + "}"
    docs = [d.encode() for d in (many_keys, many_tables, long_string, deep, inline_one_line)]
    check_all(dumper, docs, expect=True)
    too_deep = b"a = " + b"[" * 1000 + b"]" * 1000
    [(ok, msg)] = run_c(dumper, [too_deep])
    assert not ok and "nested too deeply" in msg


def test_random_structure(dumper):
    """Table redefinition rules: random mixes of [t], [[t]], dotted keys and inline values over a
    tiny key alphabet, so that most documents collide somewhere."""
    r = random.Random(SEED + 3)

    def path():
        return ".".join(r.choice("abc") for _ in range(r.randint(1, 3)))

    forms = ["[%s]", "[[%s]]", "%s = 1", "%s = {x = 1}", "%s = [1]", "%s = [{y = 2}]", "%s.z = 3",
             "%s = {}", "%s = {d.e = 1, d.f = 2}"]
    docs = []
    for _ in range(int(8000 * SCALE)):
        lines = [r.choice(forms) % path() for _ in range(r.randint(1, 7))]
        docs.append("\n".join(lines).encode())
    n_ok, n_bad = check_all(dumper, docs)
    assert n_ok > 500 and n_bad > 500, (n_ok, n_bad)
