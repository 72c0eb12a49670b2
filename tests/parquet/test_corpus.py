"""The parquet-testing corpus (../shared/corpus/parquet-testing/data) read by SQE, exactly as
pyarrow reads it.

Every *.parquet / *.parquet.encrypted file under data/ is one test:
  - encrypted files (name containing "encrypt"): SQE must refuse with an "unsupported:" error;
  - files in EXPECTED_UNSUPPORTED: likewise, for the reason given there;
  - files SQE must refuse for a stated reason (EXPECTED_ERRORS: corrupt page checksums, a
    value outside SQE's range): an error with a SQLSTATE naming the problem;
  - MAP groups without values (MAP_WITHOUT_VALUE): either reading the spec allows;
  - files pyarrow cannot read (PYARROW_UNREADABLE): SQE must give a clear error (with a
    SQLSTATE) or the correct data, checked against DuckDB's reading; the test prints which;
  - files too heavy for the default run (HEAVY): only with SQE_PARQUET_HEAVY=1;
  - every other file: SQE's rows, column names and types must equal pyarrow's reading under
    SQE's type mapping (oracle.py), value by value, in file order.
Every run must also be healthy: no signal, no sanitizer report, no timeout.

SQE runs in parallel (SQE_TEST_JOBS, default 2). Run: tests/parquet/run_parquet_tests.sh.
"""
import os
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa
import pytest

import oracle

DATA = oracle.CORPUS / "data"
if not DATA.is_dir():
    pytest.skip(f"the parquet-testing corpus is absent ({DATA}; expected at "
                "../shared/corpus/parquet-testing/data from the repository root)",
                allow_module_level=True)

TIMEOUT = 90

# Files SQE legitimately does not read, each with the reason; SQE must fail with "unsupported:".
EXPECTED_UNSUPPORTED: dict[str, str] = {
}

# Files SQE must refuse with an error (with a SQLSTATE) mentioning one of the words given.
EXPECTED_ERRORS: dict[str, tuple[tuple[str, ...], str]] = {
    # Page CRCs that do not match their page; SQE verifies CRCs when present.
    "datapage_v1-corrupt-checksum.parquet": (("crc", "checksum"), "a data page CRC is wrong"),
    "rle-dict-uncompressed-corrupt-checksum.parquet": (("crc", "checksum"),
                                                       "a page CRC is wrong"),
    # One INT96 value is about 11 million years after 1970 (Julian day 4189105064): past what
    # timestamp(6) holds. (pyarrow wraps it around silently.)
    "int96_from_spark.parquet": (("out of range",), "an INT96 value beyond timestamp(6)"),
}

# MAP groups without a value field. LogicalTypes.md: "In case of not present, it can be
# represented as a map with all null values or as a set of keys". pyarrow reads a list of keys;
# SQE may return that (array of keys) or a map whose values are all NULL. {file: column}
MAP_WITHOUT_VALUE: dict[str, str] = {
    "map_no_value.parquet": "my_map_no_v",
}

# Files pyarrow refuses; the correct data then comes from DuckDB.
PYARROW_UNREADABLE: dict[str, str] = {
    "incorrect_map_schema.parquet": "map keys not annotated REQUIRED (pyarrow: 'Map keys must "
                                    "be annotated as required'); DuckDB reads it",
    "large_string_map.brotli.parquet": "two map keys of 1 GiB each; pyarrow's read_table fails "
                                       "('Nested data conversions not implemented for chunked "
                                       "array outputs')",
}

# Too slow for the default run (minutes under ASan); SQE_PARQUET_HEAVY=1 runs them with the
# given query and expected rows instead of SELECT *.
HEAVY: dict[str, tuple[str, list]] = {
    "large_string_map.brotli.parquet": (
        "SELECT cardinality(arr) AS n, map_values(arr) AS v, length(map_keys(arr)[1]) AS klen "
        "FROM read_parquet({path})",
        [{"n": 1, "v": [1], "klen": 1073741824}] * 2),
}


def corpus_files():
    files = [p for p in DATA.rglob("*") if p.is_file() and
             (p.name.endswith(".parquet") or p.name.endswith(".parquet.encrypted"))]
    return sorted(files, key=lambda p: str(p.relative_to(DATA)))


FILES = corpus_files()
IDS = [str(p.relative_to(DATA)) for p in FILES]


def is_encrypted(path) -> bool:
    return "encrypt" in path.name


def run_one(path):
    name = path.name
    if is_encrypted(path) or name in EXPECTED_UNSUPPORTED or name in EXPECTED_ERRORS:
        return oracle.sqe_read(path, timeout=TIMEOUT, with_types=False)
    if name in HEAVY:
        sql, _ = HEAVY[name]
        return oracle.sqe_read(path, timeout=600, with_types=False,
                               sql=sql.format(path=oracle.sql_string(str(path.resolve()))))
    if name in MAP_WITHOUT_VALUE:
        return compare_map_without_value(path, MAP_WITHOUT_VALUE[name])
    return oracle.compare_file(path, timeout=TIMEOUT)


