"""Results stream with backpressure: a client that stops reading a large result costs the server a
bounded amount of memory and no threads, and gets the complete, correct answer when it resumes.

Each test starts `sqe serve` (SQE_BIN, default build/sqe), runs a 4 M row query (2 M for the
Trino client, whose JSON is slower) that reads no storage, takes the first batch/page, then
stalls for a few seconds while sampling the server's RSS. While one client stalls, a second
client must still get answers (the stalled query holds no pool thread). Then the first client
reads the rest; row count and sum of the id column are checked.

Run: .cache/venv/bin/python -m pytest -q tests/load/test_backpressure.py
"""
import sys
import threading
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sqe_serve import SqeServe, default_binary  # noqa: E402

INNER = 10000
# A stalled stream may hold the engine's result buffer (8 MiB), the protocol's own queue and the
# transport's windows. Measured on the ASan build: 5-6 MiB with streaming; before it (the
# engine held the whole result) 92 MiB for the Flight test and 47 MiB for the Trino test.
RSS_GROWTH_LIMIT_KIB = 32 * 1024


def gen_query(rows):
    outer = rows // INNER
    return (f"SELECT a * {INNER} + b AS id, (a * {INNER} + b) % 1000 AS grp, "
            f"CAST(a * {INNER} + b AS double) * 0.25 AS val "
            f"FROM UNNEST(sequence(0, {outer - 1})) x(a) "
            f"CROSS JOIN UNNEST(sequence(0, {INNER - 1})) y(b)")


def start(tmp_path):
    # results of millions of rows are the point here: no [query] max_result_rows (1 M by default)
    toml = "[coordinator]\nthreads = 2\n[query]\ntimeout = \"600s\"\nmax_result_rows = 0\n"
    return SqeServe(default_binary(), tmp_path, toml)


def peak_rss_during(srv, seconds):
    peak = srv.rss_kib()
    t_end = time.time() + seconds
    while time.time() < t_end:
        peak = max(peak, srv.rss_kib())
        time.sleep(0.05)
    return peak


def other_client_answers(srv):
    """A second Flight SQL client gets an answer while the first one stalls."""
    import adbc_driver_flightsql.dbapi as fs
    with fs.connect(srv.flight_uri) as conn, conn.cursor() as cur:
        cur.execute("SELECT sum(x) FROM UNNEST(sequence(1, 1000)) t(x)")
        return cur.fetchall()


def test_flight_stalled_client_bounded_memory(tmp_path):
    import adbc_driver_flightsql.dbapi as fs
    import pyarrow.compute as pc
    warnings.simplefilter("ignore")
    rows = 4_000_000
    srv = start(tmp_path)
    try:
        # warm up allocator arenas with a small query so the idle RSS is representative
        assert other_client_answers(srv) == [(500500,)]
        rss0 = srv.rss_kib()
        with fs.connect(srv.flight_uri) as conn, conn.cursor() as cur:
            cur.execute(gen_query(rows))
            reader = cur.fetch_record_batch()
            first = reader.read_next_batch()
            got, idsum = first.num_rows, pc.sum(first.column(0)).as_py()
            peak = peak_rss_during(srv, 4.0)
            # the stalled query holds no pool thread: another client is served meanwhile
            t0 = time.time()
            assert other_client_answers(srv) == [(500500,)]
            assert time.time() - t0 < 10
            for b in reader:
                got += b.num_rows
                idsum += pc.sum(b.column(0)).as_py()
        assert got == rows
        assert idsum == rows * (rows - 1) // 2
        assert peak - rss0 < RSS_GROWTH_LIMIT_KIB, \
            f"server RSS grew by {(peak - rss0) // 1024} MiB while the client stalled"
    finally:
        status, out = srv.stop()
    assert SqeServe.sanitizer_report(out) is None, out


def test_flight_abandoned_stream_frees_memory(tmp_path):
    """A client that reads one batch and hangs up: the server stops the query and lets go of
    its buffers; ten such clients in a row leave the RSS where one left it."""
    import adbc_driver_flightsql.dbapi as fs
    warnings.simplefilter("ignore")
    srv = start(tmp_path)
    try:
        assert other_client_answers(srv) == [(500500,)]
        rss = []
        for _ in range(10):
            conn = fs.connect(srv.flight_uri)
            cur = conn.cursor()
            cur.execute(gen_query(4_000_000))
            cur.fetch_record_batch().read_next_batch()
            cur.close()
            conn.close()
            time.sleep(0.3)
            rss.append(srv.rss_kib())
        assert other_client_answers(srv) == [(500500,)]
        assert rss[-1] - rss[1] < 32 * 1024, f"RSS after each abandoned stream (KiB): {rss}"
    finally:
        status, out = srv.stop()
    assert SqeServe.sanitizer_report(out) is None, out


def test_trino_stalled_client_bounded_memory(tmp_path):
    import trino
    rows = 2_000_000
    srv = start(tmp_path)
    try:
        assert other_client_answers(srv) == [(500500,)]
        rss0 = srv.rss_kib()
        conn = trino.dbapi.connect(host="127.0.0.1", port=srv.trino_port, user="test",
                                   catalog="memory", schema="default")
        cur = conn.cursor()
        cur.execute(gen_query(rows))
        first = cur.fetchmany(10)
        assert [r[0] for r in first] == list(range(10))
        peak = peak_rss_during(srv, 4.0)
        assert other_client_answers(srv) == [(500500,)]
        got, idsum = len(first), sum(r[0] for r in first)
        while True:
            batch = cur.fetchmany(100_000)
            if not batch:
                break
            got += len(batch)
            idsum += sum(r[0] for r in batch)
        assert got == rows
        assert idsum == rows * (rows - 1) // 2
        assert peak - rss0 < RSS_GROWTH_LIMIT_KIB, \
            f"server RSS grew by {(peak - rss0) // 1024} MiB while the client stalled"
    finally:
        status, out = srv.stop()
    assert SqeServe.sanitizer_report(out) is None, out
