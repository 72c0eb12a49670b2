"""SQE's OAuth grants (src/auth/oidc_grant.c) against the real Keycloak of the session.

Role: runs $SQE_BUILD_DIR/oidc_grant_driver (default build-asan/) for each grant: password for
alice and bob, a wrong password (UNAUTHENTICATED invalid_grant, no hint which half was wrong),
client credentials of the sqe client, refresh, RFC 8693 token exchange of alice's token for the
audience `catalog`, a bogus authorization code, an unreachable endpoint (IO_ERROR), and PKCE.
NOTES: the driver prints tokens (a test tool); the JWTs are decoded unverified
(keycloak_peer.decode_jwt): checking signatures is jwt_verify's job, tested in unit_jwt.
"""
import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from keycloak_peer import CLIENT_ID, USERS, client_secret, decode_jwt

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("SQE_BUILD_DIR", ROOT / "build-asan"))
DRIVER = BUILD / "oidc_grant_driver"


def run(endpoint, grant, *args, client=CLIENT_ID, secret=None):
    if not DRIVER.exists():
        pytest.skip(f"{DRIVER} not built (ninja -C {BUILD} oidc_grant_driver)")
    secret = client_secret("sqe") if secret is None else secret
    p = subprocess.run([str(DRIVER), endpoint, client, secret, grant, *args],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode in (0, 1), p.stderr
    out = json.loads(p.stdout)
    assert out["ok"] == (p.returncode == 0)
    return out


def audiences(claims):
    aud = claims.get("aud")
    return set([aud] if isinstance(aud, str) else aud or [])


@pytest.fixture(scope="module")
def token_url(keycloak):
    return keycloak.token_url("sqe")


@pytest.mark.parametrize("user", sorted(USERS))
def test_password_grant(token_url, keycloak, user):
    out = run(token_url, "password", user, USERS[user])
    assert out["ok"], out
    assert out["token_type"].lower() == "bearer"
    _, claims = decode_jwt(out["access_token"])
    assert claims["preferred_username"] == user
    assert claims["iss"] == keycloak.issuer("sqe")
    assert CLIENT_ID in audiences(claims)
    assert out["refresh_token"] and out["id_token"]
    assert "openid" in out["scope"].split()
    # expires_in (300 s in the realm) became an absolute time
    assert 250_000 <= out["expires_in_ms"] <= 300_000
    assert out["refresh_expires_in_ms"] > 0


def test_wrong_password(token_url):
    wrong_pw = run(token_url, "password", "alice", "not-her-password")
    no_user = run(token_url, "password", "nobody-such", "not-her-password")
    for out in (wrong_pw, no_user):
        assert not out["ok"]
        assert out["code"] == "UNAUTHENTICATED" and out["sqlstate"] == "28000"
        assert out["error"] == "invalid_grant"
        assert out["message"] == "identity provider refused the password grant: invalid_grant"
        assert "not-her-password" not in json.dumps(out)
    # the same answer whichever half was wrong
    assert wrong_pw["message"] == no_user["message"]


def test_wrong_client_secret(token_url):
    out = run(token_url, "password", "alice", USERS["alice"], secret="wrong-secret")
    assert out["code"] == "UNAUTHENTICATED"
    assert out["error"] in ("invalid_client", "unauthorized_client")  # Keycloak: the latter
    assert "wrong-secret" not in json.dumps(out)


def test_client_credentials(token_url, keycloak):
    # the configured client is a public one here: the grant authenticates with the ids given
    out = run(token_url, "client_credentials", CLIENT_ID, client_secret("sqe"), secret="-")
    assert out["ok"], out
    _, claims = decode_jwt(out["access_token"])
    assert claims["preferred_username"] == "service-account-sqe"
    assert claims["azp"] == CLIENT_ID
    bad = run(token_url, "client_credentials", CLIENT_ID, "wrong-secret")
    assert bad["code"] == "UNAUTHENTICATED"
    assert bad["error"] in ("invalid_client", "unauthorized_client")


def test_refresh(token_url):
    first = run(token_url, "password", "bob", USERS["bob"])
    out = run(token_url, "refresh", first["refresh_token"])
    assert out["ok"], out
    _, claims = decode_jwt(out["access_token"])
    _, before = decode_jwt(first["access_token"])
    assert claims["preferred_username"] == "bob"
    assert claims["sub"] == before["sub"]
    bad = run(token_url, "refresh", "not-a-refresh-token")
    assert bad["code"] == "UNAUTHENTICATED" and bad["error"] == "invalid_grant"
    assert bad["message"] == "identity provider refused the refresh_token grant: invalid_grant"


def test_token_exchange(token_url, keycloak):
    alice = run(token_url, "password", "alice", USERS["alice"])["access_token"]
    out = run(token_url, "exchange", alice, "catalog")
    assert out["ok"], out
    assert out["issued_token_type"] == "urn:ietf:params:oauth:token-type:access_token"
    _, claims = decode_jwt(out["access_token"])
    assert claims["preferred_username"] == "alice"
    assert audiences(claims) == {"catalog"}
    assert claims["iss"] == keycloak.issuer("sqe")
    assert out["expires_in_ms"] > 0
    # an audience the sqe client may not ask for, and a subject token that is no token
    nope = run(token_url, "exchange", alice, "no-such-client")
    assert nope["code"] == "UNAUTHENTICATED" and nope["error"], nope
    bogus = run(token_url, "exchange", "not.a.token", "catalog")
    assert bogus["code"] == "UNAUTHENTICATED" and bogus["error"], bogus


def test_authorization_code_bogus(token_url):
    out = run(token_url, "authorization_code", "bogus-code", "http://127.0.0.1:9/callback",
              "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    assert out["code"] == "UNAUTHENTICATED" and out["error"] == "invalid_grant"
    assert out["message"] == ("identity provider refused the authorization_code grant: "
                              "invalid_grant")


def test_unreachable_endpoint():
    with socket.socket() as s:  # a free port nobody listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/realms/sqe/protocol/openid-connect/token"
    out = run(url, "password", "alice", "alice-password", secret="s")
    assert out["code"] == "IO_ERROR", out
    assert url in out["message"] and "unreachable" in out["message"]
    assert "alice-password" not in out["message"]
    assert out["error"] is None


def test_not_a_token_endpoint(keycloak):
    # a 200 that is not a token response (the discovery document) is an IO_ERROR
    out = run(keycloak.discovery_url("sqe"), "password", "alice", USERS["alice"])
    assert out["code"] in ("IO_ERROR",), out


def test_pkce_rfc7636():
    out = run("http://127.0.0.1:9/", "pkce", "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
    assert out["challenge"] == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
