"""Smoke test of the benchmark harness (bench/run_bench.py, `make bench`): TPC-H SF 0.01, one
timed run, all three engines, results written to a temporary folder (never bench/results/).

It keeps the harness working; it measures nothing. test_harness checks that the run completes,
writes the JSON, Markdown and PNG, and that DuckDB and DataFusion answer all 22 queries with
DataFusion's answers matching DuckDB's. test_sqe_answers checks SQE's answers through the
harness; it is skipped while SQE cannot set up its tables (no Parquet reader or no views yet)
or is not built.

Run: .cache/venv/bin/python -m pytest tests/bench     (SQE_BIN=... to test another binary)
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
SQE = Path(os.environ.get("SQE_BIN", REPO / "build" / "sqe"))


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("bench")
    cmd = [sys.executable, str(REPO / "bench" / "run_bench.py"), "--sf", "0.01", "--runs", "1",
           "--threads", "2", "--timeout", "300", "--sqe", str(SQE), "--out-dir", str(out_dir)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    print(proc.stdout[-6000:])
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    files = sorted(out_dir.iterdir())
    return out_dir, files, proc.stdout


def test_harness(result):
    out_dir, files, _ = result
    by_ext = {f.suffix: f for f in files}
    assert set(by_ext) == {".json", ".md", ".png"}, files
    assert by_ext[".png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| q22 |" in by_ext[".md"].read_text()
    data = json.loads(by_ext[".json"].read_text())
    assert [r["query"] for r in data["queries"]] == list(range(1, 23))
    assert data["sf"] == "0.01" and data["runs"] == 1 and data["threads"] == 2
    for rec in data["queries"]:
        for engine in ("duckdb", "datafusion"):
            r = rec["engines"][engine]
            assert r["status"] == "OK", (rec["query"], engine, r["status"], r["detail"])
            assert len(r["runs_s"]) == 1 and r["median_s"] > 0
    assert data["engines"]["duckdb"]["peak_rss_kb"] > 0
    assert data["engines"]["datafusion"]["peak_rss_kb"] > 0
    assert data["versions"]["duckdb"] and data["versions"]["datafusion"]


def test_sqe_answers(result):
    out_dir, files, _ = result
    data = json.loads(next(f for f in files if f.suffix == ".json").read_text())
    sqe = data["engines"]["sqe"]
    if not SQE.exists():
        pytest.skip(f"{SQE} not built")
    if sqe["setup_errors"]:
        pytest.skip("SQE cannot set up the Parquet views yet: " + sqe["setup_errors"][0])
    bad = [(rec["query"], rec["engines"]["sqe"]["status"], rec["engines"]["sqe"]["detail"])
           for rec in data["queries"] if rec["engines"]["sqe"]["status"] != "OK"]
    assert not bad, bad
    assert sqe["peak_rss_kb"] > 0
