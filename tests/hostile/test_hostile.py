"""Hostile input against a running `sqe serve`: both ports, raw bytes, every layer.

One server ($SQE_BIN, default build/sqe; `make test` uses the ASan build) serves every test of
this module. After each attack a normal Trino client and a normal ADBC Flight SQL client must
still get right answers and the process must be alive; when the server stops, its log must hold
no sanitizer report.

Flight SQL port (gRPC over HTTP/2):
- raw socket: garbage instead of the HTTP/2 preface; a valid preface followed by junk frames;
  a HEADERS frame for an unknown method (must answer, not hang); a gRPC message whose length
  prefix is larger than its body; a 100 MB length prefix;
- malformed protobufs inside valid gRPC calls (grpcio generic calls with raw bytes):
  GetFlightInfo / GetSchema / DoGet / DoAction with garbage, truncated varints, Any of a Flight
  SQL command with a garbage body, unknown command types, huge declared lengths;
- DoPut (CommandStatementIngest) with garbage, truncated and inconsistent Arrow IPC;
Trino port (HTTP/1.1): bad request lines, a huge header block, bad bodies, invalid UTF-8 in SQL
and in X-Trino-* headers, a Content-Length larger than the body, bad chunked encoding, garbage
query paths;
Both: slowloris clients (bytes trickled) while normal clients keep working.

Run: .cache/venv/bin/python -m pytest -q tests/hostile   (needs grpcio in the venv)
"""
import os
import socket
import struct
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "load"))
from sqe_serve import SqeServe, default_binary  # noqa: E402

grpc = pytest.importorskip("grpc", reason="grpcio is not installed in .cache/venv "
                           "(scripts/setup.sh installs it)")

SVC = "/arrow.flight.protocol.FlightService/"
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
REQUEST_TIMEOUT_S = 3   # --request-timeout of the test server: slowloris is cut after this


# --- the server and the "still works" check -------------------------------------------------------

@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = SqeServe(default_binary(), tmp_path_factory.mktemp("hostile"),
                   "[query]\nmax_concurrent = 200\nmax_concurrent_per_user = 200\n",
                   args=("--request-timeout", str(REQUEST_TIMEOUT_S)))
    yield srv
    status, out = srv.stop()
    assert status == 0, out[-3000:]
    assert SqeServe.sanitizer_report(out) is None, out[-6000:]


def trino_ok(srv):
    import trino
    cur = trino.dbapi.connect(host="127.0.0.1", port=srv.trino_port, user="check",
                              request_timeout=20).cursor()
    cur.execute("SELECT count(*), sum(x) FROM UNNEST(sequence(1, 1000)) t(x)")
    assert cur.fetchall() == [[1000, 500500]]


def flight_ok(srv):
    import adbc_driver_flightsql.dbapi as fs
    warnings.simplefilter("ignore")
    with fs.connect(srv.flight_uri) as conn, conn.cursor() as cur:
        cur.execute("SELECT 41 + 1 AS v, 'ok' AS s")
        assert cur.fetchall() == [(42, "ok")]


def still_works(srv):
    assert srv.alive(), "sqe serve died:\n" + srv.log_text()[-4000:]
    trino_ok(srv)
    flight_ok(srv)
    assert srv.alive()
    assert SqeServe.sanitizer_report(srv.log_text()) is None, srv.log_text()[-6000:]


# --- protobuf and HTTP/2 by hand --------------------------------------------------------------------

def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def pb_bytes(field, data):
    return varint(field << 3 | 2) + varint(len(data)) + data


def pb_varint(field, n):
    return varint(field << 3) + varint(n)


def any_msg(type_name, value):
    return pb_bytes(1, b"type.googleapis.com/arrow.flight.protocol.sql." + type_name.encode()) + \
        pb_bytes(2, value)


def descriptor(cmd):
    return pb_varint(1, 2) + pb_bytes(2, cmd)


