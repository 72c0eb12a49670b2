"""Resource limits of the Flight SQL port against hostile clients (issue 14 items 4 and 5).

Servers ($SQE_BIN, default build/sqe; `make test` uses the ASan build), each started once:
- flood:   [coordinator] flight_transport_memory = 8MiB. A raw socket sends a HEADERS frame
           without END_HEADERS, then CONTINUATION frames of small header fields (each frame under
           gRPC's per-frame 16 KiB limit) for 100 MB. gRPC 1.51 checks its metadata limit per
           frame only, so before the fix the block was buffered whole (+397 MiB of RSS under
           ASan for 100 MiB sent, the connection never closed). Now gRPC's buffers are bounded
           by the transport quota: the server resets the stream (ENHANCE_YOUR_CALM), closes
           the connection, RSS grows by less than 20x the quota (+52..89 MiB seen), and a
           normal client still gets answers.
Each server is in password mode with the users of USERS (the per-user cap needs names: in
anonymous mode every Flight client is `anonymous`).
           The server runs with ASAN_OPTIONS quarantine_size_mb=8 so freed memory leaves RSS as
           it would without ASan (its default 256 MiB quarantine would hide what is freed).
- stall:   [query] max_concurrent(_per_user) = 200 so 64 results can wait for their DoGet.
           Two users open 32 DoGet streams each on a large result and never read them (grpcio
           generic calls, one connection per user). Before the fix each stalled DoGet held one
           of the 32 workers, so a third user's query hung. Now a user has at most
           [query] max_streams_per_user (8) streams: the rest fail at once with
           RESOURCE_EXHAUSTED naming the limit, and the third user's query answers within 2 s.
- idle:    [query] stream_idle_timeout = 3s. A DoGet whose client stops reading is cancelled
           after 3 s (DEADLINE_EXCEEDED) and its worker freed: reading it later ends in an
           error (before the fix: all rows), and the same user is served right after.
Every server's log must hold no sanitizer report when it stops.

Run: .cache/venv/bin/python -m pytest -q tests/hostile/test_flight_limits.py
"""
import base64
import socket
import struct
import subprocess
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
flight = pytest.importorskip("pyarrow.flight", reason="pyarrow is not installed in .cache/venv")

SVC = "/arrow.flight.protocol.FlightService/"
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
BIG_SQL = ("SELECT a * 10000 + b AS x, repeat('y', 200) AS pad FROM UNNEST(sequence(0, 999)) "
           "AS t(a) CROSS JOIN UNNEST(sequence(1, 10000)) AS u(b)")    # 10M rows, 2 GB


USERS = ["checker", "alice", "bob", "mallory0", "mallory1", "mallory2", "mallory3"]


def start(tmp_path_factory, name, toml, env=None):
    """A server in password mode knowing USERS (password "pw-<name>", few KDF iterations)."""
    d = tmp_path_factory.mktemp(name)
    lines = []
    for u in USERS:
        r = subprocess.run([str(default_binary()), "passwd", "--iterations", "1000", u],
                           input=f"pw-{u}\n", capture_output=True, text=True, check=True)
        lines.append(r.stdout.strip())
    (d / "users").write_text("\n".join(lines) + "\n")
    auth = f'[auth]\nmode = "password"\nusers_file = "{d / "users"}"\n'
    return SqeServe(default_binary(), d, auth + toml, env=env)


def stop(srv):
    status, out = srv.stop()
    assert status == 0, out[-3000:]
    assert SqeServe.sanitizer_report(out) is None, out[-6000:]


def basic(user):
    return b"Basic " + base64.b64encode(f"{user}:pw-{user}".encode())


def query_as(srv, user, sql="SELECT 41 + 1 AS v, 'ok' AS s"):
    """Runs sql over pyarrow.flight (GetFlightInfo + DoGet) as user; returns the table."""
    c = flight.connect(srv.flight_uri)
    try:
        opts = flight.FlightCallOptions(headers=[(b"authorization", basic(user))], timeout=30)
        desc = flight.FlightDescriptor.for_command(
            any_msg("CommandStatementQuery", pb_bytes(1, sql.encode())))
        info = c.get_flight_info(desc, opts)
        return c.do_get(info.endpoints[0].ticket, opts).read_all()
    finally:
        c.close()


def flight_ok(srv, user="checker"):
    assert query_as(srv, user).to_pylist() == [{"v": 42, "s": "ok"}]


# --- protobuf and HTTP/2 by hand ------------------------------------------------------------------

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


def any_msg(type_name, value):
    return pb_bytes(1, b"type.googleapis.com/arrow.flight.protocol.sql." + type_name.encode()) + \
        pb_bytes(2, value)


