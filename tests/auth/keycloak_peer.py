"""A real Keycloak as the OIDC identity provider of the identity tests (issue 16).

Role: starts Keycloak 26.7.3 (installed by scripts/setup.sh) once per test run on loopback, with
the realm files of this folder imported, and gets tokens from it.

INTERFACE
    VERSION, cache_root(), dist_dir(), find_jdk() -> path or None
    unavailable() -> None, or the reason Keycloak cannot run here (not installed, no JDK >= 21)
    Keycloak(realm_files, workdir)   .start(timeout) / .stop() / .log_tail(n)
        .base_url, .issuer(realm), .discovery_url(realm), .jwks_url(realm), .token_url(realm)
        .password_token(realm, user, password) / .client_credentials_token(realm) /
        .exchange_token(realm, subject_token, audience) -> token dict (the token endpoint's JSON)
        .start_seconds (how long the start took)
    REALM_FILES, CLIENT_ID, client_secret(realm), USERS (name -> password)
    decode_jwt(token) -> (header, claims), unverified: for tests only
    python3 keycloak_peer.py warm DIST   (scripts/setup.sh: the start that builds the Quarkus app)
    python3 keycloak_peer.py present     (exit 0 when Keycloak can run here, else prints why)

NOTES
    The shared install in ${XDG_CACHE_HOME:-$HOME/.cache}/sqe-tools/keycloak-26.7.3/dist is never
    written by a test run: each run gets a home folder of its own in `workdir` with copies of
    bin/, conf/ and lib/quarkus/ (the built app, a few MB), links to the large read-only parts
    (lib/lib, themes, providers) and data/import/ holding the realm files (`--import-realm` reads
    `<home>/data/import`). The database is H2 in memory (`--db=dev-mem`), so nothing persists.
    start-dev rebuilds the Quarkus app when the build options differ from the last build's;
    setup builds it once with BUILD_OPTIONS (`warm`), so a test run only starts it (`kc.sh build`
    refuses the dev profile). Ports: HTTP and management, both free loopback ports.
    The admin bootstrap user comes from KC_BOOTSTRAP_ADMIN_USERNAME / _PASSWORD when set, else
    admin / a random password (SQE_KEYCLOAK_ADMIN_PASSWORD is read too). The JVM gets a 640 MB
    heap at most and C1 only (JIT); JAVA_OPTS_APPEND from the environment is kept.
"""
import base64
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

VERSION = "26.7.3"
HERE = Path(__file__).resolve().parent
REALM_FILES = [HERE / "sqe-realm.json", HERE / "other-realm.json"]
CLIENT_ID = "sqe"
USERS = {"alice": "alice-password", "bob": "bob-password"}
# build-time options: the same in `warm` and in every start, so start-dev does not rebuild
BUILD_OPTIONS = ["--db=dev-mem", "--health-enabled=true"]
HEAP = "-Xms64m -Xmx640m"
# C1 only: a quarter less CPU for the start on two shared cores; a test IdP needs no peak speed
JIT = "-XX:TieredStopAtLevel=1"


def cache_root():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sqe-tools" / f"keycloak-{VERSION}"


def dist_dir():
    return cache_root() / "dist"


def installed():
    return (cache_root() / ".complete").is_file() and (dist_dir() / "bin" / "kc.sh").is_file()


def _jdk_major(home):
    try:
        for line in (home / "release").read_text().splitlines():
            if line.startswith("JAVA_VERSION="):
                return int(line.split("=", 1)[1].strip('"').split(".")[0])
    except (OSError, ValueError):
        pass
    return 0


def find_jdk():
    """The newest JDK >= 21 under /usr/lib/jvm (the machine's Temurin 25), or None."""
    best, best_v = None, 0
    root = Path("/usr/lib/jvm")
    for home in sorted(root.iterdir()) if root.is_dir() else []:
        if home.is_symlink() or not (home / "bin" / "java").exists():
            continue
        v = _jdk_major(home)
        if v >= 21 and v > best_v:
            best, best_v = home, v
    return best


def unavailable():
    if not installed():
        return (f"Keycloak {VERSION} is not installed in {cache_root()}: run scripts/setup.sh "
                "(it needs a JDK >= 21 under /usr/lib/jvm)")
    if find_jdk() is None:
        return "no JDK >= 21 under /usr/lib/jvm: Keycloak cannot run here"
    return None


