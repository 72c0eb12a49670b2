"""Issue 16's client matrix: every client a user runs, as alice and as bob, with Keycloak's tokens
(or passwords that SQE exchanges for them), and Nessie's access log naming that user on every
catalog call SQE made for that client's statements.

One `sqe serve` (module scope, TLS on both ports) with `[auth] providers = ["oidc_bearer",
"client_credentials", "oidc_password"]` against the realm `sqe`, and the Nessie catalog
(`[catalogs.nessie]`, auth = "session_bearer", static s3 keys for the table files): SQE forwards
each caller's access token to Nessie, either the client's own (bearer) or the one it got from
Keycloak for that user's password (oidc_password) or for a client's secret (client_credentials).
Clients: the trino Python client (JWTAuthentication, BasicAuthentication); the Trino CLI jar
(--password with TRINO_PASSWORD, --access-token; --truststore-path takes the PEM certificate);
ADBC Flight SQL (bearer header, username/password handshake); the Flight SQL JDBC driver
(user/password, token=; JdbcIdentity.java, tlsRootCerts = the PEM); dbt-trino (method ldap and
method jwt), whose table model is created in Nessie and selected back; and Basic sqe:secret
(client_credentials), which runs as service-account-sqe, the name Keycloak gives the client's
service account in preferred_username, which Nessie logs too.
Every case: `current_user` is the user, the statement read nessie.matrix.shared (a loadTable),
and every Nessie call made meanwhile is logged as that user.
"""
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from trino.auth import BasicAuthentication, JWTAuthentication

from keycloak_peer import USERS
from oidc_clients import adbc_query, serve, stop_clean, trino_query

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CLI_JAR = Path(os.environ.get("TRINO_CLI_JAR",
                              ROOT / ".cache" / "trino-cli" / "trino-cli-476-executable.jar"))
JDBC_JAR = ROOT / ".cache" / "flight-jdbc" / \
    f"flight-sql-jdbc-driver-{os.environ.get('FLIGHT_JDBC_VERSION', '18.3.0')}.jar"
DBT = Path(sys.executable).parent / "dbt"
USERS_ = ("alice", "bob")
SHARED = "nessie.matrix.shared"
QUERY = f"SELECT current_user, count(*) FROM {SHARED}"
SHARED_PATH = "/namespaces/matrix/tables/shared"


ISSUED = []  # every access token handed to a client here: none may reach a log


def token(kc, user):
    tok = kc.password_token("sqe", user, USERS[user])["access_token"]
    ISSUED.append(tok)
    return tok


def clean_env(**extra):
    """The environment of a client process: no CA bundle overriding the test cert, no SQE_*."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE")
           and not k.startswith("SQE_")}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def sqe(keycloak, nessie, s3_peer, tmp_path_factory):
    work = tmp_path_factory.mktemp("client-matrix")
    key_id, secret = s3_peer.add_user("sqe-matrix")
    stage = work / "stage"
    stage.mkdir()
    toml = f"""
[coordinator]
threads = 2

[auth]
providers = ["oidc_bearer", "client_credentials", "oidc_password"]
max_failures_per_address = 100000

[auth.oidc]
issuer = "{keycloak.issuer()}"
client_id = "sqe"
client_secret = "sqe-test-secret"
allow_insecure_http = true

[catalogs.nessie]
type = "rest"
uri = "{nessie.iceberg_uri}"
auth = "session_bearer"
warehouse = "{nessie.warehouse}"
s3_endpoint = "{s3_peer.endpoint}"
s3_region = "us-east-1"
s3_path_style = true
s3_access_key_id = "{key_id}"
s3_secret_access_key = "{secret}"
"""
    s = serve(work / "serve", toml, env={"TMPDIR": str(stage)})
    try:
        # the table every case reads: created by alice (bearer), three rows
        auth = JWTAuthentication(token(keycloak, "alice"))
        for sql in ("CREATE SCHEMA nessie.matrix",
                    f"CREATE TABLE {SHARED} (id bigint)",
                    f"INSERT INTO {SHARED} VALUES (1), (2), (3)"):
            trino_query(s, sql, auth=auth, user="alice")
        yield s
    finally:
        log = stop_clean(s)
        logs = log + nessie.log_path.read_text(errors="replace") + \
            nessie.access_log_path.read_text(errors="replace")
        for word in (secret, "alice-password", "bob-password", "sqe-test-secret"):
            assert word not in log
        for tok in ISSUED:
            assert tok.split(".")[2] not in logs
        shutil.rmtree(work, ignore_errors=True)


def nessie_calls(nessie, mark, timeout=10):
    """The access log entries after the first `mark` (waits for the loadTable to be logged)."""
    deadline = time.monotonic() + timeout
    while True:
        got = nessie.access_log()[mark:]
        if any(SHARED_PATH in e.path for e in got) or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


def as_user(nessie, user, run):
    """Runs run() (-> rows as lists of strings), checks it ran as user and that each Nessie call
    it caused was that user's."""
    mark = len(nessie.access_log())
    rows = run()
    assert [[str(v) for v in r] for r in rows] == [[user, "3"]], rows
    calls = nessie_calls(nessie, mark)
    assert any(e.method == "GET" and e.path.endswith(SHARED_PATH) and e.status == 200
               for e in calls), calls
    assert {e.user for e in calls} == {user}, calls


