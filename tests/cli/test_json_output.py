"""`sqe sql --format json`: nested values as JSON, scalars unchanged.

Runs build/sqe (or $SQE_BIN) and parses its output with the json module. Nested values are
written as JSON (ARRAY -> array, ROW -> object keyed by field name, MAP -> object for
varchar/char keys, otherwise an array of [key, value] pairs); top-level scalars keep the encoding
tests/tpch and bench/ rely on, checked here byte for byte.

Run: .cache/venv/bin/python -m pytest tests/cli/test_json_output.py
"""
import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SQE = Path(os.environ.get("SQE_BIN", ROOT / "build" / "sqe"))


def run_lines(*statements):
    """Runs each statement with its own -e; returns the stdout lines."""
    if not SQE.exists():
        pytest.fail(f"{SQE} not built (run `make` in {ROOT})")
    args = [str(SQE), "sql", "--memory", "--format", "json"]
    for stmt in statements:
        args += ["-e", stmt]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()


def rows(sql):
    (line,) = run_lines(sql)
    return json.loads(line)


def one(sql):
    (row,) = rows(sql)
    return row


def test_brief_example():
    line = run_lines("select array[1,2] a, map(array['a'],array[1]) m, row(1,'a') r, X'0102' b")
    assert line == ['[{"a":[1,2],"m":{"a":1},"r":{"field0":1,"field1":"a"},"b":"01 02"}]']


def test_top_level_scalars_unchanged():
    # The exact bytes of today's scalar encoding (tests/tpch/run_tpch.py and bench/ parse them).
    line = run_lines(
        "select true b, cast(1 as tinyint) t, 3 i, cast(4 as bigint) bi, cast(1.5 as real) r,"
        " 0.1e0 d, 1e7 d2, nan() n, -infinity() ni, -0.0e0 nz, 123.40 dec, 'x\"y' v,"
        " X'00ff' vb, date '2020-01-02' dt, timestamp '2020-01-02 03:04:05.123456' ts,"
        " uuid '12151fd2-7586-11e9-8f9e-2a86e4085a59' u, json_parse('{\"a\": 1}') j,"
        " cast(null as integer) nl")
    assert line == [
        '[{"b":true,"t":1,"i":3,"bi":4,"r":1.5,"d":0.1,"d2":1.0E7,"n":"NaN","ni":"-Infinity",'
        '"nz":-0.0,"dec":"123.40","v":"x\\"y","vb":"00 ff","dt":"2020-01-02",'
        '"ts":"2020-01-02 03:04:05.123456","u":"12151fd2-7586-11e9-8f9e-2a86e4085a59",'
        '"j":"{\\"a\\":1}","nl":null}]']


def test_arrays_of_scalars_use_scalar_encoding():
    row = one(
        "select array[1, null, 3] i, array[cast(1.5 as real), nan(), infinity()] f,"
        " array[1.50, null] dec, array[true, false, null] b, array[date '2020-01-02'] d,"
        " array[X'0a0b', X''] vb, array[timestamp '2020-01-02 03:04:05.123 UTC'] tz,"
        " array[uuid '12151fd2-7586-11e9-8f9e-2a86e4085a59'] u, array[cast(7 as tinyint)] ti")
    assert row == {
        "i": [1, None, 3],
        "f": [1.5, "NaN", "Infinity"],
        "dec": ["1.50", None],
        "b": [True, False, None],
        "d": ["2020-01-02"],
        "vb": ["0a 0b", ""],
        "tz": ["2020-01-02 03:04:05.123 UTC"],
        "u": ["12151fd2-7586-11e9-8f9e-2a86e4085a59"],
        "ti": [7],
    }


def test_empty_and_null_nesting():
    row = one(
        "select array[array[1], array[], null] a, cast(null as array(integer)) n,"
        " cast(array[] as array(varchar)) e, array[cast(null as row(x integer))] rn,"
        " cast(row(null, array[null]) as row(x integer, y array(integer))) rf")
    assert row == {"a": [[1], [], None], "n": None, "e": [], "rn": [None],
                   "rf": {"x": None, "y": [None]}}


def test_maps():
    row = one(
        "select map(array['a', 'b'], array[1, null]) sk, map(array[1, 2], array['x', 'y']) ik,"
        " map(array[cast('c' as char(2))], array[1.5e0]) ck,"
        " map(array['k'], array[map(array[true], array[array[1]])]) nested,"
        " cast(null as map(varchar, integer)) nm")
    assert row == {
        "sk": {"a": 1, "b": None},
        "ik": [[1, "x"], [2, "y"]],
        "ck": {"c ": 1.5},
        "nested": {"k": [[True, [1]]]},
        "nm": None,
    }


def test_rows():
    row = one(
        "select row(1, 'a') anon,"
        " cast(row(1, 'a', 2) as row(x integer, \"y z\" varchar, \"A\" integer)) named,"
        " cast(row(1) as row(\"a\"\"b\" integer)) quoted,"
        " array[cast(row(1, array['p', 'q']) as row(id integer, tags array(varchar)))] arr,"
        " cast(row(timestamp '2020-01-01 00:00:00.5') as row(ts timestamp(3))) ts,"
        " cast(row(1.5) as row(\"interval\" decimal(3,1))) kw")
    assert row == {
        "anon": {"field0": 1, "field1": "a"},
        "named": {"x": 1, "y z": "a", "A": 2},
        "quoted": {'a"b': 1},
        "arr": [{"id": 1, "tags": ["p", "q"]}],
        "ts": {"ts": "2020-01-01 00:00:00.500"},
        "kw": {"interval": "1.5"},
    }


def test_json_elements_delimit_themselves():
    row = one(
        "select array[json_parse('{\"a\":[1, 2], \"b\":\"x]}\"}'), json_parse('3'), null,"
        " json_parse('null'), json_parse('\"s, t\"')] j,"
        " map(array['k'], array[json_parse('[1,2]')]) mj")
    assert row == {"j": ['{"a":[1,2],"b":"x]}"}', "3", None, "null", '"s, t"'],
                   "mj": {"k": "[1,2]"}}


def test_strings_with_special_characters():
    row = one("select array['tab\tquote\"', 'é', ''] a, map(array['k\"'], array['v\\\\']) m")
    assert row == {"a": ['tab\tquote"', "é", ""], "m": {'k"': "v\\\\"}}


def test_ambiguous_text_falls_back_to_a_string():
    # The cell text "{k=1={field0=1.5, field1=x}}}" cannot be split against its type: the
    # formatter keeps today's string form rather than guess.
    row = one("select map(array['k=1'], array[row(1.5, 'x}')]) m")
    assert row == {"m": "{k=1={field0=1.5, field1=x}}}"}


def test_one_line_per_statement_and_many_rows():
    lines = run_lines("select array[x, x + 1] a from unnest(sequence(1, 3)) t(x)",
                      "select 1 a where false")
    assert [json.loads(line) for line in lines] == [
        [{"a": [1, 2]}, {"a": [2, 3]}, {"a": [3, 4]}], []]


def test_interval_type_names_in_rows():
    row = one("select cast(row(interval '1' day) as row(x interval day to second)) a,"
              " row(interval '1' day) b")
    assert row == {"a": {"x": "1 00:00:00.000"}, "b": {"field0": "1 00:00:00.000"}}
