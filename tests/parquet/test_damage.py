"""Damaged Parquet files through the sanitizer build of SQE: no crash, no hang, no sanitizer
report, and either a clear error (with a SQLSTATE) or a result.

Inputs:
  - every file of ../shared/corpus/parquet-testing/bad_data (malformed on purpose);
  - for SAMPLE (ten good corpus files of different encodings, codecs and nesting):
    truncated copies (CUTS: 1 byte short, inside the footer length, at the start of and inside
    the footer metadata, mid-file, the magic only) and FLIPS copies with seeded random bit
    flips (half of them aimed at the footer, half anywhere), written to a temporary folder.
A flipped file that still gives a result passes whatever the values: the damage may hit data.

Each run has TIMEOUT seconds; two run at a time (SQE_TEST_JOBS). The binary is
build-asan/sqe (or $SQE_BIN); with a build without sanitizers only crashes and hangs are seen.
"""
import os
import random
import struct
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import oracle

BAD = oracle.CORPUS / "bad_data"
DATA = oracle.CORPUS / "data"
if not DATA.is_dir():
    pytest.skip(f"the parquet-testing corpus is absent ({oracle.CORPUS}; expected at "
                "../shared/corpus/parquet-testing from the repository root)",
                allow_module_level=True)

TIMEOUT = 10
FLIPS = 20

SAMPLE = [
    "alltypes_plain.parquet",             # PLAIN, INT96, impala
    "alltypes_dictionary.parquet",        # dictionary pages
    "datapage_v2.snappy.parquet",         # data page v2, snappy, a list column
    "delta_binary_packed.parquet",        # DELTA_BINARY_PACKED, 65 columns
    "delta_length_byte_array.parquet",    # DELTA_LENGTH_BYTE_ARRAY, zstd
    "byte_stream_split.zstd.parquet",     # BYTE_STREAM_SPLIT
    "nested_lists.snappy.parquet",        # three-level lists
    "nested_maps.snappy.parquet",         # maps of maps
    "nullable.impala.parquet",            # structs, lists, maps with NULLs
    "fixed_length_decimal.parquet",       # FIXED_LEN_BYTE_ARRAY decimals
]


def footer_length(data: bytes) -> int:
    """The footer metadata length of an intact file (0 when it cannot be read)."""
    if len(data) < 12 or data[-4:] != b"PAR1":
        return 0
    (n,) = struct.unpack("<I", data[-8:-4])
    return n if n + 12 <= len(data) else 0


def truncations(data: bytes) -> dict[str, bytes]:
    n = len(data)
    meta = footer_length(data)
    meta_start = n - 8 - meta
    cuts = {
        "1-byte-short": n - 1,
        "in-metadata-length": n - 6,
        "footer-metadata-only-half": meta_start + meta // 2,
        "before-footer-metadata": meta_start,
        "mid-file": n // 2,
        "magic-only": 4,
    }
    return {name: data[:at] for name, at in cuts.items() if 0 <= at < n}


def flips(name: str, data: bytes) -> dict[str, bytes]:
    """FLIPS copies with 1 to 8 flipped bits each, from a seed made of the file name."""
    meta = footer_length(data)
    out = {}
    for i in range(FLIPS):
        rng = random.Random(f"{name}:{i}")
        buf = bytearray(data)
        lo = len(data) - 8 - meta if i % 2 == 0 and meta else 0   # even variants: the footer
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(lo, len(buf))
            buf[at] ^= 1 << rng.randrange(8)
        out[f"flip{i:02d}"] = bytes(buf)
    return out


def verdict(path: Path) -> str | None:
    """None when SQE handled path acceptably, else what went wrong."""
    read = oracle.sqe_read(path, timeout=TIMEOUT, with_types=False)
    problem = read.run.health_problem()
    if problem:
        return problem
    if read.rows is not None:
        return None
    if oracle.has_sqlstate(read.error):
        return None
    return f"neither a result nor an error with a SQLSTATE: {read.error!r}\n" \
           f"stdout: {read.run.stdout[-500:]}\nstderr: {read.run.stderr[-500:]}"


@pytest.fixture(scope="module")
def intact():
    """Every SAMPLE file, undamaged, must read: otherwise (read_parquet missing, say) an error
    for each damaged copy would prove nothing."""
    failures = {}
    for name in SAMPLE:
        read = oracle.sqe_read(DATA / name, timeout=60, with_types=False)
        if read.rows is None:
            failures[name] = read.error
    if failures:
        pytest.fail("SQE does not read the intact files, so damage tests prove nothing: "
                    + "; ".join(f"{n}: {e}" for n, e in failures.items()), pytrace=False)


@pytest.fixture(scope="module")
def damaged(tmp_path_factory, intact):
    """{(source name, kind): future of {variant: verdict}} for the sample, all submitted at once."""
    root = tmp_path_factory.mktemp("damaged")
    pool = ThreadPoolExecutor(int(os.environ.get("SQE_TEST_JOBS", "2")))
    jobs = {}
    for name in SAMPLE:
        data = (DATA / name).read_bytes()
        for kind, variants in (("truncated", truncations(data)), ("flipped", flips(name, data))):
            futures = {}
            for variant, content in variants.items():
                path = root / f"{Path(name).stem}.{variant}.parquet"
                path.write_bytes(content)
                futures[variant] = pool.submit(verdict, path)
            jobs[(name, kind)] = futures
    yield jobs
    pool.shutdown(wait=True, cancel_futures=True)


def bad_files():
    return sorted(p for p in BAD.iterdir() if p.is_file()) if BAD.is_dir() else []


@pytest.fixture(scope="module")
def bad_verdicts(intact):
    pool = ThreadPoolExecutor(int(os.environ.get("SQE_TEST_JOBS", "2")))
    futures = {p: pool.submit(verdict, p) for p in bad_files()}
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("path", bad_files(), ids=[p.name for p in bad_files()])
def test_bad_data(path, bad_verdicts):
    problem = bad_verdicts[path].result()
    assert problem is None, f"{path.name}: {problem}"


def test_bad_data_present():
    assert len(bad_files()) >= 8, f"expected the bad_data files under {BAD}"


@pytest.mark.parametrize("kind", ["truncated", "flipped"])
@pytest.mark.parametrize("name", SAMPLE)
def test_damaged_copies(name, kind, damaged):
    failures = {variant: f.result() for variant, f in damaged[(name, kind)].items()}
    failures = {v: p for v, p in failures.items() if p is not None}
    assert not failures, f"{name} ({kind}): " + "\n".join(
        f"[{variant}] {problem}" for variant, problem in sorted(failures.items()))


def test_variants_are_deterministic():
    data = (DATA / SAMPLE[0]).read_bytes()
    assert flips(SAMPLE[0], data) == flips(SAMPLE[0], data)
    assert all(v != data for v in flips(SAMPLE[0], data).values())
    cuts = truncations(data)
    assert len(cuts) == 6 and all(len(v) < len(data) for v in cuts.values())
