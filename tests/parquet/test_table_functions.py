"""parquet_metadata('file') and parquet_schema('file') against pyarrow's view of the footer.

One sqe process runs both functions on every Parquet file of the corpus (one statement each,
one JSON line each). For files pyarrow opens:
  - parquet_metadata: one row per (row group, column chunk) in order, with the row group's row
    count, the chunk's physical type, codec, encodings (as a set), value count, sizes and page
    offsets equal to pyarrow's; and (a test of its own) path_in_schema as stored in the file;
  - parquet_schema: its leaf rows (those with a physical type), in order, carry the leaf's name,
    physical type, converted type and the SQE type of oracle.sqe_type_of.
Encrypted files must give an "unsupported:" error from both.
"""
import pyarrow.parquet as pq
import pytest

import oracle

DATA = oracle.CORPUS / "data"
if not DATA.is_dir():
    pytest.skip(f"the parquet-testing corpus is absent ({DATA})", allow_module_level=True)

FILES = sorted(p for p in DATA.rglob("*") if p.is_file() and
               (p.name.endswith(".parquet") or p.name.endswith(".parquet.encrypted")))
IDS = [str(p.relative_to(DATA)) for p in FILES]


@pytest.fixture(scope="module")
def lines():
    """{path: (parquet_metadata line, parquet_schema line)} from one sqe run."""
    script = "".join(
        f"SELECT * FROM {fn}({oracle.sql_string(str(p))});\n"
        for p in FILES for fn in ("parquet_metadata", "parquet_schema"))
    run = oracle.run_sqe(script, timeout=300)
    assert run.health_problem() is None, run.health_problem()
    parsed = run.json_lines()
    assert len(parsed) == 2 * len(FILES), f"{len(parsed)} JSON lines for {2 * len(FILES)} " \
                                          f"statements:\n{run.stdout[-2000:]}{run.stderr[-2000:]}"
    return {p: (parsed[2 * i], parsed[2 * i + 1]) for i, p in enumerate(FILES)}


def rows_of(line, what):
    if isinstance(line, oracle.Pairs):
        pytest.fail(f"{what}: {oracle.error_text(line, None)}")
    return [dict(r) for r in line]


def expect_unsupported(line, what):
    assert isinstance(line, oracle.Pairs), f"{what} read an encrypted file"
    message = dict(dict(line)["error"])["message"]
    assert "unsupported:" in message, f"{what}: {message}"


# pyarrow's codec names -> parquet.thrift's (pyarrow calls LZ4_RAW "LZ4" and cannot name the
# deprecated Hadoop LZ4, codec 5).
PYARROW_CODECS = {"LZ4": "LZ4_RAW", "UNKNOWN": "LZ4"}


def metadata_rows(path, lines):
    """(SQE's parquet_metadata rows, pyarrow's expected rows), both as dicts."""
    meta_line, _ = lines[path]
    try:
        md = pq.ParquetFile(path).metadata
    except Exception as exc:
        pytest.skip(f"pyarrow cannot open the footer: {exc}")
    rows = rows_of(meta_line, "parquet_metadata")
    want = []
    for g in range(md.num_row_groups):
        rg = md.row_group(g)
        for c in range(rg.num_columns):
            cc = rg.column(c)
            want.append({
                "row_group_id": g, "row_group_num_rows": rg.num_rows,
                "row_group_num_columns": rg.num_columns, "column_id": c,
                "num_values": cc.num_values, "path_in_schema": cc.path_in_schema,
                "type": cc.physical_type,
                "compression": PYARROW_CODECS.get(cc.compression, cc.compression),
                "encodings": set(cc.encodings),
                "dictionary_page_offset": cc.dictionary_page_offset
                if cc.has_dictionary_page else None,
                "data_page_offset": cc.data_page_offset,
                "total_compressed_size": cc.total_compressed_size,
                "total_uncompressed_size": cc.total_uncompressed_size,
            })
    got = []
    for r in rows:
        g = {k: r.get(k) for k in want[0]} if want else {}
        if "encodings" in g and isinstance(g["encodings"], str):
            g["encodings"] = {e.strip() for e in g["encodings"].split(",") if e.strip()}
        got.append(g)
    assert len(got) == len(want), f"{len(got)} rows, expected {len(want)}"
    return got, want


def diff_rows(got, want, keys):
    diffs = [f"row {i} {k}: SQE {g[k]!r}, pyarrow {w[k]!r}"
             for i, (g, w) in enumerate(zip(got, want)) for k in keys if g[k] != w[k]]
    assert not diffs, "\n".join(diffs[:20])


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_parquet_metadata(path, lines):
    if "encrypt" in path.name:
        expect_unsupported(lines[path][0], "parquet_metadata")
        return
    got, want = metadata_rows(path, lines)
    diff_rows(got, want, [k for k in (want[0] if want else {}) if k != "path_in_schema"])


@pytest.mark.parametrize("path", [p for p in FILES if "encrypt" not in p.name],
                         ids=[i for i in IDS if "encrypt" not in i])
def test_parquet_metadata_path_in_schema(path, lines):
    """path_in_schema is the chunk's path as stored (wrapper groups included:
    "a.key_value.key", "b.list.element"), as pyarrow and DuckDB report it."""
    got, want = metadata_rows(path, lines)
    diff_rows(got, want, ["path_in_schema"])


def leaf_sqe_types(pf):
    """The SQE type of every leaf, from the Arrow schema walked in leaf order."""
    out = []
    leaves = iter([pf.schema.column(i) for i in range(len(pf.schema))])

    def walk(t):
        import pyarrow as pa
        if isinstance(t, pa.BaseExtensionType) or not (
                pa.types.is_list(t) or pa.types.is_large_list(t) or
                pa.types.is_fixed_size_list(t) or pa.types.is_map(t) or pa.types.is_struct(t)):
            out.append(oracle.sqe_type_of(t, iter([next(leaves)])).spelled())
        elif pa.types.is_map(t):
            walk(t.key_type)
            walk(t.item_type)
        elif pa.types.is_struct(t):
            for i in range(t.num_fields):
                walk(t.field(i).type)
        else:
            walk(t.value_type)
    for f in pf.schema_arrow:
        walk(f.type)
    return out


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_parquet_schema(path, lines):
    _, schema_line = lines[path]
    if "encrypt" in path.name:
        expect_unsupported(schema_line, "parquet_schema")
        return
    try:
        pf = pq.ParquetFile(path, coerce_int96_timestamp_unit="us")
        sqe_types = leaf_sqe_types(pf)
    except Exception as exc:
        pytest.skip(f"pyarrow cannot open the footer: {exc}")
    rows = rows_of(schema_line, "parquet_schema")
    leaves = [r for r in rows if r.get("type") is not None]
    cols = [pf.schema.column(i) for i in range(len(pf.schema))]
    assert len(leaves) == len(cols), f"{len(leaves)} leaf rows, expected {len(cols)}"
    diffs = []
    for i, (r, c, st) in enumerate(zip(leaves, cols, sqe_types)):
        # pyarrow says "UNKNOWN" for a logical type it does not know, which has none
        converted = None if c.converted_type in ("NONE", "UNKNOWN") else c.converted_type
        want = {"name": c.name, "type": c.physical_type, "converted_type": converted}
        if st is not None and len(sqe_types) == len(cols):
            want["sqe_type"] = st
        diffs += [f"leaf {i} ({c.path}) {k}: SQE {r.get(k)!r}, expected {v!r}"
                  for k, v in want.items() if r.get(k) != v]
    assert not diffs, "\n".join(diffs[:20])
