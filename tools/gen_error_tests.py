#!/usr/bin/env python3
"""Generates tests/sql/errors/*.test: malformed and semantically wrong statements, each with the
SQLSTATE it must fail with and the position (line:column) of the offending token.

The position is marked in the statement text below with '@' placed right before the token the
error must point at; the generator removes the marker and computes the 1-based line and column.
A statement without '@' is checked for its SQLSTATE only (runtime errors such as division by
zero, whose position is the expression's). Run: python3 tools/gen_error_tests.py
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "sql", "errors")

SETUP = [
    "CREATE TABLE t (a integer, b varchar, c double, d date, e decimal(10,2))",
    "CREATE TABLE u (a integer, x varchar)",
    "INSERT INTO t VALUES (1, 'one', 1.5, DATE '2024-01-01', 1.25), (2, 'two', NULL, NULL, NULL)",
    "INSERT INTO u VALUES (1, 'u1')",
]

SYNTAX = "42601"
# (sqlstate, statement with @ marking the error position, optional message substring, optional
# comment written above the record)
CASES = {
    "syntax": [
        (SYNTAX, "SELECT 1 FORM @t"),
        (SYNTAX, "@SELEC 1"),
        (SYNTAX, "@SELEKT 1"),
        (SYNTAX, "SELECT * FROM t WHERE@"),
        (SYNTAX, "SELECT * FROM t WHERE a = @)"),
        (SYNTAX, "SELECT (1 + 2@"),
        (SYNTAX, "SELECT 1 + 2@)"),
        (SYNTAX, "SELECT a, FROM t".replace(", FROM", ", @FROM")),
        (SYNTAX, "SELECT * FROM @"),
        (SYNTAX, "SELECT * FROM t t2 @t3"),
        (SYNTAX, "SELECT * FROM t ORDER @a"),
        (SYNTAX, "SELECT * FROM t GROUP @a"),
        (SYNTAX, "SELECT * FROM t LIMIT @'x'"),
        (SYNTAX, "SELECT @'unterminated"),
        (SYNTAX, "SELECT @\"unterminated"),
        (SYNTAX, "SELECT 1 +@"),
        (SYNTAX, "SELECT * FROM t JOIN u@"),
        (SYNTAX, "SELECT * FROM t JOIN u ON@"),
        (SYNTAX, "SELECT CASE WHEN 1 THEN 2@"),
        (SYNTAX, "SELECT CASE @END"),
        (SYNTAX, "SELECT CAST(1 AS@)"),
        (SYNTAX, "SELECT CAST(1 @integer)"),
        (SYNTAX, "INSERT @t VALUES (1)"),
        (SYNTAX, "INSERT INTO t VALUES @"),
        (SYNTAX, "INSERT INTO t VALUES (1, @"),
        (SYNTAX, "CREATE @TABEL x (a int)"),
        (SYNTAX, "CREATE TABLE x (@)"),
        (SYNTAX, "CREATE TABLE x (a)@"),
        (SYNTAX, "CREATE TABLE x (a int,@)"),
        (SYNTAX, "DROP @t"),
        (SYNTAX, "DELETE @t"),
        (SYNTAX, "UPDATE t @b = 1"),
        (SYNTAX, "SELECT 1 @2"),
        (SYNTAX, "SELECT * FROM t WHERE a =@= 1"),
        (SYNTAX, "SELECT * FROM t WHERE a IN @1"),
        (SYNTAX, "SELECT * FROM t WHERE a IN (@)"),
        (SYNTAX, "SELECT * FROM t WHERE a BETWEEN 1@"),
        (SYNTAX, "SELECT * FROM t WHERE a LIKE@"),
        (SYNTAX, "SELECT * FROM t WHERE a IS @1"),
        (SYNTAX, "SELECT * FROM t WHERE NOT@"),
        (SYNTAX, "SELECT count(@"),
        (SYNTAX, "SELECT f(1,@)"),
        (SYNTAX, "SELECT ARRAY[1, 2@"),
        ("42704", "SELECT @INTERVAL '1' FORTNIGHT", "Unknown type: interval", None,
         "INTERVAL '1' without a field is the literal of a type named interval, aliased FORTNIGHT\n"
         "(Trino's grammar): TYPE_NOT_FOUND"),
        ("42703", "SELECT @DATE"),
        (SYNTAX, "SELECT * FROM (SELECT 1@"),
        (SYNTAX, "WITH @SELECT 1"),
        (SYNTAX, "WITH x AS @SELECT 1 SELECT * FROM x"),
        (SYNTAX, "SELECT 1 UNION@"),
        (SYNTAX, "SELECT 1 UNION @ORDER BY 1"),
        (SYNTAX, "SELECT * FROM t ORDER BY a @ASCENDING"),
        (SYNTAX, "SELECT * FROM t ORDER BY a NULLS @MIDDLE"),
        (SYNTAX, "SELECT * FROM t FETCH @LAST 1 ROWS ONLY"),
        (SYNTAX, "SELECT row_number() OVER (ORDER @a)"),
        ("42703", "SELECT sum(a) OVER (ROWS @FOO PRECEDING) FROM t"),
        (SYNTAX, "SELECT EXTRACT(year @d) FROM t"),
        (SYNTAX, "SELECT SUBSTRING('abc' FROM@)"),
        (SYNTAX, "SELECT TRIM(@)"),
        (SYNTAX, "SELECT 1 FROM t\nWHERE a = 1\n  AND @AND b = 2"),
        (SYNTAX, "SELECT\n  a,\n  b\nFROM t\nWHERE @)"),
        (SYNTAX, "SELECT 1 @@ 2".replace("@@", "@~")),
        (SYNTAX, "SELECT @0xG1"),
        (SYNTAX, "SELECT @1e"),
        (SYNTAX, "SELECT @X'0G'"),
        (SYNTAX, "SHOW @FOOS"),
        (SYNTAX, "USE@"),
        (SYNTAX, "SET SESSION@"),
        (SYNTAX, "PREPARE p @SELECT 1"),
        (SYNTAX, "EXECUTE@"),
        (SYNTAX, "EXPLAIN@"),
        (SYNTAX, "SELECT * FROM t NATURAL @CROSS JOIN u"),
        (SYNTAX, "SELECT * FROM t LEFT @u ON true"),
        (SYNTAX, "SELECT a FROM t GROUP BY GROUPING SETS @a"),
        (SYNTAX, "SELECT a FROM t GROUP BY ROLLUP @a"),
        (SYNTAX, "SELECT * FROM UNNEST@"),
        (SYNTAX, "VALUES @"),
        (SYNTAX, "SELECT a FROM t WHERE a = ANY @1"),
        (SYNTAX, "SELECT (SELECT@)"),
    ],
    "names": [
        ("42P01", "SELECT * FROM @nope"),
        ("42P01", "SELECT * FROM t, @nope"),
        ("42P01", "SELECT * FROM t JOIN @nope ON true"),
        ("3F000", "SELECT * FROM @nosuchschema.t"),
        ("3D000", "SELECT * FROM @nocat.default.t"),
        ("42703", "SELECT @zz FROM t"),
        ("42703", "SELECT a FROM t WHERE @zz > 1"),
        ("42703", "SELECT a FROM t ORDER BY @zz"),
        ("42703", "SELECT @t.zz FROM t"),
        ("42703", "SELECT a FROM t GROUP BY @zz"),
        ("42703", "SELECT sum(@zz) FROM t"),
        ("42703", "SELECT * FROM t JOIN u ON t.a = @u.zz"),
        ("42703", "SELECT * FROM t JOIN u USING (@b)"),
        ("42702", "SELECT @a FROM t, u"),
        ("42702", "SELECT * FROM t, u WHERE @a = 1"),
        ("42883", "SELECT @nosuchfunc(1)"),
        ("42883", "SELECT @nosuchagg(a) FROM t"),
        ("42P01", "INSERT INTO @nope VALUES (1)"),
        ("42P01", "DELETE FROM @nope"),
        ("42P01", "DROP TABLE @nope"),
        ("42P01", "SHOW COLUMNS FROM @nope"),
        ("42703", "INSERT INTO t (a, @zz) VALUES (1, 2)"),
        ("42703", "UPDATE t SET @zz = 1"),
        ("42703", "SELECT @x.a FROM (SELECT 1 AS b) x"),
        ("42703", "WITH w AS (SELECT 1 AS k) SELECT @a FROM w"),
        ("42P01", "WITH w AS (SELECT 1 AS k) SELECT * FROM @w2"),
        ("42703", "SELECT @v.a FROM t"),
        ("3F000", "SHOW TABLES FROM @nosuchschema"),
        ("42704", "USE @nosuchschema", "Schema does not exist: memory.nosuchschema", None,
         "NOT_FOUND (Trino's USE), the connector's answer for CREATE TABLE (the memory connector)"),
        ("42704", "CREATE TABLE @nosuchschema.x (a int)", "Schema nosuchschema not found"),
        ("42P07", "CREATE TABLE @t (a int)"),
        ("42P07", "CREATE TABLE @t AS SELECT 1 AS a"),
        ("42701", "CREATE TABLE dup (a int, @a int)"),
        ("42704", "CREATE TABLE bad (a @notatype)"),
        ("42804", "SELECT @CAST(1 AS notatype)", "Unknown type: notatype", None,
         "an unknown type in an expression is TYPE_MISMATCH, in DDL TYPE_NOT_FOUND (Trino)"),
        ("22023", "SET SESSION @nosuchproperty = 1"),
        ("42704", "EXECUTE @nosuchprepared"),
        ("42704", "DEALLOCATE PREPARE @nosuchprepared"),
        ("42P10", "SELECT a FROM t ORDER BY @5"),
        ("42P10", "SELECT a FROM t GROUP BY @3"),
    ],
    "types": [
        ("42804", "SELECT 'a' @+ 1"),
        ("42804", "SELECT 1 @= 'a'"),
        ("42804", "SELECT * FROM t WHERE @a"),
        ("42804", "SELECT * FROM t WHERE @b"),
        ("42804", "SELECT * FROM t WHERE a = 1 AND @b"),
        ("42804", "SELECT NOT @a FROM t"),
        ("42804", "SELECT CASE WHEN @a THEN 1 END FROM t"),
        ("42804", "SELECT CASE WHEN true THEN 1 ELSE @'x' END"),
        ("42804", "SELECT coalesce(1, @'a')"),
        ("42804", "SELECT a FROM t WHERE a IN (1, @'x')"),
        ("42804", "SELECT ARRAY[1, @'a']"),
        ("42883", "SELECT @abs('x')"),
        ("42883", "SELECT @length(1)"),
        ("42883", "SELECT @substr(1, 2)"),
        ("42883", "SELECT @sum(b) FROM t"),
        ("42883", "SELECT @avg(d) FROM t"),
        ("42804", "SELECT d @+ 1 FROM t"),
        ("42804", "SELECT @CAST(DATE '2024-01-01' AS integer)"),
        ("42804", "SELECT @CAST(ARRAY[1] AS date)"),
        ("42804", "SELECT a FROM t UNION SELECT d FROM t"),
        ("42804", "INSERT INTO t (a) VALUES ('not a number')"),
        ("42804", "SELECT * FROM t JOIN u ON @t.a"),
        ("42804", "SELECT a FROM t WHERE a @= ANY (SELECT x FROM u)"),
        ("42883", "SELECT @lower(1, 2)"),
        ("42883", "SELECT 'a' @|| ARRAY[1]"),
        ("42804", "SELECT @-'a'"),
        ("42804", "SELECT a FROM t ORDER BY ARRAY[a] @> ARRAY['x']"),
        ("42883", "SELECT @date_add('day', 'x', DATE '2024-01-01')"),
        ("42804", "SELECT a FROM t WHERE b @LIKE 1"),
        ("42883", "SELECT @transform(1, x -> x)"),
    ],
    "semantics": [
        ("42803", "SELECT @a, count(*) FROM t"),
        ("42803", "SELECT a, @b FROM t GROUP BY a"),
        ("42803", "SELECT a FROM t GROUP BY a HAVING @b = 'x'"),
        ("42803", "SELECT a FROM t GROUP BY a ORDER BY @c"),
        ("42803", "SELECT a FROM t WHERE @sum(a) > 1",
         "WHERE clause cannot contain aggregations, window functions or grouping operations"),
        ("42803", "SELECT sum(@max(a)) FROM t"),
        ("42803", "SELECT a FROM t GROUP BY @sum(a)",
         "GROUP BY clause cannot contain aggregations, window functions or grouping operations"),
        ("42809", "SELECT @row_number() FROM t", "requires an OVER clause"),
        ("42803", "SELECT a FROM t WHERE @row_number() OVER () > 1",
         "WHERE clause cannot contain aggregations, window functions or grouping operations"),
        ("42803", "SELECT sum(a) OVER (PARTITION BY @b) FROM t GROUP BY a", "must be an aggregate"),
        ("42804", "SELECT * FROM t UNION SELECT *, 1 FROM t", "different number"),
        ("21000", "SELECT (SELECT a, b FROM t)", "Scalar sub-query has returned multiple rows",
         "a scalar subquery of several columns is a ROW value (Trino 476: row(a integer, b varchar));\n"
         "t has two rows"),
        ("42804", "SELECT a FROM t WHERE a IN (SELECT a, b FROM t)",
         "Value expression and result of subquery must be of the same type"),
        ("42703", "SELECT @*", "SELECT * not allowed in queries without FROM clause"),
        ("42601", "SELECT * FROM t LIMIT @-1"),
        ("42P10", "SELECT DISTINCT a FROM t ORDER BY @c",
         "For SELECT DISTINCT, ORDER BY expressions must appear in select list"),
        ("42601", "SELECT * FROM (SELECT 1 AS x) v(a, b)", "alias"),
        ("42804", "SELECT @x -> 1", "Lambda expression should always be used inside a function"),
        ("42804", "SELECT @x -> x", "Lambda expression should always be used inside a function"),
        ("42P19", "WITH RECURSIVE @r AS (SELECT 1) SELECT * FROM r",
         "missing column aliases in recursive WITH query"),
        ("42803", "SELECT count(*) FROM t GROUP BY ROLLUP(b) ORDER BY @a"),
        ("2BP01", "DROP SCHEMA default"),
        ("42P20", "SELECT sum(@row_number() OVER ()) FROM t",
         "Cannot nest window functions or row pattern measures inside aggregation 'sum'"),
        ("42P20", "SELECT sum(@row_number() OVER ()) OVER () FROM t",
         "Cannot nest window functions or row pattern measures inside window function arguments"),
        ("42P20", "SELECT sum(a) OVER (PARTITION BY @sum(a) OVER ()) FROM t",
         "Cannot nest window functions or row pattern measures inside window specification"),
        ("42P20", "SELECT a FROM t GROUP BY a HAVING @row_number() OVER () = 1",
         "HAVING clause cannot contain window functions or row pattern measures"),
        ("42P20", "SELECT sum(a) FILTER (WHERE @row_number() OVER () > 1) FROM t",
         "Cannot nest window functions or row pattern measures inside aggregation 'sum'", None,
         "a window in an aggregate's FILTER (Trino 476 fails it with an internal error)"),
        ("42803", "SELECT * FROM t JOIN u ON @sum(t.a) = 1",
         "JOIN clause cannot contain aggregations, window functions or grouping operations"),
        ("42803", "SELECT a FROM t GROUP BY @row_number() OVER ()",
         "GROUP BY clause cannot contain aggregations, window functions or grouping operations"),
        ("42809", "SELECT * FROM t ORDER BY @rank()", "requires an OVER clause"),
        ("42803", "SELECT @grouping(a) FROM t",
         "A GROUPING() operation can only be used with a corresponding GROUPING SET/CUBE/ROLLUP/GROUP BY clause"),
        ("22023", "SELECT a FROM t GROUP BY a HAVING @grouping(b) = 0",
         "The arguments to GROUPING() must be expressions referenced by the GROUP BY"),
        ("42803", "SELECT a FROM t WHERE @grouping(a) = 0",
         "WHERE clause cannot contain aggregations, window functions or grouping operations"),
        ("42804", "SELECT @CAST(NULL AS array(notatype))", "Unknown type: array(notatype)"),
        ("42704", "SELECT @nosuchtype '1'", "Unknown type: nosuchtype"),
        ("42P19", "WITH RECURSIVE a(x) AS (SELECT 1), @b AS (SELECT 2) SELECT * FROM a",
         "missing column aliases in recursive WITH query"),
        ("42803", "SELECT * FROM UNNEST(ARRAY[@sum(1)])",
         "UNNEST cannot contain aggregations, window functions or grouping operations"),
    ],
    "literals": [
        ("22007", "SELECT @DATE '2024-02-30'"),
        ("22007", "SELECT @DATE 'yesterday'"),
        ("22007", "SELECT @TIMESTAMP '2024-01-01 25:00:00'"),
        ("22007", "SELECT @TIME '24:61'"),
        ("22007", "SELECT @INTERVAL 'x' DAY"),
        ("22007", "SELECT @DECIMAL '1.2.3'"),
        ("22007", "SELECT @123456789012345678901234567890123456789.5"),
        ("22018", "SELECT @CAST('abc' AS integer)"),
        ("22018", "SELECT @CAST('1.5x' AS double)"),
        ("22018", "SELECT @CAST('maybe' AS boolean)"),
        ("22018", "SELECT @CAST('2024-13-01' AS date)"),
        ("22018", "SELECT @CAST('' AS bigint)"),
        ("22018", "SELECT @CAST('12:00:99' AS time)"),
        ("22018", "SELECT @CAST('zz' AS uuid)"),
        ("22003", "SELECT @CAST(128 AS tinyint)"),
        ("22003", "SELECT @CAST(40000 AS smallint)"),
        ("22003", "SELECT @CAST(3000000000 AS integer)"),
        ("22018", "SELECT @CAST(1e20 AS bigint)"),
        ("22018", "SELECT @CAST(12345.678 AS decimal(5,2))"),
        ("22018", "SELECT @CAST(nan() AS integer)"),
        ("22003", "SELECT 9223372036854775807 @+ 1"),
        ("22003", "SELECT -9223372036854775807 @- 2"),
        ("22003", "SELECT 4611686018427387904 @* 2"),
        ("22003", "SELECT CAST(2147483647 AS integer) @+ CAST(1 AS integer)"),
        ("22003", "SELECT @abs(-9223372036854775807 - 1)"),
        ("22003", "SELECT CAST('99999999999999999999999999999999999999' AS decimal(38,0)) @+ 1", None,
         "(a string: Trino refuses integer literals beyond bigint, \"Invalid numeric literal\")"),
        ("22012", "SELECT 1 @/ 0"),
        ("22012", "SELECT 1 @% 0"),
        ("22012", "SELECT 1.5 @/ 0"),
        ("22012", "SELECT a @/ 0 FROM t"),
        ("22012", "SELECT sum(a) @/ (count(*) - 2) FROM t"),
        ("22012", "SELECT CAST(1 AS decimal(3,0)) @/ CAST(0 AS decimal(3,0))"),
        ("21000", "SELECT (SELECT a FROM t)"),
        ("21000", "SELECT * FROM u WHERE a = (SELECT a FROM t)"),
        ("22023", "SELECT ARRAY[1, 2][3]"),
        ("22023", "SELECT ARRAY[1, 2][0]"),
        ("22023", "SELECT MAP(ARRAY[1, 1], ARRAY[2, 3])"),
        ("22023", "SELECT @regexp_like('a', '(')"),
        ("22023", "SELECT 'a' LIKE 'a' ESCAPE 'xy'"),
        ("22023", "SELECT @json_parse('{bad')"),
        ("22023", "SELECT @chr(-1)"),
        ("22023", "SELECT @repeat('x', -1)"),
        ("22023", "SELECT @date_trunc('fortnight', DATE '2024-01-01')"),
        ("22023", "SELECT @from_base('zz', 2)"),
        ("22023", "SELECT @split_part('a,b', ',', 0)"),
        ("22023", "SELECT @sequence(1, 10, 0)"),
        ("22023", "SELECT @at_timezone(TIMESTAMP '2024-01-01 00:00:00 UTC', 'Mars/Olympus')"),
        ("22023", "SELECT @lpad('a', -1, 'x')"),
        ("22023", "SELECT approx_percentile(a, 2.0) FROM t"),
    ],
}


def position(sql):
    i = sql.find("@")
    if i < 0:
        return sql, None
    text = sql[:i] + sql[i + 1:]
    line = sql.count("\n", 0, i) + 1
    col = i - (sql.rfind("\n", 0, i) + 1) + 1
    return text, (line, col)


def main():
    os.makedirs(OUT, exist_ok=True)
    total = 0
    for area, cases in CASES.items():
        lines = [f"# name: errors/{area}.test",
                 f"# description: malformed or wrong statements ({area}): each fails with its SQLSTATE and position",
                 "# group: errors",
                 "# generated by tools/gen_error_tests.py; edit the generator, not this file",
                 ""]
        for s in SETUP:
            lines += ["statement ok", s, ""]
        for case in cases:
            state, sql = case[0], case[1]
            msg = case[2] if len(case) > 2 else None
            comment = case[3] if len(case) > 3 else None
            text, pos = position(sql)
            if comment:
                lines += ["# " + c for c in comment.split("\n")]
            lines += ["statement error", text, "----"]
            if msg:
                lines.append(msg)
            lines.append(f"sqlstate: {state}")
            if pos:
                lines.append(f"position: {pos[0]}:{pos[1]}")
            lines.append("")
            total += 1
        with open(os.path.join(OUT, f"{area}.test"), "w") as f:
            f.write("\n".join(lines))
    # Deep nesting: accepted up to the parser's limit, a clean error beyond it (never a crash).
    deep = ["# name: errors/deep.test",
            "# description: deeply nested expressions bind and run, or fail cleanly past the limit",
            "# group: errors", "# generated by tools/gen_error_tests.py", "",
            "query I", "SELECT " + "+" * 900 + "1", "----", "1", "",
            "query I", "SELECT " + "(" * 400 + "1" + ")" * 400, "----", "1", "",
            "query I", "SELECT " + " + ".join(["1"] * 800), "----", "800", "",
            "statement error", "SELECT " + "+" * 3000 + "1", "----", "nesting too deep",
            "sqlstate: 42601", "",
            "statement error", "SELECT " + "(" * 5000 + "1" + ")" * 5000, "----", "nesting too deep", ""]
    with open(os.path.join(OUT, "deep.test"), "w") as f:
        f.write("\n".join(deep))
    total += 2
    print(f"{total} error cases written to {OUT}")


if __name__ == "__main__":
    main()
