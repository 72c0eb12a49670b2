"""s3_peer.py: the signature-checking S3 server of the REST + S3 tests, with a record of whose
key signed each request (server side).

moto 5 in server mode (Apache-2.0), IAM authentication enforced from the first request
(INITIAL_NO_AUTH_ACTION_COUNT=0): moto recomputes every SigV4 signature with the secret of the
access key the request names and refuses a mismatch with 403. A WSGI middleware in front of
moto's own application records, for every request moto answers, the access key id of its
Credential= (header or presigned query), the method, the path and the status. IAM users
(service, and one per test user, each with its own access key and an allow-s3:* policy) and the
bucket are made through moto's backends in this process.

Fault hooks (for the fault tests): .fail_share(key_id, ratio, seed) answers that share of the
requests signed by key_id with 503 SlowDown before moto sees them (ratio 0 turns it off;
.failed counts them); .hold(method, pattern) makes the next request with that method whose path
matches the regular expression pattern wait (before moto handles it) until .release(); .held is set while it waits.

STS: moto's STS answers AssumeRoleWithWebIdentity on the same port, and moto's S3 checks the
signatures made with the temporary keys it hands out (and their session token) like any other.
AWS takes AssumeRoleWithWebIdentity unsigned (the web identity token is the credential); moto
5.2.5 with authentication enforced wants a signature on it too (an unsigned one fails with 500),
so the peer lets that one action through without one, as AWS does. moto accepts any token; the
peer plays the identity provider's part: with .sts_tokens set (a set of accepted tokens) any
other token is answered 400 InvalidIdentityToken before moto sees it. .sts_calls() records every
call (token, role, session name, duration, status, and the key id / secret / session token
answered); .sts_expire_in = N rewrites the answer's Expiration to N seconds from now (expiry
tests without waiting 15 minutes).

INTERFACE: S3Peer(bucket).start()/stop(), .endpoint, .add_user(name) -> (key_id, secret),
  .add_role(name) -> arn, .sts_tokens, .sts_expire_in, .sts_calls(),
  .requests() -> [(key_id, method, path, status)], .clear(), .delete_object(key),
  .list_keys(prefix), .fail_share(key_id, ratio, seed), .failed, .hold(method, pattern),
  .held, .release()
"""
import datetime
import io
import json
import os
import random
import re
import socket
import threading
import urllib.parse

os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "0"
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")

from moto.core import DEFAULT_ACCOUNT_ID  # noqa: E402
from moto.core.authorization import ActionAuthenticatorMixin  # noqa: E402
from moto.iam.models import iam_backends  # noqa: E402
from moto.moto_server.werkzeug_app import (  # noqa: E402
    DomainDispatcherApplication, MotoRequestHandler, create_backend_app)
from moto.s3.models import s3_backends  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

