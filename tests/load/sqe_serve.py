"""Starts and stops one `sqe serve` for the load, hostile-input, JDBC and streaming checks.

SqeServe(binary, workdir, toml="") writes workdir/sqe.toml, starts `sqe serve` on free Trino and
Flight SQL ports with its data_dir under workdir (never ~/.sqe), waits for /readyz and offers:
(with home=DIR instead: HOME=DIR and the default data_dir, DIR/.sqe, as a user's `sqe serve`;
with tls=True: a self-signed certificate for 127.0.0.1 in workdir, [coordinator.tls] on both
ports, .cert its path, .trino_url https and .flight_uri grpc+tls)
  .trino_port .flight_port .pid .flight_uri .trino_url
  .rss_kib()        the server's resident set from /proc/<pid>/status (VmRSS), in KiB
  .alive()          the process has not exited
  .log_text()       everything the server printed so far
  .stop()           SIGTERM, wait (kill after a deadline); returns (exit status, log)
  .sanitizer_report(text)  the first sanitizer report line in a log, or None
Used by tests/load/run_load.py, tests/load/test_load_short.py, tests/hostile/test_hostile.py,
tests/flight/jdbc/test_jdbc.py, tests/server/test_embedded_catalog.py, tests/rest,
tests/integration/test_make_run.py and bench/serve_stream.py.
"""
import os
import signal
import socket
import ssl
import subprocess
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                     "SUMMARY: UndefinedBehaviorSanitizer", "WARNING: ThreadSanitizer")


def default_binary():
    """$SQE_BIN, else build/sqe under the repository."""
    return Path(os.environ.get("SQE_BIN", ROOT / "build" / "sqe"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_cert(d):
    """A self-signed certificate for 127.0.0.1: (d/cert.pem, d/key.pem)."""
    d = Path(d)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem")],
                   check=True, capture_output=True)
    return d / "cert.pem", d / "key.pem"


class SqeServe:
    def __init__(self, binary, workdir, toml="", env=None, args=(), ready_timeout=60, home=None,
                 tls=False):
        self.binary = Path(binary)
        if not self.binary.exists():
            raise FileNotFoundError(f"{self.binary} is not built")
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.trino_port = free_port()
        self.flight_port = free_port()
        scheme = "https" if tls else "http"
        self.trino_url = f"{scheme}://127.0.0.1:{self.trino_port}"
        self.flight_uri = f"grpc{'+tls' if tls else ''}://127.0.0.1:{self.flight_port}"
        self.cert = None
        if tls:
            self.cert, key = make_cert(self.workdir)
            toml = (f'[coordinator.tls]\ncert_file = "{self.cert}"\nkey_file = "{key}"\n'
                    + toml)
        self.config = self.workdir / "sqe.toml"
        self.config.write_text(toml)
        self.log_path = self.workdir / f"serve-{self.trino_port}.log"
        self._log = open(self.log_path, "w+")
        e = {k: v for k, v in os.environ.items() if not k.startswith("SQE_")}
        e.setdefault("ASAN_OPTIONS", "detect_leaks=1")
        if home is None:
            e["SQE_COORDINATOR__DATA_DIR"] = str(self.workdir / "data")
        else:
            e["HOME"] = str(home)
        e.update(env or {})
        self.proc = subprocess.Popen(
            [str(self.binary), "serve", "--config", str(self.config), "--bind", "127.0.0.1",
             "--trino-port", str(self.trino_port), "--flight-port", str(self.flight_port),
             "--health-port", "0", *args],
            stdout=self._log, stderr=subprocess.STDOUT, env=e)
        self.pid = self.proc.pid
        self._wait_ready(ready_timeout)

    def _wait_ready(self, timeout):
        deadline = time.time() + timeout
        url = self.trino_url + "/readyz"
        ctx = ssl.create_default_context(cafile=str(self.cert)) if self.cert else None
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2, context=ctx) as r:
                    if r.status == 200 and "sqe serve: ready" in self.log_text():
                        return
            except OSError:
                pass
            if self.proc.poll() is not None or time.time() > deadline:
                out = self.log_text()
                self.stop()
                raise RuntimeError("sqe serve did not become ready:\n" + out)
            time.sleep(0.05)

    def alive(self):
        return self.proc.poll() is None

    def rss_kib(self):
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def log_text(self):
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self, timeout=60):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        out = self.log_text()
        if not self._log.closed:
            self._log.close()
        return self.proc.returncode, out

    @staticmethod
    def sanitizer_report(text):
        for line in text.splitlines():
            if any(m in line for m in SANITIZER_MARKERS):
                return line
        return None
