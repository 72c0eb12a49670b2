"""A real Nessie server as the second REST catalog of the identity tests (issue 16).

Role: starts Nessie 0.99.0 (Maven Central's nessie-quarkus runner jar, installed by
scripts/setup.sh) once per test run on loopback: in-memory version store, its Iceberg REST API
under /iceberg/ with one warehouse on the test S3 server (tests/rest_s3/s3_peer.py), and OIDC
bearer authentication against the Keycloak peer (keycloak_peer.py). Its HTTP access log names,
per request, the principal Quarkus authenticated from the bearer token, so a test can tell whose
token was on each call.

INTERFACE
    VERSION, cache_root(), jar_path(), unavailable() -> None or the reason Nessie cannot run here
    Nessie(workdir, issuer, s3_endpoint, s3_key, warehouse_location)
        .start(timeout) / .stop() / .log_tail(n)
        .base_url, .iceberg_uri (the Iceberg REST base: <base_url>/iceberg), .warehouse (its name),
        .s3_key (the (key id, secret) it reads and writes metadata with),
        .start_seconds
        .access_log() -> [AccessEntry(user, method, path, status)], in request order
        .calls_by(user, path_part="") -> the access log entries of `user` (whose path has path_part)
    python3 nessie_peer.py present   (exit 0 when Nessie can run here, else prints why)

NOTES
    Configuration goes into <workdir>/config/application.properties (Quarkus reads it from the
    working directory), so the S3 secret is never on a command line. Ports: HTTP and management
    (health), both free loopback ports. quarkus.oidc: the realm's issuer as auth-server-url,
    application type `service` (bearer tokens only, no login redirects), the principal from
    `preferred_username`; Nessie checks the token's signature against the realm's JWKS and its
    issuer. The access log goes to <workdir>/nessie-access.log, one line per request:
    `SQE-ACCESS <user or -> "<request line>" <status>`; the Authorization header is never logged.
    S3: Nessie writes and reads table metadata with a static key of the S3 peer's (STATIC server
    auth); request signing for clients is turned off, so clients use storage credentials of their
    own (SQE's static s3_* keys). The JVM gets a 512 MB heap at most and C1 only, like Keycloak.
"""
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import namedtuple
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from keycloak_peer import find_jdk, free_port  # noqa: E402

VERSION = "0.99.0"
HEAP = "-Xms64m -Xmx512m"
JIT = "-XX:TieredStopAtLevel=1"
ACCESS_LINE = re.compile(r'SQE-ACCESS (\S+) "(\S+) (\S+) [^"]*" (\d{3})')
AccessEntry = namedtuple("AccessEntry", "user method path status")


def cache_root():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sqe-tools" / f"nessie-{VERSION}"


def jar_path():
    return cache_root() / f"nessie-quarkus-{VERSION}-runner.jar"


def unavailable():
    if not jar_path().is_file():
        return (f"Nessie {VERSION} is not installed ({jar_path()} is missing): run "
                "scripts/setup.sh")
    if find_jdk() is None:
        return "no JDK >= 21 under /usr/lib/jvm: Nessie cannot run here"
    return None


def _get(url, timeout=5):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


class Nessie:
    def __init__(self, workdir, issuer, s3_endpoint, s3_key, warehouse_location,
                 audience="sqe"):
        self.workdir = Path(workdir)
        self.issuer = issuer
        self.audience = audience
        self.s3_endpoint = s3_endpoint
        self.s3_key = s3_key  # (access key id, secret)
        self.warehouse = "warehouse"
        self.warehouse_location = warehouse_location
        self.port = free_port()
        self.mgmt_port = free_port()
        while self.mgmt_port == self.port:
            self.mgmt_port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.iceberg_uri = self.base_url + "/iceberg"
        self.log_path = self.workdir / "nessie.log"
        self.access_log_path = self.workdir / "nessie-access.log"
        self.proc = None
        self.start_seconds = None

    def _properties(self):
        key_id, secret = self.s3_key
        s3 = "nessie.catalog.service.s3.default-options."
        props = {
            "nessie.version.store.type": "IN_MEMORY",
            "quarkus.http.host": "127.0.0.1",
            "quarkus.http.port": self.port,
            "quarkus.management.host": "127.0.0.1",
            "quarkus.management.port": self.mgmt_port,
            "nessie.server.authentication.enabled": "true",
            "quarkus.oidc.auth-server-url": self.issuer,
            "quarkus.oidc.application-type": "service",
            "quarkus.oidc.token.principal-claim": "preferred_username",
            "quarkus.oidc.token.issuer": self.issuer,
            "quarkus.oidc.token.audience": self.audience,
            "quarkus.http.access-log.enabled": "true",
            "quarkus.http.access-log.pattern": 'SQE-ACCESS %u "%r" %s',
            "quarkus.http.access-log.log-to-file": "true",
            "quarkus.http.access-log.base-file-name": "nessie-access",
            "quarkus.http.access-log.log-directory": str(self.workdir),
            "quarkus.http.access-log.rotate": "false",
            "nessie.catalog.default-warehouse": self.warehouse,
            f"nessie.catalog.warehouses.{self.warehouse}.location": self.warehouse_location,
            s3 + "endpoint": self.s3_endpoint,
            s3 + "path-style-access": "true",
            s3 + "region": "us-east-1",
            s3 + "request-signing-enabled": "false",
            s3 + "access-key": "urn:nessie-secret:quarkus:sqe-test.s3-key",
            "sqe-test.s3-key.name": key_id,
            "sqe-test.s3-key.secret": secret,
        }
        return "".join(f"{k}={v}\n" for k, v in props.items())

    def start(self, timeout=180):
        reason = unavailable()
        if reason:
            raise RuntimeError(reason)
        conf = self.workdir / "config"
        conf.mkdir(parents=True, exist_ok=True)
        (conf / "application.properties").write_text(self._properties())
        os.chmod(conf / "application.properties", 0o600)
        java = find_jdk() / "bin" / "java"
        cmd = [str(java), *HEAP.split(), JIT, "-jar", str(jar_path())]
        t0 = time.monotonic()
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(cmd, cwd=self.workdir, stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True)
        ready = f"http://127.0.0.1:{self.mgmt_port}/q/health/ready"
        deadline = t0 + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Nessie exited with status {self.proc.returncode} while "
                                   f"starting; last lines of {self.log_path}:\n{self.log_tail()}")
            try:
                if _get(ready) == 200:
                    self.start_seconds = time.monotonic() - t0
                    return self
            except OSError:
                pass
            time.sleep(0.5)
        tail = self.log_tail()
        self.stop()
        raise RuntimeError(f"Nessie not ready after {timeout} s; last lines of "
                           f"{self.log_path}:\n{tail}")

    def log_tail(self, n=40):
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return "(no log)"

    def access_log(self):
        """Every request Nessie answered so far (the access log is written as it answers)."""
        try:
            text = self.access_log_path.read_text(errors="replace")
        except OSError:
            return []
        out = []
        for line in text.splitlines():
            m = ACCESS_LINE.search(line)
            if m:
                out.append(AccessEntry(m.group(1), m.group(2), m.group(3), int(m.group(4))))
        return out

    def calls_by(self, user, path_part=""):
        return [e for e in self.access_log() if e.user == user and path_part in e.path]

    def stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        except ProcessLookupError:
            pass


if __name__ == "__main__":
    if sys.argv[1:] == ["present"]:
        why = unavailable()
        if why:
            print(why)
        sys.exit(1 if why else 0)
    raise SystemExit("usage: nessie_peer.py present")
