"""Clients and servers of the identity tests: `sqe serve` with TLS (tests/load/sqe_serve.py),
the trino Python client and the ADBC Flight SQL driver trusting its test certificate.

Role: the Keycloak-backed tests run real clients against a real server; the trino client and
ADBC refuse credentials over plain text, so every server here has TLS on both ports.
INTERFACE: serve(tmp, toml) -> SqeServe; stop_clean(server) -> log; trino_query(server, sql,
  auth, user); adbc_query(server, sql, bearer, headers, user, password).
NOTES: the binary is $SQE_BIN, else build-asan/sqe.
"""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "load"))
from sqe_serve import SqeServe  # noqa: E402

SQE = Path(os.environ.get("SQE_BIN", ROOT / "build-asan" / "sqe"))


def serve(tmp, toml, **kw):
    """`sqe serve` with TLS and toml (data under tmp)."""
    return SqeServe(SQE, tmp, toml, tls=True, **kw)


def stop_clean(server):
    """Stops server; fails on a sanitizer report in its log; returns the log."""
    _, log = server.stop()
    report = SqeServe.sanitizer_report(log)
    assert report is None, f"sanitizer report in sqe serve's log: {report}\n{log[-4000:]}"
    return log


def trino_conn(server, auth=None, user=None, headers=None):
    import requests
    import trino
    # requests would take REQUESTS_CA_BUNDLE over the session's verify: trust only the test cert
    session = requests.Session()
    session.trust_env = False
    session.verify = str(server.cert)
    return trino.dbapi.connect(host="127.0.0.1", port=server.trino_port, http_scheme="https",
                               verify=str(server.cert), auth=auth, user=user,
                               http_headers=headers or None, http_session=session)


def trino_query(server, sql, auth=None, user=None):
    with trino_conn(server, auth, user) as c:
        cur = c.cursor()
        cur.execute(sql)
        return cur.fetchall()


def adbc_query(server, sql, bearer=None, headers=None, user=None, password=None):
    """One query through the ADBC Flight SQL driver (TLS with the test certificate): with a
    bearer token on every call, or Basic user/password (a Handshake), plus extra headers."""
    from adbc_driver_flightsql import DatabaseOptions, dbapi
    kw = {DatabaseOptions.TLS_ROOT_CERTS.value: Path(server.cert).read_text()}
    if bearer is not None:
        kw[DatabaseOptions.AUTHORIZATION_HEADER.value] = "Bearer " + bearer
    for k, v in (headers or {}).items():
        kw[DatabaseOptions.RPC_CALL_HEADER_PREFIX.value + k] = v
    if user is not None:
        kw["username"] = user
        kw["password"] = password
    with dbapi.connect(server.flight_uri, db_kwargs=kw) as conn:
        with conn.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()
