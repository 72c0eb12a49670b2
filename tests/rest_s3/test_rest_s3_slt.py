"""test_rest_s3_slt.py: the Iceberg SQL corpus (tests/sql/iceberg/*.test) on an Iceberg REST
catalog whose tables live on S3, with the same results as on the embedded warehouse (issue 7).

For each file: a fresh Java REST catalog (tests/rest/rest_server.py: its own catalog database,
tables under s3://sltlake/<file>/, alice's IAM keys vended on every loadTable) over one moto S3
server checking signatures (s3_peer.py); then `slt_runner --iceberg-rest` runs the file with
catalog "iceberg" on that REST catalog, and plain `slt_runner` runs it on a local warehouse. Both
must pass every record, and the same number of them. The S3 requests of the REST run must all
be signed with alice's vended key (the runner has no other S3 credentials).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "rest"))
from rest_server import RestServer  # noqa: E402
from s3_peer import S3Peer  # noqa: E402

BUILD = os.environ.get("SQE_BUILD_DIR", os.path.join(ROOT, "build-asan"))
RUNNER = os.path.join(BUILD, "slt_runner")
FILES = sorted(glob.glob(os.path.join(ROOT, "tests", "sql", "iceberg", "*.test")))


@pytest.fixture(scope="module")
def s3():
    # moto's backends are per process: a bucket and users of their own, apart from
    # test_rest_s3.py's when both run in one pytest
    peer = S3Peer("sltlake").start()
    peer.alice = peer.add_user("slt-alice")
    peer.service = peer.add_user("slt-service")
    yield peer
    peer.stop()


def runner(args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQE_S3_")}
    env.update(env_extra or {})
    p = subprocess.run([RUNNER, "--threads", "2"] + args, capture_output=True, text=True,
                       timeout=900, env=env, cwd=ROOT)
    out = p.stdout + p.stderr
    m = re.search(r"(\d+) passed, (\d+) failed", out)
    assert m, out
    return int(m.group(1)), int(m.group(2)), out


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(f) for f in FILES])
def test_corpus_file_on_rest_s3(s3, path):
    name = os.path.splitext(os.path.basename(path))[0]
    tmp = tempfile.mkdtemp(prefix="sqe-slt-rest-")
    rest = RestServer(os.path.join(tmp, "catalog"), {"tok-alice": "alice"}, {}, prefix="sqe",
                      s3={"location": "s3://sltlake/" + name, "endpoint": s3.endpoint,
                          "service_key": "%s:%s" % s3.service,
                          "vend": {"alice": "%s:%s" % s3.alice}}).start()
    try:
        s3.clear()
        stage = os.path.join(tmp, "stage")
        os.makedirs(stage)
        passed, failed, out = runner(["--iceberg-rest", rest.uri, "--rest-token", "tok-alice",
                                      "--s3-endpoint", s3.endpoint, path], {"TMPDIR": stage})
        local_passed, local_failed, local_out = runner([path])
    finally:
        rest.stop()
    assert failed == 0, out
    assert local_failed == 0, local_out
    assert passed == local_passed, (out, local_out)
    # the tables really were on S3, written and read with alice's vended key only
    reqs = [r for r in s3.requests() if r[2].startswith("/sltlake/%s/" % name)]
    mine = [r for r in reqs if r[0] != s3.service[0]]
    assert any(r[1] == "PUT" and r[2].endswith(".parquet") for r in mine), reqs[:20]
    assert {r[0] for r in mine} == {s3.alice[0]}, set(r[0] for r in mine)
    assert os.listdir(stage) == []
    shutil.rmtree(tmp, ignore_errors=True)
