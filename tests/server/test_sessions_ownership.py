"""Sessions end with their credential, closed sessions stay closed, queries belong to their owner,
and a failed Flight bulk ingest leaves nothing (issue 14, items 8, 9, 10 and 14).

Starts `sqe serve` ($SQE_BIN, default build/sqe) with the helpers of test_server.py:
- item 8: a Flight session (pyarrow.flight Handshake with Basic credentials over TLS) is refused
  with UNAUTHENTICATED on the next call once its user is removed from the users file or its
  password changes; also after a restart with `[session] persistence = "file"` (a session of an
  unchanged user still works then, so the restart really restores sessions);
- item 9: CloseSession is persisted before the reply: close, SIGKILL, restart, the token is
  refused (the session had been saved by an earlier clean restart, so only a write at close
  keeps it out);
- item 10: another logged-in user's GET of a query's nextUri and its DELETE get 404 (as for an
  unknown query) and do not cancel it; the owner still reads and cancels it;
- item 14: a Flight bulk ingest (ADBC adbc_ingest, CommandStatementIngest) that fails leaves no
  table behind when it was to create one, the old table when it was to replace it, and no rows
  when it appends to an existing table (rows of more than one INSERT statement, the last of
  which cannot be stored).
Each check fails on the code before these fixes.

Run: .cache/venv/bin/python -m pytest -q tests/server/test_sessions_ownership.py
"""
import json
import signal
import time

import pytest

from test_server import (BIG, Server, basic_header, free_port, http, passwd, submit,
                         first_page)

fl = pytest.importorskip("pyarrow.flight", reason="pyarrow is not installed in .cache/venv")
pa = pytest.importorskip("pyarrow")


@pytest.fixture
def tmp(tmp_path):
    return tmp_path


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    import subprocess
    d = tmp_path_factory.mktemp("tls")
    r = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", str(d / "key.pem"), "-out", str(d / "cert.pem")], capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    return d / "cert.pem", d / "key.pem"


USERS = {"alice": "wonderland", "bob": "builder"}


_LINES = {}


def write_users(path, users):
    """Writes the users file; a (user, password) pair keeps its line (salt) across rewrites, so
    only the users that change get a new hash."""
    for u, p in users.items():
        if (u, p) not in _LINES:
            _LINES[(u, p)] = passwd(u, p)
    path.write_text("".join(_LINES[(u, p)] + "\n" for u, p in users.items()))


def start(tmp, cert, users, extra="", fport=None):
    """A password-mode server with TLS on both ports; returns (server, flight port)."""
    upath = tmp / "users"
    if users is not None:
        write_users(upath, users)
    fport = fport or free_port()
    toml = (f"[auth]\nmode = \"password\"\nusers_file = \"{upath}\"\n"
            f"[coordinator.tls]\ncert_file = \"{cert[0]}\"\nkey_file = \"{cert[1]}\"\n" + extra)
    s = Server(tmp, toml, tls=True, env={"SQE_COORDINATOR__FLIGHT_SQL_PORT": str(fport)})
    return s, fport


def flight_client(cert, fport):
    return fl.FlightClient(f"grpc+tls://127.0.0.1:{fport}", tls_root_certs=cert[0].read_bytes())


def login(client, user, password):
    """Handshake with Basic credentials: call options carrying the session's bearer token."""
    hdr = client.authenticate_basic_token(user, password)
    assert hdr[1].startswith(b"Bearer "), hdr
    return fl.FlightCallOptions(headers=[hdr])


def flight_select(client, opts, sql="SELECT 40 + 2"):
    from test_server import flight_statement
    info = client.get_flight_info(flight_statement(sql), opts)
    return client.do_get(info.endpoints[0].ticket, opts).read_all().to_pylist()


PERSIST = "[session]\npersistence = \"file\"\n"


# --- item 8: removed users and changed passwords end their Flight sessions -----------------------