def frame(ftype, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack(">I", stream) + payload


def hpack_literal(name, value):
    """A literal header field without indexing, no Huffman coding (RFC 7541 6.2.2)."""
    assert len(name) < 127 and len(value) < 127
    return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


def grpc_headers(srv, method):
    return b"".join(hpack_literal(k, v) for k, v in [
        (b":method", b"POST"), (b":scheme", b"http"), (b":path", method.encode()),
        (b":authority", f"127.0.0.1:{srv.flight_port}".encode()),
        (b"content-type", b"application/grpc"), (b"te", b"trailers")])


def read_frames(sock, seconds):
    """Reads HTTP/2 frames until the peer closes, sends GOAWAY, ends stream 1, or `seconds`
    pass. Returns (frames as (type, flags, stream, payload), closed, timed_out)."""
    sock.settimeout(0.5)
    buf = b""
    frames = []
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            return frames, True, False
        if not chunk:
            return frames, True, False
        buf += chunk
        while len(buf) >= 9:
            n = int.from_bytes(buf[:3], "big")
            if len(buf) < 9 + n:
                break
            ft, fl, st = buf[3], buf[4], int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF
            frames.append((ft, fl, st, buf[9:9 + n]))
            buf = buf[9 + n:]
            if ft == 7:                                    # GOAWAY
                return frames, False, False
            if st == 1 and (ft == 3 or (ft in (0, 1) and fl & 1)):  # RST_STREAM / END_STREAM
                return frames, False, False
            if ft == 4 and not fl & 1:                     # SETTINGS: acknowledge
                sock.sendall(frame(4, 1, 0, b""))
    return frames, False, True


def raw_flight(srv, payload, seconds=10):
    with socket.create_connection(("127.0.0.1", srv.flight_port), timeout=5) as s:
        s.sendall(payload)
        return read_frames(s, seconds)


def ended(frames, closed):
    """The server answered stream 1 (trailers, RST_STREAM), sent GOAWAY or closed."""
    if closed:
        return True
    return any(ft == 7 or (st == 1 and (ft == 3 or (ft == 1 and fl & 1))) for ft, fl, st, _ in frames)


# --- Flight port: raw HTTP/2 and gRPC framing ---------------------------------------------------------

@pytest.mark.parametrize("junk", [
    b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    b"\x00" * 64,
    os.urandom(4096),
    PREFACE[:10] + b"garbage garbage garbage\r\n\r\n",
], ids=["http1", "zeros", "random", "broken-preface"])
def test_flight_garbage_preface(server, junk):
    frames, closed, timed_out = raw_flight(server, junk)
    assert ended(frames, closed), f"no GOAWAY or close after a bad preface: {frames}"
    still_works(server)


@pytest.mark.parametrize("junk", [
    frame(0, 0, 0, b"data on stream zero"),                      # DATA on stream 0
    frame(1, 4, 2, b"\xff\xff\xff"),                             # HEADERS, bad HPACK, even id
    frame(4, 0, 0, b"\x00\x04\xff\xff\xff\xff"),                 # SETTINGS window > 2^31-1
    frame(8, 0, 0, b"\x00\x00\x00\x00"),                         # WINDOW_UPDATE of 0
    frame(6, 0, 0, b"short"),                                    # PING of 5 bytes
    frame(0xEE, 0, 0, b"x" * 32) + b"\x00\x40\x00" + os.urandom(300),  # unknown type, then noise
    b"\xff\xff\xff\x01\x04\x00\x00\x00\x01",                     # a 16 MiB frame header
], ids=["data-stream0", "bad-hpack", "bad-settings", "zero-window-update", "short-ping",
        "unknown-then-noise", "oversize-frame"])
def test_flight_junk_frames_after_preface(server, junk):
    frames, closed, timed_out = raw_flight(server, PREFACE + frame(4, 0, 0, b"") + junk, seconds=4)
    # gRPC core answers some of these with GOAWAY and tolerates others (DATA on stream 0 is
    # ignored); either is fine as long as the connection was served and nothing else suffers
    assert frames or closed, "no answer at all to a valid preface"
    still_works(server)


def test_flight_unknown_method_headers(server):
    hdr = frame(1, 0x4 | 0x1, 1, grpc_headers(server, SVC + "NoSuchMethod"))
    frames, closed, timed_out = raw_flight(server, PREFACE + frame(4, 0, 0, b"") + hdr)
    assert not timed_out, "no answer to a call of an unknown method"
    answered = [f for f in frames if f[2] == 1 and f[0] in (1, 3)]
    assert answered or closed, frames
    # the same through grpcio: the status must be UNIMPLEMENTED
    with grpc.insecure_channel(f"127.0.0.1:{server.flight_port}") as ch:
        with pytest.raises(grpc.RpcError) as e:
            ch.unary_unary(SVC + "NoSuchMethod")(b"", timeout=10)
        assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED
        with pytest.raises(grpc.RpcError) as e:
            ch.unary_unary("/no.such.Service/Method")(b"", timeout=10)
        assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED
    still_works(server)


@pytest.mark.parametrize("declared,body,end", [
    (100, b"\x0a\x05hello", True),                     # prefix larger than the body, stream ends
    (100 * 1024 * 1024, b"\x0a\x05hello", True),       # 100 MB prefix, stream ends
    (0xFFFFFFFF, b"", True),                           # 4 GiB - 1
], ids=["short-body", "100MB-ended", "4GiB"])
def test_flight_grpc_length_prefix(server, declared, body, end):
    hdr = frame(1, 0x4, 1, grpc_headers(server, SVC + "GetFlightInfo"))
    msg = b"\x00" + struct.pack(">I", declared) + body
    data = frame(0, 1 if end else 0, 1, msg)
    frames, closed, timed_out = raw_flight(server, PREFACE + frame(4, 0, 0, b"") + hdr + data,
                                           seconds=15)
    assert ended(frames, closed), f"no answer to a truncated gRPC message: {frames}"
    still_works(server)


def test_flight_100mb_prefix_is_not_buffered(server):
    """A 100 MB length prefix on a stream the client keeps open, then 24 MiB of the message:
    the server (receive limit 64 MiB) must not hold what it got in memory."""
    rss0 = server.rss_kib()
    with socket.create_connection(("127.0.0.1", server.flight_port), timeout=5) as s:
        s.sendall(PREFACE + frame(4, 0, 0, b"") +
                  frame(1, 4, 1, grpc_headers(server, SVC + "GetFlightInfo")) +
                  frame(0, 0, 1, b"\x00" + struct.pack(">I", 100 << 20) + b"x" * 1000))
        stop = threading.Event()

        def drain():            # read whatever the server sends so it never blocks on us
            s.settimeout(0.2)
            while not stop.is_set():
                try:
                    if s.recv(65536) == b"":
                        return
                except socket.timeout:
                    pass
                except OSError:
                    return

        reader = threading.Thread(target=drain)
        reader.start()
        sent, chunk = 0, frame(0, 0, 1, b"y" * 16384)
        t0 = time.time()
        try:
            while sent < (24 << 20) and time.time() - t0 < 60:
                s.sendall(chunk)
                sent += 16384
        except OSError:
            pass                # the server may cut the stream or connection: fine
        growth = server.rss_kib() - rss0
        stop.set()
        reader.join()
    if not sanitized(server):
        # (under ASan freed buffers stay resident in its quarantine: RSS cannot tell there)
        assert growth < 16 * 1024, f"RSS grew by {growth} KiB while {sent >> 20} MiB of an " \
                                   f"oversized message arrived"
    still_works(server)


def sanitized(server):
    """The server binary is an ASan build."""
    with open(server.binary, "rb") as f:
        return b"__asan_init" in f.read()


# --- Flight port: malformed protobufs in valid gRPC calls --------------------------------------------

BAD_PROTOBUFS = {
    "garbage": os.urandom(200),
    "truncated-varint": b"\x08\xff\xff\xff",
    "huge-length": b"\x12\xff\xff\xff\xff\x0f" + b"x" * 10,
    "wrong-wire-type": b"\x0d\x00\x00\x00",
    "descriptor-garbage-any": descriptor(os.urandom(64)),
    "any-of-query-garbage": descriptor(any_msg("CommandStatementQuery", b"\x0a\xff\xff\xff\x7f")),
    "any-unknown-command": descriptor(any_msg("CommandNoSuchThing", b"\x0a\x01x")),
    "any-foreign-type-url": descriptor(pb_bytes(1, b"type.googleapis.com/x.Y") + pb_bytes(2, b"")),
    "any-empty-type-url": descriptor(pb_bytes(2, b"\x0a\x01x")),
    "prepared-unknown-handle": descriptor(any_msg("CommandPreparedStatementQuery",
                                                  pb_bytes(1, os.urandom(32)))),
    "deeply-nested": descriptor(b"\x12" * 5000),
}


@pytest.mark.parametrize("method", ["GetFlightInfo", "GetSchema", "PollFlightInfo"])
@pytest.mark.parametrize("name", sorted(BAD_PROTOBUFS))
def test_flight_malformed_descriptor(server, method, name):
    with grpc.insecure_channel(f"127.0.0.1:{server.flight_port}") as ch:
        with pytest.raises(grpc.RpcError) as e:
            ch.unary_unary(SVC + method)(BAD_PROTOBUFS[name], timeout=20)
        code = e.value.code()
        assert code not in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE), \
            f"{method}/{name}: {code} {e.value.details()}"
        assert e.value.details(), f"{method}/{name}: an error without a message"
    assert server.alive()