# ---- 1. the trino Python client --------------------------------------------------------------

@pytest.mark.parametrize("user", USERS_)
def test_trino_client_jwt(sqe, nessie, keycloak, user):
    auth = JWTAuthentication(token(keycloak, user))
    as_user(nessie, user, lambda: trino_query(sqe, QUERY, auth=auth, user=user))


@pytest.mark.parametrize("user", USERS_)
def test_trino_client_basic(sqe, nessie, user):
    auth = BasicAuthentication(user, USERS[user])
    as_user(nessie, user, lambda: trino_query(sqe, QUERY, auth=auth, user=user))


def test_trino_client_credentials(sqe, nessie):
    # Keycloak names the service account of client `sqe` "service-account-sqe" in
    # preferred_username; SQE's principal and Nessie's both come from that claim
    user = "service-account-sqe"
    auth = BasicAuthentication("sqe", "sqe-test-secret")
    as_user(nessie, user, lambda: trino_query(sqe, QUERY, auth=auth, user=user))


# ---- 2. the Trino CLI jar --------------------------------------------------------------------

def trino_cli(sqe, args, env=None):
    if not shutil.which("java"):
        pytest.fail("java is not installed (Debian: openjdk-17-jre-headless)")
    if not CLI_JAR.exists():
        pytest.fail(f"{CLI_JAR} is missing: tests/integration/run_client_tests.sh fetches it")
    cmd = ["java", "-jar", str(CLI_JAR), "--server", sqe.trino_url,
           "--truststore-path", str(sqe.cert), "--output-format", "TSV", "--execute", QUERY, *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                       stdin=subprocess.DEVNULL, env=clean_env(**(env or {})))
    assert p.returncode == 0, p.stdout + p.stderr
    return [line.split("\t") for line in p.stdout.splitlines()]


@pytest.mark.parametrize("user", USERS_)
def test_trino_cli_password(sqe, nessie, user):
    as_user(nessie, user, lambda: trino_cli(sqe, ["--user", user, "--password"],
                                            env={"TRINO_PASSWORD": USERS[user]}))


@pytest.mark.parametrize("user", USERS_)
def test_trino_cli_access_token(sqe, nessie, keycloak, user):
    tok = token(keycloak, user)
    as_user(nessie, user, lambda: trino_cli(sqe, ["--user", user, "--access-token", tok]))


# ---- 3. ADBC Flight SQL ----------------------------------------------------------------------

@pytest.mark.parametrize("user", USERS_)
def test_adbc_bearer(sqe, nessie, keycloak, user):
    tok = token(keycloak, user)
    as_user(nessie, user, lambda: adbc_query(sqe, QUERY, bearer=tok))


@pytest.mark.parametrize("user", USERS_)
def test_adbc_password(sqe, nessie, user):
    as_user(nessie, user, lambda: adbc_query(sqe, QUERY, user=user, password=USERS[user]))


# ---- 4. the Flight SQL JDBC driver -----------------------------------------------------------

@pytest.fixture(scope="module")
def jdbc_classes(tmp_path_factory):
    if not JDBC_JAR.exists():
        pytest.fail(f"{JDBC_JAR} is missing: scripts/setup.sh fetches it from Maven Central")
    if not shutil.which("javac"):
        pytest.fail("javac is not installed (openjdk-17-jdk-headless)")
    classes = tmp_path_factory.mktemp("jdbc-classes")
    subprocess.run(["javac", "-d", str(classes), str(HERE / "JdbcIdentity.java")], check=True)
    return classes


def jdbc(sqe, classes, props):
    props = dict(props, tlsRootCerts=str(sqe.cert))
    p = subprocess.run(["java", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp",
                        f"{JDBC_JAR}:{classes}", "JdbcIdentity", str(sqe.flight_port), QUERY],
                       input="".join(f"{k}={v}\n" for k, v in props.items()),
                       capture_output=True, text=True, timeout=120, env=clean_env())
    assert p.returncode == 0, p.stdout + p.stderr[-3000:]
    return [line.split("\t") for line in p.stdout.splitlines()]


@pytest.mark.parametrize("user", USERS_)
def test_jdbc_password(sqe, nessie, jdbc_classes, user):
    as_user(nessie, user, lambda: jdbc(sqe, jdbc_classes, {"user": user,
                                                           "password": USERS[user]}))


