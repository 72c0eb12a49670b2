"""A bearer-checking gateway in front of the test Iceberg REST catalog (tests/rest/rest_server.py).

Role: stands for a REST catalog that accepts the identity provider's tokens: every request's
bearer must be a JWT of the expected issuer whose `aud` is exactly the expected set and that
Keycloak's introspection endpoint (as the introspecting client) calls active; the request is
then forwarded to the upstream catalog with that user's static upstream token
(tok-<preferred_username>) and logged as a dict {method, path, user, aud, azp, sha (SHA-256 of
the bearer), token}. Anything else is answered 401 with an Iceberg ErrorModel and logged with
user None.

INTERFACE: TokenGateway(upstream_uri, issuer, audience (a set), exact=True, introspect=None or
  (url, client_id, secret)).start()/stop(), .uri, .log (list of dicts); exact=False accepts any
  token whose aud contains the audience set
NOTES: test code: the JWT is decoded without a signature check; introspection proves Keycloak
issued it and it is active.
"""
import base64
import hashlib
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def _claims(token):
    try:
        part = token.split(".")[1]
        return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except Exception:
        return None


def _aud(claims):
    aud = claims.get("aud")
    return set([aud] if isinstance(aud, str) else aud or [])


class TokenGateway:
    def __init__(self, upstream, issuer, audience, exact=True, introspect=None):
        self.exact = exact
        self.upstream = upstream.rstrip("/")
        self.issuer = issuer
        self.audience = set(audience)
        self.introspect = introspect
        self.log = []
        self._lock = threading.Lock()
        self._server = None

    @property
    def uri(self):
        return "http://127.0.0.1:%d" % self._server.server_address[1]

    def _active(self, token):
        if not self.introspect:
            return True
        url, cid, secret = self.introspect
        data = urllib.parse.urlencode({"token": token}).encode()
        req = urllib.request.Request(url, data=data, method="POST")
        cred = base64.b64encode(f"{cid}:{secret}".encode()).decode()
        req.add_header("Authorization", "Basic " + cred)
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read()).get("active") is True

    def _check(self, auth):
        if not auth or not auth.startswith("Bearer "):
            return None, None
        token = auth[7:].strip()
        c = _claims(token)
        if (not c or c.get("iss") != self.issuer or (_aud(c) != self.audience if self.exact else not self.audience <= _aud(c))
                or c.get("exp", 0) < time.time() or not self._active(token)):
            return None, token
        return c, token

    def start(self):
        gw = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def _any(self):
                n = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(n) if n else None
                claims, token = gw._check(self.headers.get("Authorization"))
                entry = {"method": self.command, "path": self.path,
                         "user": claims.get("preferred_username") if claims else None,
                         "aud": sorted(_aud(claims)) if claims else None,
                         "azp": claims.get("azp") if claims else None,
                         "sha": hashlib.sha256(token.encode()).hexdigest() if token else None,
                         "token": token}
                with gw._lock:
                    gw.log.append(entry)
                if not claims:
                    out = json.dumps({"error": {"message": "gateway: token refused",
                                                "type": "NotAuthorizedException",
                                                "code": 401}}).encode()
                    return self._reply(401, {"Content-Type": "application/json"}, out)
                req = urllib.request.Request(gw.upstream + self.path, data=body,
                                             method=self.command)
                req.add_header("Authorization", "Bearer tok-" + entry["user"])
                for h in ("Content-Type", "If-None-Match", "X-Iceberg-Access-Delegation",
                          "Accept"):
                    if self.headers.get(h):
                        req.add_header(h, self.headers[h])
                try:
                    with urllib.request.urlopen(req, timeout=60) as r:
                        status, headers, out = r.status, r.headers, r.read()
                except urllib.error.HTTPError as e:
                    status, headers, out = e.code, e.headers, e.read()
                keep = {h: headers[h] for h in ("Content-Type", "ETag") if headers.get(h)}
                self._reply(status, keep, out)

            def _reply(self, status, headers, body):
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body or b"")))
                self.end_headers()
                if body and self.command != "HEAD":
                    self.wfile.write(body)

            do_GET = do_POST = do_DELETE = do_HEAD = do_PUT = _any

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        if self._server:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
