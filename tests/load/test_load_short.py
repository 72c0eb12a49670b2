"""Short load test for `make test`: 8 clients (4 Flight SQL over ADBC, 4 Trino HTTP) x 20 mixed
queries, two rounds, answers checked (tests/load/run_load.py does the work; the full run is
`make load`, 64 x 200). Also the regression test for anonymous Flight SQL sessions.

Run: .cache/venv/bin/python -m pytest -q tests/load   (SQE_BIN picks the server, default build/sqe)
"""
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_load  # noqa: E402
from sqe_serve import SqeServe, default_binary  # noqa: E402


def test_short_load(tmp_path):
    s = run_load.run_load(default_binary(), clients=8, queries=20, rounds=2, workdir=tmp_path,
                          rss_growth_pct=25.0, rss_growth_mib=32.0, settle=0.5)
    assert s["ok"], "\n".join(s["failures"][:30])
    assert len(s["rounds"]) == 2
    for r in s["rounds"]:
        assert r["failures"] == 0
        for proto in ("flight", "trino"):
            assert r["protos"][proto]["queries"] == 4 * 20


def test_flight_anonymous_sessions_are_separate(tmp_path):
    # In a child process: should sessions ever be shared again, the ADBC cursors fail in
    # __del__ too, and that must not disturb this pytest process.
    srv = SqeServe(default_binary(), tmp_path)
    try:
        r = subprocess.run([sys.executable, "-c", ANON_SESSIONS, srv.flight_uri],
                           capture_output=True, text=True, timeout=120)
    finally:
        status, out = srv.stop()
    assert status == 0, out
    assert SqeServe.sanitizer_report(out) is None, out
    assert r.stdout.strip() == "ok", r.stdout + r.stderr[-2000:]


ANON_SESSIONS = """
import sys, warnings
warnings.simplefilter("ignore")
import adbc_driver_flightsql.dbapi as fs
a = fs.connect(sys.argv[1])
cur = a.cursor()
cur.execute("SELECT ? + 1", parameters=(1,))
assert cur.fetchall() == [(2,)]
b = fs.connect(sys.argv[1])    # a second anonymous client comes and goes
b.cursor().close()
b.close()
try:
    cur.execute("SELECT ? + 1", parameters=(2,))
    got = cur.fetchall()
    print("ok" if got == [(3,)] else "wrong answer %r" % (got,))
except Exception as e:
    print("lost: %s" % e)
sys.stdout.flush()
import os
os._exit(0)    # skip the ADBC destructors
"""
