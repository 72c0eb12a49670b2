"""The Arrow Flight SQL JDBC driver against `sqe serve`: compiles JdbcCheck.java (javac) and runs
it (java -cp driver.jar) against a server started here ($SQE_BIN, default build/sqe).

The driver jar is org.apache.arrow:flight-sql-jdbc-driver from Maven Central, expected at
.cache/flight-jdbc/flight-sql-jdbc-driver-$FLIGHT_JDBC_VERSION.jar (default 18.3.0, the newest
release; scripts/setup.sh fetches it). Java 17 needs --add-opens=java.base/java.nio=ALL-UNNAMED
for the driver's Arrow memory code ("Failed to initialize MemoryUtil" otherwise).

Run: .cache/venv/bin/python -m pytest -q tests/flight/jdbc
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "tests" / "load"))
from sqe_serve import SqeServe, default_binary  # noqa: E402

VERSION = os.environ.get("FLIGHT_JDBC_VERSION", "18.3.0")
JAR = ROOT / ".cache" / "flight-jdbc" / f"flight-sql-jdbc-driver-{VERSION}.jar"
JAVA_FLAGS = ["--add-opens=java.base/java.nio=ALL-UNNAMED"]
# The checks that bind parameter values (they need typed parameter schemas).
PARAM_CHECKS = {"prepared statement with parameters",
                "prepared statement, two parameters of two types", "prepared insert",
                "prepared statement parameter types"}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    if not JAR.exists():
        pytest.fail(f"{JAR} is missing: scripts/setup.sh fetches it from Maven Central")
    if not shutil.which("javac"):
        pytest.fail("javac is not installed (openjdk-17-jdk-headless)")
    tmp = tmp_path_factory.mktemp("jdbc")
    classes = tmp / "classes"
    subprocess.run(["javac", "-d", str(classes), str(HERE / "JdbcCheck.java")], check=True)
    srv = SqeServe(default_binary(), tmp / "serve")
    try:
        r = subprocess.run(["java", *JAVA_FLAGS, "-cp", f"{JAR}:{classes}", "JdbcCheck",
                            str(srv.flight_port)], capture_output=True, text=True, timeout=300)
    finally:
        status, log = srv.stop()
    assert status == 0, log[-3000:]
    assert SqeServe.sanitizer_report(log) is None, log[-6000:]
    checks = {name: tag.strip() for tag, name in re.findall(r"^(ok  |FAIL) ([^:\n]+)", r.stdout, re.M)}
    assert re.search(r"^\d+ passed, \d+ failed$", r.stdout, re.M), r.stdout + r.stderr[-3000:]
    return checks, r.stdout


def test_jdbc_checks(results):
    checks, out = results
    assert len(checks) >= 14, out
    bad = [n for n, tag in checks.items() if tag != "ok" and n not in PARAM_CHECKS]
    assert not bad, out


def test_jdbc_bound_parameters(results):
    checks, out = results
    bad = [n for n in sorted(PARAM_CHECKS) if checks.get(n) != "ok"]
    assert not bad, out