ALLOW_S3 = json.dumps({"Version": "2012-10-17",
                       "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})
CRED = re.compile(r"Credential=([^/,\s]+)/")
TRUST_WEB_IDENTITY = json.dumps({"Version": "2012-10-17", "Statement": [{
    "Effect": "Allow", "Principal": {"Federated": "test-idp"},
    "Action": "sts:AssumeRoleWithWebIdentity"}]})

# Unsigned AssumeRoleWithWebIdentity (see the module comment): moto's authentication is skipped
# for the request thread that carries one.
_unsigned = threading.local()
_moto_authenticate = ActionAuthenticatorMixin._authenticate_and_authorize_action


def _authenticate(self, iam_request_cls, resource="*"):
    if getattr(_unsigned, "sts", False):
        return None
    return _moto_authenticate(self, iam_request_cls, resource)


ActionAuthenticatorMixin._authenticate_and_authorize_action = _authenticate


def _xml(body, tag):
    m = re.search(r"<%s>(.*?)</%s>" % (tag, tag), body, re.S)
    return m.group(1).strip() if m else None


class _Recorder:
    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()
        self.log = []
        self.fail_key = None
        self.fail_ratio = 0.0
        self.rng = random.Random(0)
        self.failed = 0
        self.hold_rule = None
        self.held = threading.Event()
        self.go = threading.Event()
        self.sts_tokens = None
        self.sts_expire_in = None
        self.sts_log = []

    def _sts(self, environ, start_response, form):
        """An unsigned AssumeRoleWithWebIdentity: the identity provider's check, then moto."""
        one = lambda k: (form.get(k) or [None])[0]  # noqa: E731
        call = {"token": one("WebIdentityToken"), "role": one("RoleArn"),
                "session_name": one("RoleSessionName"), "duration": one("DurationSeconds"),
                "signed": "HTTP_AUTHORIZATION" in environ}
        if self.sts_tokens is not None and call["token"] not in self.sts_tokens:
            body = (b"<ErrorResponse xmlns='https://sts.amazonaws.com/doc/2011-06-15/'><Error>"
                    b"<Type>Sender</Type><Code>InvalidIdentityToken</Code><Message>The web "
                    b"identity token could not be validated</Message></Error>"
                    b"<RequestId>test</RequestId></ErrorResponse>")
            call["status"] = 400
            with self.lock:
                self.sts_log.append(call)
            start_response("400 Bad Request", [("Content-Type", "text/xml"),
                                               ("Content-Length", str(len(body)))])
            return [body]
        got = {}

        def sr(status, headers, exc_info=None):
            got["status"], got["headers"] = status, headers
            return lambda data: None

        _unsigned.sts = True
        try:
            out = b"".join(self.app(environ, sr))
        finally:
            _unsigned.sts = False
        text = out.decode("utf-8", "replace")
        call["status"] = int(got["status"].split()[0])
        call.update(key_id=_xml(text, "AccessKeyId"), secret=_xml(text, "SecretAccessKey"),
                    session_token=_xml(text, "SessionToken"), expiration=_xml(text, "Expiration"))
        if self.sts_expire_in is not None and call["expiration"]:
            exp = (datetime.datetime.now(datetime.timezone.utc) +
                   datetime.timedelta(seconds=self.sts_expire_in)).strftime("%Y-%m-%dT%H:%M:%SZ")
            text = text.replace("<Expiration>%s</Expiration>" % call["expiration"],
                                "<Expiration>%s</Expiration>" % exp)
            call["expiration"] = exp
            out = text.encode()
        with self.lock:
            self.sts_log.append(call)
        headers = [(k, v) for k, v in got["headers"] if k.lower() != "content-length"]
        start_response(got["status"], headers + [("Content-Length", str(len(out)))])
        return [out]

    def __call__(self, environ, start_response):
        if environ.get("REQUEST_METHOD") == "POST" and "HTTP_AUTHORIZATION" not in environ:
            n = int(environ.get("CONTENT_LENGTH") or 0)
            raw = environ["wsgi.input"].read(n) if n else b""
            environ["wsgi.input"] = io.BytesIO(raw)
            form = urllib.parse.parse_qs(raw.decode("utf-8", "replace"))
            if form.get("Action") == ["AssumeRoleWithWebIdentity"]:
                return self._sts(environ, start_response, form)
        m = CRED.search(environ.get("HTTP_AUTHORIZATION", "")) or \
            re.search(r"X-Amz-Credential=([^%/&]+)", environ.get("QUERY_STRING", ""))
        key = m.group(1) if m else "-"
        entry = [key, environ.get("REQUEST_METHOD"), environ.get("PATH_INFO"), None]

        def sr(status, headers, exc_info=None):
            entry[3] = int(status.split()[0])
            return start_response(status, headers, exc_info)

        with self.lock:
            fail = key == self.fail_key and self.rng.random() < self.fail_ratio
            if fail:
                self.failed += 1
            hold = self.hold_rule and entry[1] == self.hold_rule[0] and \
                self.hold_rule[1].search(entry[2] or "")
            if hold:
                self.hold_rule = None
        if hold:
            self.held.set()
            self.go.wait(120)
        if fail:
            body = (b"<?xml version='1.0' encoding='UTF-8'?><Error><Code>SlowDown</Code>"
                    b"<Message>Please reduce your request rate.</Message></Error>")
            sr("503 Service Unavailable", [("Content-Type", "application/xml"),
                                           ("Content-Length", str(len(body)))])
            with self.lock:
                self.log.append(tuple(entry))
            return [body]
        try:
            return self.app(environ, sr)
        finally:
            with self.lock:
                self.log.append(tuple(entry))


class S3Peer:
    def __init__(self, bucket="lake"):
        self.bucket = bucket
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.endpoint = "http://127.0.0.1:%d" % self.port
        self.recorder = _Recorder(DomainDispatcherApplication(create_backend_app))
        self._server = None
        self._thread = None

    def start(self):
        self._server = make_server("127.0.0.1", self.port, self.recorder, True,
                                   request_handler=MotoRequestHandler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        s3_backends[DEFAULT_ACCOUNT_ID]["aws"].create_bucket(self.bucket, "us-east-1")
        return self

    def stop(self):
        if self._server:
            self._server.shutdown()
            self._thread.join()
            self._server = None

    def add_user(self, name):
        iam = iam_backends[DEFAULT_ACCOUNT_ID]["global"]
        iam.create_user("us-east-1", name)
        iam.put_user_policy(name, "allow-s3", ALLOW_S3)
        key = iam.create_access_key(name)
        return key.access_key_id, key.secret_access_key

    def add_role(self, name):
        """An IAM role that web identities may assume, allowed s3:*; returns its ARN."""
        iam = iam_backends[DEFAULT_ACCOUNT_ID]["global"]
        role = iam.create_role(name, TRUST_WEB_IDENTITY, "/", None, "", [], None)
        iam.put_role_policy(name, "allow-s3", ALLOW_S3)
        return role.arn

    @property
    def sts_tokens(self):
        return self.recorder.sts_tokens

    @sts_tokens.setter
    def sts_tokens(self, tokens):
        with self.recorder.lock:
            self.recorder.sts_tokens = set(tokens) if tokens is not None else None

    @property
    def sts_expire_in(self):
        return self.recorder.sts_expire_in

    @sts_expire_in.setter
    def sts_expire_in(self, seconds):
        with self.recorder.lock:
            self.recorder.sts_expire_in = seconds

    def sts_calls(self):
        with self.recorder.lock:
            return [dict(c) for c in self.recorder.sts_log]

    def requests(self):
        with self.recorder.lock:
            return list(self.recorder.log)

    def clear(self):
        with self.recorder.lock:
            self.recorder.log.clear()

    def fail_share(self, key_id, ratio, seed=7):
        with self.recorder.lock:
            self.recorder.fail_key = key_id
            self.recorder.fail_ratio = ratio
            self.recorder.rng = random.Random(seed)
            self.recorder.failed = 0

    @property
    def failed(self):
        with self.recorder.lock:
            return self.recorder.failed

    def hold(self, method, pattern):
        self.recorder.held.clear()
        self.recorder.go.clear()
        with self.recorder.lock:
            self.recorder.hold_rule = (method, re.compile(pattern))

    @property
    def held(self):
        return self.recorder.held

    def release(self):
        with self.recorder.lock:
            self.recorder.hold_rule = None
        self.recorder.go.set()

    def _s3(self):
        return s3_backends[DEFAULT_ACCOUNT_ID]["aws"]

    def delete_object(self, key):
        self._s3().delete_object(self.bucket, key)

    def list_keys(self, prefix=""):
        return sorted(k for k in self._s3().get_bucket(self.bucket).keys.keys()
                      if k.startswith(prefix))
