"""Every server a test starts takes free ports, never fixed ones (the project's testing rule).

A test server on a default port (Trino 8080, Flight SQL 50051, health 9091, ...) fails whenever
anything else on the machine listens there, and two test runs on one machine break each other.
This scans the test harnesses in tests/ and scripts/ (Python and shell):
- each `sqe serve` command line gives --trino-port, --flight-port and --health-port, none with
  a literal port other than 0 (the Flight SQL and health ports may instead come from
  SQE_COORDINATOR__FLIGHT_SQL_PORT / SQE_METRICS__HEALTH_PORT set in the same file);
- no client connects to a literal loopback port ("127.0.0.1:32010", "localhost:8080").
Allowed exception, with its reason: scripts/run_demo.sh is `make run` itself (the user's server
on the documented default ports); its tests pass it free ports.
Then it starts tests/load/sqe_serve.py's server (the shared harness) while the default ports are
held, so a harness that falls back to a default port fails here.

Run: .cache/venv/bin/python -m pytest -q tests/server/test_free_ports.py
"""
import re
import socket
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "load"))
from sqe_serve import SqeServe, default_binary  # noqa: E402

DEFAULT_PORTS = (8080, 50051, 50052, 9090, 9091)
ALLOWED = {"scripts/run_demo.sh": "make run: the user's server on the documented default ports"}
PY_SERVE = re.compile(r"\[[^\]#]*,\s*[\"']serve[\"']")
SH_SERVE = re.compile(r"(^|[\s;&|(])(\"?\$\{?\w+\}?\"?|\S*/sqe)\s+serve(\s|$)")
LITERAL_FLAG = re.compile(r"--(trino|flight|health)-port[\"']?\s*[,= ]\s*[\"']?([1-9][0-9]*)")
LITERAL_ADDR = re.compile(r"(127\.0\.0\.1|localhost):([0-9]{2,5})\b")


def harness_files():
    for top in ("tests", "scripts"):
        for p in sorted((ROOT / top).rglob("*")):
            if p.suffix in (".py", ".sh") and p.is_file() and p != Path(__file__).resolve():
                yield p


def serve_lines(path, lines):
    pattern = PY_SERVE if path.suffix == ".py" else SH_SERVE
    for i, line in enumerate(lines):
        code = line.split("#", 1)[0] if path.suffix == ".sh" else line
        if not code.strip() or code.lstrip().startswith(("echo", "#", '"""')):
            continue
        if pattern.search(code):
            yield i


def test_every_test_server_takes_free_ports():
    problems = []
    for path in harness_files():
        rel = str(path.relative_to(ROOT))
        if rel in ALLOWED:
            continue
        text = path.read_text(errors="replace")
        lines = text.splitlines()
        for i in serve_lines(path, lines):
            cmd = "\n".join(lines[i:i + 4])  # a command line may continue over a few lines
            where = f"{rel}:{i + 1}"
            if "--trino-port" not in cmd:
                problems.append(f"{where}: sqe serve without --trino-port (default 8080)")
            if "--flight-port" not in cmd and "FLIGHT_SQL_PORT" not in text:
                problems.append(f"{where}: sqe serve without --flight-port (default 50051)")
            if "--health-port" not in cmd and "HEALTH_PORT" not in text:
                problems.append(f"{where}: sqe serve without --health-port (default 9091)")
            for m in LITERAL_FLAG.finditer(cmd):
                problems.append(f"{where}: fixed port {m.group(2)} for --{m.group(1)}-port")
        for n, line in enumerate(lines, 1):
            for m in LITERAL_ADDR.finditer(line):
                problems.append(f"{rel}:{n}: fixed address {m.group(0)}")
    assert not problems, "test servers on fixed ports:\n" + "\n".join(problems)


def test_scan_finds_what_it_looks_for():
    # the patterns above must match the shapes they are meant to catch (else the scan passes
    # vacuously)
    assert PY_SERVE.search('[str(SQE), "serve", "--trino-port", str(port)]')
    assert SH_SERVE.search('"$SQE_BIN" serve --trino-port "$PORT" >log &')
    assert SH_SERVE.search("  ./build/sqe serve")
    assert LITERAL_FLAG.search('"--flight-port", "50051"')
    assert LITERAL_ADDR.search('URI = "grpc://127.0.0.1:32010"')
    assert not LITERAL_FLAG.search('"--health-port", "0"')


def test_shared_harness_works_with_the_default_ports_taken(tmp_path):
    held = []
    try:
        for port in DEFAULT_PORTS:
            s = socket.socket()
            try:
                s.bind(("127.0.0.1", port))
                s.listen(1)
                held.append(s)
            except OSError:
                s.close()  # taken already: by someone else, which is the case under test too
        srv = SqeServe(default_binary(), tmp_path)
        try:
            assert srv.trino_port not in DEFAULT_PORTS and srv.flight_port not in DEFAULT_PORTS
            assert srv.alive()
        finally:
            status, out = srv.stop()
        assert status == 0, out[-3000:]
    finally:
        for s in held:
            s.close()