def client_secret(realm):
    return json.loads((HERE / f"{realm}-realm.json").read_text())["clients"][0]["secret"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def decode_jwt(token):
    """Header and claims of a compact JWT, signature not checked."""
    def part(p):
        return json.loads(base64.urlsafe_b64decode(p + "=" * (-len(p) % 4)))
    h, c, _sig = token.split(".")
    return part(h), part(c)


def _http(url, form=None, timeout=30):
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    req = urllib.request.Request(url, data=data)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def _make_home(dist, home, realm_files):
    """A per-run Keycloak home that shares the install's large read-only parts."""
    home.mkdir(parents=True)
    for d in ("bin", "conf"):
        shutil.copytree(dist / d, home / d, symlinks=True)
    (home / "lib").mkdir()
    shutil.copytree(dist / "lib" / "quarkus", home / "lib" / "quarkus")
    shutil.copy2(dist / "lib" / "quarkus-run.jar", home / "lib" / "quarkus-run.jar")
    for rel in ("lib/lib", "lib/app", "themes", "providers"):
        if (dist / rel).exists():
            os.symlink(dist / rel, home / rel)
    imp = home / "data" / "import"
    imp.mkdir(parents=True)
    for f in realm_files:
        shutil.copy2(f, imp / Path(f).name)


class Keycloak:
    def __init__(self, realm_files=None, workdir=None, home=None):
        self.realm_files = list(REALM_FILES if realm_files is None else realm_files)
        self.workdir = Path(workdir) if workdir else None
        self.home = Path(home) if home else None  # warm: the install itself
        self.port = free_port()
        self.mgmt_port = free_port()
        while self.mgmt_port == self.port:
            self.mgmt_port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.log_path = None
        self.start_seconds = None
        self.admin_user = os.environ.get("KC_BOOTSTRAP_ADMIN_USERNAME", "admin")
        self.admin_password = (os.environ.get("KC_BOOTSTRAP_ADMIN_PASSWORD")
                               or os.environ.get("SQE_KEYCLOAK_ADMIN_PASSWORD")
                               or secrets.token_urlsafe(16))

    def issuer(self, realm="sqe"):
        return f"{self.base_url}/realms/{realm}"

    def discovery_url(self, realm="sqe"):
        return self.issuer(realm) + "/.well-known/openid-configuration"

    def jwks_url(self, realm="sqe"):
        return self.issuer(realm) + "/protocol/openid-connect/certs"

    def token_url(self, realm="sqe"):
        return self.issuer(realm) + "/protocol/openid-connect/token"

    def start(self, timeout=300, check=True):
        reason = unavailable() if check else None
        if reason:
            raise RuntimeError(reason)
        if self.home is None:
            self.home = self.workdir / "keycloak-home"
            _make_home(dist_dir(), self.home, self.realm_files)
        self.log_path = (self.workdir or self.home.parent) / "keycloak.log"
        env = dict(os.environ, JAVA_HOME=str(find_jdk()), JAVA_OPTS_KC_HEAP=HEAP,
                   JAVA_OPTS_APPEND=" ".join(filter(None, [os.environ.get("JAVA_OPTS_APPEND"),
                                                           JIT])),
                   KC_BOOTSTRAP_ADMIN_USERNAME=self.admin_user,
                   KC_BOOTSTRAP_ADMIN_PASSWORD=self.admin_password)
        cmd = [str(self.home / "bin" / "kc.sh"), "start-dev", "--http-host=127.0.0.1",
               f"--http-port={self.port}", "--http-management-host=127.0.0.1",
               f"--http-management-port={self.mgmt_port}", *BUILD_OPTIONS]
        if self.realm_files:
            cmd.append("--import-realm")
        t0 = time.monotonic()
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, env=env,
                                         start_new_session=True)
        ready = f"http://127.0.0.1:{self.mgmt_port}/health/ready"
        deadline = t0 + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Keycloak exited with status {self.proc.returncode} while "
                                   f"starting; last lines of {self.log_path}:\n{self.log_tail()}")
            try:
                status, _ = _http(ready, timeout=5)
                if status == 200 and all(
                        _http(self.discovery_url(json.loads(Path(f).read_text())["realm"]),
                              timeout=5)[0] == 200 for f in self.realm_files):
                    self.start_seconds = time.monotonic() - t0
                    return self
            except OSError:
                pass
            time.sleep(1)
        tail = self.log_tail()
        self.stop()
        raise RuntimeError(f"Keycloak not ready after {timeout} s; last lines of "
                           f"{self.log_path}:\n{tail}")

    def log_tail(self, n=40):
        try:
            return "\n".join(Path(self.log_path).read_text(errors="replace").splitlines()[-n:])
        except (OSError, TypeError):
            return "(no log)"

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

    def _token(self, realm, form):
        status, body = _http(self.token_url(realm), form)
        if status != 200:
            raise RuntimeError(f"token request to realm {realm} failed ({status}): "
                               f"{body[:500].decode(errors='replace')}")
        return json.loads(body)

    def password_token(self, realm, user, password, scope="openid"):
        """Resource owner password grant for `user` at client sqe of `realm`."""
        return self._token(realm, {"grant_type": "password", "client_id": CLIENT_ID,
                                   "client_secret": client_secret(realm), "username": user,
                                   "password": password, "scope": scope})

    def client_credentials_token(self, realm="sqe"):
        """Client credentials grant: the token of client sqe's service account."""
        return self._token(realm, {"grant_type": "client_credentials", "client_id": CLIENT_ID,
                                   "client_secret": client_secret(realm)})

    def admin_token(self):
        """An access token of the bootstrap admin (master realm, client admin-cli)."""
        status, body = _http(f"{self.base_url}/realms/master/protocol/openid-connect/token",
                             {"grant_type": "password", "client_id": "admin-cli",
                              "username": self.admin_user, "password": self.admin_password})
        if status != 200:
            raise RuntimeError(f"admin login failed ({status})")
        return json.loads(body)["access_token"]

    def add_redirect_uri(self, uri, realm="sqe", client_id=CLIENT_ID):
        """Lets client_id redirect to uri too (Keycloak matches loopback ports only for http://:
        an https:// callback on a free port is added once its port is known)."""
        auth = {"Authorization": "Bearer " + self.admin_token()}
        base = f"{self.base_url}/admin/realms/{realm}/clients"
        req = urllib.request.Request(f"{base}?clientId={urllib.parse.quote(client_id)}",
                                     headers=auth)
        with urllib.request.urlopen(req, timeout=30) as r:
            client = json.loads(r.read())[0]
        if uri in client.get("redirectUris", []):
            return
        client["redirectUris"] = client.get("redirectUris", []) + [uri]
        req = urllib.request.Request(f"{base}/{client['id']}", method="PUT",
                                     data=json.dumps(client).encode(),
                                     headers={**auth, "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status == 204, r.status

    def exchange_token(self, realm, subject_token, audience=None):
        """RFC 8693 standard token exchange by client sqe for the holder of `subject_token`."""
        form = {"grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                "client_id": CLIENT_ID, "client_secret": client_secret(realm),
                "subject_token": subject_token,
                "subject_token_type": "urn:ietf:params:oauth:token-type:access_token",
                "requested_token_type": "urn:ietf:params:oauth:token-type:access_token"}
        if audience:
            form["audience"] = audience
        return self._token(realm, form)


def warm(dist):
    """Starts the install in `dist` once without realms (builds its Quarkus app for start-dev
    with BUILD_OPTIONS), then stops it and removes what the start left in its data/."""
    if find_jdk() is None:
        raise SystemExit("no JDK >= 21 under /usr/lib/jvm")
    dist = Path(dist)
    kc = Keycloak(realm_files=[], home=dist)
    try:
        kc.start(timeout=400, check=False)
        print(f"Keycloak {VERSION} built and started in {kc.start_seconds:.0f} s")
    finally:
        kc.stop()
        shutil.rmtree(dist / "data", ignore_errors=True)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "warm":
        warm(sys.argv[2])
    elif sys.argv[1:] == ["present"]:
        why = unavailable()
        if why:
            print(why)
        sys.exit(1 if why else 0)
    else:
        raise SystemExit("usage: keycloak_peer.py warm DIST | present")
