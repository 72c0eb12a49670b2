"""system.runtime.sessions and the principal functions over both protocols (issue 16, item 6).

Starts `sqe serve` ($SQE_BIN, default build/sqe) in password mode with TLS on the Trino and the
Flight SQL port (free ports, the helpers of test_server.py and test_sessions_ownership.py), with
two users of the users file:
- each user, through the trino client (Basic) and through a Flight session (Handshake), sees
  in system.runtime.sessions their own sessions only: the Trino query that asks (protocol
  trino, state active, its query id as session_id, the client's X-Trino-Source) and their
  Flight session (protocol flight, auth_method password, the session's catalog after USE);
- no column of any row holds a session token, a password or a part of the Authorization
  header; session ids are not tokens;
- current_groups() and current_roles() are array(varchar) and empty for users-file principals
  (which carry no groups or roles), current_user is the caller, on both protocols.

Run: .cache/venv/bin/python -m pytest -q tests/server/test_runtime_sessions.py
"""
import datetime

import pytest

from test_server import connect
from test_sessions_ownership import USERS, cert, flight_client, login, start, tmp  # noqa: F401

fl = pytest.importorskip("pyarrow.flight", reason="pyarrow is not installed in .cache/venv")

COLUMNS = ["session_id", "user", "auth_method", "protocol", "source", "client_address",
           "created", "last_used", "catalog", "schema", "state"]


def trino_rows(s, user, sql, source="sqe-test"):
    cur = connect(s, user, USERS[user], source=source).cursor()
    cur.execute(sql)
    rows = cur.fetchall()
    return [d[0] for d in cur.description], rows


def flight_rows(client, opts, sql):
    from test_server import flight_statement
    info = client.get_flight_info(flight_statement(sql), opts)
    return client.do_get(info.endpoints[0].ticket, opts).read_all().to_pylist()


def no_secret(rows, secrets):
    for row in rows:
        for cell in (row.values() if isinstance(row, dict) else row):
            text = str(cell)
            for sec in secrets:
                assert sec not in text, (sec, row)


def test_each_user_sees_only_their_own_sessions(tmp, cert, monkeypatch):  # noqa: F811
    # requests prefers these over the session's verify (see test_server.ca_env)
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(cert[0]))
    monkeypatch.setenv("CURL_CA_BUNDLE", str(cert[0]))
    s, fport = start(tmp, cert, USERS)
    client = None
    try:
        s.ca = str(cert[0])
        client = flight_client(cert, fport)
        fa, fb = login(client, "alice", "wonderland"), login(client, "bob", "builder")
        tokens = [h[1].decode().split(" ", 1)[1] for o in (fa, fb) for h in o.headers]
        assert all(len(t) >= 32 for t in tokens)
        flight_rows(client, fa, "CREATE SCHEMA memory.s1")
        flight_rows(client, fa, "USE memory.s1")
        secrets = tokens + list(USERS.values())

        for user in USERS:
            names, rows = trino_rows(s, user, "SELECT * FROM system.runtime.sessions")
            assert names == COLUMNS
            assert rows, user
            assert {r[1] for r in rows} == {user}
            no_secret(rows, secrets)
            mine = [r for r in rows if r[3] == "trino"]
            assert len(mine) == 1, rows
            sid, _, method, _, source, addr, created, last_used, _, _, state = mine[0]
            assert method == "password" and source == "sqe-test" and state == "active"
            assert addr.startswith("127.0.0.1:")
            assert isinstance(created, datetime.datetime) and created <= last_used
            assert abs((datetime.datetime.now(datetime.timezone.utc) - created).total_seconds()) < 60
            flight = [r for r in rows if r[3] == "flight"]
            assert len(flight) == 1, rows
            assert flight[0][2] == "password" and flight[0][0].startswith("flight-")
            assert flight[0][0] not in tokens
            if user == "alice":
                assert (flight[0][8], flight[0][9]) == ("memory", "s1")

        # through Flight: the asking session is active, the other user's is not listed
        rows = flight_rows(client, fb, "SELECT session_id, user, protocol, state, auth_method "
                                       "FROM system.runtime.sessions")
        assert rows and {r["user"] for r in rows} == {"bob"}
        assert [r["state"] for r in rows if r["protocol"] == "flight"] == ["active"]
        no_secret(rows, secrets)

        # the principal functions: a users-file principal has no groups and no roles
        names, rows = trino_rows(s, "alice", "SELECT current_user, current_groups(), "
                                             "current_roles(), typeof(current_groups())")
        assert rows == [["alice", [], [], "array(varchar)"]]
        assert flight_rows(client, fb, "SELECT current_user AS u, current_groups() AS g, "
                                       "current_roles() AS r") == [{"u": "bob", "g": [], "r": []}]
    finally:
        if client:
            client.close()
        code, out = s.stop()
    assert code == 0
    for t in tokens:
        assert t not in out
