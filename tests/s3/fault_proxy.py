"""fault_proxy.py: an HTTP/1.1 keep-alive proxy in front of the S3 test server that injects
faults, for tests/s3: each request fails with 503 SlowDown with probability `fail_ratio`
(seeded, so a run is repeatable up to thread timing), or every `fail_every`-th request; HEAD
and GET of the keys in `missing` answer 404 NoSuchKey (while listings still show them). It
counts the requests it saw and the client connections it accepted.

Use: `with FaultProxy(upstream_port, fail_ratio=0.3) as p: p.endpoint, p.count, p.failed`.
"""
import http.client
import http.server
import random
import threading


class FaultProxy(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, upstream_port, fail_ratio=0.0, fail_every=0, missing=(), seed=7):
        self.upstream_port = upstream_port
        self.fail_ratio = fail_ratio
        self.fail_every = fail_every
        self.missing = set(missing)  # "/bucket/key" paths
        self.rng = random.Random(seed)
        self.count = 0
        self.failed = 0
        self.connections = 0
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), FaultHandler)
        self.endpoint = f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self):
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.shutdown()
        self.server_close()


class FaultHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def setup(self):
        super().setup()
        with self.server.lock:
            self.server.connections += 1

    def _reply(self, status, code, message):
        msg = f"<Error><Code>{code}</Code><Message>{message}</Message></Error>".encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(msg)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(msg)

    def _any(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        srv = self.server
        with srv.lock:
            srv.count += 1
            fail = (srv.fail_every and srv.count % srv.fail_every == 0) or \
                (srv.fail_ratio and srv.rng.random() < srv.fail_ratio)
            srv.failed += bool(fail)
        if fail:
            return self._reply(503, "SlowDown", "Please reduce your request rate.")
        if self.command in ("GET", "HEAD") and self.path.split("?")[0] in srv.missing:
            return self._reply(404, "NoSuchKey", "The specified key does not exist.")
        conn = http.client.HTTPConnection("127.0.0.1", srv.upstream_port, timeout=120)
        conn.request(self.command, self.path, body=body, headers=dict(self.headers.items()))
        resp = conn.getresponse()
        data = resp.read()
        self.send_response(resp.status)
        for k, v in resp.getheaders():
            if k.lower() not in ("transfer-encoding", "connection", "content-length", "server", "date"):
                self.send_header(k, v)
        length = resp.getheader("Content-Length") if self.command == "HEAD" else None
        self.send_header("Content-Length", length or str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        conn.close()

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _any
