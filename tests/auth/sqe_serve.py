"""`sqe serve` for the identity tests: TLS on the Trino and Flight SQL ports, free ports, a
configuration written from a TOML string, the log kept for assertions.

Role: the server the Keycloak-backed tests drive with real clients (trino, ADBC, pyarrow.flight).
INTERFACE: Serve(tmp, toml, flight=True) -> .trino_url, .flight_uri, .log(), .stop();
  make_cert(dir) -> (cert, key); trino_conn / trino_query (trino client); adbc_query (ADBC);
  SANITIZER_MARKERS.
NOTES: the binary is $SQE_BIN (the ASan build in `make test`), else build-asan/sqe. Every server
is stopped with SIGTERM and its log checked for sanitizer reports by stop().
"""
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
import ssl
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SQE = Path(os.environ.get("SQE_BIN", ROOT / "build-asan" / "sqe"))
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_cert(d):
    """A self-signed certificate for 127.0.0.1 (cert.pem, key.pem in d)."""
    d = Path(d)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem")],
                   check=True, capture_output=True)
    return d / "cert.pem", d / "key.pem"


class Serve:
    """One `sqe serve` (memory catalog unless toml says otherwise) with TLS."""

    def __init__(self, tmp, toml, flight=True, env=None):
        self.tmp = Path(tmp)
        self.tmp.mkdir(parents=True, exist_ok=True)
        cert, key = make_cert(self.tmp)
        self.cert = cert
        self.port = free_port()
        self.flight_port = free_port() if flight else 0
        self.trino_url = f"https://127.0.0.1:{self.port}"
        self.flight_uri = f"grpc+tls://127.0.0.1:{self.flight_port}"
        cfg = self.tmp / "sqe.toml"
        cfg.write_text(f'[coordinator]\ndata_dir = "{self.tmp / "data"}"\n'
                       f'flight_sql_port = {self.flight_port}\n'
                       f'[coordinator.tls]\ncert_file = "{cert}"\nkey_file = "{key}"\n' + toml)
        e = {k: v for k, v in os.environ.items() if not k.startswith("SQE_")}
        e.setdefault("ASAN_OPTIONS", "detect_leaks=1")
        e.update(env or {})
        self.log_path = self.tmp / f"serve-{self.port}.log"
        self._log = open(self.log_path, "w+")
        self.proc = subprocess.Popen(
            [str(SQE), "serve", "--config", str(cfg), "--trino-port", str(self.port),
             "--health-port", "0"], stdout=self._log, stderr=subprocess.STDOUT, env=e)
        self._wait_ready()

    def _wait_ready(self):
        ctx = ssl.create_default_context(cafile=str(self.cert))
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("sqe serve exited while starting:\n" + self.log())
            try:
                with urllib.request.urlopen(self.trino_url + "/v1/info", context=ctx,
                                            timeout=2) as r:
                    if r.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.1)
        raise RuntimeError("sqe serve did not become ready:\n" + self.log())

    def log(self):
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        out = self.log()
        self._log.close()
        for m in SANITIZER_MARKERS:
            assert m not in out, f"sanitizer report in sqe serve's log:\n{out[-4000:]}"
        return out


def trino_conn(serve, auth=None, user=None, headers=None):
    import requests
    import trino
    # requests would take REQUESTS_CA_BUNDLE over the session's verify: trust only the test cert
    session = requests.Session()
    session.trust_env = False
    session.verify = str(serve.cert)
    return trino.dbapi.connect(host="127.0.0.1", port=serve.port, http_scheme="https",
                               verify=str(serve.cert), auth=auth, user=user,
                               http_headers=headers or None, http_session=session)


def trino_query(serve, sql, auth=None, user=None):
    with trino_conn(serve, auth, user) as c:
        cur = c.cursor()
        cur.execute(sql)
        return cur.fetchall()


def adbc_query(serve, sql, bearer=None, headers=None, user=None, password=None):
    """One query through the ADBC Flight SQL driver (TLS with the test certificate): with a
    bearer token on every call, or Basic user/password (a Handshake), plus extra headers."""
    from adbc_driver_flightsql import DatabaseOptions, dbapi
    kw = {DatabaseOptions.TLS_ROOT_CERTS.value: Path(serve.cert).read_text()}
    if bearer is not None:
        kw[DatabaseOptions.AUTHORIZATION_HEADER.value] = "Bearer " + bearer
    for k, v in (headers or {}).items():
        kw[DatabaseOptions.RPC_CALL_HEADER_PREFIX.value + k] = v
    if user is not None:
        kw["username"] = user
        kw["password"] = password
    with dbapi.connect(serve.flight_uri, db_kwargs=kw) as conn:
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()