def compare_map_without_value(path, column):
    """compare_file, accepting for `column` either pyarrow's list of keys or a map of the keys
    to NULL values."""
    ref = oracle.read_reference(path)
    outcome = oracle.compare_file(path, timeout=TIMEOUT, reference=ref)
    if outcome.status != "mismatch":
        return outcome
    table = ref.table
    idx = table.schema.get_field_index(column)
    keys = table.column(idx).combine_chunks()
    as_map = pa.MapArray.from_arrays(keys.offsets, keys.values, pa.nulls(len(keys.values)),
                                     mask=keys.is_null())
    mapped = oracle.Reference(table.set_column(idx, column, as_map), None, "pyarrow (map "
                              "with NULL values)")
    second = oracle.compare_file(path, timeout=TIMEOUT, reference=mapped)
    return second if second.status == "match" else outcome


@pytest.fixture(scope="module")
def results(request):
    """Futures of every selected file's run, two SQE processes at a time."""
    selected = {item.callspec.params["path"] for item in request.session.items
                if item.module.__name__ == __name__ and hasattr(item, "callspec")
                and "path" in item.callspec.params}
    heavy = os.environ.get("SQE_PARQUET_HEAVY") == "1"
    pool = ThreadPoolExecutor(int(os.environ.get("SQE_TEST_JOBS", "2")))
    futures = {p: pool.submit(run_one, p) for p in FILES
               if p in selected and (heavy or p.name not in HEAVY)}
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


def is_reader_error(error, path) -> bool:
    """A clear error from the Parquet reader: a SQLSTATE, and naming Parquet or the file (so that
    a missing read_parquet does not count)."""
    return oracle.has_sqlstate(error) and ("parquet" in error.lower() or path.name in error) \
        and "not registered" not in error


def expect_refusal(read, must_contain, why):
    problem = read.run.health_problem()
    assert problem is None, problem
    assert read.rows is None, f"SQE read the file ({why}); expected an error containing " \
                              f"{must_contain!r}"
    assert oracle.has_sqlstate(read.error), f"no SQLSTATE in the error: {read.error}"
    if isinstance(must_contain, str):
        must_contain = (must_contain,)
    assert any(m.lower() in read.error.lower() for m in must_contain), \
        f"error {read.error!r} does not mention {must_contain} ({why})"


@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_corpus_file(path, results):
    name = path.name
    if name in HEAVY and os.environ.get("SQE_PARQUET_HEAVY") != "1":
        pytest.skip(f"heavy file ({PYARROW_UNREADABLE.get(name, '')}); run with "
                    "SQE_PARQUET_HEAVY=1")
    got = results[path].result()
    if is_encrypted(path):
        expect_refusal(got, "unsupported:", "encrypted file, no keys")
        return
    if name in EXPECTED_UNSUPPORTED:
        expect_refusal(got, "unsupported:", EXPECTED_UNSUPPORTED[name])
        return
    if name in EXPECTED_ERRORS:
        words, why = EXPECTED_ERRORS[name]
        expect_refusal(got, words, why)
        return
    if name in HEAVY:
        assert got.run.health_problem() is None, got.run.health_problem()
        if got.rows is None:
            assert is_reader_error(got.error, path), f"unclear error: {got.error}"
            print(f"{name}: SQE refuses with {got.error}")
            return
        rows = [dict(r) for r in got.rows]
        assert rows == HEAVY[name][1]
        print(f"{name}: SQE reads the correct data")
        return
    outcome = got
    if outcome.status == "unhealthy":
        pytest.fail(f"SQE run is unhealthy: {outcome.detail}", pytrace=False)
    if name in PYARROW_UNREADABLE:
        assert outcome.reference.pyarrow_error, "pyarrow reads it now: drop it from " \
                                                "PYARROW_UNREADABLE"
        if outcome.status == "sqe_error":
            assert is_reader_error(outcome.detail, path), f"unclear error: {outcome.detail}"
            print(f"{name}: SQE refuses with {outcome.detail}")
            return
        if outcome.status != "match":
            pytest.fail(str(outcome), pytrace=False)
        print(f"{name}: SQE reads the correct data ({outcome.detail})")
        return
    assert outcome.reference.source == "pyarrow", \
        f"pyarrow cannot read {name} ({outcome.reference.pyarrow_error}): add it to " \
        "PYARROW_UNREADABLE"
    if outcome.status == "sqe_error":
        pytest.fail(f"SQE failed on a file pyarrow reads: {outcome.detail}", pytrace=False)
    if outcome.status != "match":
        pytest.fail(f"SQE differs from pyarrow on {name}:\n{outcome.detail}", pytrace=False)


def test_corpus_is_complete():
    # The brief's count: data/ holds 82 entries (files and folders); the test reads every
    # Parquet file among them and below them.
    assert len(FILES) >= 70, f"only {len(FILES)} Parquet files under {DATA}"
