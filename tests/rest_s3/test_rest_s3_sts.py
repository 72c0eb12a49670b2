"""test_rest_s3_sts.py: each user's S3 keys from STS AssumeRoleWithWebIdentity with that user's
own bearer token, when the REST catalog vends none (issue 7, credential source 2).

Peers, all real and on loopback: moto's S3 + STS server (s3_peer.py) checking every SigV4
signature, including those made with the temporary keys its STS hands out (and their session
token), recording the key that signed each request and every STS call; the Java REST catalog of
tests/rest keeping its warehouse on s3://stslake/wh with a service key. `sqe serve` asks for no
vended credentials (vended_credentials = false) and has no static keys and no SQE_S3_*
environment; it is configured with s3_sts_endpoint (moto) and s3_role_arn, so the only keys it
can sign with are the ones STS gave for the calling user's token.

Covers: a user creates, writes and reads a table with the temporary keys of their own STS call
(the call carries the role, the session name, the duration and the user's token, unsigned);
credentials are cached per token (two statements, one STS call) and never shared (two users,
two calls, two key ids, each user's S3 requests signed only with their own); renewed shortly
before Expiration; a token STS refuses gives PERMISSION_DENIED naming the role and STS's code,
not the token, and no rows; the server log holds no token and no secret.
"""
import os
import shutil
import sys
import tempfile
import time

import pytest
import trino
from trino.auth import JWTAuthentication
from trino.exceptions import TrinoUserError

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "rest"))
from rest_server import RestServer  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tests", "load"))
from sqe_serve import SqeServe  # noqa: E402
from s3_peer import S3Peer  # noqa: E402

BUILD = os.environ.get("SQE_BUILD_DIR", os.path.join(ROOT, "build-asan"))
SQE = os.environ.get("SQE_SERVE", os.path.join(BUILD, "sqe"))
BUCKET = "stslake"
# the catalog knows all of them; STS (the identity provider) refuses mallory's token
TOKENS = {"tok-dave": "dave", "tok-erin": "erin", "tok-frank": "frank", "tok-mallory": "mallory"}
STS_TOKENS = {"tok-dave", "tok-erin", "tok-frank"}



@pytest.fixture(scope="module")
def env():
    tmp = tempfile.mkdtemp(prefix="sqe-rest-s3-sts-")
    s3 = S3Peer(BUCKET).start()
    svc = s3.add_user("sts-service")
    role = s3.add_role("lake-reader")
    s3.sts_tokens = STS_TOKENS
    rest = RestServer(os.path.join(tmp, "catalog"), TOKENS, {}, prefix="sqe",
                      s3={"location": "s3://%s/wh" % BUCKET, "endpoint": s3.endpoint,
                          "service_key": "%s:%s" % svc, "vend": {}}).start()
    stage = os.path.join(tmp, "stage")  # where writers stage files for S3
    os.makedirs(stage)
    try:
        serve = SqeServe(SQE, os.path.join(tmp, "serve"), """
[coordinator]
threads = 2

[catalog]
name = "lake"
type = "rest"
uri = "{uri}"
warehouse = "s3://{bucket}/wh"
vended_credentials = false
s3_endpoint = "{ep}"
s3_path_style = true
s3_sts_endpoint = "{ep}"
s3_role_arn = "{role}"
s3_role_session_name = "sqe-test"
s3_sts_duration = "15m"
""".format(uri=rest.uri, bucket=BUCKET, ep=s3.endpoint, role=role), env={"TMPDIR": stage})
    except Exception as e:
        rest.stop()
        s3.stop()
        pytest.fail("sqe serve did not start: %s" % e)
    port = serve.trino_port
    yield {"port": port, "rest": rest, "s3": s3, "role": role, "svc": svc[0], "log": serve.log_path}
    serve.stop()
    rest.stop()
    s3.stop()
    with open(serve.log_path) as f:
        text = f.read()
    for c in s3.sts_calls():  # neither tokens nor temporary secrets reach the server log
        assert c["token"] not in text, text
        assert not c.get("secret") or c["secret"] not in text, text
        assert not c.get("session_token") or c["session_token"] not in text, text
    assert "ERROR: AddressSanitizer" not in text and "runtime error" not in text, text
    shutil.rmtree(tmp, ignore_errors=True)


def run(env, sql, token, user):
    conn = trino.dbapi.connect(host="127.0.0.1", port=env["port"], user=user, catalog="lake",
                               schema="default", http_scheme="http",
                               auth=JWTAuthentication(token), allow_insecure_auth=True)
    cur = conn.cursor()
    cur.execute(sql)
    rows = cur.fetchall()
    conn.close()
    return rows


def calls(env, token):
    return [c for c in env["s3"].sts_calls() if c["token"] == token]


def user_requests(env, since):
    """S3 requests under the table prefix since index `since`, except the catalog's own
    metadata.json reads and writes with its service key."""
    reqs = [r for r in env["s3"].requests()[since:] if r[2].startswith("/%s/wh/" % BUCKET)]
    svc = [r for r in reqs if r[0] == env["svc"]]
    assert all(r[2].endswith(".metadata.json") for r in svc), svc
    return [r for r in reqs if r[0] != env["svc"]]


