"""`sqe serve` server core: configuration, authentication, limits, health, drain, hostile HTTP.

Starts `sqe serve` ($SQE_BIN, default build/sqe) with generated configuration files and drives it
with the real `trino` Python client and raw HTTP/sockets:
- configuration errors stop startup with file:line and key; environment overrides; `sqe config
  check` / `show` (secrets redacted); `sqe passwd`;
- Basic authentication over HTTPS (the trino client refuses Basic over plain HTTP): right and
  wrong password, unknown user, 401 + WWW-Authenticate, rate limiting, users-file reload, the
  password never in the log; anonymous access refused from a non-loopback address;
- limits: per-user concurrency (another user still runs), statement timeout, max SQL size;
  Flight SQL results nobody fetches give their admission slots back after stream_idle_timeout;
- /healthz and /readyz on the Trino port and the health port, also while draining; SIGTERM
  drains and exits 0; a restart keeps a Trino client's catalog/schema/prepared statement usable;
- hostile HTTP: malformed request lines, > 1 MiB of headers, bad bodies, a slowloris client
  (disconnected while other clients keep working).
After each server stops, its output must hold no sanitizer report.

Run: tests/server/run_server_tests.sh (or .cache/venv/bin/python -m pytest tests/server)
"""
import base64
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import trino
from trino.auth import BasicAuthentication

ROOT = Path(__file__).resolve().parents[2]
SQE = Path(os.environ.get("SQE_BIN", ROOT / "build" / "sqe"))
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")
BIG = ("SELECT a * 1000 + b AS i FROM UNNEST(sequence(0, 999)) x(a) "
       "CROSS JOIN UNNEST(sequence(1, 1000)) y(b)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def base_env(data_dir):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("SQE_"):
            del env[k]
    env.setdefault("ASAN_OPTIONS", "detect_leaks=1")
    env["SQE_CATALOG__TYPE"] = "memory"
    env["SQE_COORDINATOR__DATA_DIR"] = str(data_dir)
    # no Flight SQL port unless a test asks for one: parallel servers would race for the default
    env["SQE_COORDINATOR__FLIGHT_SQL_PORT"] = "0"
    return env


class Server:
    """One `sqe serve` process with a configuration file written from `toml`."""

    def __init__(self, tmp, toml="", env=None, args=(), port=None, tls=False, wait=True,
                 health_port=0):
        if not SQE.exists():
            pytest.fail(f"{SQE} not built")
        self.tmp = Path(tmp)
        self.port = port or free_port()
        self.health_port = health_port
        self.scheme = "https" if tls else "http"
        self.base = f"{self.scheme}://127.0.0.1:{self.port}"
        self.config = self.tmp / "sqe.toml"
        self.config.write_text(toml)
        self.log_path = self.tmp / f"serve-{self.port}-{time.time_ns()}.log"
        self.log = open(self.log_path, "w+")
        e = base_env(self.tmp / "data")
        e.update(env or {})
        self.proc = subprocess.Popen(
            [str(SQE), "serve", "--config", str(self.config), "--trino-port", str(self.port),
             "--health-port", str(health_port), *args],
            stdout=self.log, stderr=subprocess.STDOUT, env=e)
        if wait:
            self.wait_ready()

    def wait_ready(self):
        deadline = time.time() + 30
        while True:
            try:
                if http(self, "GET", "/readyz")[0] == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("sqe serve did not start:\n" + self.output())
            time.sleep(0.05)

    def output(self):
        self.log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self, timeout=60):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError("sqe serve did not stop on SIGTERM:\n" + self.output())
        out = self.output()
        self.log.close()
        for m in SANITIZER_MARKERS:
            assert m not in out, out
        return self.proc.returncode, out


def ssl_context():
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def http(server, method, path, body=None, headers=None, timeout=10, base=None):
    req = urllib.request.Request((base or server.base) + path, data=body, method=method,
                                 headers=headers or {})
    ctx = ssl_context() if (base or server.base).startswith("https") else None
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=ctx) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def submit(server, sql, user="alice", headers=None):
    h = {"X-Trino-User": user} if user else {}
    h.update(headers or {})
    status, hdrs, body = http(server, "POST", "/v1/statement", sql.encode(), h)
    return status, hdrs, (json.loads(body) if body.startswith("{") else body)


