"""s3_server.py: a signature-checking S3 server on loopback for SQE's S3 tests.

moto's server mode (ThreadedMotoServer, Apache-2.0) with IAM authentication enforced from the
first request (INITIAL_NO_AUTH_ACTION_COUNT=0): every request's SigV4 signature is recomputed by
moto (botocore's S3SigV4Auth) with the secret of the IAM access key it names, and refused with
403 SignatureDoesNotMatch when it differs. The IAM user, its access key, an allow-s3:* policy
and the test bucket are created through moto's backends in this process, so no unauthenticated
request is ever needed.

Use: `with S3Server() as s: s.endpoint, s.access_key, s.secret_key, s.bucket`, or run it as a
script (prints one JSON line with those fields, serves until killed).
"""
import json
import os
import socket
import sys

os.environ["INITIAL_NO_AUTH_ACTION_COUNT"] = "0"
os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")

from moto.core import DEFAULT_ACCOUNT_ID  # noqa: E402
from moto.iam.models import iam_backends  # noqa: E402
from moto.s3.models import s3_backends  # noqa: E402
from moto.server import ThreadedMotoServer  # noqa: E402

ALLOW_S3 = json.dumps({"Version": "2012-10-17",
                       "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]})


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class S3Server:
    def __init__(self, bucket: str = "sqe-test", user: str = "sqe"):
        self.bucket = bucket
        self.user = user
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)

    def start(self) -> "S3Server":
        self._server.start()
        iam = iam_backends[DEFAULT_ACCOUNT_ID]["global"]
        iam.create_user("us-east-1", self.user)
        iam.put_user_policy(self.user, "allow-s3", ALLOW_S3)
        key = iam.create_access_key(self.user)
        self.access_key = key.access_key_id
        self.secret_key = key.secret_access_key
        s3_backends[DEFAULT_ACCOUNT_ID]["aws"].create_bucket(self.bucket, "us-east-1")
        return self

    def add_user(self, name: str) -> tuple:
        """A second IAM user with its own key (for per-user credential tests)."""
        iam = iam_backends[DEFAULT_ACCOUNT_ID]["global"]
        iam.create_user("us-east-1", name)
        iam.put_user_policy(name, "allow-s3", ALLOW_S3)
        key = iam.create_access_key(name)
        return key.access_key_id, key.secret_access_key

    def stop(self) -> None:
        self._server.stop()

    def __enter__(self) -> "S3Server":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


if __name__ == "__main__":
    srv = S3Server(*(sys.argv[1:2] or [])).start()
    print(json.dumps({"endpoint": srv.endpoint, "access_key": srv.access_key,
                      "secret_key": srv.secret_key, "bucket": srv.bucket}), flush=True)
    try:
        sys.stdin.read()  # serve until stdin closes (or the process is killed)
    finally:
        srv.stop()