def test_user_writes_and_reads_with_sts_keys(env):
    mark = len(env["s3"].requests())
    run(env, "CREATE SCHEMA lake.s", "tok-dave", "dave")
    run(env, "CREATE TABLE lake.s.t (id bigint, v varchar)", "tok-dave", "dave")
    run(env, "INSERT INTO lake.s.t VALUES (1, 'a'), (2, 'b'), (3, 'c')", "tok-dave", "dave")
    assert run(env, "SELECT count(*), max(v) FROM lake.s.t", "tok-dave", "dave") == [[3, "c"]]
    dave = calls(env, "tok-dave")
    # one STS call for all four statements: unsigned, with the configured role, session name
    # and duration, answered with temporary keys
    assert len(dave) == 1, dave
    c = dave[0]
    assert c["status"] == 200 and not c["signed"], c
    assert (c["role"], c["session_name"], c["duration"]) == (env["role"], "sqe-test", "900"), c
    assert c["key_id"].startswith("ASIA") and c["session_token"], c
    reqs = user_requests(env, mark)
    # the data file, the manifest and the manifest list were written, and read back, with
    # dave's temporary key, and moto's S3 (which checks the signature and the session token
    # of temporary keys) accepted every one
    assert any(r[1] == "PUT" and r[2].endswith(".parquet") for r in reqs), reqs
    assert any(r[1] == "GET" and r[2].endswith(".parquet") for r in reqs), reqs
    assert reqs and all(r[0] == c["key_id"] for r in reqs), reqs
    # (a HEAD answered 404 is the writer checking that a new file's name is free)
    assert all(200 <= r[3] < 300 or (r[1] == "HEAD" and r[3] == 404) for r in reqs), reqs


def test_keys_cached_per_user_never_shared(env):
    e0 = len(calls(env, "tok-erin"))
    mark = len(env["s3"].requests())
    assert run(env, "SELECT sum(id) FROM lake.s.t", "tok-erin", "erin") == [[6]]
    erin_reqs = user_requests(env, mark)
    mark = len(env["s3"].requests())
    assert run(env, "SELECT id FROM lake.s.t WHERE v = 'b'", "tok-dave", "dave") == [[2]]
    dave_reqs = user_requests(env, mark)
    mark = len(env["s3"].requests())
    assert run(env, "SELECT min(id) FROM lake.s.t", "tok-erin", "erin") == [[1]]
    erin_reqs += user_requests(env, mark)
    erin = calls(env, "tok-erin")[e0:]
    assert len(erin) == 1, erin  # two statements, one STS call
    dave = calls(env, "tok-dave")
    assert len(dave) == 1, dave  # still the first one
    assert erin[0]["key_id"] != dave[0]["key_id"]
    assert erin_reqs and all(r[0] == erin[0]["key_id"] for r in erin_reqs), erin_reqs
    assert dave_reqs and all(r[0] == dave[0]["key_id"] for r in dave_reqs), dave_reqs


def test_renewed_before_expiration(env):
    env["s3"].sts_expire_in = 65  # refreshed a minute before: usable for about 5 s
    try:
        assert run(env, "SELECT count(*) FROM lake.s.t", "tok-frank", "frank") == [[3]]
        assert run(env, "SELECT count(*) FROM lake.s.t", "tok-frank", "frank") == [[3]]
        assert len(calls(env, "tok-frank")) == 1
        time.sleep(6)
        mark = len(env["s3"].requests())
        assert run(env, "SELECT count(*) FROM lake.s.t", "tok-frank", "frank") == [[3]]
    finally:
        env["s3"].sts_expire_in = None
    frank = calls(env, "tok-frank")
    assert len(frank) == 2, frank
    assert frank[0]["key_id"] != frank[1]["key_id"]
    reqs = user_requests(env, mark)
    assert reqs and all(r[0] == frank[1]["key_id"] for r in reqs), reqs


def test_token_refused_by_sts(env):
    mark = len(env["s3"].requests())
    with pytest.raises(TrinoUserError) as ei:
        run(env, "SELECT * FROM lake.s.t", "tok-mallory", "mallory")
    e = ei.value
    assert e.error_name == "PERMISSION_DENIED", e
    assert env["role"] in e.message and "InvalidIdentityToken" in e.message, e.message
    assert "tok-mallory" not in e.message
    m = calls(env, "tok-mallory")
    assert len(m) == 1 and m[0]["status"] == 400, m
    # nothing of the table was read for mallory, with any key
    assert not [r for r in user_requests(env, mark) if r[2].endswith(".parquet")]
    # a refusal is not cached: the next statement asks STS again
    with pytest.raises(TrinoUserError):
        run(env, "SELECT * FROM lake.s.t", "tok-mallory", "mallory")
    assert len(calls(env, "tok-mallory")) == 2
