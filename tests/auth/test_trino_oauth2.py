"""Trino OAuth2 external authentication against a real Keycloak (issue 16, item 5).

Role: `sqe serve` with [auth.oidc] external_authentication = true (TLS, providers =
["oidc_bearer"]) driven by the clients that speak the flow: the trino Python client's
OAuth2Authentication and the Trino CLI jar with --external-authentication, each logged in by a
scripted browser (requests with a cookie jar: SQE's initiate URL, Keycloak's login form, the
redirect back to SQE's callback) as alice and as bob; then the hostile cases of the flow: an
unknown poll id or login link, a forged state, a reused state (replayed callback), an error from
the identity provider, too many pending logins, and nothing of a token or code in the log.
INTERFACE: pytest tests (fixtures `keycloak` from conftest.py, `sqe` here).
NOTES: one Keycloak per session (conftest.py), one server per module. The CLI jar is
$TRINO_CLI_JAR or .cache/trino-cli/trino-cli-476-executable.jar (run_client_tests.sh fetches
it); its test is skipped when the jar or java is missing. A login expires after 5 minutes,
which no test waits for.
"""
import html
import http.cookiejar
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.parse
from pathlib import Path

import pytest
import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
import keycloak_peer  # noqa: E402
from oidc_clients import serve, stop_clean, trino_conn  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
JAR = Path(os.environ.get("TRINO_CLI_JAR",
                          ROOT / ".cache" / "trino-cli" / "trino-cli-476-executable.jar"))
PASSWORDS = {"alice": "alice-password", "bob": "bob-password"}


@pytest.fixture(scope="module")
def sqe(keycloak, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("oauth2")
    secret = tmp / "oidc-secret"  # the code grant's client secret from a file
    secret.write_text(keycloak_peer.client_secret("sqe") + "\n")
    toml = (
        '[auth]\nproviders = ["oidc_bearer"]\n'
        "[auth.oidc]\n"
        f'issuer = "{keycloak.issuer("sqe")}"\n'
        'client_id = "sqe"\n'
        f'client_secret_file = "{secret}"\n'
        "allow_insecure_http = true\n"
        "external_authentication = true\n")
    srv = serve(tmp, toml)
    keycloak.add_redirect_uri(srv.trino_url + "/oauth2/callback")
    yield srv
    log = stop_clean(srv)
    assert "sqe-test-secret" not in log and "x_token_server" not in log


def session(serve):
    s = requests.Session()
    s.trust_env = False
    s.verify = str(serve.cert)
    return s


def challenge(serve):
    """POST a statement without credentials: the 401 and its Bearer challenge's two URLs."""
    r = session(serve).post(serve.trino_url + "/v1/statement", data="SELECT 1",
                            headers={"X-Trino-User": "alice"})
    assert r.status_code == 401, (r.status_code, r.text)
    values = r.raw.headers.getlist("WWW-Authenticate")
    assert 'Basic realm="sqe"' in values, values
    bearer = [v for v in values if v.startswith("Bearer x_redirect_server=")]
    assert len(bearer) == 1, values
    m = re.fullmatch(r'Bearer x_redirect_server="([^"]+)", x_token_server="([^"]+)"', bearer[0])
    assert m, bearer[0]
    return m.group(1), m.group(2)


class LoopbackIsSecure(http.cookiejar.DefaultCookiePolicy):
    """Keycloak's cookies as a browser keeps them: Secure ones (SameSite=None) go back to the
    plain-http loopback IdP (browsers count http://127.0.0.1 as a secure context), and their
    Version=1 attribute is ignored (http.cookiejar would send them in RFC 2965 form, with
    $Version and $Path, which Keycloak does not read)."""

    def set_ok(self, cookie, request):
        cookie.version = 0
        if urllib.parse.urlsplit(request.get_full_url()).hostname in ("127.0.0.1", "::1"):
            cookie.secure = False
        return super().set_ok(cookie, request)


class Browser:
    """A scripted browser: follows SQE's initiate URL to Keycloak's login form, posts the
    user's credentials to the form's action and follows the redirects back to SQE."""

    def __init__(self, serve):
        self.http = session(serve)  # verifies SQE's certificate; Keycloak is plain http
        self.http.cookies.set_policy(LoopbackIsSecure())

    def to_login_form(self, url):
        r = self.http.get(url)
        assert r.status_code == 200, (r.status_code, re.findall(r"kc-feedback-text[^>]*>([^<]*)|<p[^>]*instruction[^>]*>([^<]*)", r.text), r.text[-1500:])
        m = re.search(r'<form[^>]*id="kc-form-login"[^>]*action="([^"]+)"', r.text)
        assert m, text_of(r)
        return html.unescape(m.group(1)), r

    def login(self, url, user, password=None):
        action, _ = self.to_login_form(url)
        return self.http.post(action, data={"username": user,
                                            "password": password or PASSWORDS[user],
                                            "credentialId": ""})

    def consent_redirect(self, url, user):
        """Logs in but stops at Keycloak's redirect: the callback URL SQE would get."""
        action, _ = self.to_login_form(url)
        r = self.http.post(action, data={"username": user, "password": PASSWORDS[user],
                                         "credentialId": ""}, allow_redirects=False)
        assert r.status_code in (302, 303), (r.status_code, r.text[:500])
        return r.headers["Location"]


def text_of(r):
    """Status, URL and the visible text of a page (for assertion messages)."""
    body = r.text.split("<body", 1)[-1]
    return r.status_code, r.url, re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))[:1500]


