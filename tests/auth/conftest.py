"""Session fixtures for the identity tests: one real Keycloak and one real Nessie per test run.

Role: `keycloak` starts Keycloak with sqe-realm.json and other-realm.json imported, on free
loopback ports, the first time a test asks for it, and stops it when the session ends.
`s3_peer` is the one signature-checking S3 server of the run (tests/rest_s3/s3_peer.py, bucket
`lake`); `nessie` starts Nessie (nessie_peer.py) with its warehouse at s3://lake/nessie and
OIDC against the Keycloak realm `sqe`.
INTERFACE: fixtures `keycloak` -> keycloak_peer.Keycloak (started), `s3_peer` -> S3Peer
(started), `nessie` -> nessie_peer.Nessie (started; .s3_key is the IAM key it writes with).
NOTES: skips every test that uses one, with the reason, when setup has not installed Keycloak
or Nessie or there is no JDK >= 21; a failed start fails those tests with the last lines of its
log.
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import keycloak_peer  # noqa: E402
import nessie_peer  # noqa: E402


@pytest.fixture(scope="session")
def keycloak(tmp_path_factory):
    why = keycloak_peer.unavailable()
    if why:
        pytest.skip(why)
    kc = keycloak_peer.Keycloak(workdir=tmp_path_factory.mktemp("keycloak"))
    try:
        kc.start()
        print(f"\nKeycloak {keycloak_peer.VERSION} ready at {kc.base_url} "
              f"in {kc.start_seconds:.0f} s", file=sys.stderr)
        yield kc
    finally:
        kc.stop()


@pytest.fixture(scope="session")
def s3_peer():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "rest_s3"))
    from s3_peer import S3Peer
    s3 = S3Peer("lake").start()
    try:
        yield s3
    finally:
        s3.stop()


@pytest.fixture(scope="session")
def nessie(tmp_path_factory, keycloak, s3_peer):
    why = nessie_peer.unavailable()
    if why:
        pytest.skip(why)
    key = s3_peer.add_user("nessie")
    ns = nessie_peer.Nessie(tmp_path_factory.mktemp("nessie"), keycloak.issuer("sqe"),
                            s3_peer.endpoint, key, "s3://lake/nessie")
    try:
        ns.start()
        print(f"\nNessie {nessie_peer.VERSION} ready at {ns.base_url} "
              f"in {ns.start_seconds:.0f} s", file=sys.stderr)
        yield ns
    finally:
        ns.stop()