def test_removed_user_and_changed_password_end_flight_sessions(tmp, cert):
    s, fport = start(tmp, cert, USERS)
    try:
        client = flight_client(cert, fport)
        alice = login(client, "alice", "wonderland")
        bob = login(client, "bob", "builder")
        assert flight_select(client, alice) == [{"_col0": 42}]
        assert flight_select(client, bob) == [{"_col0": 42}]
        # alice leaves the users file, bob gets a new password
        time.sleep(0.02)  # a new mtime even on coarse clocks
        write_users(tmp / "users", {"bob": "new-builder-pw"})
        with pytest.raises(fl.FlightUnauthenticatedError):
            flight_select(client, alice)
        with pytest.raises(fl.FlightUnauthenticatedError):
            flight_select(client, bob)
        # the session is gone for good, also if the user comes back with the same line
        write_users(tmp / "users", {"alice": "wonderland", "bob": "new-builder-pw"})
        with pytest.raises(fl.FlightUnauthenticatedError):
            flight_select(client, alice)
        # the new password opens a new session
        bob2 = login(client, "bob", "new-builder-pw")
        assert flight_select(client, bob2) == [{"_col0": 42}]
        client.close()
    finally:
        assert s.stop()[0] == 0


def test_removed_user_session_refused_after_restart(tmp, cert):
    s, fport = start(tmp, cert, USERS, PERSIST)
    client = flight_client(cert, fport)
    alice = login(client, "alice", "wonderland")
    bob = login(client, "bob", "builder")
    assert flight_select(client, alice) == [{"_col0": 42}]
    client.close()
    assert s.stop()[0] == 0
    write_users(tmp / "users", {"bob": "builder"})  # alice removed while the server is down
    s, fport = start(tmp, cert, None, PERSIST, fport=fport)
    try:
        client = flight_client(cert, fport)
        assert flight_select(client, bob) == [{"_col0": 42}]  # restored sessions do work
        with pytest.raises(fl.FlightUnauthenticatedError):
            flight_select(client, alice)
        client.close()
    finally:
        assert s.stop()[0] == 0
    saved = json.loads((tmp / "data" / "sessions" / "sessions.json").read_text())
    assert [x["principal"] for x in saved["sessions"]] == ["bob"]
    assert "builder" not in json.dumps(saved) and "wonderland" not in json.dumps(saved)


# --- item 9: CloseSession is persisted before the reply ------------------------------------------

def test_closed_session_stays_closed_after_a_crash(tmp, cert):
    s, fport = start(tmp, cert, USERS, PERSIST)
    client = flight_client(cert, fport)
    alice = login(client, "alice", "wonderland")
    assert flight_select(client, alice) == [{"_col0": 42}]
    client.close()
    assert s.stop()[0] == 0  # a clean stop saves the open session
    s, fport = start(tmp, cert, None, PERSIST, fport=fport)
    client = flight_client(cert, fport)
    assert flight_select(client, alice) == [{"_col0": 42}]
    list(client.do_action(fl.Action("CloseSession", b""), alice))
    s.proc.send_signal(signal.SIGKILL)  # before any snapshot (snapshot_interval is 60 s)
    s.proc.wait()
    s.log.close()
    client.close()
    s, fport = start(tmp, cert, None, PERSIST, fport=fport)
    try:
        client = flight_client(cert, fport)
        with pytest.raises(fl.FlightUnauthenticatedError):
            flight_select(client, alice)
        client.close()
    finally:
        assert s.stop()[0] == 0


# --- item 10: a query's nextUri belongs to its owner ---------------------------------------------

