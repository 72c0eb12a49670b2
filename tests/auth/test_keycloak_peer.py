"""The Keycloak test peer gives what SQE's identity tests rely on (issue 16).

Role: checks the realm files and keycloak_peer.py against the real Keycloak: password and
client-credentials tokens with the issuer, audience, groups, roles and user name SQE reads, a
second realm whose alice has another issuer, discovery and a JWKS with an RS256 key.
NOTES: the JWTs are decoded without a signature check (keycloak_peer.decode_jwt); checking them
is SQE's job (src/auth/).
"""
import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

import keycloak_peer
from keycloak_peer import CLIENT_ID, USERS, decode_jwt

EXPECTED = {
    "alice": ({"analysts"}, {"reader"}),
    "bob": ({"engineers"}, {"reader", "writer"}),
}


def get_json(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


def audiences(claims):
    aud = claims.get("aud")
    return set([aud] if isinstance(aud, str) else aud or [])


@pytest.mark.parametrize("user", sorted(EXPECTED))
def test_password_grant_claims(keycloak, user):
    tok = keycloak.password_token("sqe", user, USERS[user])
    header, claims = decode_jwt(tok["access_token"])
    groups, roles = EXPECTED[user]
    assert header["alg"] == "RS256" and header.get("kid")
    assert claims["iss"] == keycloak.issuer("sqe")
    assert CLIENT_ID in audiences(claims)
    assert claims["preferred_username"] == user
    assert set(claims["groups"]) == groups
    assert roles <= set(claims["realm_access"]["roles"])
    assert "writer" not in claims["realm_access"]["roles"] or user == "bob"
    assert claims["sub"] and claims["azp"] == CLIENT_ID
    assert 60 <= claims["exp"] - claims["iat"] <= 300
    assert tok.get("refresh_token") and tok.get("id_token")


def test_users_differ(keycloak):
    subs = {decode_jwt(keycloak.password_token("sqe", u, p)["access_token"])[1]["sub"]
            for u, p in USERS.items()}
    assert len(subs) == len(USERS)


def test_wrong_password_refused(keycloak):
    with pytest.raises(RuntimeError, match="invalid_grant"):
        keycloak.password_token("sqe", "alice", "not-her-password")


def test_client_credentials(keycloak):
    tok = keycloak.client_credentials_token()
    _, claims = decode_jwt(tok["access_token"])
    assert claims["iss"] == keycloak.issuer("sqe")
    assert CLIENT_ID in audiences(claims)
    assert claims["azp"] == CLIENT_ID
    assert claims["preferred_username"] == "service-account-sqe"


def test_other_realm_has_its_own_issuer(keycloak):
    _, claims = decode_jwt(keycloak.password_token("other", "alice", USERS["alice"])["access_token"])
    _, ours = decode_jwt(keycloak.password_token("sqe", "alice", USERS["alice"])["access_token"])
    assert claims["preferred_username"] == "alice"
    assert claims["iss"] == keycloak.issuer("other") != keycloak.issuer("sqe")
    assert claims["sub"] != ours["sub"]
    other_kids = {k["kid"] for k in get_json(keycloak.jwks_url("other"))["keys"]}
    our_kids = {k["kid"] for k in get_json(keycloak.jwks_url("sqe"))["keys"]}
    assert not other_kids & our_kids


@pytest.mark.parametrize("realm", ["sqe", "other"])
def test_discovery_and_jwks(keycloak, realm):
    disc = get_json(keycloak.discovery_url(realm))
    assert disc["issuer"] == keycloak.issuer(realm)
    assert disc["jwks_uri"] == keycloak.jwks_url(realm)
    assert disc["token_endpoint"] == keycloak.token_url(realm)
    assert "authorization_endpoint" in disc
    keys = get_json(disc["jwks_uri"])["keys"]
    rs256 = [k for k in keys if k.get("alg") == "RS256" and k.get("use", "sig") == "sig"]
    assert rs256 and all(k["kty"] == "RSA" and k["n"] and k["e"] and k["kid"] for k in rs256)


def test_access_token_kid_is_in_jwks(keycloak):
    header, _ = decode_jwt(keycloak.password_token("sqe", "bob", USERS["bob"])["access_token"])
    assert header["kid"] in {k["kid"] for k in get_json(keycloak.jwks_url("sqe"))["keys"]}


def test_standard_token_exchange(keycloak):
    alice = keycloak.password_token("sqe", "alice", USERS["alice"])["access_token"]
    tok = keycloak.exchange_token("sqe", alice, audience=CLIENT_ID)
    _, claims = decode_jwt(tok["access_token"])
    assert claims["iss"] == keycloak.issuer("sqe")
    assert claims["preferred_username"] == "alice"
    assert CLIENT_ID in audiences(claims)
    assert set(claims["groups"]) == {"analysts"}


def test_authorization_code_login_form_for_any_loopback_port(keycloak):
    """The later Trino OAuth2 login: client sqe may redirect to a loopback callback on any port,
    with PKCE; a redirect elsewhere is refused."""
    disc = get_json(keycloak.discovery_url("sqe"))
    assert "S256" in disc["code_challenge_methods_supported"]

    def authorize(redirect_uri):
        q = urllib.parse.urlencode({
            "response_type": "code", "client_id": CLIENT_ID, "scope": "openid",
            "redirect_uri": redirect_uri, "state": "s1",
            "code_challenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGMSstw-cM",
            "code_challenge_method": "S256"})
        try:
            with urllib.request.urlopen(disc["authorization_endpoint"] + "?" + q,
                                        timeout=30) as r:
                return r.status, r.read().decode(errors="replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(errors="replace")

    for port in (keycloak_peer.free_port(), 54321):
        status, page = authorize(f"http://127.0.0.1:{port}/oauth2/callback")
        assert status == 200 and 'name="username"' in page and 'name="password"' in page
    status, _ = authorize("http://attacker.example/oauth2/callback")
    assert status == 400
