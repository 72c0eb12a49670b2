"""A new user's first session: `make run`, then the README's first query over the Trino CLI and ADBC.

Runs scripts/run_demo.sh (what `make run` runs: the demo load of scripts/demo.sql through
`sqe sql`, then `sqe serve` on the same embedded warehouse) with a temporary HOME, so the
warehouse is <tmp>/.sqe as a user's would be ~/.sqe, and with free ports (--trino-port,
--flight-port, --health-port 0) instead of make run's 8080 / 50051. Then:
- the Trino CLI jar, started as the README says (`--server ... --catalog iceberg --schema demo`),
  runs the README's first query (taken from README.md itself, so the two cannot drift apart);
- the ADBC Flight SQL driver (`adbc_driver_flightsql.dbapi.connect("grpc://...")`) runs it too;
- both answers are checked against the demo data as scripts/demo.sql defines it (orders
  i = 1..100000 with o_nationkey = i % 25, so every nation has 4000 orders and the top 3 are any
  three nations with 4000 each).
The server's output must hold no sanitizer report.

The jar: $TRINO_CLI_JAR, default .cache/trino-cli/trino-cli-476-executable.jar (fetched by
tests/integration/run_client_tests.sh, which runs this file). The server: $SQE_BIN, default
build/sqe.

Run: .cache/venv/bin/python -m pytest -q tests/integration/test_make_run.py
"""
import collections
import csv
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "load"))
from sqe_serve import SqeServe, default_binary, free_port  # noqa: E402

SQE = default_binary().resolve()
JAR = Path(os.environ.get("TRINO_CLI_JAR",
                          ROOT / ".cache" / "trino-cli" / "trino-cli-476-executable.jar"))


def readme_first_query():
    """The first statement of the README's "A first session" (the lines after `sqe> `)."""
    text = (ROOT / "README.md").read_text()
    m = re.search(r"^sqe> (SELECT .*?;)", text, re.M | re.S)
    assert m, "README.md has no `sqe> SELECT ...;` line"
    return " ".join(line.strip() for line in m.group(1).splitlines()).rstrip(";")


def demo_expectation():
    """(nation names, orders per nation key) from scripts/demo.sql's definitions."""
    demo = (ROOT / "scripts" / "demo.sql").read_text()
    nations = dict((int(k), name) for k, name in re.findall(r"\((\d+), '([A-Z ]+)', \d\)", demo))
    assert len(nations) == 25, nations
    # demo.orders: i = a * 1000 + b over a in 0..99, b in 1..1000; o_nationkey = i % 25
    assert "a * 1000 + b AS i" in demo and "i % 25 AS integer) AS o_nationkey" in demo
    per_key = collections.Counter((a * 1000 + b) % 25 for a in range(100) for b in range(1, 1001))
    return nations, per_key


def check_top3(rows):
    """rows: [(n_name, count)] of the README query; every nation has the same count, so any
    three distinct nations with that count are the right answer."""
    nations, per_key = demo_expectation()
    by_name = {nations[k]: c for k, c in per_key.items()}
    top = max(by_name.values())
    assert len(rows) == 3, rows
    assert len({name for name, _ in rows}) == 3, rows
    for name, count in rows:
        assert name in by_name, rows
        assert int(count) == by_name[name] == top, rows


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory):
    """scripts/run_demo.sh with HOME = a temporary directory, on free ports."""
    if not SQE.exists():
        pytest.fail(f"{SQE} is not built (make asan / make release, or set SQE_BIN)")
    tmp = tmp_path_factory.mktemp("make-run")
    home = tmp / "home"
    home.mkdir()
    trino_port, flight_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQE_")}
    env["HOME"] = str(home)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
    log_path = tmp / "run_demo.log"
    log = open(log_path, "w+")
    proc = subprocess.Popen(
        ["bash", str(ROOT / "scripts" / "run_demo.sh"), str(SQE), "--bind", "127.0.0.1",
         "--trino-port", str(trino_port), "--flight-port", str(flight_port), "--health-port", "0"],
        stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.time() + 600  # the demo load (100,000 orders) comes first
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{trino_port}/readyz", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        if proc.poll() is not None or time.time() > deadline:
            proc.kill()
            log.flush()
            pytest.fail("run_demo.sh did not start the server:\n" + log_path.read_text()[-4000:])
        time.sleep(0.2)
    yield {"trino": f"http://127.0.0.1:{trino_port}", "flight": f"grpc://127.0.0.1:{flight_port}",
           "home": home}
    proc.send_signal(signal.SIGTERM)
    try:
        status = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        status = proc.wait()
    log.close()
    out = log_path.read_text(errors="replace")
    assert status == 0, out[-4000:]
    assert SqeServe.sanitizer_report(out) is None, out[-4000:]
    assert f"--server http://127.0.0.1:{trino_port} --catalog iceberg --schema demo" in out


def test_demo_load_is_in_the_default_warehouse(demo_server):
    assert (demo_server["home"] / ".sqe" / "catalog.db").is_file()
    assert not (demo_server["home"] / ".sqe" / "catalog.d").exists()  # the shell's old bug
    assert any((demo_server["home"] / ".sqe" / "warehouse").rglob("*.parquet"))


def test_readme_query_over_trino_cli(demo_server):
    java = shutil.which("java")
    if not java:
        pytest.fail("java is not installed (Debian: openjdk-17-jre-headless)")
    if not JAR.exists():
        pytest.fail(f"{JAR} is missing: run tests/integration/run_client_tests.sh once online")
    p = subprocess.run([java, "-jar", str(JAR), "--server", demo_server["trino"],
                        "--catalog", "iceberg", "--schema", "demo", "--output-format", "CSV",
                        "--execute", readme_first_query()],
                       capture_output=True, text=True, timeout=180, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stderr
    check_top3([tuple(r) for r in csv.reader(io.StringIO(p.stdout))])


def test_readme_query_over_adbc(demo_server):
    import adbc_driver_flightsql.dbapi as flight_sql
    warnings.simplefilter("ignore")
    with flight_sql.connect(demo_server["flight"]) as conn, conn.cursor() as cur:
        cur.execute(readme_first_query())
        check_top3(cur.fetchall())