def follow(server, doc, headers=None, max_steps=100000):
    """Follows nextUri until the end; returns the final document and the rows."""
    rows = []
    steps = 0
    while "nextUri" in doc and steps < max_steps:
        path = doc["nextUri"].split(str(server.port), 1)[1]
        status, _, body = http(server, "GET", path, headers=headers)
        assert status == 200, body
        doc = json.loads(body)
        rows += doc.get("data", [])
        steps += 1
    return doc, rows


def first_page(server, doc, headers=None):
    """Fetches until the query is RUNNING with data (its worker holds rows for us)."""
    for _ in range(200):
        path = doc["nextUri"].split(str(server.port), 1)[1]
        status, _, body = http(server, "GET", path, headers=headers)
        doc = json.loads(body)
        if doc.get("data") or "nextUri" not in doc:
            return doc
    return doc


def cancel(server, doc, headers=None):
    path = doc["nextUri"].split(str(server.port), 1)[1]
    return http(server, "DELETE", path, headers=headers)[0]


def passwd(user, password, iterations=1000):
    r = subprocess.run([str(SQE), "passwd", "--iterations", str(iterations), user],
                       input=password + "\n", capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


@pytest.fixture
def tmp(tmp_path):
    return tmp_path


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    r = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem")], capture_output=True)
    if r.returncode != 0:
        pytest.skip("openssl cannot make a test certificate: " + r.stderr.decode())
    return d / "cert.pem", d / "key.pem"


# --- configuration -------------------------------------------------------------------------------

def test_config_error_stops_startup_with_file_line_key(tmp):
    s = Server(tmp, "[coordinator]\nthreads = 4\n\n[query]\ntimeout = \"soon\"\n", wait=False)
    assert s.proc.wait(timeout=30) == 2
    out = s.output()
    assert re.search(r"sqe\.toml:5: \[query\] timeout", out), out


def test_unknown_key_stops_startup(tmp):
    s = Server(tmp, "[auth]\nmode = \"anonymous\"\nbogus_key = 1\n", wait=False)
    assert s.proc.wait(timeout=30) == 2
    assert re.search(r"sqe\.toml:3: \[auth\] bogus_key", s.output()), s.output()


def test_bad_environment_value_stops_startup(tmp):
    s = Server(tmp, "", env={"SQE_QUERY__MAX_CONCURRENT": "many"}, wait=False)
    assert s.proc.wait(timeout=30) == 2
    assert "SQE_QUERY__MAX_CONCURRENT" in s.output()


def test_password_mode_needs_users_file(tmp):
    s = Server(tmp, "[auth]\nmode = \"password\"\n", wait=False)
    assert s.proc.wait(timeout=30) == 2
    assert "[auth] users_file" in s.output()


def test_missing_users_file_is_a_startup_error(tmp):
    s = Server(tmp, f"[auth]\nmode = \"password\"\nusers_file = \"{tmp}/nope\"\n", wait=False)
    assert s.proc.wait(timeout=30) != 0
    assert "users_file" in s.output() and "nope" in s.output()


def test_environment_overrides_file(tmp):
    # the file says 1 MiB, the environment 64 bytes: the environment wins
    s = Server(tmp, "[query]\nmax_sql_bytes = \"1MiB\"\n",
               env={"SQE_QUERY__MAX_SQL_BYTES": "64"})
    try:
        status, _, doc = submit(s, "SELECT 1 -- " + "x" * 100)
        assert status == 413
        assert doc["error"]["errorName"] == "QUERY_TEXT_TOO_LARGE"
        assert "max_sql_bytes" in doc["error"]["message"]
        status, _, doc = submit(s, "SELECT 1")
        assert status == 200
    finally:
        assert s.stop()[0] == 0


def test_command_line_overrides_environment(tmp):
    port = free_port()
    s = Server(tmp, "", env={"SQE_COORDINATOR__TRINO_HTTP_PORT": str(free_port())}, port=port)
    try:
        assert http(s, "GET", "/v1/info")[0] == 200  # on --trino-port, not the env port
    finally:
        s.stop()


def test_config_check_and_show(tmp):
    good = tmp / "good.toml"
    good.write_text("[storage]\ns3_access_key_id = \"AKIAEXAMPLE\"\n"
                    "s3_secret_access_key = \"hunter2-secret\"\n[query]\ntimeout = \"30s\"\n")
    r = subprocess.run([str(SQE), "config", "check", str(good)], capture_output=True, text=True,
                       env=base_env(tmp))
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
    bad = tmp / "bad.toml"
    bad.write_text("[query]\n\nmax_concurrent = 0\n")
    r = subprocess.run([str(SQE), "config", "check", str(bad)], capture_output=True, text=True,
                       env=base_env(tmp))
    assert r.returncode == 1
    assert re.search(r"bad\.toml:3: \[query\] max_concurrent", r.stdout), r.stdout
    # a key of a feature that does not exist yet is refused, not silently ignored
    later = tmp / "later.toml"
    later.write_text("[query]\ntimeout = \"30s\"\n[spill]\nenabled = true\n")
    r = subprocess.run([str(SQE), "config", "check", str(later)], capture_output=True, text=True,
                       env=base_env(tmp))
    assert r.returncode == 1
    assert "later.toml:4: [spill] enabled: not yet supported" in r.stdout, r.stdout
    r = subprocess.run([str(SQE), "config", "show", str(good)], capture_output=True, text=True,
                       env=base_env(tmp))
    assert r.returncode == 0
    assert "hunter2-secret" not in r.stdout and "<redacted>" in r.stdout
    assert re.search(r'timeout = "30s"', r.stdout)
    r = subprocess.run([str(SQE), "config", "frobnicate"], capture_output=True, text=True)
    assert r.returncode == 2


def test_passwd_lines():
    a, b = passwd("alice", "pw"), passwd("alice", "pw")
    assert re.fullmatch(r"alice:\$pbkdf2-sha256\$1000\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+", a), a
    assert a != b  # random salt
    assert "pw" not in a.split(":", 1)[1].split("$")[3:]
    r = subprocess.run([str(SQE), "passwd", "bad:name"], input="x\n", capture_output=True, text=True)
    assert r.returncode == 2
    r = subprocess.run([str(SQE), "passwd", "bob"], input="", capture_output=True, text=True)
    assert r.returncode == 1


# --- authentication ------------------------------------------------------------------------------

@pytest.fixture
def ca_env(monkeypatch, cert):
    """requests prefers REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE over the session's verify: point them
    at the test certificate so the trino client verifies the server with it."""
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(cert[0]))
    monkeypatch.setenv("CURL_CA_BUNDLE", str(cert[0]))
    return cert