def poll(serve, url):
    r = session(serve).get(url, timeout=30)
    assert r.status_code == 200, r.text
    assert r.headers["Cache-Control"] == "no-store"
    return r.json()


def query_params(url):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))


# --- the flow, by hand ---------------------------------------------------------------------------

def test_challenge_and_token_for_each_user(keycloak, sqe):
    for user in ("alice", "bob"):
        redirect, token_url = challenge(sqe)
        login_id = redirect.rsplit("/", 1)[1]
        poll_id = token_url.rsplit("/", 1)[1]
        assert redirect.startswith(sqe.trino_url + "/oauth2/token/initiate/")
        assert token_url.startswith(sqe.trino_url + "/oauth2/token/")
        assert len(login_id) >= 43 and len(poll_id) >= 43 and login_id != poll_id

        # the initiate URL sends the browser to Keycloak with code, PKCE S256 and a state
        r = session(sqe).get(redirect, allow_redirects=False)
        assert r.status_code == 303
        loc = r.headers["Location"]
        assert loc.startswith(keycloak.issuer("sqe") + "/protocol/openid-connect/auth?")
        q = query_params(loc)
        assert q["response_type"] == "code" and q["client_id"] == "sqe"
        assert q["redirect_uri"] == sqe.trino_url + "/oauth2/callback"
        assert q["code_challenge_method"] == "S256" and len(q["code_challenge"]) == 43
        assert len(q["state"]) >= 43 and q["state"] not in (login_id, poll_id)
        assert "openid" in q["scope"].split()

        page = Browser(sqe).login(redirect, user)
        assert page.status_code == 200, text_of(page)
        assert "close this window" in page.text
        got = poll(sqe, token_url)
        assert set(got) == {"token"}, got
        assert got["token"] not in page.text
        claims = keycloak_peer.decode_jwt(got["token"])[1]
        assert claims["preferred_username"] == user
        assert claims["iss"] == keycloak.issuer("sqe") and claims["azp"] == "sqe"
        # handed out once, then forgotten
        assert "error" in poll(sqe, token_url)


# --- the trino Python client ---------------------------------------------------------------------

def test_python_client_oauth2(sqe):
    from trino.auth import OAuth2Authentication
    for user in ("alice", "bob"):
        seen = []

        def handler(url, user=user):
            seen.append(url)
            r = Browser(sqe).login(url, user)
            assert r.status_code == 200, text_of(r)

        with trino_conn(sqe, auth=OAuth2Authentication(redirect_auth_url_handler=handler)) as c:
            cur = c.cursor()
            cur.execute("SELECT current_user")
            assert cur.fetchall() == [[user]]
            cur.execute("SELECT 40 + 2")
            assert cur.fetchall() == [[42]]  # the token is reused: no second login
        assert len(seen) == 1