@pytest.mark.parametrize("user", USERS_)
def test_jdbc_token(sqe, nessie, keycloak, jdbc_classes, user):
    tok = token(keycloak, user)
    as_user(nessie, user, lambda: jdbc(sqe, jdbc_classes, {"token": tok}))


# ---- 5. dbt-trino ----------------------------------------------------------------------------

DBT_PROFILE = """sqe:
  target: ldap
  outputs:
    ldap:
      type: trino
      method: ldap
      user: "{{ env_var('SQE_DBT_USER') }}"
      password: "{{ env_var('SQE_DBT_PASSWORD') }}"
      host: 127.0.0.1
      port: "{{ env_var('SQE_DBT_PORT') | int }}"
      http_scheme: https
      cert: "{{ env_var('SQE_DBT_CERT') }}"
      database: nessie
      schema: "{{ env_var('SQE_DBT_SCHEMA') }}"
      threads: 1
    jwt:
      type: trino
      method: jwt
      jwt_token: "{{ env_var('SQE_DBT_TOKEN') }}"
      host: 127.0.0.1
      port: "{{ env_var('SQE_DBT_PORT') | int }}"
      http_scheme: https
      cert: "{{ env_var('SQE_DBT_CERT') }}"
      database: nessie
      schema: "{{ env_var('SQE_DBT_SCHEMA') }}"
      threads: 1
"""
DBT_PROJECT = """name: sqe_identity
version: "1.0"
config-version: 2
profile: sqe
model-paths: ["models"]
test-paths: ["tests"]
models:
  sqe_identity:
    +materialized: table
    +on_table_exists: drop
"""
DBT_MODEL = f"select current_user as who, count(*) as n from {SHARED}\n"
# a singular test fails when it returns rows: the model, read back, must name the user
DBT_TEST = ("select * from {{ ref('who_ran') }} "
            "where who <> '{{ env_var(\"SQE_DBT_EXPECT\") }}' or n <> 3\n")


@pytest.fixture(scope="module")
def dbt_project(tmp_path_factory):
    if not DBT.exists():
        pytest.fail(f"{DBT} is missing: tests/integration/run_client_tests.sh installs dbt-trino")
    d = tmp_path_factory.mktemp("dbt-identity")
    (d / "models").mkdir()
    (d / "tests").mkdir()
    (d / "profiles.yml").write_text(DBT_PROFILE)
    (d / "dbt_project.yml").write_text(DBT_PROJECT)
    (d / "models" / "who_ran.sql").write_text(DBT_MODEL)
    (d / "tests" / "who_ran_is_the_user.sql").write_text(DBT_TEST)
    return d


@pytest.mark.parametrize("method", ("ldap", "jwt"))
@pytest.mark.parametrize("user", USERS_)
def test_dbt(sqe, nessie, keycloak, dbt_project, method, user):
    schema = f"dbt_{method}_{user}"
    env = clean_env(SQE_DBT_PORT=str(sqe.trino_port), SQE_DBT_CERT=str(sqe.cert),
                    SQE_DBT_SCHEMA=schema, SQE_DBT_EXPECT=user, SQE_DBT_USER=user,
                    SQE_DBT_PASSWORD=USERS[user] if method == "ldap" else "",
                    SQE_DBT_TOKEN=token(keycloak, user) if method == "jwt" else "",
                    DBT_SEND_ANONYMOUS_USAGE_STATS="false", DBT_USE_COLORS="false",
                    DBT_TARGET_PATH=str(dbt_project / f"target-{schema}"),
                    DBT_LOG_PATH=str(dbt_project / f"logs-{schema}"))
    mark = len(nessie.access_log())
    p = subprocess.run([str(DBT), "build", "--target", method, "--project-dir", str(dbt_project),
                        "--profiles-dir", str(dbt_project)],
                       capture_output=True, text=True, timeout=300, env=env,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-2000:]
    assert "PASS=2" in p.stdout, p.stdout[-3000:]  # the model and its test
    calls = nessie_calls(nessie, mark)
    assert {e.user for e in calls} == {user}, calls
    paths = [(e.method, e.path, e.status) for e in calls]
    assert any(m == "GET" and p.endswith(SHARED_PATH) and s == 200 for m, p, s in paths), paths
    assert any(m == "POST" and f"/namespaces/{schema}/tables" in p and s == 200
               for m, p, s in paths), paths  # the model's table, created in Nessie
    # the model's table, read back by that user over the trino client
    rows = trino_query(sqe, f"SELECT who, n FROM nessie.{schema}.who_ran",
                       auth=BasicAuthentication(user, USERS[user]), user=user)
    assert rows == [[user, 3]], rows
    assert USERS[user] not in p.stdout + p.stderr
