"""The oidc_bearer provider against a real Keycloak: users' access tokens over Trino HTTP and
Flight SQL, hostile tokens refused with a reason, key rotation, an unreachable identity provider.

One `sqe serve` (module scope) with `[auth] providers = ["oidc_bearer"]`, a short JWKS cache TTL
(3 s) and no leeway; tokens come from Keycloak's password grant, or are signed by the test with
an RSA key it imported into the realm (jwt_forge.KeycloakAdmin), which Keycloak then publishes
in its JWKS, so each deviation (expired, nbf, audience, ...) is signed by a key SQE trusts.
Every refusal is checked on both protocols: Trino answers 401 with WWW-Authenticate Bearer and
the reason code in the body; Flight answers UNAUTHENTICATED with the reason in the message.
"""
import base64
import json
import threading
import time
import urllib.error
import urllib.request
import ssl
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import jwt_forge
from oidc_clients import adbc_query, serve, stop_clean, trino_query

TTL_S = 3


def oidc_toml(kc, extra="", oidc_extra=""):
    return (f'[catalog]\ntype = "memory"\n'
            f'[auth]\nproviders = ["oidc_bearer"]\n{extra}'
            f'[auth.oidc]\nissuer = "{kc.issuer()}"\naudience = "sqe"\n'
            f'allow_insecure_http = true\nleeway = "0s"\njwks_cache_ttl = "{TTL_S}s"\n'
            f'jwks_refetch_interval = "1s"\n{oidc_extra}')


@pytest.fixture(scope="module")
def server(keycloak, tmp_path_factory):
    # every refusal of this module comes from 127.0.0.1: the address limit is not under test here
    s = serve(tmp_path_factory.mktemp("oidc-bearer"),
              oidc_toml(keycloak, extra="max_failures_per_address = 100000\n"))
    yield s
    stop_clean(s)


@pytest.fixture(scope="module")
def admin(keycloak):
    return jwt_forge.KeycloakAdmin(keycloak)


@pytest.fixture(scope="module")
def forged_key(admin, server):
    """A key imported into the realm after SQE started (so it also proves rotation)."""
    k = admin.add_rsa_key("sqe-test-forge")
    yield k
    try:
        admin.remove_key(k.component_id)
    except urllib.error.HTTPError:
        pass


def token(kc, user):
    return kc.password_token("sqe", user, f"{user}-password")["access_token"]


def trino_status(server, tok, user=None):
    """POST /v1/statement with a bearer; (status, WWW-Authenticate, body)."""
    headers = {"Authorization": "Bearer " + tok}
    if user:
        headers["X-Trino-User"] = user
    req = urllib.request.Request(server.trino_url + "/v1/statement", data=b"SELECT 1",
                                 method="POST", headers=headers)
    ctx = ssl.create_default_context(cafile=str(server.cert))
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=30) as r:
            return r.status, r.headers.get("WWW-Authenticate"), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("WWW-Authenticate"), e.read().decode()


def flight_error(server, tok):
    """A Flight SQL query with the token; the error text (None when it was accepted)."""
    try:
        adbc_query(server, "SELECT 1", bearer=tok)
        return None
    except Exception as e:  # the ADBC error carries the gRPC status and message
        return str(e)


def assert_refused(server, tok, reason):
    status, challenge, body = trino_status(server, tok)
    assert status == 401, (status, body)
    assert challenge and challenge.startswith("Bearer"), challenge
    assert f"({reason})" in body, body
    assert tok[-20:] not in body  # the token is never echoed
    err = flight_error(server, tok)
    assert err is not None, "Flight accepted the token"
    assert "UNAUTHENTICATED" in err.upper(), err
    assert f"({reason})" in err, err


# --- real users ------------------------------------------------------------------------------

def test_trino_runs_as_each_user(keycloak, server):
    from trino.auth import JWTAuthentication
    for user in ("alice", "bob"):
        rows = trino_query(server, "SELECT current_user", auth=JWTAuthentication(token(keycloak, user)))
        assert rows == [[user]]


def test_flight_runs_as_each_user(keycloak, server):
    for user in ("alice", "bob"):
        assert adbc_query(server, "SELECT current_user", bearer=token(keycloak, user)) == [(user,)]