def password_server(tmp, cert, extra_toml="", **kw):
    users = tmp / "users"
    users.write_text("# users\n" + passwd("alice", "wonderland") + "\n" + passwd("bob", "builder") + "\n")
    toml = (f"[auth]\nmode = \"password\"\nusers_file = \"{users}\"\n"
            f"[coordinator.tls]\ncert_file = \"{cert[0]}\"\nkey_file = \"{cert[1]}\"\n" + extra_toml)
    srv = Server(tmp, toml, tls=True, **kw)
    srv.ca = str(cert[0])  # the client verifies the server against the test certificate
    return srv, users


def connect(server, user, password=None, **kw):
    auth = BasicAuthentication(user, password) if password is not None else None
    return trino.dbapi.connect(host="127.0.0.1", port=server.port, user=user,
                               http_scheme=server.scheme, auth=auth,
                               verify=getattr(server, "ca", True), **kw)


def basic_header(user, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def test_basic_auth_with_trino_client(tmp, ca_env):
    cert = ca_env
    s, users = password_server(tmp, cert)
    try:
        cur = connect(s, "alice", "wonderland").cursor()
        cur.execute("SELECT 40 + 2")
        assert cur.fetchall() == [[42]]
        with pytest.raises(trino.exceptions.HttpError, match="401"):
            c = connect(s, "alice", "WRONG-pass-123").cursor()
            c.execute("SELECT 1")
            c.fetchall()
        with pytest.raises(trino.exceptions.HttpError, match="401"):
            c = connect(s, "mallory", "wonderland").cursor()
            c.execute("SELECT 1")
            c.fetchall()
        # raw: 401 carries the Basic challenge; no credentials at all is 401 too
        status, hdrs, _ = http(s, "POST", "/v1/statement", b"SELECT 1", {"X-Trino-User": "alice"})
        assert status == 401 and hdrs.get("WWW-Authenticate", "").startswith("Basic")
        # a token-less GET of someone's nextUri is refused as well
        status, _, doc = submit(s, "SELECT 1", headers=basic_header("alice", "wonderland"))
        assert status == 200
        path = doc["nextUri"].split(str(s.port), 1)[1]
        assert http(s, "GET", path)[0] == 401
        assert http(s, "GET", path, headers=basic_header("alice", "wonderland"))[0] == 200
        # claiming another user than the credentials is refused
        status, _, _ = submit(s, "SELECT 1", user="bob", headers=basic_header("alice", "wonderland"))
        assert status == 401
        # /healthz, /readyz and /v1/info stay public
        assert http(s, "GET", "/healthz")[0] == 200
        assert http(s, "GET", "/v1/info")[0] == 200
        # the route table answers before any credential check: 404 and 405 + Allow
        assert http(s, "GET", "/nosuch")[0] == 404
        status, hdrs, _ = http(s, "GET", "/v1/statement")
        assert status == 405 and hdrs.get("Allow") == "POST, HEAD"
        assert http(s, "HEAD", "/v1/statement")[0] == 401  # a route that needs credentials
    finally:
        code, out = s.stop()
    assert code == 0
    assert "WRONG-pass-123" not in out
    assert "authentication failed for user 'mallory'" in out


def test_failed_logins_are_rate_limited_and_users_file_reloads(tmp, ca_env):
    cert = ca_env
    s, users = password_server(tmp, cert)
    try:
        # wrong passwords until the backoff window is at least a second long (3 failures are
        # free, then 250 ms doubling from each failure's end); a refusal inside a window is not
        # counted, so wait it out to make the next failure count. No fixed sleeps: this holds
        # however slow the machine is.
        for _ in range(12):
            status, _, body = submit(s, "SELECT 1", user="bob", headers=basic_header("bob", "nope"))
            assert status == 401, body
            m = re.search(r"retry in (\d+) ms", body)
            if m and int(m.group(1)) >= 1000:
                break
            if m:
                time.sleep(int(m.group(1)) / 1000 + 0.05)
        else:
            pytest.fail("the backoff never grew to a second: " + body)
        # inside the window even the right password is refused without being checked
        status, _, body = submit(s, "SELECT 1", user="bob", headers=basic_header("bob", "builder"))
        assert status == 401 and "Too many failed" in body
        # alice from the same address is not affected
        assert submit(s, "SELECT 1", headers=basic_header("alice", "wonderland"))[0] == 200
        # once the window is over the right password works again
        deadline = time.time() + 30
        while True:
            time.sleep(0.2)
            status, _, body = submit(s, "SELECT 1", user="bob",
                                     headers=basic_header("bob", "builder"))
            if status != 401 or "Too many failed" not in body or time.time() > deadline:
                break
        assert status == 200, body
        # a user added to the file works without a restart
        with open(users, "a") as f:
            f.write(passwd("carol", "c4rol") + "\n")
        cur = connect(s, "carol", "c4rol").cursor()
        cur.execute("SELECT 'hi'")
        assert cur.fetchall() == [["hi"]]
    finally:
        assert s.stop()[0] == 0


def non_loopback_address():
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
            u.connect(("192.0.2.1", 9))  # no packet is sent
            ip = u.getsockname()[0]
        if not ip.startswith("127."):
            return ip
    except OSError:
        pass
    return None


def test_anonymous_refused_off_loopback(tmp):
    ip = non_loopback_address()
    if not ip:
        pytest.skip("this machine has no non-loopback IPv4 address to connect from")
    s = Server(tmp, "", args=("--bind", "0.0.0.0"))
    try:
        assert submit(s, "SELECT 1")[0] == 200  # loopback: anonymous is fine
        status, hdrs, body = http(s, "POST", "/v1/statement", b"SELECT 1",
                                  {"X-Trino-User": "alice"}, base=f"http://{ip}:{s.port}")
        assert status == 401 and "loopback" in body
        assert http(s, "GET", "/healthz", base=f"http://{ip}:{s.port}")[0] == 200
    finally:
        assert s.stop()[0] == 0


# --- limits ---------------------------------------------------------------------------------------

def test_per_user_concurrency_limit(tmp):
    s = Server(tmp, "[query]\nmax_concurrent = 4\nmax_concurrent_per_user = 1\n")
    try:
        status, _, held = submit(s, BIG, user="alice")
        assert status == 200
        held = first_page(s, held)  # alice's query runs (its worker waits for us to fetch)
        assert "nextUri" in held
        status, _, doc = submit(s, "SELECT 1", user="alice")
        final, _ = follow(s, doc) if "nextUri" in doc else (doc, [])
        assert final["stats"]["state"] == "FAILED"
        assert "max_concurrent_per_user = 1" in final["error"]["message"]
        # another user still runs, through the real client too
        cur = trino.dbapi.connect(host="127.0.0.1", port=s.port, user="bob").cursor()
        cur.execute("SELECT 7")
        assert cur.fetchall() == [[7]]
        # Trino's QUERY_QUEUE_FULL: an INSUFFICIENT_RESOURCES error, not a user error
        with pytest.raises(trino.exceptions.TrinoQueryError, match="max_concurrent_per_user") as e:
            c = trino.dbapi.connect(host="127.0.0.1", port=s.port, user="alice").cursor()
            c.execute("SELECT 1")
            c.fetchall()
        assert e.value.error_name == "QUERY_QUEUE_FULL"
        assert e.value.error_type == "INSUFFICIENT_RESOURCES"
        assert cancel(s, held) == 204
        deadline = time.time() + 10
        while True:  # the slot is given back when the worker ends
            status, _, doc = submit(s, "SELECT 2", user="alice")
            final, rows = follow(s, doc)
            if final["stats"]["state"] == "FINISHED":
                assert rows == [[2]]
                break
            assert time.time() < deadline, final
            time.sleep(0.1)
    finally:
        assert s.stop()[0] == 0


def test_global_concurrency_limit(tmp):
    s = Server(tmp, "[query]\nmax_concurrent = 1\nmax_concurrent_per_user = 1\n")
    try:
        _, _, held = submit(s, BIG, user="alice")
        held = first_page(s, held)
        _, _, doc = submit(s, "SELECT 1", user="bob")
        final, _ = follow(s, doc)
        assert "max_concurrent = 1" in final["error"]["message"]
        cancel(s, held)
    finally:
        assert s.stop()[0] == 0


def flight_statement(sql):
    """A FlightDescriptor for CommandStatementQuery(sql), packed in google.protobuf.Any by hand."""
    import pyarrow.flight as fl

    def ld(tag, b):
        n, out = len(b), bytearray()
        while n >= 0x80:
            out.append((n & 0x7F) | 0x80)
            n >>= 7
        out.append(n)
        return bytes([tag]) + bytes(out) + b
    url = b"type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"
    return fl.FlightDescriptor.for_command(ld(0x0A, url) + ld(0x12, ld(0x0A, sql.encode())))


def test_flight_abandoned_results_give_their_slots_back(tmp):
    # A Flight SQL client that runs statements (GetFlightInfo) and never fetches them (DoGet)
    # holds admission slots until [query] stream_idle_timeout; after that the next statement
    # must be admitted. Before: the slots came back only when some statement was admitted, so
    # a server full of abandoned results refused everything for good.
    import pyarrow.flight as fl
    import adbc_driver_flightsql.dbapi as flight_sql
    fport = free_port()
    s = Server(tmp, "[query]\nmax_concurrent = 2\nmax_concurrent_per_user = 2\n"
                    "stream_idle_timeout = \"1s\"\n",
               env={"SQE_COORDINATOR__FLIGHT_SQL_PORT": str(fport)})
    try:
        client = fl.connect(f"grpc://127.0.0.1:{fport}")
        for i in range(2):
            client.get_flight_info(flight_statement(f"SELECT {i}"))  # never fetched
        with pytest.raises(Exception, match="resource exhausted.*max_concurrent = 2"):
            client.get_flight_info(flight_statement("SELECT 2"))
        time.sleep(1.5)
        with flight_sql.connect(f"grpc://127.0.0.1:{fport}") as conn, conn.cursor() as cur:
            cur.execute("SELECT 40 + 2")
            assert cur.fetchall() == [(42,)]
        client.close()
    finally:
        assert s.stop()[0] == 0


def test_query_timeout(tmp):
    s = Server(tmp, "[query]\ntimeout = \"1s\"\n")
    try:
        _, _, doc = submit(s, BIG)
        doc = first_page(s, doc)
        time.sleep(1.6)
        final, _ = follow(s, doc)
        assert final["stats"]["state"] == "FAILED"
        assert final["error"]["errorName"] == "EXCEEDED_TIME_LIMIT"
        assert "[query] timeout" in final["error"]["message"]
        # short statements are unaffected
        _, _, doc = submit(s, "SELECT 3")
        final, rows = follow(s, doc)
        assert rows == [[3]]
    finally:
        assert s.stop()[0] == 0


def test_max_sql_size(tmp):
    s = Server(tmp, "[query]\nmax_sql_bytes = \"1KiB\"\n")
    try:
        cur = trino.dbapi.connect(host="127.0.0.1", port=s.port, user="a").cursor()
        cur.execute("SELECT 1 -- " + "y" * 900)
        assert cur.fetchall() == [[1]]
        with pytest.raises(Exception, match="max_sql_bytes"):
            cur.execute("SELECT 1 -- " + "y" * 2000)
            cur.fetchall()
    finally:
        assert s.stop()[0] == 0


# --- health and drain -------------------------------------------------------------------------------

def test_health_and_drain(tmp):
    hp = free_port()
    s = Server(tmp, "[coordinator]\nshutdown_drain = \"20s\"\n", health_port=hp)
    hbase = f"http://127.0.0.1:{hp}"
    assert http(s, "GET", "/healthz")[0] == 200
    status, _, body = http(s, "GET", "/readyz")
    assert (status, body) == (200, "ready\n")
    assert http(s, "GET", "/readyz", base=hbase)[0] == 200
    assert http(s, "GET", "/healthz", base=hbase)[0] == 200
    assert http(s, "GET", "/v1/info", base=hbase)[0] == 404  # health only
    _, _, held = submit(s, BIG)
    held = first_page(s, held)
    s.proc.send_signal(signal.SIGTERM)
    deadline = time.time() + 10
    while http(s, "GET", "/readyz")[0] != 503:
        assert time.time() < deadline
        time.sleep(0.05)
    assert http(s, "GET", "/readyz")[2] == "draining\n"
    assert http(s, "GET", "/readyz", base=hbase)[0] == 503
    assert http(s, "GET", "/healthz")[0] == 200
    assert http(s, "GET", "/healthz", base=hbase)[0] == 200
    assert json.loads(http(s, "GET", "/v1/info/state")[2]) == "SHUTTING_DOWN"
    # new statements are refused, the running one still serves its pages to the end
    assert submit(s, "SELECT 1")[0] == 503
    final, rows = follow(s, held)
    assert final["stats"]["state"] == "FINISHED"
    assert len(rows) + len(held.get("data", [])) == 1000000
    assert s.proc.wait(timeout=20) == 0
    code, out = s.stop()
    assert code == 0 and "SIGTERM received, draining" in out and "stopped" in out


def test_drain_deadline_cancels(tmp):
    s = Server(tmp, "[coordinator]\nshutdown_drain = \"1s\"\n")
    _, _, held = submit(s, BIG)
    first_page(s, held)
    t0 = time.time()
    s.proc.send_signal(signal.SIGTERM)
    assert s.proc.wait(timeout=20) == 0
    assert time.time() - t0 < 10
    code, out = s.stop()
    assert "canceling" in out


def test_restart_keeps_trino_client_session(tmp):
    toml = "[session]\npersistence = \"file\"\n"
    port = free_port()
    s = Server(tmp, toml, port=port)
    conn = trino.dbapi.connect(host="127.0.0.1", port=port, user="alice", catalog="memory",
                               schema="information_schema")
    cur = conn.cursor()
    cur.execute("USE memory.default")
    cur.fetchall()
    cur.execute("PREPARE add_one FROM SELECT ? + 1")
    cur.fetchall()
    assert s.stop()[0] == 0
    assert (tmp / "data" / "sessions").is_dir()
    s = Server(tmp, toml, port=port)
    try:
        cur = conn.cursor()
        cur.execute("EXECUTE add_one USING 41")
        assert cur.fetchall() == [[42]]
        cur.execute("SELECT current_catalog, current_schema")
        assert cur.fetchall() == [["memory", "default"]]
    finally:
        assert s.stop()[0] == 0


# --- hostile HTTP ---------------------------------------------------------------------------------

def raw(port, data, read_timeout=5):
    with socket.create_connection(("127.0.0.1", port), timeout=read_timeout) as c:
        try:
            c.sendall(data)
        except OSError:
            pass
        out = b""
        try:
            while True:
                chunk = c.recv(65536)
                if not chunk:
                    break
                out += chunk
                if b"\r\n\r\n" in out and len(out) > 12:
                    break
        except OSError:
            pass
        return out


def test_hostile_http(tmp):
    s = Server(tmp, "")
    try:
        for junk in (b"GARBAGE\r\n\r\n", b"GET\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
                     b"\x00\x01\x02\xff\r\n\r\n", b"POST /v1/statement HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Length: -5\r\n\r\n",
                     b"POST /v1/statement HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                     b"X-Trino-User: a\r\n\r\nZZZ\r\n"):
            out = raw(s.port, junk)
            assert out == b"" or out[:10] in (b"HTTP/1.1 4", b"HTTP/1.1 5"), out[:100]
            assert not out.startswith(b"HTTP/1.1 500"), out[:100]
        # more than 1 MiB of headers
        big = b"GET /v1/info HTTP/1.1\r\nHost: x\r\n" + b"".join(
            b"X-Pad-%d: %s\r\n" % (i, b"a" * 1000) for i in range(1100)) + b"\r\n"
        out = raw(s.port, big)
        assert out == b"" or out.startswith(b"HTTP/1.1 431") or out.startswith(b"HTTP/1.1 4"), out[:80]
        # invalid bodies and session headers
        assert submit(s, "SELECT 1\x00")[0] == 400
        status, _, doc = submit(s, "SELECT 1", headers={"X-Trino-Session": "a=%zz"})
        final, _ = follow(s, doc)
        assert final["stats"]["state"] == "FAILED"
        status, _, doc = submit(s, "\xff\xfe not sql")
        final, _ = follow(s, doc) if isinstance(doc, dict) else (None, None)
        assert final is None or final["stats"]["state"] == "FAILED"
        assert http(s, "GET", "/v1/info")[0] == 200
    finally:
        assert s.stop()[0] == 0


def test_slowloris_is_disconnected(tmp):
    s = Server(tmp, "", args=("--request-timeout", "3"))
    try:
        c = socket.create_connection(("127.0.0.1", s.port), timeout=30)
        c.sendall(b"GET /v1/info HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        t0 = time.time()
        closed = False
        served_meanwhile = 0
        while time.time() - t0 < 15:
            try:
                c.sendall(b"a")
                c.settimeout(1.0)
                data = c.recv(100)
                if data == b"" or data.startswith(b"HTTP/1.1 4"):
                    closed = True
                    break
            except socket.timeout:
                pass
            except OSError:
                closed = True
                break
            if http(s, "GET", "/v1/info", timeout=5)[0] == 200:
                served_meanwhile += 1
        elapsed = time.time() - t0
        c.close()
        assert closed, "a client sending one header byte per second was never disconnected"
        assert elapsed < 8, elapsed
        assert served_meanwhile >= 1
    finally:
        assert s.stop()[0] == 0
