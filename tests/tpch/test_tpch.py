"""pytest wrapper of the TPC-H oracle harness: `pytest tests/tpch` runs run_tpch.py at SF 0.1.

Set SQE_BIN to test another binary (default build/sqe); the test is skipped when it is missing.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def test_tpch_sf01_matches_duckdb():
    sqe = Path(os.environ.get("SQE_BIN", REPO / "build" / "sqe"))
    if not sqe.exists():
        pytest.skip(f"{sqe} not built")
    cmd = [sys.executable, str(HERE / "run_tpch.py"), "--sf", "0.1", "--sqe", str(sqe)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=3600)
    print(proc.stdout)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