def test_claimed_user_must_match(keycloak, server):
    tok = token(keycloak, "alice")
    status, _, body = trino_status(server, tok, user="bob")
    assert status == 401 and "impersonation" in body, body
    status, _, _ = trino_status(server, tok, user="alice")
    assert status == 200
    try:
        adbc_query(server, "SELECT current_user", bearer=tok, headers={"x-sqe-user": "bob"})
        raise AssertionError("Flight let alice run as bob")
    except Exception as e:
        assert "impersonation" in str(e), e


def test_no_credentials_refused(server):
    ctx = ssl.create_default_context(cafile=str(server.cert))
    req = urllib.request.Request(server.trino_url + "/v1/statement", data=b"SELECT 1",
                                 method="POST", headers={"X-Trino-User": "alice"})
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(req, context=ctx, timeout=30)
    assert e.value.code == 401


# --- hostile tokens ----------------------------------------------------------------------------

def test_expired(keycloak, server, forged_key):
    c = jwt_forge.claims_for(keycloak, "alice", iat=int(time.time()) - 600,
                             exp=int(time.time()) - 60)
    assert_refused(server, jwt_forge.sign_rs256(c, forged_key.private_key, forged_key.kid),
                   "expired")


def test_nbf_in_future(keycloak, server, forged_key):
    c = jwt_forge.claims_for(keycloak, "alice", nbf=int(time.time()) + 600)
    assert_refused(server, jwt_forge.sign_rs256(c, forged_key.private_key, forged_key.kid),
                   "not_yet_valid")


def test_wrong_audience(keycloak, server, forged_key):
    c = jwt_forge.claims_for(keycloak, "alice", audience="someone-else")
    assert_refused(server, jwt_forge.sign_rs256(c, forged_key.private_key, forged_key.kid),
                   "wrong_audience")


def test_wrong_issuer(keycloak, server, forged_key):
    c = jwt_forge.claims_for(keycloak, "alice", iss=keycloak.issuer("other"))
    assert_refused(server, jwt_forge.sign_rs256(c, forged_key.private_key, forged_key.kid),
                   "wrong_issuer")


def test_missing_exp(keycloak, server, forged_key):
    c = jwt_forge.claims_for(keycloak, "alice", exp=None)
    assert_refused(server, jwt_forge.sign_rs256(c, forged_key.private_key, forged_key.kid),
                   "missing_claim")


def test_unknown_key_with_known_kid(keycloak, server, admin):
    _, kid = admin.realm_public_pem()
    c = jwt_forge.claims_for(keycloak, "alice")
    assert_refused(server, jwt_forge.sign_rs256(c, jwt_forge.new_rsa_key(), kid),
                   "bad_signature")


def test_unknown_key_with_unknown_kid(keycloak, server):
    c = jwt_forge.claims_for(keycloak, "alice")
    assert_refused(server, jwt_forge.sign_rs256(c, jwt_forge.new_rsa_key(), "no-such-kid"),
                   "unknown_key")


def test_alg_none(keycloak, server, admin):
    _, kid = admin.realm_public_pem()
    assert_refused(server, jwt_forge.unsigned(jwt_forge.claims_for(keycloak, "alice"), kid),
                   "alg_not_allowed")


def test_hs256_keyed_with_the_public_key(keycloak, server, admin):
    pem, kid = admin.realm_public_pem()
    tok = jwt_forge.hs256(jwt_forge.claims_for(keycloak, "alice"), pem, kid)
    assert_refused(server, tok, "alg_not_allowed")


def test_payload_edited_after_signing(keycloak, server):
    header, payload, sig = token(keycloak, "alice").split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["preferred_username"] = "bob"
    edited = jwt_forge.b64url(json.dumps(claims).encode())
    assert_refused(server, f"{header}.{edited}.{sig}", "bad_signature")


def test_token_of_another_realm(keycloak, server):
    tok = keycloak.password_token("other", "alice", "alice-password")["access_token"]
    # another realm signs with its own keys: SQE does not know them
    assert_refused(server, tok, "unknown_key")


@pytest.mark.parametrize("garbage", ["garbage", "a.b.c", "....", "x" * 12000, "eyJ.eyJ.",
                                     "e30.e30.e30"])
def test_garbage(server, garbage):
    assert_refused(server, garbage, "malformed")


def test_oversized_token(server):
    big = "x" * 17000  # past JWT_MAX_TOKEN_BYTES, and past Flight's 16 KiB header limit
    status, _, body = trino_status(server, big)
    assert status == 401 and "(malformed)" in body, body
    assert flight_error(server, big) is not None  # gRPC refuses the header list itself