@pytest.mark.parametrize("ticket", [
    os.urandom(100), b"", pb_bytes(1, os.urandom(40)), pb_bytes(1, any_msg("TicketStatementQuery",
                                                                           os.urandom(20))),
    pb_bytes(1, any_msg("CommandStatementQuery", pb_bytes(1, b"SELECT 1"))),
    b"\x0a\xff\xff\xff\xff\x0f"], ids=["random", "empty", "random-ticket", "ticket-garbage-handle",
                                       "query-as-ticket", "huge-length"])
def test_flight_malformed_doget(server, ticket):
    with grpc.insecure_channel(f"127.0.0.1:{server.flight_port}") as ch:
        with pytest.raises(grpc.RpcError) as e:
            for _ in ch.unary_stream(SVC + "DoGet")(ticket, timeout=20):
                pass
        assert e.value.code() != grpc.StatusCode.DEADLINE_EXCEEDED
    still_works(server)


@pytest.mark.parametrize("action", [
    os.urandom(80),
    pb_bytes(1, b"CreatePreparedStatement") + pb_bytes(2, os.urandom(50)),
    pb_bytes(1, b"CreatePreparedStatement") + pb_bytes(2, any_msg("ActionCreatePreparedStatementRequest", b"\x0a\xff\xff")),
    pb_bytes(1, b"ClosePreparedStatement") + pb_bytes(2, any_msg("ActionClosePreparedStatementRequest", pb_bytes(1, b"nope"))),
    pb_bytes(1, b"CancelFlightInfo") + pb_bytes(2, os.urandom(30)),
    pb_bytes(1, b"SetSessionOptions") + pb_bytes(2, b"\x0a\xff\xff\xff\x0f"),
    pb_bytes(1, b"NoSuchAction") + pb_bytes(2, b""),
    pb_bytes(1, b"\xff\xfe") + pb_bytes(2, b""),
], ids=["random", "create-garbage", "create-truncated", "close-unknown", "cancel-garbage",
        "session-options-garbage", "unknown-action", "invalid-utf8-type"])
