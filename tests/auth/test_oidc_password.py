"""The oidc_password and client_credentials providers against a real Keycloak: clients that only
know a password (the trino client with Basic, ADBC's Flight handshake) run with the user's own
IdP tokens; service accounts log in with client credentials; logins are refreshed before they
expire and a session ends when its login cannot be refreshed.

One `sqe serve` (module scope) with `[auth] providers = ["client_credentials", "oidc_password"]`
and refresh_before = 295 s (Keycloak's tokens here live 300 s, so every call after the first
few seconds refreshes), which makes the refresh path run in seconds instead of minutes.
"""
import json
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from trino.auth import BasicAuthentication

import jwt_forge
from oidc_clients import adbc_query, serve, stop_clean, trino_query


def password_toml(kc, refresh_before="295s"):
    return (f'[catalog]\ntype = "memory"\n'
            f'[auth]\nproviders = ["client_credentials", "oidc_password"]\n'
            f'max_failures_per_address = 100000\n'
            f'[auth.oidc]\nissuer = "{kc.issuer()}"\nclient_id = "sqe"\n'
            f'client_secret = "sqe-test-secret"\nallow_insecure_http = true\n'
            f'refresh_before = "{refresh_before}"\n')


@pytest.fixture(scope="module")
def server(keycloak, tmp_path_factory):
    s = serve(tmp_path_factory.mktemp("oidc-password"), password_toml(keycloak))
    yield s
    log = stop_clean(s)
    for secret in ("alice-password", "bob-password", "sqe-test-secret"):
        assert secret not in log


class Admin(jwt_forge.KeycloakAdmin):
    def user_id(self, name):
        _, _, body = self._call("GET", "/users?exact=true&username=" + urllib.parse.quote(name))
        return json.loads(body)[0]["id"]

    def sessions(self, name):
        _, _, body = self._call("GET", f"/users/{self.user_id(name)}/sessions")
        return json.loads(body)

    def logout(self, name):
        self._call("POST", f"/users/{self.user_id(name)}/logout")


def trino_status(server, user, password):
    import base64
    cred = base64.b64encode(f"{user}:{password}".encode()).decode()
    req = urllib.request.Request(server.trino_url + "/v1/statement", data=b"SELECT 1",
                                 method="POST", headers={"Authorization": "Basic " + cred})
    ctx = ssl.create_default_context(cafile=str(server.cert))
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_trino_password_users(server):
    for user in ("alice", "bob"):
        auth = BasicAuthentication(user, f"{user}-password")
        assert trino_query(server, "SELECT current_user", auth=auth, user=user) == [[user]]


def test_wrong_and_unknown_password_look_alike(server):
    s1, b1 = trino_status(server, "alice", "not-her-password")
    s2, b2 = trino_status(server, "nobody-here", "whatever")
    assert s1 == 401 and s2 == 401
    assert "Invalid user name or password" in b1 and b1 == b2, (b1, b2)
    assert "not-her-password" not in b1


def test_flight_handshake_users(server):
    for user in ("alice", "bob"):
        assert adbc_query(server, "SELECT current_user", user=user,
                          password=f"{user}-password") == [(user,)]


def test_flight_wrong_password(server):
    with pytest.raises(Exception) as e:
        adbc_query(server, "SELECT 1", user="alice", password="wrong")
    assert "UNAUTHENTICATED" in str(e.value).upper(), e.value


def test_client_credentials(server):
    rows = trino_query(server, "SELECT current_user",
                       auth=BasicAuthentication("sqe", "sqe-test-secret"),
                       user="service-account-sqe")
    assert rows == [["service-account-sqe"]]
    # a client with the wrong secret is no client: passed on to oidc_password, refused there
    assert trino_status(server, "sqe", "wrong-secret")[0] == 401


def test_refreshed_not_logged_in_again(keycloak, server):
    admin = Admin(keycloak)
    auth = BasicAuthentication("bob", "bob-password")
    assert trino_query(server, "SELECT current_user", auth=auth, user="bob") == [["bob"]]
    time.sleep(6)  # the access token now has < 295 s left: the next request refreshes it
    assert trino_query(server, "SELECT current_user", auth=auth, user="bob") == [["bob"]]
    # bob's IdP sessions: SQE's login, and those of the other modules' password grants (the
    # Keycloak of the run is shared)
    first = {s["id"]: s["lastAccess"] for s in admin.sessions("bob")}
    assert first, first
    time.sleep(6)
    assert trino_query(server, "SELECT current_user", auth=auth, user="bob") == [["bob"]]
    later = {s["id"]: s["lastAccess"] for s in admin.sessions("bob")}
    assert set(later) == set(first), (first, later)  # no new login: the same IdP sessions,
    assert any(later[i] > first[i] for i in first), (first, later)  # and SQE's refreshed


def test_flight_session_ends_when_refresh_fails(keycloak, server):
    from adbc_driver_flightsql import DatabaseOptions, dbapi
    from pathlib import Path
    admin = Admin(keycloak)
    kw = {DatabaseOptions.TLS_ROOT_CERTS.value: Path(server.cert).read_text(),
          "username": "alice", "password": "alice-password"}
    conn = dbapi.connect(server.flight_uri, db_kwargs=kw)
    try:
        cur = conn.cursor()
        cur.execute("SELECT current_user")
        assert cur.fetchall() == [("alice",)]
        time.sleep(6)  # refreshed with the refresh token at the next call
        cur.execute("SELECT current_user")
        assert cur.fetchall() == [("alice",)]
        admin.logout("alice")  # the IdP ends the login: refreshing fails from now on
        time.sleep(6)  # past refresh_before again
        with pytest.raises(Exception) as e:
            cur.execute("SELECT current_user")
            cur.fetchall()
        assert "Session ended" in str(e.value), e.value
    finally:
        try:
            conn.close()
        except Exception:
            pass  # closing statements of an ended session fails too