def test_refusals_count_toward_the_address_limit(keycloak, tmp_path_factory):
    s = serve(tmp_path_factory.mktemp("oidc-limit"),
              oidc_toml(keycloak, extra="max_failures_per_address = 3\n"))
    try:
        good = token(keycloak, "alice")
        for _ in range(5):  # 3 free failures, then backoff windows (250 ms, doubling)
            assert trino_status(s, "garbage")[0] == 401
        status, _, body = trino_status(s, good)
        assert status == 401 and "Too many failed" in body, body
    finally:
        stop_clean(s)


# --- rotation -------------------------------------------------------------------------------

def test_key_added_after_startup_then_removed(keycloak, server, admin):
    # make sure SQE has fetched the keys before the new one exists
    assert trino_status(server, token(keycloak, "alice"))[0] == 200
    k = admin.add_rsa_key("sqe-test-rotation")
    time.sleep(1.2)  # unknown kids refetch at most once per jwks_refetch_interval (1 s)
    tok = jwt_forge.sign_rs256(jwt_forge.claims_for(keycloak, "carol"), k.private_key, k.kid)
    status, _, body = trino_status(server, tok)
    assert status == 200, body  # unknown kid -> one refetch -> accepted
    assert adbc_query(server, "SELECT current_user", bearer=tok) == [("carol",)]
    admin.remove_key(k.component_id)
    assert trino_status(server, tok)[0] == 200  # cached until the TTL
    time.sleep(TTL_S + 1.5)
    assert_refused(server, tok, "unknown_key")


# --- an identity provider that goes away -------------------------------------------------------

class Relay:
    """Forwards discovery and JWKS GETs to Keycloak (rewriting jwks_uri to itself) until
    stopped; then refuses connections. Lets a test take the IdP away from one SQE."""

    def __init__(self, kc):
        relay = self
        self.kc = kc
        self.up = True

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                if not relay.up:
                    self.send_error(503)
                    return
                if self.path == "/discovery":
                    with urllib.request.urlopen(kc.discovery_url(), timeout=10) as r:
                        doc = json.loads(r.read())
                    doc["jwks_uri"] = f"http://127.0.0.1:{relay.port}/jwks"
                    body = json.dumps(doc).encode()
                elif self.path == "/jwks":
                    with urllib.request.urlopen(kc.jwks_url(), timeout=10) as r:
                        body = r.read()
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def test_idp_unreachable_fails_closed(keycloak, tmp_path_factory):
    relay = Relay(keycloak)
    s = serve(tmp_path_factory.mktemp("oidc-down"),
              oidc_toml(keycloak, oidc_extra=f'discovery_url = "http://127.0.0.1:{relay.port}'
                                             f'/discovery"\n'))
    try:
        tok = token(keycloak, "alice")
        assert trino_status(s, tok)[0] == 200
        relay.up = False
        assert trino_status(s, tok)[0] == 200  # the cached key keeps working until the TTL
        time.sleep(TTL_S + 1.5)
        status, _, body = trino_status(s, tok)
        assert status == 401 and "(unknown_key)" in body, body
        relay.up = True
        time.sleep(1.2)  # past the refetch interval
        assert trino_status(s, tok)[0] == 200  # back when the IdP is
    finally:
        stop_clean(s)
        relay.close()


# --- Flight Handshake with a bearer --------------------------------------------------------------

def handshake(server, tok):
    """A Flight Handshake carrying `authorization: Bearer tok`; the answered authorization."""
    import pyarrow.flight as fl

    class Handler(fl.ClientAuthHandler):
        def authenticate(self, outgoing, incoming):
            outgoing.write(b"")

        def get_token(self):
            return b""

    from pathlib import Path
    client = fl.FlightClient(server.flight_uri, tls_root_certs=Path(server.cert).read_bytes())
    try:
        opts = fl.FlightCallOptions(headers=[(b"authorization", b"Bearer " + tok.encode())],
                                    timeout=20)
        client.authenticate(Handler(), options=opts)
    finally:
        client.close()


def test_flight_handshake_with_bearer(keycloak, server):
    handshake(server, token(keycloak, "alice"))  # accepted
    import pyarrow.flight as fl
    c = jwt_forge.claims_for(keycloak, "alice", exp=int(time.time()) - 60)
    with pytest.raises(fl.FlightUnauthenticatedError) as e:
        handshake(server, jwt_forge.sign_rs256(c, jwt_forge.new_rsa_key(), "no-such-kid"))
    assert "(unknown_key)" in str(e.value), e.value
