"""What SQL sees of an OIDC principal, with Keycloak-issued tokens on both protocols (issue 16,
item 6): current_user, current_groups() and current_roles() from the token's claims, and
system.runtime.sessions with auth method oidc_bearer, each user's own rows only, every row for a
holder of an [auth] admin_roles role, never a token.

One `sqe serve` (module scope) with `[auth] providers = ["oidc_bearer"]` and `admin_roles =
["writer"]` against the session's Keycloak (realm `sqe`: alice is in `analysts` with role
`reader`; bob is in `engineers` with `reader` and `writer`); the trino client with JWT
authentication and ADBC with a bearer on every call.

Run: .cache/venv/bin/python -m pytest -q -p no:cacheprovider tests/auth/test_principal_sql.py
"""
from pathlib import Path

import pytest
from trino.auth import JWTAuthentication

from oidc_clients import adbc_query, serve, stop_clean, trino_query


@pytest.fixture(scope="module")
def server(keycloak, tmp_path_factory):
    s = serve(tmp_path_factory.mktemp("principal-sql"),
              f'[catalog]\ntype = "memory"\n'
              f'[auth]\nproviders = ["oidc_bearer"]\nadmin_roles = ["writer"]\n'
              f'[auth.oidc]\nissuer = "{keycloak.issuer()}"\naudience = "sqe"\n'
              f'allow_insecure_http = true\n')
    yield s
    stop_clean(s)


def token(kc, user):
    return kc.password_token("sqe", user, f"{user}-password")["access_token"]


GROUPS = {"alice": ["analysts"], "bob": ["engineers"]}
ROLES = {"alice": {"reader"}, "bob": {"reader", "writer"}}
PRINCIPAL_SQL = "SELECT current_user, current_groups(), current_roles()"


def test_groups_and_roles_on_both_protocols(keycloak, server):
    for user in ("alice", "bob"):
        tok = token(keycloak, user)
        [(u, groups, roles)] = trino_query(server, PRINCIPAL_SQL, auth=JWTAuthentication(tok))
        assert (u, groups) == (user, GROUPS[user])
        # Keycloak adds its default roles (default-roles-sqe, offline_access, ...) to the realm's
        assert ROLES[user] <= set(roles) and ("writer" in roles) == (user == "bob"), roles
        [(u, groups, roles2)] = adbc_query(server, PRINCIPAL_SQL, bearer=tok)
        assert (u, list(groups), list(roles2)) == (user, GROUPS[user], roles)


def adbc_connect(serve, bearer):
    """An open ADBC Flight SQL connection (its session lives until it is closed)."""
    from adbc_driver_flightsql import DatabaseOptions, dbapi
    return dbapi.connect(serve.flight_uri, db_kwargs={
        DatabaseOptions.TLS_ROOT_CERTS.value: Path(serve.cert).read_text(),
        DatabaseOptions.AUTHORIZATION_HEADER.value: "Bearer " + bearer})


def run(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def test_sessions_show_own_rows_admins_all_no_token(keycloak, server):
    ta, tb = token(keycloak, "alice"), token(keycloak, "bob")
    sql = ("SELECT session_id, user, auth_method, protocol, client_address, state, "
           "CAST(created AS varchar), catalog, schema FROM system.runtime.sessions")
    with adbc_connect(server, ta) as ca, adbc_connect(server, tb) as cb:
        run(ca, "SELECT 1")
        rows = trino_query(server, sql, auth=JWTAuthentication(ta))
        assert rows and {r[1] for r in rows} == {"alice"}, rows
        assert {r[2] for r in rows} == {"oidc_bearer"}
        assert {r[3] for r in rows} == {"trino", "flight"}, rows
        assert [r[5] for r in rows if r[3] == "trino"] == ["active"]
        # bob holds `writer`, one of admin_roles: he sees alice's sessions too
        rows_b = run(cb, sql)
        assert {r[1] for r in rows_b} == {"alice", "bob"}, rows_b
        assert [r[5] for r in rows_b if r[1] == "bob"] == ["active"], rows_b
        # alice's own Flight session sees only hers
        assert {r[1] for r in run(ca, sql)} == {"alice"}
    # closed sessions are gone
    assert {r[3] for r in trino_query(server, sql, auth=JWTAuthentication(ta))} == {"trino"}
    for r in rows + rows_b:
        text = "|".join(str(c) for c in r)
        for tok in (ta, tb):
            assert tok not in text and tok[-24:] not in text, r
    log = server.log_text()
    assert ta not in log and tb not in log
