"""Session fixture for the identity tests: one real Keycloak per test run (keycloak_peer.py).

Role: `keycloak` starts Keycloak with sqe-realm.json and other-realm.json imported, on free
loopback ports, the first time a test asks for it, and stops it when the session ends.
INTERFACE: fixture `keycloak` -> keycloak_peer.Keycloak (started).
NOTES: skips every test that uses it, with the reason, when setup has not installed Keycloak
or there is no JDK >= 21; a failed start fails those tests with the last lines of its log.
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import keycloak_peer  # noqa: E402


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