def test_flight_malformed_doaction(server, action):
    with grpc.insecure_channel(f"127.0.0.1:{server.flight_port}") as ch:
        with pytest.raises(grpc.RpcError) as e:
            for _ in ch.unary_stream(SVC + "DoAction")(action, timeout=20):
                pass
        assert e.value.code() != grpc.StatusCode.DEADLINE_EXCEEDED
    still_works(server)


def test_flight_malformed_handshake(server):
    with grpc.insecure_channel(f"127.0.0.1:{server.flight_port}") as ch:
        call = ch.stream_stream(SVC + "Handshake")
        try:
            for _ in call(iter([os.urandom(50), b"\x12\xff\xff\xff\x0f"]), timeout=20):
                pass
        except grpc.RpcError as e:
            assert e.code() != grpc.StatusCode.DEADLINE_EXCEEDED
    still_works(server)


# --- Flight port: DoPut with bad Arrow IPC ------------------------------------------------------------

def ipc_parts(obj):
    """(metadata flatbuffer, body) of a pyarrow schema or record batch's IPC message."""
    buf = obj.serialize().to_pybytes()
    assert buf[:4] == b"\xff\xff\xff\xff"
    n = int.from_bytes(buf[4:8], "little")
    return buf[8:8 + n], buf[8 + n:]


def flight_data(desc=None, header=b"", body=b""):
    m = b""
    if desc is not None:
        m += pb_bytes(1, desc)
    if header:
        m += pb_bytes(2, header)
    if body:
        m += pb_bytes(1000, body)
    return m


def ingest_descriptor(table):
    opts = pb_varint(1, 1) + pb_varint(2, 2)     # create if missing, append if there
    return descriptor(any_msg("CommandStatementIngest", pb_bytes(1, opts) + pb_bytes(2, table.encode())))


def do_put(server, messages):
    with grpc.insecure_channel(f"127.0.0.1:{server.flight_port}") as ch:
        return [r for r in ch.stream_stream(SVC + "DoPut")(iter(messages), timeout=30)]


def arrow_batch():
    pa = pytest.importorskip("pyarrow")
    b = pa.record_batch([pa.array([1, 2, 3], pa.int64()), pa.array(["a", "b", None])],
                        names=["k", "v"])
    return ipc_parts(b.schema), ipc_parts(b)


def test_flight_doput_valid_ingest_reaches_the_table(server):
    """The hand-made DoPut below is right: a correct one lands its rows (so the malformed ones
    reach the Arrow IPC decoder, not an earlier check)."""
    (schema_md, _), (batch_md, batch_body) = arrow_batch()
    do_put(server, [flight_data(ingest_descriptor("hostile_ok"), schema_md),
                    flight_data(None, batch_md, batch_body)])
    import trino
    cur = trino.dbapi.connect(host="127.0.0.1", port=server.trino_port, user="check").cursor()
    cur.execute("SELECT count(*), sum(k), count(v) FROM hostile_ok")
    assert cur.fetchall() == [[3, 6, 2]]