def frame(ftype, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack(">I", stream) + payload


def hpack_literal(name, value):
    """A literal header field without indexing, no Huffman coding (RFC 7541 6.2.2)."""
    assert len(name) < 127 and len(value) < 127
    return b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value


# --- item 4: CONTINUATION flood ---------------------------------------------------------------------

QUOTA_MIB = 8
FLOOD_MB = 100


@pytest.fixture(scope="module")
def flood_server(tmp_path_factory):
    srv = start(tmp_path_factory, "flood",
                f'[coordinator]\nflight_transport_memory = "{QUOTA_MIB}MiB"\n',
                env={"ASAN_OPTIONS": "detect_leaks=1:quarantine_size_mb=8"})
    yield srv
    stop(srv)


def read_until_closed(sock, seconds):
    """Frames the server sent until it closed the connection (or `seconds` passed):
    (frames as (type, flags, stream, payload), closed)."""
    sock.settimeout(0.5)
    buf = b""
    deadline = time.time() + seconds
    closed = False
    while time.time() < deadline:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        buf += chunk
    frames = []
    while len(buf) >= 9:
        n = int.from_bytes(buf[:3], "big")
        frames.append((buf[3], buf[4], int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF,
                       buf[9:9 + n]))
        buf = buf[9 + n:]
    return frames, closed


def test_flight_continuation_flood_is_bounded(flood_server):
    srv = flood_server
    flight_ok(srv)                                   # warm up: the server's steady state
    time.sleep(1)
    rss0 = srv.rss_kib()
    headers = b"".join(hpack_literal(k, v) for k, v in [
        (b":method", b"POST"), (b":scheme", b"http"), (b":path", (SVC + "ListActions").encode()),
        (b":authority", f"127.0.0.1:{srv.flight_port}".encode()),
        (b"content-type", b"application/grpc"), (b"te", b"trailers")])
    # ~10 KiB of header fields per CONTINUATION frame: under gRPC's per-frame limit
    fields = b"".join(hpack_literal(b"x-f%d" % i, b"v" * 100) for i in range(96))
    sent = 0
    peak = rss0
    with socket.create_connection(("127.0.0.1", srv.flight_port), timeout=10) as s:
        s.sendall(PREFACE + frame(4, 0, 0, b"") + frame(1, 0, 1, headers))  # no END_HEADERS
        try:
            while sent < FLOOD_MB << 20:
                s.sendall(frame(9, 0, 1, fields))        # CONTINUATION, no END_HEADERS
                sent += len(fields)
                if sent % (8 << 20) < len(fields):
                    peak = max(peak, srv.rss_kib())
        except OSError:
            pass                                     # the server closed the connection
        frames, closed = read_until_closed(s, 15)
    time.sleep(1)
    peak = max(peak, srv.rss_kib())
    growth_mib = (peak - rss0) / 1024
    print(f"CONTINUATION flood: sent {sent >> 20} MiB; RSS {rss0 >> 10} MiB before, peak "
          f"{peak >> 10} MiB (+{growth_mib:.0f} MiB), {srv.rss_kib() >> 10} MiB after close; "
          f"transport quota {QUOTA_MIB} MiB; server frames {[f[:2] for f in frames]}")
    assert closed, "the server kept the flooding connection open"
    # RST_STREAM(ENHANCE_YOUR_CALM) or GOAWAY: the server ended it, not a broken socket
    assert any(ft in (3, 7) for ft, _, _, _ in frames), frames
    # the quota bounds what gRPC accounts; parsed metadata costs several times that under ASan,
    # and gRPC parses on until its reclaimer runs: +52..89 MiB seen for the 8 MiB quota, so the
    # bound is 20x the quota (before the fix: +397 MiB for the 100 MiB sent, ~4x the bytes)
    assert growth_mib < 20 * QUOTA_MIB, f"RSS grew by {growth_mib:.0f} MiB"
    assert srv.alive()
    flight_ok(srv)


# --- item 5: stalled DoGet streams -----------------------------------------------------------------

@pytest.fixture(scope="module")
def stall_server(tmp_path_factory):
    srv = start(tmp_path_factory, "stall",
                "[coordinator]\nshutdown_drain = \"2s\"\n"
                "[query]\nmax_concurrent = 200\nmax_concurrent_per_user = 200\n")
    yield srv
    stop(srv)


def ticket_of(channel, user, sql):
    """GetFlightInfo over grpcio: the serialized Ticket of the result's endpoint."""
    call = channel.unary_stream(SVC + "GetFlightInfo")
    desc = pb_bytes(2, any_msg("CommandStatementQuery", pb_bytes(1, sql.encode())))
    desc = b"\x08\x02" + desc                        # FlightDescriptor{type = CMD, cmd}
    infos = list(call(desc, metadata=[("authorization", basic(user).decode())], timeout=60))
    info = flight.FlightInfo.deserialize(infos[0])
    return info.endpoints[0].ticket.serialize()


def open_stalled(channel, user, tickets):
    """DoGet calls on the tickets that are never read (their iterators stay untouched)."""
    do_get = channel.unary_stream(SVC + "DoGet")
    return [do_get(t, metadata=[("authorization", basic(user).decode())], timeout=120)
            for t in tickets]


def test_flight_64_stalled_streams_leave_others_served(stall_server):
    srv = stall_server
    flight_ok(srv)
    channels = [grpc.insecure_channel(f"127.0.0.1:{srv.flight_port}") for _ in range(2)]
    streams = []
    try:
        # every result first (before the fix the DoGets took all workers, GetFlightInfo too)
        tickets = [[ticket_of(ch, f"mallory{i}", BIG_SQL) for _ in range(32)]
                   for i, ch in enumerate(channels)]
        for i, ch in enumerate(channels):
            streams += open_stalled(ch, f"mallory{i}", tickets[i])
        time.sleep(3)                                # let every DoGet reach a worker and stall
        t0 = time.time()
        result = [None]

        def other():
            try:
                result[0] = query_as(srv, "alice").to_pylist()
            except Exception as e:                   # noqa: BLE001 (reported below)
                result[0] = e
        th = threading.Thread(target=other, daemon=True)
        th.start()
        th.join(10)
        latency = time.time() - t0
        print(f"another user's Flight query under 64 stalled DoGet streams: {latency:.2f} s")
        assert result[0] == [{"v": 42, "s": "ok"}], result[0]
        assert latency < 2.0, f"the other user's query took {latency:.2f} s"
        refused = [s for s in streams if s.done() and s.code() == grpc.StatusCode.RESOURCE_EXHAUSTED]
        assert len(refused) >= 64 - 2 * 8, f"only {len(refused)} of 64 streams were refused"
        assert "max_streams_per_user = 8" in refused[0].details(), refused[0].details()
    finally:
        for s in streams:
            s.cancel()
        for ch in channels:
            ch.close()
    time.sleep(1)
    assert srv.alive()
    flight_ok(srv)


def test_flight_streams_of_all_users_leave_workers_for_other_calls(stall_server):
    """Four users with 8 stalled streams each: all streams together get at most 24 of the 32
    workers (the 25th stream is refused naming the workers), so GetFlightInfo of another user
    is still served at once."""
    srv = stall_server
    channels = [grpc.insecure_channel(f"127.0.0.1:{srv.flight_port}") for _ in range(4)]
    streams = []
    try:
        tickets = [[ticket_of(ch, f"mallory{i}", BIG_SQL) for _ in range(8)]
                   for i, ch in enumerate(channels)]
        for i, ch in enumerate(channels):
            streams += open_stalled(ch, f"mallory{i}", tickets[i])
        time.sleep(3)
        refused = [s for s in streams if s.done()]
        assert len(refused) == 8, [s.details() for s in refused]
        assert all(s.code() == grpc.StatusCode.RESOURCE_EXHAUSTED for s in refused)
        assert "24 of the server's 32 workers" in refused[0].details(), refused[0].details()
        t0 = time.time()
        c = flight.connect(srv.flight_uri)
        try:
            opts = flight.FlightCallOptions(headers=[(b"authorization", basic("alice"))],
                                            timeout=10)
            desc = flight.FlightDescriptor.for_command(
                any_msg("CommandStatementQuery", pb_bytes(1, b"SELECT 1")))
            c.get_flight_info(desc, opts)
        finally:
            c.close()
        assert time.time() - t0 < 2.0
    finally:
        for s in streams:
            s.cancel()
        for ch in channels:
            ch.close()
    time.sleep(1)
    flight_ok(srv)


# --- item 5: stream idle timeout ---------------------------------------------------------------------

IDLE_S = 3


@pytest.fixture(scope="module")
def idle_server(tmp_path_factory):
    srv = start(tmp_path_factory, "idle",
                f'[query]\nstream_idle_timeout = "{IDLE_S}s"\n')
    yield srv
    stop(srv)


def test_flight_stalled_stream_is_cancelled_after_idle_timeout(idle_server):
    srv = idle_server
    ch = grpc.insecure_channel(f"127.0.0.1:{srv.flight_port}")
    try:
        # 100k rows of ~200 bytes (20 MB): more than the flow-control windows and socket
        # buffers hold, less than max_result_rows
        sql = ("SELECT a * 10000 + b AS x, repeat('y', 200) AS pad FROM UNNEST(sequence(0, 9)) "
               "AS t(a) CROSS JOIN UNNEST(sequence(1, 10000)) AS u(b)")
        stalled = open_stalled(ch, "bob", [ticket_of(ch, "bob", sql) for _ in range(2)])
        time.sleep(IDLE_S * 3)                       # nothing read for three idle timeouts
        # the server gave up both streams: reading them now ends in an error, not all rows
        for s in stalled:
            rows = 0
            with pytest.raises(grpc.RpcError) as ei:
                for _ in s:
                    rows += 1
            assert ei.value.code() in (grpc.StatusCode.DEADLINE_EXCEEDED,
                                       grpc.StatusCode.CANCELLED), ei.value
        # their workers and stream slots are free again: bob may stream again
        assert query_as(srv, "bob").to_pylist() == [{"v": 42, "s": "ok"}]
    finally:
        ch.close()
    flight_ok(srv)
