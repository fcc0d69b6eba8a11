"""Bearer tokens: the attack table (each forged or stale token is a 401 with WWW-Authenticate),
revocation, scopes, the secret file, and that a token never shows up in a log, error or audit."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jwt
import pytest
from conftest import Client
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi import FastAPI

from fruitctl import bootstrap
from fruitctl.transports.http.tokens import (
    AUDIENCE,
    ISSUER,
    SecretError,
    TokenError,
    TokenStore,
)

RSA_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
RSA_PUBLIC_PEM = RSA_KEY.public_key().public_bytes(
    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
)


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def claims(**changes: Any) -> dict[str, Any]:
    now = int(time.time())
    payload = {
        "iss": ISSUER,
        "aud": AUDIENCE,
        "sub": "mallory",
        "jti": "a1b2c3d4e5f6",
        "scope": "admin",
        "gen": 1,
        "iat": now,
        "nbf": now,
        "exp": now + 600,
    }
    payload.update(changes)
    return {k: v for k, v in payload.items() if v is not None}


def hand_made(
    header: dict[str, Any], payload: dict[str, Any], key: bytes | None, digest: Any = hashlib.sha256
) -> str:
    """A JWT built by hand, as an attacker would (PyJWT refuses to make some of these)."""
    signing_input = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(payload).encode())}"
    if key is None:
        return signing_input + "."
    signature = hmac.new(key, signing_input.encode(), digest).digest()
    return f"{signing_input}.{b64(signature)}"


Forge = Callable[[TokenStore], str]
ATTACKS: dict[str, Forge] = {
    "alg none": lambda s: hand_made({"alg": "none", "typ": "JWT"}, claims(), None),
    "alg None, signed": lambda s: hand_made({"alg": "None"}, claims(), s.key()),
    "wrong key": lambda s: jwt.encode(claims(), b"k" * 32, algorithm="HS256"),
    "RS256 with an attacker's key pair": lambda s: jwt.encode(claims(), RSA_KEY, algorithm="RS256"),
    "HS256 keyed with an RSA public key": lambda s: hand_made(
        {"alg": "HS256", "typ": "JWT"}, claims(), RSA_PUBLIC_PEM
    ),
    "HS512 with the right key": lambda s: hand_made(
        {"alg": "HS512", "typ": "JWT"}, claims(), s.key(), hashlib.sha512
    ),
    "expired": lambda s: jwt.encode(
        claims(iat=int(time.time()) - 7200, nbf=None, exp=int(time.time()) - 3600),
        s.key(),
        algorithm="HS256",
    ),
    "not before in the future": lambda s: jwt.encode(
        claims(nbf=int(time.time()) + 3600, exp=int(time.time()) + 7200), s.key(), algorithm="HS256"
    ),
    "issued in the future": lambda s: jwt.encode(
        claims(iat=int(time.time()) + 3600), s.key(), algorithm="HS256"
    ),
    "wrong audience": lambda s: jwt.encode(claims(aud="someone-else"), s.key(), algorithm="HS256"),
    "audience list": lambda s: jwt.encode(claims(aud=[AUDIENCE, "x"]), s.key(), algorithm="HS256"),
    "wrong issuer": lambda s: jwt.encode(claims(iss="evil"), s.key(), algorithm="HS256"),
    "missing exp": lambda s: jwt.encode(claims(exp=None), s.key(), algorithm="HS256"),
    "missing iat": lambda s: jwt.encode(claims(iat=None), s.key(), algorithm="HS256"),
    "missing aud": lambda s: jwt.encode(claims(aud=None), s.key(), algorithm="HS256"),
    "missing iss": lambda s: jwt.encode(claims(iss=None), s.key(), algorithm="HS256"),
    "missing scope": lambda s: jwt.encode(claims(scope=None), s.key(), algorithm="HS256"),
    "unknown scope": lambda s: jwt.encode(claims(scope="root"), s.key(), algorithm="HS256"),
    "old generation": lambda s: jwt.encode(claims(gen=0), s.key(), algorithm="HS256"),
    "session token as a bearer": lambda s: s.session(s.verify(s.issue("admin", 60)[0]), 60),
    "tampered payload": lambda s: _tampered(s),
    "garbage": lambda s: "not.a.jwt",
}


def _tampered(store: TokenStore) -> str:
    token = store.issue("agent", 600, "bob")[0]
    header, _, signature = token.split(".")
    return f"{header}.{b64(json.dumps(claims(scope='admin')).encode())}.{signature}"


def unauthorized(response: Any, token: str | None = None) -> None:
    assert response.status_code == 401, response.text
    assert response.headers["www-authenticate"].startswith('Bearer realm="fruitctl"')
    assert response.json()["error"]["code"] == "UNAUTHORIZED"
    if token:
        assert token not in response.text
        assert token not in response.headers["www-authenticate"]


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_forged_and_stale_tokens_are_401(
    attack: str, api: FastAPI, tokens: TokenStore, admin_token: str
) -> None:
    token = ATTACKS[attack](tokens)
    unauthorized(Client(api, token).get("/reminders"), token)
    unauthorized(Client(api, token).post("/proposals/pany/approve"), token)


def test_the_genuine_token_passes(admin: Client) -> None:
    assert admin.get("/reminders").status_code == 200  # the table's 401s are not for any token


@pytest.mark.parametrize("name", ["access_token", "token", "jwt"])
def test_a_token_in_the_query_string_is_401_even_beside_a_good_header(
    name: str, anonymous: Client, agent: Client, agent_token: str
) -> None:
    unauthorized(anonymous.get("/reminders", params={name: agent_token}), agent_token)
    unauthorized(agent.get("/reminders", params={name: agent_token}), agent_token)


@pytest.mark.parametrize(
    "header", ["", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "bearer\tabc", "Token abc"]
)
def test_malformed_authorization_is_401(header: str, anonymous: Client) -> None:
    unauthorized(anonymous.get("/reminders", headers={"Authorization": header}))


def test_no_header_is_401(anonymous: Client) -> None:
    response = anonymous.get("/skills")
    unauthorized(response)
    assert 'error="invalid_request"' in response.headers["www-authenticate"]


def test_revoking_one_token_and_then_all(api: FastAPI, tokens: TokenStore) -> None:
    one, claims_one = tokens.issue("agent", 600, "one")
    two, _ = tokens.issue("admin", 600, "two")
    assert Client(api, one).get("/reminders").status_code == 200
    assert tokens.revoke(claims_one.token_id)
    unauthorized(Client(api, one).get("/reminders"))
    assert Client(api, two).get("/reminders").status_code == 200
    assert not tokens.revoke("nope")
    tokens.revoke_all()
    unauthorized(Client(api, two).get("/reminders"))
    fresh = tokens.issue("agent", 600, "three")[0]
    assert Client(api, fresh).get("/reminders").status_code == 200
    assert {t["name"]: t["active"] for t in tokens.tokens()} == {
        "one": False,
        "two": False,
        "three": True,
    }


def test_revocation_reaches_a_server_started_before_it(
    api: FastAPI, home: Path, agent_token: str
) -> None:
    # Another process (the CLI) revokes through its own store: the server's store sees the file.
    assert Client(api, agent_token).get("/reminders").status_code == 200
    other = TokenStore(home / "secrets")
    [issued] = [t for t in other.tokens() if t["scope"] == "agent"]
    time.sleep(0.01)  # a new mtime even on coarse file systems
    assert other.revoke(issued["id"])
    unauthorized(Client(api, agent_token).get("/reminders"))


def test_an_agent_token_cannot_decide(agent: Client) -> None:
    proposal = agent.post("/reminders", json={"title": "x"}).json()["proposalId"]
    for action in ("approve", "reject", "undo"):
        response = agent.post(f"/proposals/{proposal}/{action}")
        assert response.status_code == 403
        assert response.json()["error"]["details"] == {"requiredScope": "admin"}
    assert agent.get(f"/proposals/{proposal}").json()["status"] == "PENDING"


def test_each_token_is_its_own_actor(tokens: TokenStore) -> None:
    _, first = tokens.issue("agent", 60, "claude")
    _, second = tokens.issue("agent", 60, "claude")
    _, person = tokens.issue("admin", 60, "alice")
    assert first.actor != second.actor
    assert first.actor.kind == "agent"
    assert (person.actor.kind, person.actor.name) == ("human", f"alice.{person.token_id}")


def test_the_secret_is_private_and_long(home: Path, tokens: TokenStore) -> None:
    key = tokens.key()
    secret = home / "secrets" / "http_jwt_secret"
    assert len(key) >= 32
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600
    assert stat.S_IMODE(secret.parent.stat().st_mode) == 0o700
    assert TokenStore(home / "secrets").key() == key  # made once, then read


def test_an_exposed_or_short_secret_is_refused(home: Path, tokens: TokenStore) -> None:
    tokens.key()
    secret = home / "secrets" / "http_jwt_secret"
    os.chmod(secret, 0o644)
    with pytest.raises(SecretError, match="readable by other users"):
        TokenStore(home / "secrets").key()
    os.chmod(secret, 0o600)
    secret.write_text("abcd\n")
    with pytest.raises(SecretError, match="no usable secret"):
        TokenStore(home / "secrets").key()


def test_an_unreadable_token_state_refuses_every_token(
    home: Path, tokens: TokenStore, agent_token: str
) -> None:
    (home / "secrets" / "http_tokens.json").write_text("{broken")
    with pytest.raises(TokenError):
        TokenStore(home / "secrets").verify(agent_token)


def test_tokens_never_reach_logs_or_the_audit(
    app: bootstrap.App, agent: Client, admin: Client, agent_token: str, admin_token: str
) -> None:
    proposal = agent.post("/reminders", json={"title": "x"}).json()["proposalId"]
    admin.post(f"/proposals/{proposal}/approve")
    agent.get("/reminders", params={"access_token": agent_token})
    app.gateway.flush()
    written = "".join(
        path.read_text(errors="replace")
        for path in app.config.paths.log_dir.rglob("*")
        if path.is_file()
    )
    assert written  # the calls were logged ...
    audit = json.dumps(admin.get("/audit").json())
    for token in (agent_token, admin_token):
        assert token not in written  # ... without the tokens
        assert token not in audit
        assert token.split(".")[2] not in written