def _flip(b, at):
    b = bytearray(b)
    b[at % len(b)] ^= 0xFF
    return bytes(b)


def bad_doputs():
    (schema_md, _), (batch_md, batch_body) = arrow_batch()
    d = ingest_descriptor("hostile_t")
    cases = {
        "garbage-schema": [flight_data(d, os.urandom(64))],
        "no-schema": [flight_data(d)],
        "truncated-schema": [flight_data(d, schema_md[: len(schema_md) // 2])],
        "batch-before-schema": [flight_data(d, batch_md, batch_body)],
        "truncated-body": [flight_data(d, schema_md), flight_data(None, batch_md, batch_body[:5])],
        "no-body": [flight_data(d, schema_md), flight_data(None, batch_md)],
        "garbage-batch-header": [flight_data(d, schema_md), flight_data(None, os.urandom(96), batch_body)],
        "truncated-batch-header": [flight_data(d, schema_md), flight_data(None, batch_md[:20], batch_body)],
        "schema-twice-different": [flight_data(d, schema_md), flight_data(None, schema_md[:-8] + b"\0" * 8)],
        "garbage-flightdata": [os.urandom(100)],
        "no-descriptor": [flight_data(None, schema_md), flight_data(None, batch_md, batch_body)],
        "descriptor-not-a-command": [flight_data(descriptor(os.urandom(20)), schema_md)],
    }
    for i in range(0, len(batch_md), max(1, len(batch_md) // 24)):
        cases[f"batch-header-flip-{i}"] = [flight_data(d, schema_md),
                                           flight_data(None, _flip(batch_md, i), batch_body)]
    for i in range(0, len(schema_md), max(1, len(schema_md) // 12)):
        cases[f"schema-flip-{i}"] = [flight_data(d, _flip(schema_md, i)),
                                     flight_data(None, batch_md, batch_body)]
    return cases


BAD_DOPUTS = bad_doputs() if __import__("importlib").util.find_spec("pyarrow") else {}


@pytest.mark.parametrize("name", sorted(BAD_DOPUTS))
def test_flight_doput_bad_arrow_ipc(server, name):
    try:
        do_put(server, BAD_DOPUTS[name])
        ok = True   # a flipped byte may still be a valid message (for example, in a name)
    except grpc.RpcError as e:
        ok = False
        assert e.code() != grpc.StatusCode.DEADLINE_EXCEEDED, name
        assert e.details(), name
    assert server.alive(), server.log_text()[-4000:]
    if name in ("garbage-schema", "no-schema", "truncated-schema", "batch-before-schema",
                "truncated-body", "no-body", "garbage-flightdata"):
        assert not ok, f"{name} was accepted"
    still_works(server)


# --- Trino port: malformed HTTP -----------------------------------------------------------------------

def raw_http(srv, data, seconds=10):
    """Sends data; returns (everything the server sent, closed by the server)."""
    with socket.create_connection(("127.0.0.1", srv.trino_port), timeout=5) as s:
        try:
            s.sendall(data)
        except OSError:
            return b"", True
        s.settimeout(seconds)
        out = b""
        try:
            while True:
                c = s.recv(65536)
                if not c:
                    return out, True
                out += c
                if b"\r\n\r\n" in out and _complete(out):
                    return out, False
        except socket.timeout:
            return out, False
        except OSError:
            return out, True


def _complete(resp):
    head, _, body = resp.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            return len(body) >= int(line.split(b":")[1])
    return False


def status_of(resp):
    if not resp.startswith(b"HTTP/1."):
        return None
    return int(resp.split(b" ")[1])


@pytest.mark.parametrize("req", [
    b"GARBAGE\r\n\r\n",
    b"GET\r\n\r\n",
    b"POST /v1/statement HTTP/9.9\r\nHost: x\r\n\r\n",
    b"GET /v1/info HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n",
    b"\x00\x01\x02\x03" * 100 + b"\r\n\r\n",
    b"GET " + b"/" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /v1/info HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
    b"GET /v1/info HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n",
    b"POST /v1/statement HTTP/1.1\r\nHost: x\r\nX-Trino-User: a\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nxx\r\n0\r\n\r\n",
    b"POST /v1/statement HTTP/1.1\r\nHost: x\r\nX-Trino-User: a\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n",
    b"POST /v1/statement HTTP/1.1\r\nHost: x\r\nX-Trino-User: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
], ids=["garbage", "no-path", "http-9.9", "header-no-colon", "binary", "70k-url",
        "negative-length", "huge-length", "bad-chunk", "huge-chunk", "length-and-chunked"])
def test_trino_bad_request_lines(server, req):
    resp, closed = raw_http(server, req)
    st = status_of(resp)
    if b"Content-Length: 5\r\nTransfer-Encoding" in req:
        # RFC 9112 6.3: Transfer-Encoding overrides Content-Length; accepting is allowed
        assert closed or st is not None, resp[:300]
    else:
        assert closed or (st is not None and 400 <= st < 600), resp[:300]
    still_works(server)


INVALID_UTF8_SQL = b"SELECT '\xff\xfe' AS s"
# SQL text that is not valid UTF-8 is refused by the parser; accepted bytes would otherwise come
# back raw (an Arrow utf8 column with invalid UTF-8 over Flight SQL, invalid JSON over Trino).


def test_flight_invalid_utf8_sql(server):
    flight = pytest.importorskip("pyarrow.flight")
    import pyarrow as pa
    c = flight.connect(server.flight_uri)
    cmd = any_msg("CommandStatementQuery", pb_bytes(1, INVALID_UTF8_SQL))
    try:
        info = c.get_flight_info(flight.FlightDescriptor.for_command(cmd))
        table = c.do_get(info.endpoints[0].ticket).read_all()
    except (flight.FlightError, pa.ArrowInvalid) as e:   # INVALID_ARGUMENT comes as ArrowInvalid
        assert "not valid UTF-8" in str(e)
        return                                   # refused: what we want
    finally:
        c.close()
    table.validate(full=True)                    # accepted: the answer must at least be valid


def test_trino_invalid_utf8_sql(server):
    import json
    resp, closed = post_statement(server, INVALID_UTF8_SQL)
    st = status_of(resp)
    assert st is not None
    if st != 200:
        return                                   # refused: what we want
    doc = json.loads(resp.partition(b"\r\n\r\n")[2])
    for _ in range(100):                          # accepted: every page must be valid JSON
        if "nextUri" not in doc:
            break
        path = doc["nextUri"].split(str(server.trino_port), 1)[-1]
        if path.startswith("http://x"):
            path = path[len("http://x"):]
        r, _ = raw_http(server, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        doc = json.loads(r.partition(b"\r\n\r\n")[2])
    assert "error" in doc or doc.get("stats", {}).get("state") == "FINISHED"


def test_trino_huge_headers(server):
    big = b"X-Big: " + b"a" * (300 * 1024) + b"\r\n"
    resp, closed = raw_http(server, b"GET /v1/info HTTP/1.1\r\nHost: x\r\n" + big + b"\r\n")
    assert closed or status_of(resp) in (400, 413, 431), resp[:300]
    many = b"".join(b"X-H%d: v\r\n" % i for i in range(20000))
    resp, closed = raw_http(server, b"GET /v1/info HTTP/1.1\r\nHost: x\r\n" + many + b"\r\n")
    assert closed or status_of(resp) in (400, 413, 431), resp[:300]
    still_works(server)


def post_statement(server, body, headers=b""):
    req = (b"POST /v1/statement HTTP/1.1\r\nHost: x\r\nX-Trino-User: hostile\r\n" + headers +
           b"Content-Length: %d\r\n\r\n" % len(body) + body)
    return raw_http(server, req)


@pytest.mark.parametrize("body,headers", [
    (b"SELECT '\xff\xfe\xfd'", b""),
    (b"\xc3\x28\xa0\xa1", b""),
    (b'{"query": "SELECT 1", "bad json', b"Content-Type: application/json\r\n"),
    (b"\x00SELECT 1", b""),
    (b"", b""),
    (b"SELECT 1", b"X-Trino-Session: \xff\xfe=\xfd\r\n"),
    (b"SELECT 1", b"X-Trino-Session: a=%zz,=,,b\r\n"),
    (b"SELECT 1", b"X-Trino-Prepared-Statement: p=%E0%A4%A\r\n"),
    (b"EXECUTE p", b"X-Trino-Prepared-Statement: p=SELEC%201\r\n"),
    (b"SELECT 1", b"X-Trino-Catalog: \xff\r\nX-Trino-Schema: \x01\x02\r\n"),
    (b"SELECT 1", b"X-Trino-Time-Zone: Mars/Olympus\r\n"),
    (b"SELECT 1", b"X-Trino-User: \xff\xfe\r\n"),
    (b"SELECT 1", b"Authorization: Basic !!!notbase64\r\n"),
    (b"SELECT 1", b"Authorization: Basic " + __import__("base64").b64encode(b"\xff:\xfe") + b"\r\n"),
], ids=["utf8-in-literal", "utf8-sql", "json-body", "nul", "empty", "session-utf8",
        "session-syntax", "prepared-bad-escape", "prepared-bad-sql", "catalog-utf8",
        "bad-time-zone", "user-utf8", "bad-basic", "basic-utf8"])
def test_trino_bad_bodies_and_headers(server, body, headers):
    resp, closed = post_statement(server, body, headers)
    st = status_of(resp)
    assert st is not None, f"no HTTP answer (closed={closed}): {resp[:300]!r}"
    if st == 200:
        # accepted as a statement: it must fail as a query (or, for a valid one, run), never hang
        assert b'"id"' in resp
    else:
        assert 400 <= st < 600, resp[:300]
    still_works(server)


@pytest.mark.parametrize("path", [
    "/v1/statement/queued/../../../etc/passwd/1", "/v1/statement/executing/nope/%ff/1",
    "/v1/statement/queued/20261130_000000_00000_zzzzz/y/99999999999999999999",
    "/v1/statement/" + "a" * 5000, "/v1/statement/executing/%00/x/1", "/v1/%",
])
@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_trino_garbage_query_paths(server, path, method):
    req = f"{method} {path} HTTP/1.1\r\nHost: x\r\nX-Trino-User: hostile\r\n\r\n".encode()
    resp, closed = raw_http(server, req)
    st = status_of(resp)
    assert closed or (st is not None and 400 <= st < 600), resp[:300]
    assert server.alive()


def test_trino_short_body(server):
    """Content-Length larger than the body, then the client goes silent: cut at the deadline."""
    req = (b"POST /v1/statement HTTP/1.1\r\nHost: x\r\nX-Trino-User: a\r\n"
           b"Content-Length: 1000\r\n\r\nSELECT 1")
    t0 = time.time()
    resp, closed = raw_http(server, req, seconds=REQUEST_TIMEOUT_S + 30)
    assert closed or status_of(resp) in (400, 408), resp[:300]
    assert time.time() - t0 < REQUEST_TIMEOUT_S + 25
    still_works(server)


# --- slowloris on both ports ------------------------------------------------------------------------

def _trickle(port, payload, stop, closed_at, idx):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
    except OSError:
        closed_at[idx] = time.time()
        return
    s.settimeout(0.2)
    t0 = time.time()
    i = 0
    try:
        while not stop.is_set():
            if i < len(payload):
                s.sendall(payload[i:i + 1])
                i += 1
            try:
                if s.recv(4096) == b"":
                    closed_at[idx] = time.time() - t0
                    return
            except socket.timeout:
                pass
            stop.wait(0.3)
    except OSError:
        closed_at[idx] = time.time() - t0
    finally:
        s.close()


def test_slowloris_both_ports(server):
    n = 40
    trino_req = (b"POST /v1/statement HTTP/1.1\r\nHost: x\r\nX-Trino-User: slow\r\n"
                 b"Content-Length: 8\r\n\r\nSELECT 1") * 4
    flight_req = PREFACE + frame(4, 0, 0, b"") + frame(1, 4, 1, b"\x00" * 200)
    stop = threading.Event()
    t_closed = [None] * n
    f_closed = [None] * n
    threads = [threading.Thread(target=_trickle, args=(server.trino_port, trino_req, stop, t_closed, i))
               for i in range(n)]
    threads += [threading.Thread(target=_trickle, args=(server.flight_port, flight_req, stop, f_closed, i))
                for i in range(n)]
    for t in threads:
        t.start()
    try:
        deadline = time.time() + REQUEST_TIMEOUT_S + 6
        checks = 0
        while time.time() < deadline:      # normal clients keep working throughout
            t0 = time.time()
            still_works(server)
            assert time.time() - t0 < 10, "a normal client was slowed down by the slow ones"
            checks += 1
        assert checks >= 2
    finally:
        stop.set()
        for t in threads:
            t.join()
    # the Trino port cuts a request whose headers and body do not arrive in time
    cut = [c for c in t_closed if c is not None]
    assert len(cut) == n, f"{n - len(cut)} slow Trino connections still open after " \
                          f"{REQUEST_TIMEOUT_S + 6} s (request timeout {REQUEST_TIMEOUT_S} s)"
    still_works(server)


def test_flight_slowloris_is_disconnected(server):
    n = 5
    req = PREFACE + frame(4, 0, 0, b"") + frame(1, 4, 1, b"\x00" * 400)
    stop = threading.Event()
    closed = [None] * n
    threads = [threading.Thread(target=_trickle, args=(server.flight_port, req, stop, closed, i))
               for i in range(n)]
    for t in threads:
        t.start()
    time.sleep(REQUEST_TIMEOUT_S + 12)
    stop.set()
    for t in threads:
        t.join()
    still_works(server)
    assert all(c is not None for c in closed), f"{closed.count(None)} of {n} still open"


def test_flight_slowloris_after_preface_is_disconnected(server):
    """Preface and SETTINGS at once, then half a HEADERS frame and silence (no PING ACK): the
    server's keepalive PING goes unanswered and the connection is closed. (A client that keeps
    trickling bytes counts as alive for keepalive; the idle limit ends it, see
    tests/flight/test_flight_sql.py::test_trickling_client_is_cut_by_the_idle_limit.)"""
    n = 5
    req = PREFACE + frame(4, 0, 0, b"") + frame(1, 4, 1, b"\x00" * 400)[:100]
    socks = [socket.create_connection(("127.0.0.1", server.flight_port), timeout=5) for _ in range(n)]
    closed = [None] * n
    t0 = time.time()
    limit = 3 * REQUEST_TIMEOUT_S + 10
    try:
        for s in socks:
            s.sendall(req)
            s.settimeout(0.1)
        while time.time() - t0 < limit and None in closed:
            for k, s in enumerate(socks):
                if closed[k] is not None:
                    continue
                try:
                    while s.recv(4096) != b"":
                        pass
                    closed[k] = time.time() - t0
                except socket.timeout:
                    pass
                except OSError:
                    closed[k] = time.time() - t0
    finally:
        for s in socks:
            s.close()
    assert all(c is not None for c in closed), f"{closed.count(None)} of {n} still open after {limit} s"
    assert min(closed) >= REQUEST_TIMEOUT_S - 1, f"cut too early: {closed}"
    still_works(server)


def test_flight_idle_connection_keeps_its_session(server):
    """An idle ADBC connection (it answers PINGs) outlives several keepalive periods: its
    anonymous session (keyed by the connection) still holds a prepared statement afterwards."""
    import adbc_driver_flightsql.dbapi as fs
    warnings.simplefilter("ignore")
    with fs.connect(server.flight_uri) as conn, conn.cursor() as cur:
        cur.adbc_prepare("SELECT ? + 1 AS v")
        cur.execute("SELECT ? + 1 AS v", (1,))
        assert cur.fetchall() == [(2,)]
        time.sleep(REQUEST_TIMEOUT_S * 5)
        cur.execute("SELECT ? + 1 AS v", (41,))      # the same prepared statement handle
        assert cur.fetchall() == [(42,)]
    still_works(server)


def test_flight_slow_doget_is_not_cut(server):
    """A DoGet read slowly for several request timeouts (the server waits on flow control
    meanwhile) runs to the end: keepalive must not cut a live stream."""
    flight = pytest.importorskip("pyarrow.flight")
    import adbc_driver_flightsql.dbapi as fs
    warnings.simplefilter("ignore")
    sql = ("SELECT a * 1000 + b AS x, repeat('y', 50) AS pad FROM UNNEST(sequence(0, 199)) AS t(a) "
           "CROSS JOIN UNNEST(sequence(1, 1000)) AS u(b)")
    with fs.connect(server.flight_uri) as conn, conn.cursor() as cur:
        cur.execute(sql)
        t0 = time.time()
        total = 0
        for b in cur.fetch_record_batch():
            total += b.num_rows
            if time.time() - t0 < REQUEST_TIMEOUT_S * 4:
                time.sleep(0.5)
        assert total == 200000
        assert time.time() - t0 >= REQUEST_TIMEOUT_S * 3, "the stream was too fast to test"
    c = flight.connect(server.flight_uri)             # pyarrow's gRPC (C++ core) client too
    try:
        desc = flight.FlightDescriptor.for_command(
            any_msg("CommandStatementQuery", pb_bytes(1, sql.encode())))
        info = c.get_flight_info(desc)
        rd = c.do_get(info.endpoints[0].ticket)
        t0 = time.time()
        total = 0
        for chunk in rd:
            total += chunk.data.num_rows
            if time.time() - t0 < REQUEST_TIMEOUT_S * 4:
                time.sleep(0.5)
        assert total == 200000
    finally:
        c.close()
    still_works(server)

