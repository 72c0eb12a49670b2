"""Tokens the identity tests sign themselves, with keys the real Keycloak publishes.

Role: hostile and rotated tokens need a signer the test controls. KeycloakKey imports an RSA key
the test generated into realm `sqe` (an `rsa` key provider with a low priority, so Keycloak
keeps signing with its own key) through the admin API: Keycloak then serves it in its JWKS with
a kid of its choosing, and tokens the test signs with it are "signed by the IdP" for SQE.
INTERFACE: b64url, sign_rs256(claims, key, kid, header_extra), hs256(claims, secret),
  unsigned(claims), KeycloakAdmin(kc).add_rsa_key() -> KeycloakKey(.kid, .private_key,
  .component_id), .remove_key(component_id), .jwks(), new_rsa_key().
NOTES: uses only `cryptography` (in the venv); nothing here is SQE code.
"""
import base64
import json
import time
import urllib.parse
import urllib.request

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _b64url_uint(n):
    return b64url(n.to_bytes((n.bit_length() + 7) // 8, "big"))


def new_rsa_key():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def sign_rs256(claims, key, kid=None, header_extra=None):
    header = {"alg": "RS256", "typ": "JWT"}
    if kid is not None:
        header["kid"] = kid
    header.update(header_extra or {})
    signing_input = (b64url(json.dumps(header).encode()) + "." +
                     b64url(json.dumps(claims).encode()))
    sig = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return signing_input + "." + b64url(sig)


def hs256(claims, secret, kid=None):
    import hmac
    import hashlib
    header = {"alg": "HS256", "typ": "JWT"}
    if kid is not None:
        header["kid"] = kid
    signing_input = (b64url(json.dumps(header).encode()) + "." +
                     b64url(json.dumps(claims).encode()))
    sig = hmac.new(secret, signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64url(sig)


def unsigned(claims, kid=None):
    header = {"alg": "none", "typ": "JWT"}
    if kid is not None:
        header["kid"] = kid
    return b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode()) + "."


def claims_for(kc, user, realm="sqe", audience="sqe", lifetime=300, **extra):
    now = int(time.time())
    c = {"iss": kc.issuer(realm), "aud": audience, "sub": "sub-" + user,
         "preferred_username": user, "iat": now, "exp": now + lifetime,
         "groups": ["forged"], "realm_access": {"roles": ["reader"]}}
    c.update(extra)
    return {k: v for k, v in c.items() if v is not None}


class KeycloakKey:
    def __init__(self, kid, private_key, component_id):
        self.kid = kid
        self.private_key = private_key
        self.component_id = component_id


class KeycloakAdmin:
    def __init__(self, kc, realm="sqe"):
        self.kc = kc
        self.realm = realm

    def _admin_token(self):
        form = urllib.parse.urlencode({"grant_type": "password", "client_id": "admin-cli",
                                       "username": self.kc.admin_user,
                                       "password": self.kc.admin_password}).encode()
        with urllib.request.urlopen(self.kc.base_url + "/realms/master/protocol/openid-connect/"
                                    "token", form, timeout=30) as r:
            return json.loads(r.read())["access_token"]

    def _call(self, method, path, body=None):
        req = urllib.request.Request(
            f"{self.kc.base_url}/admin/realms/{self.realm}{path}", method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": "Bearer " + self._admin_token(),
                     "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read()

    def jwks(self):
        with urllib.request.urlopen(self.kc.jwks_url(self.realm), timeout=30) as r:
            return json.loads(r.read())

    def add_rsa_key(self, name="test-key"):
        """Imports a fresh RSA key (priority 1: published, not used by Keycloak to sign)."""
        key = new_rsa_key()
        pem = key.private_bytes(serialization.Encoding.PEM,
                                serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption()).decode()
        _, _, body = self._call("GET", "")
        realm_id = json.loads(body)["id"]
        status, headers, _ = self._call("POST", "/components", {
            "name": name, "providerId": "rsa", "providerType": "org.keycloak.keys.KeyProvider",
            "parentId": realm_id,
            "config": {"priority": ["1"], "enabled": ["true"], "active": ["true"],
                       "algorithm": ["RS256"], "privateKey": [pem]}})
        assert status == 201, status
        component_id = headers["Location"].rstrip("/").rsplit("/", 1)[-1]
        n = _b64url_uint(key.public_key().public_numbers().n)
        for k in self.jwks()["keys"]:
            if k.get("n") == n:
                return KeycloakKey(k["kid"], key, component_id)
        raise AssertionError("the imported key is not in Keycloak's JWKS")

    def remove_key(self, component_id):
        status, _, _ = self._call("DELETE", f"/components/{component_id}")
        assert status == 204, status

    def realm_public_pem(self):
        """The PEM of the realm's own RS256 signing key (for the HS256 key-confusion token)."""
        _, _, body = self._call("GET", "/keys")
        for k in json.loads(body)["keys"]:
            if k.get("algorithm") == "RS256" and k.get("publicKey") and \
                    k.get("providerPriority", 0) >= 100:
                b = k["publicKey"]
                lines = [b[i:i + 64] for i in range(0, len(b), 64)]
                return ("-----BEGIN PUBLIC KEY-----\n" + "\n".join(lines) +
                        "\n-----END PUBLIC KEY-----\n").encode(), k["kid"]
        raise AssertionError("realm has no RS256 key")
