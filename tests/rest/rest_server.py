"""rest_server.py: starts and stops the test Iceberg REST catalog (server/RestCatalogServer.java).

Role: fetches the jars once (mvn dependency:copy-dependencies of server/pom.xml into
.cache/maven-rest/lib, with its own local repository .cache/maven-rest/m2), compiles the server
with javac into .cache/maven-rest/classes when its source changed, and runs it on a free loopback
port with a warehouse directory, bearer tokens and OAuth2 clients.

With s3= (a dict: location "s3://bucket/prefix", endpoint, service_key "ID:SECRET", vend
{user: "ID:SECRET"}) the catalog keeps its tables on that object store through Iceberg's
S3FileIO; the extra jars (tests/rest_s3/pom.xml: iceberg-aws and the AWS SDK) are fetched once
into .cache/maven-rest-s3/lib by ensure_s3_jars().

INTERFACE: ensure_built(), ensure_s3_jars(), RestServer(warehouse, tokens, clients, prefix,
  s3).start()/stop()/kill(), .uri, .log_lines(), .fail(status, count, match),
  .conflict(ns, table).
"""
import hashlib
import os
import subprocess
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
CACHE = os.path.join(ROOT, ".cache", "maven-rest")
LIB = os.path.join(CACHE, "lib")
CLASSES = os.path.join(CACHE, "classes")
SRC = os.path.join(HERE, "server", "RestCatalogServer.java")
POM = os.path.join(HERE, "server", "pom.xml")
S3_CACHE = os.path.join(ROOT, ".cache", "maven-rest-s3")
S3_LIB = os.path.join(S3_CACHE, "lib")
S3_POM = os.path.join(ROOT, "tests", "rest_s3", "pom.xml")


def _hash(*paths):
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def ensure_built():
    """Fetches the jars and compiles the server when needed (idempotent)."""
    os.makedirs(CACHE, exist_ok=True)
    stamp = os.path.join(CACHE, "lib.stamp")
    ph = _hash(POM)
    if not os.path.exists(stamp) or open(stamp).read().strip() != ph:
        subprocess.run(["rm", "-rf", LIB], check=True)
        subprocess.run(["mvn", "-q", "-B", "-Dmaven.repo.local=" + os.path.join(CACHE, "m2"),
                        "-f", POM, "dependency:copy-dependencies", "-DoutputDirectory=" + LIB,
                        "-DincludeScope=runtime"], check=True)
        with open(stamp, "w") as f:
            f.write(ph)
    cstamp = os.path.join(CACHE, "classes.stamp")
    sh = _hash(SRC, POM)
    if not os.path.exists(cstamp) or open(cstamp).read().strip() != sh:
        subprocess.run(["rm", "-rf", CLASSES], check=True)
        os.makedirs(CLASSES)
        subprocess.run(["javac", "-nowarn", "-d", CLASSES, "-cp", LIB + "/*", SRC], check=True)
        with open(cstamp, "w") as f:
            f.write(sh)


def ensure_s3_jars():
    """Fetches iceberg-aws and the AWS SDK jars once (idempotent)."""
    os.makedirs(S3_CACHE, exist_ok=True)
    stamp = os.path.join(S3_CACHE, "lib.stamp")
    ph = _hash(S3_POM)
    if not os.path.exists(stamp) or open(stamp).read().strip() != ph:
        subprocess.run(["rm", "-rf", S3_LIB], check=True)
        subprocess.run(["mvn", "-q", "-B", "-Dmaven.repo.local=" + os.path.join(CACHE, "m2"),
                        "-f", S3_POM, "dependency:copy-dependencies",
                        "-DoutputDirectory=" + S3_LIB, "-DincludeScope=runtime"], check=True)
        with open(stamp, "w") as f:
            f.write(ph)


class RestServer:
    def __init__(self, warehouse, tokens, clients=None, prefix="sqe", s3=None):
        self.s3 = s3
        self.warehouse = warehouse
        self.tokens = tokens            # token -> user
        self.clients = clients or {}    # "id:secret" -> token
        self.prefix = prefix
        self.proc = None
        self.port = None
        self.log_path = os.path.join(warehouse, "requests.log")

    @property
    def uri(self):
        return "http://127.0.0.1:%d" % self.port

    def start(self, port=0):
        ensure_built()
        os.makedirs(self.warehouse, exist_ok=True)
        cp = CLASSES + ":" + LIB + "/*"
        extra = []
        if self.s3:
            ensure_s3_jars()
            cp += ":" + S3_LIB + "/*"
            # moto checks signatures but not the SDK's newer default trailing checksums
            extra = ["-Daws.requestChecksumCalculation=when_required",
                     "-Daws.responseChecksumValidation=when_required"]
        cmd = ["java", "-Xmx512m"] + extra + ["-cp", cp,
               "org.apache.iceberg.rest.RestCatalogServer", "--port", str(port),
               "--warehouse", self.warehouse, "--prefix", self.prefix, "--log", self.log_path]
        if self.s3:
            cmd += ["--location", self.s3["location"], "--s3-endpoint", self.s3["endpoint"],
                    "--s3-key", self.s3["service_key"]]
            for user, keys in self.s3.get("vend", {}).items():
                cmd += ["--vend", "%s=%s" % (user, keys)]
        for tok, user in self.tokens.items():
            cmd += ["--token", "%s=%s" % (tok, user)]
        for cred, tok in self.clients.items():
            cmd += ["--client", "%s=%s" % (cred, tok)]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True)
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("REST server exited: rc=%s" % self.proc.poll())
            if line.startswith("READY "):
                self.port = int(line.split()[1])
                return self
        self.stop()
        raise RuntimeError("REST server did not start in 60 s")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def kill(self):
        """kill -9: the catalog dies wherever it is (fault tests)."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def log_lines(self):
        if not os.path.exists(self.log_path):
            return []
        with open(self.log_path) as f:
            return [l.rstrip("\n") for l in f]

    def _post(self, path):
        req = urllib.request.Request(self.uri + path, data=b"", method="POST")
        urllib.request.urlopen(req, timeout=10).read()

    def fail(self, status=503, count=1, match=""):
        """The next `count` requests whose 'METHOD path' contains match answer `status`."""
        from urllib.parse import quote
        self._post("/test/fail?status=%d&count=%d&match=%s" % (status, count, quote(match)))

    def conflict(self, ns, table):
        """The next commit to ns.table first runs a real concurrent commit (409 for it)."""
        self._post("/test/conflict?ns=%s&table=%s" % (ns, table))