# --- the Trino CLI -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def java():
    exe = shutil.which("java")
    if not exe or not JAR.exists():
        pytest.skip(f"needs java and {JAR} (tests/integration/run_client_tests.sh fetches it)")
    return exe


def test_trino_cli_external_authentication(java, sqe):
    for user in ("alice", "bob"):
        p = subprocess.Popen(
            [java, "-jar", str(JAR), "--server", sqe.trino_url, "--user", user,
             "--truststore-path", str(sqe.cert), "--external-authentication",
             "--external-authentication-redirect-handler", "PRINT",
             "--output-format", "CSV", "--execute", "SELECT current_user"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
        try:
            lines = []
            url = None
            timer = threading.Timer(300, p.kill)  # a loaded machine: JVM start, two logins
            timer.start()
            for line in p.stdout:
                lines.append(line)
                if line.strip().startswith("https://"):
                    url = line.strip()
                    break
            assert url, "".join(lines) + p.stderr.read() + sqe.log_text()[-3000:]
            assert url.startswith(sqe.trino_url + "/oauth2/token/initiate/")
            r = Browser(sqe).login(url, user)
            assert r.status_code == 200, text_of(r)
            out, err = p.communicate(timeout=300)
            timer.cancel()
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        assert p.returncode == 0, "".join(lines) + out + err + sqe.log_text()[-3000:]
        assert out.strip().splitlines()[-1] == f'"{user}"'


# --- hostile -------------------------------------------------------------------------------------

def test_unknown_ids(sqe):
    s = session(sqe)
    for pid in ("A" * 43, "short", "x" * 44, "..%2F..%2Fetc"):
        got = poll(sqe, sqe.trino_url + "/oauth2/token/" + pid)
        assert set(got) == {"error"} and "unknown or expired" in got["error"]
        r = s.get(sqe.trino_url + "/oauth2/token/initiate/" + pid, allow_redirects=False)
        assert r.status_code == 404 and "unknown" in r.text
    assert s.delete(sqe.trino_url + "/oauth2/token/" + "B" * 43).status_code == 204
    # a poll id is no login link and a login link no poll id
    redirect, token_url = challenge(sqe)
    poll_id = token_url.rsplit("/", 1)[1]
    login_id = redirect.rsplit("/", 1)[1]
    r = s.get(sqe.trino_url + "/oauth2/token/initiate/" + poll_id, allow_redirects=False)
    assert r.status_code == 404
    assert "unknown" in poll(sqe, sqe.trino_url + "/oauth2/token/" + login_id)["error"]
    assert s.delete(token_url).status_code == 204
    assert "unknown" in poll(sqe, token_url)["error"]


def test_forged_and_reused_state(sqe):
    s = session(sqe)
    redirect, token_url = challenge(sqe)
    b = Browser(sqe)
    callback = b.consent_redirect(redirect, "alice")
    q = query_params(callback)
    assert callback.startswith(sqe.trino_url + "/oauth2/callback?") and q["code"] and q["state"]

    # a forged state (right shape, wrong value) and no state at all: refused, login untouched
    forged = q["state"][:-1] + ("A" if q["state"][-1] != "A" else "B")
    for bad in ({"code": q["code"], "state": forged}, {"code": q["code"]},
                {"code": q["code"], "state": "<script>"}):
        r = s.get(sqe.trino_url + "/oauth2/callback", params=bad)
        assert r.status_code == 400 and "unknown" in r.text
        assert q["code"] not in r.text
    # the real callback completes the login; the token goes to the poller only
    r = b.http.get(callback)
    assert r.status_code == 200 and "close this window" in r.text
    # replayed: the state was used
    r = s.get(callback)
    assert r.status_code == 400 and "already completed" in r.text
    got = poll(sqe, token_url)
    assert keycloak_peer.decode_jwt(got["token"])[1]["preferred_username"] == "alice"
    assert got["token"] not in sqe.log_text() and q["code"] not in sqe.log_text()


def test_identity_provider_error(sqe):
    s = session(sqe)
    redirect, token_url = challenge(sqe)
    state = query_params(s.get(redirect, allow_redirects=False).headers["Location"])["state"]
    r = s.get(sqe.trino_url + "/oauth2/callback",
              params={"error": "access_denied", "error_description": "<b>no</b>",
                      "state": state})
    assert r.status_code == 400 and "access_denied" in r.text and "<b>" not in r.text
    got = poll(sqe, token_url)
    assert got == {"error": "authentication failed: the identity provider refused the login: "
                            "access_denied"}
    # an error code with characters no OAuth code has is not echoed
    redirect, token_url = challenge(sqe)
    state = query_params(s.get(redirect, allow_redirects=False).headers["Location"])["state"]
    r = s.get(sqe.trino_url + "/oauth2/callback",
              params={"error": "<script>alert(1)</script>", "state": state})
    assert r.status_code == 400 and "<script>" not in r.text and "invalid" in r.text
    assert "invalid" in poll(sqe, token_url)["error"]


def test_bogus_code(sqe):
    s = session(sqe)
    redirect, token_url = challenge(sqe)
    state = query_params(s.get(redirect, allow_redirects=False).headers["Location"])["state"]
    r = s.get(sqe.trino_url + "/oauth2/callback", params={"code": "not-a-code", "state": state})
    assert r.status_code == 400 and "invalid_grant" in r.text
    assert "invalid_grant" in poll(sqe, token_url)["error"]


def test_too_many_pending_logins(sqe):
    s = session(sqe)
    token_urls = []
    try:
        for _ in range(200):
            r = s.post(sqe.trino_url + "/v1/statement", data="SELECT 1",
                       headers={"X-Trino-User": "alice"})
            if r.status_code == 503:
                break
            assert r.status_code == 401
            bearer = [v for v in r.raw.headers.getlist("WWW-Authenticate")
                      if v.startswith("Bearer ")]
            token_urls.append(bearer[0].rsplit('x_token_server="', 1)[1].rstrip('"'))
        assert r.status_code == 503, "no limit on pending logins"
        assert r.headers["Retry-After"] and "too many external authentication logins" in r.text
        assert 1 <= len(token_urls) <= 64
    finally:
        for u in token_urls:
            s.delete(u)
    challenge(sqe)  # canceled logins free their places


def test_basic_credentials_get_no_login(sqe):
    r = session(sqe).post(sqe.trino_url + "/v1/statement", data="SELECT 1",
                          auth=("alice", "alice-password"))
    assert r.status_code == 401
    assert not [v for v in r.raw.headers.getlist("WWW-Authenticate") if "x_token_server" in v]


def test_log_has_no_secrets(sqe):
    out = sqe.log_text()
    assert "sqe-test-secret" not in out and "code_verifier" not in out


def test_challenges_are_no_failed_logins(sqe):
    """Every login starts with a request without credentials (the CLI's names its user): many
    of them must not put the user or the address into the failed-login backoff."""
    s = session(sqe)
    for _ in range(30):
        redirect, token_url = challenge(sqe)
        assert s.delete(token_url).status_code == 204
    r = s.post(sqe.trino_url + "/v1/statement", data="SELECT 1",
               headers={"X-Trino-User": "alice"})
    assert r.status_code == 401 and "Too many failed" not in r.text, r.text
    redirect, token_url = challenge(sqe)
    assert Browser(sqe).login(redirect, "alice").status_code == 200
    token = poll(sqe, token_url)["token"]
    r = s.post(sqe.trino_url + "/v1/statement", data="SELECT current_user",
               headers={"Authorization": "Bearer " + token, "X-Trino-User": "alice"})
    assert r.status_code == 200, r.text
    assert r.json()["id"]