def test_trino_query_belongs_to_its_owner(tmp, cert):
    s, _ = start(tmp, cert, USERS)
    try:
        a, b = basic_header("alice", "wonderland"), basic_header("bob", "builder")
        status, _, doc = submit(s, BIG, headers=a)
        assert status == 200, doc
        doc = first_page(s, doc, headers=a)
        assert "nextUri" in doc
        path = doc["nextUri"].split(str(s.port), 1)[1]
        unknown = path.replace(doc["id"], doc["id"][:-1] + ("0" if doc["id"][-1] != "0" else "1"))
        ref = http(s, "GET", unknown, headers=b)
        assert ref[0] == 404
        # bob can neither read nor cancel it, and learns nothing more than for an unknown query
        status, _, body = http(s, "GET", path, headers=b)
        assert (status, body) == (ref[0], ref[2]), body[:200]
        status, _, body = http(s, "DELETE", path, headers=b)
        assert (status, body) == (ref[0], ref[2]), body[:200]
        # alice's query is still running: she reads the next page, then cancels it
        status, _, body = http(s, "GET", path, headers=a)
        assert status == 200, body[:300]
        nxt = json.loads(body)
        assert nxt["stats"]["state"] != "FAILED", nxt.get("error")
        assert http(s, "DELETE", nxt["nextUri"].split(str(s.port), 1)[1], headers=a)[0] == 204
    finally:
        assert s.stop()[0] == 0


# --- item 14: a failed bulk ingest leaves nothing behind ----------------------------------------

def adbc_connect(cert, fport):
    import adbc_driver_flightsql
    import adbc_driver_flightsql.dbapi as fs
    return fs.connect(f"grpc+tls://127.0.0.1:{fport}", db_kwargs={
        "username": "alice", "password": "wonderland",
        adbc_driver_flightsql.DatabaseOptions.TLS_ROOT_CERTS.value: cert[0].read_text()})


def tables(cur):
    cur.execute("SELECT table_name FROM memory.information_schema.tables "
                "WHERE table_schema = 'default'")
    return sorted(r[0] for r in cur.fetchall())


def test_failed_ingest_leaves_no_table_and_no_rows(tmp, cert):
    pytest.importorskip("adbc_driver_flightsql")
    s, fport = start(tmp, cert, USERS)
    try:
        with adbc_connect(cert, fport) as conn, conn.cursor() as cur:
            cur.execute("USE memory.default")
            cur.fetchall()
            before = tables(cur)
            # create: nested values cannot be loaded, the table created for them must go again
            bad = pa.table({"id": pa.array([1, 2], pa.int64()),
                            "xs": pa.array([[1, 2], [3]], pa.list_(pa.int64()))})
            with pytest.raises(Exception):
                cur.adbc_ingest("nested_t", bad, mode="create")
            assert tables(cur) == before
            # replace: rows that cannot be loaded keep the old table and its rows
            old = pa.table({"id": pa.array([7, 8, 9], pa.int64()),
                            "xs": pa.array([[1], [2], [3]], pa.list_(pa.int64()))})
            assert cur.adbc_ingest("kept", pa.table({"id": pa.array([7, 8, 9], pa.int64())}),
                                   mode="create") == 3
            with pytest.raises(Exception):
                cur.adbc_ingest("kept", old, mode="replace")
            cur.execute("SELECT sum(id) FROM kept")
            assert cur.fetchall() == [(24,)]
            before = sorted(before + ["kept"])
            assert tables(cur) == before
            # append: several statements of rows, the last row does not fit the column
            cur.execute("CREATE TABLE dest (a integer, s varchar)")
            cur.fetchall()
            n = 3000
            big = pa.table({"a": pa.array(list(range(n - 1)) + [1 << 40], pa.int64()),
                            "s": pa.array(["x" * 1000] * n)})
            with pytest.raises(Exception):
                cur.adbc_ingest("dest", big, mode="append")
            cur.execute("SELECT count(*) FROM dest")
            assert cur.fetchall() == [(0,)]
            assert tables(cur) == sorted(before + ["dest"])  # no staging table left
            # a good append of the same size lands whole
            good = pa.table({"a": pa.array(range(n), pa.int64()), "s": pa.array(["y" * 1000] * n)})
            assert cur.adbc_ingest("dest", good, mode="append") == n
            cur.execute("SELECT count(*), sum(a) FROM dest")
            assert cur.fetchall() == [(n, n * (n - 1) // 2)]
            assert tables(cur) == sorted(before + ["dest"])
    finally:
        assert s.stop()[0] == 0
