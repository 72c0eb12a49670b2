"""REST catalogs with auth = "token_exchange" (catalog/rest/rest_exchange.c) through `sqe serve`.

Role: the Java test REST catalog (tests/rest/rest_server.py) sits behind two bearer-checking
gateways (token_gateway.py): `lake` (auth = "session_bearer") accepts the users' own Keycloak
tokens (aud contains sqe) and so lets `sqe serve` authenticate them (the "bearer" method of
server/core/auth_catalog.c: a bearer the REST catalog accepts); `ex` (auth = "token_exchange",
audience = "catalog") accepts only tokens whose aud is exactly {catalog}, active at Keycloak's
introspection. Alice and Bob run statements on `ex` with their own tokens; the gateway's log
shows that every call carried a token Keycloak issued for that user and audience catalog, not
the user's own, one exchanged token per user (the cache), and the server log holds no token.
NOTES: one Keycloak per session (conftest.py); the REST catalog's jars must be in .cache (the
test skips when they cannot be fetched).
"""
import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
import trino
from trino.auth import JWTAuthentication

from keycloak_peer import USERS, decode_jwt
from token_gateway import TokenGateway

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "rest"))
sys.path.insert(0, str(ROOT / "tests" / "load"))
from rest_server import RestServer  # noqa: E402
from sqe_serve import SqeServe  # noqa: E402

BUILD = Path(os.environ.get("SQE_BUILD_DIR", ROOT / "build-asan"))
SQE = os.environ.get("SQE_SERVE", str(BUILD / "sqe"))
UPSTREAM_TOKENS = {"tok-alice": "alice", "tok-bob": "bob"}


@pytest.fixture(scope="module", params=["catalog_bearer", "oidc_bearer"])
def env(keycloak, request):
    """catalog_bearer: sqe serve authenticates users by asking `lake`; oidc_bearer: by checking
    their tokens itself ([auth] providers = ["oidc_bearer"])."""
    tmp = tempfile.mkdtemp(prefix="sqe-token-exchange-")
    try:
        srv = RestServer(os.path.join(tmp, "warehouse"), UPSTREAM_TOKENS, {}, prefix="sqe").start()
    except Exception as e:  # no maven / jars here
        shutil.rmtree(tmp, ignore_errors=True)
        pytest.skip("test REST catalog unavailable: %s" % e)
    issuer = keycloak.issuer("sqe")
    introspect = (keycloak.token_url("sqe") + "/introspect", "catalog", "catalog-test-secret")
    user_gw = TokenGateway(srv.uri, issuer, {"sqe"}, exact=False).start()
    ex_gw = TokenGateway(srv.uri, issuer, {"catalog"}, exact=True, introspect=introspect).start()
    Path(tmp, "sqe-client-secret").write_text("sqe-test-secret\n")
    serve = None
    try:
        providers = ('[auth]\nproviders = ["oidc_bearer"]\n'
                     if request.param == "oidc_bearer" else "")
        serve = SqeServe(SQE, os.path.join(tmp, "serve"), providers + f"""
[coordinator]
threads = 2

[auth.oidc]
issuer = "{issuer}"
client_id = "sqe"
audience = "sqe"
client_secret_file = "{tmp}/sqe-client-secret"
allow_insecure_http = true

[catalog]
name = "lake"
type = "rest"
uri = "{user_gw.uri}"
warehouse = "{srv.warehouse}"

[catalogs.ex]
type = "rest"
uri = "{ex_gw.uri}"
warehouse = "{srv.warehouse}"
auth = "token_exchange"
audience = "catalog"
""")
        yield {"port": serve.trino_port, "ex": ex_gw, "lake": user_gw, "serve": serve,
               "mode": request.param}
    finally:
        text = serve.stop()[1] if serve else ""
        user_gw.stop()
        ex_gw.stop()
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    for entry in ex_gw.log + user_gw.log:
        if entry["token"]:
            assert entry["token"] not in text
    assert "sqe-test-secret" not in text
    assert SqeServe.sanitizer_report(text) is None, text[-3000:]


def run(env, sql, token, user):
    conn = trino.dbapi.connect(host="127.0.0.1", port=env["port"], user=user, catalog="ex",
                               schema="default", http_scheme="http",
                               auth=JWTAuthentication(token), allow_insecure_auth=True)
    cur = conn.cursor()
    cur.execute(sql)
    rows = cur.fetchall()
    conn.close()
    return rows


def sha(t):
    return hashlib.sha256(t.encode()).hexdigest()


def test_each_user_calls_with_an_exchanged_token(env, keycloak):
    own = {u: keycloak.password_token("sqe", u, USERS[u])["access_token"] for u in USERS}
    start = len(env["ex"].log)
    run(env, "CREATE SCHEMA ex.xs", own["alice"], "alice")
    run(env, "CREATE TABLE ex.xs.t (x int)", own["alice"], "alice")
    run(env, "INSERT INTO ex.xs.t VALUES (1)", own["alice"], "alice")
    run(env, "INSERT INTO ex.xs.t VALUES (2)", own["bob"], "bob")
    assert run(env, "SELECT sum(x) FROM ex.xs.t", own["alice"], "alice") == [[3]]
    assert run(env, "SELECT count(*) FROM ex.xs.t", own["bob"], "bob") == [[2]]
    log = env["ex"].log[start:]
    assert log
    refused = [e for e in log if e["user"] is None]
    assert not refused, refused
    by_user = {u: [e for e in log if e["user"] == u] for u in USERS}
    for u, entries in by_user.items():
        assert entries, f"no catalog call of {u}"
        assert any(e["method"] == "POST" and "/tables/t" in e["path"] for e in entries), entries
        for e in entries:
            assert e["aud"] == ["catalog"]
            assert e["sha"] != sha(own[u])  # never the user's own token
            _, claims = decode_jwt(e["token"])
            assert claims["preferred_username"] == u
            assert claims["iss"] == keycloak.issuer("sqe")
        # one exchange per user: every call reused the cached token
        assert len({e["sha"] for e in entries}) == 1, u
    assert {e["sha"] for e in by_user["alice"]} != {e["sha"] for e in by_user["bob"]}
    # the users' own tokens never reach the exchanging catalog; with catalog_bearer they went
    # to the session_bearer catalog (authentication), with oidc_bearer SQE checked them itself
    own_shas = {sha(t) for t in own.values()}
    assert not own_shas & {e["sha"] for e in env["ex"].log}
    if env["mode"] == "catalog_bearer":
        assert own_shas <= {e["sha"] for e in env["lake"].log}


def test_refused_exchange_is_unauthenticated(env, keycloak):
    # a token of the other realm: lake refuses it, so sqe serve does not authenticate it
    other = keycloak.password_token("other", "alice", USERS["alice"])["access_token"]
    with pytest.raises(Exception) as ei:
        run(env, "SELECT count(*) FROM ex.xs.t", other, "alice")
    assert "401" in str(ei.value) or "UNAUTHENTICATED" in str(ei.value) or \
        "Unauthorized" in str(ei.value), ei.value
